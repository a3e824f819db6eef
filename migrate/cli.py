"""The ``cystck-migrate`` command."""
import argparse
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time

import regex

from . import analysis, cppcheck, engine, report, source, translate
from .project import includers

SOURCE_SUFFIXES = translate.SOURCE_SUFFIXES
EXIT_INPUT = 2


class InputError(Exception):
    """Bad input: reported as one line, exit status 2, nothing written."""


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="cystck-migrate",
        description="Translate a stock C-API extension (a file or a directory of .c .h .cc .cpp "
                    ".hpp files) to the Cystck API.")
    ap.add_argument("path", nargs="?", help="file or directory to translate")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="DIR",
                     help="write the translation here (default: PATH-cystck beside PATH)")
    out.add_argument("--in-place", action="store_true",
                     help="rewrite PATH itself, keeping each changed file as FILE.orig")
    ap.add_argument("--backup-suffix", default=".orig", metavar="SUFFIX",
                    help="suffix of the backups written by --in-place (default .orig)")
    ap.add_argument("--force", action="store_true", help="write into an output directory that exists")
    ap.add_argument("--rules", metavar="NAMES", help="only these rules or packs (comma-separated)")
    ap.add_argument("--exclude", metavar="NAMES", help="not these rules or packs (comma-separated)")
    ap.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    ap.add_argument("--report", metavar="FILE", help="write the report as JSON to FILE")
    ap.add_argument("--diff", action="store_true", help="print the unified diff")
    ap.add_argument("--no-cppcheck", action="store_true", help="do not run cppcheck on the output")
    ap.add_argument("--check", action="store_true",
                    help="compile every translated file against Cystck.h; exit 1 if one fails")
    ap.add_argument("--cflags", default="", metavar="FLAGS",
                    help="extra compiler flags for --check and cppcheck (e.g. '-DVERSION=\"1\" -Ideps')")
    ap.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list inferred custom types")
    args = ap.parse_args(argv)
    if not args.list_rules and not args.path:
        ap.error("the following arguments are required: path")
    return args


def _names(text):
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def list_rules():
    """One entry per rule: precedence, name, pack, the first sentence of
    its description and the rules it needs, wrapped to the terminal (at
    most 100 columns)."""
    width = min(shutil.get_terminal_size().columns, 100)
    lines = []
    for cls in engine.all_rules():
        needs = f" Needs: {', '.join(cls.needs)}." if cls.needs else ""
        lines += textwrap.wrap(f"{cls.precedence:4d}  {cls.name} [{cls.pack}]: {cls.summary()}{needs}", width=width,
                               subsequent_indent=" " * 8, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines) + "\n"


def collect(path, output):
    """Read the input: (root, {relative path: text}, [relative paths of
    other files]).  Raises InputError for anything unusable."""
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    root = path if path.is_dir() else path.parent
    if path.is_dir():
        candidates = []
        for dirpath, dirnames, filenames in os.walk(path):
            dp = pathlib.Path(dirpath)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                                 and (output is None or (dp / d).resolve() != output.resolve()))
            candidates += [dp / f for f in sorted(filenames)]
    else:
        candidates = [path]
    sources, others = {}, []
    for f in candidates:
        rel = f.relative_to(root).as_posix()
        if f.suffix.lower() not in SOURCE_SUFFIXES:
            if path.is_dir():
                others.append(rel)
            continue
        try:
            data = f.read_bytes()
        except OSError as exc:
            raise InputError(f"{f}: cannot read: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{f}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
        if translate.uses_python(text):
            try:
                source.check_scannable(text)
            except source.ScanError as exc:
                raise InputError(f"{f}:{exc.line}: {exc.problem}") from None
        sources[rel] = text
    if path.is_file() and path.suffix.lower() not in SOURCE_SUFFIXES:
        raise InputError(f"{path}: not a C or C++ source ({', '.join(sorted(SOURCE_SUFFIXES))})")
    if not sources:
        raise InputError(f"no C or C++ sources under {path} ({', '.join(sorted(SOURCE_SUFFIXES))})")
    return root, sources, others


def default_output(path):
    base = path if path.is_dir() else path.with_suffix("")
    return base.parent / (base.name + "-cystck")


# "file:line:col: error: ..." (gcc, clang), "fatal error" included; not the
# notes and context lines around them.
_COMPILER_ERROR = regex.compile(r":\s*(?:fatal\s+)?error\s*:")

#: What current C compilers reject (GCC 14 and Clang 16 by default) while
#: older ones only warn: in translated code each is a handle or pointer of
#: the wrong kind, which builds and then misbehaves, so --check fails on it.
CURRENT_C_ERRORS = ("-Werror=incompatible-pointer-types", "-Werror=int-conversion",
                    "-Werror=implicit-function-declaration")


def compiled_units(rels, included_by=None):
    """The files to compile for the translated ``rels``: each source file,
    but one that another file ``#include``s (``included_by``: path -> the
    paths that include it, project.includers), which a unity build compiles
    only as part of it: then the files that include it and are included by
    none (in order, once each)."""
    included_by = included_by or {}
    units = []
    for rel in rels:
        if pathlib.PurePath(rel).suffix.lower() in translate.HEADER_SUFFIXES:
            continue
        roots, seen, todo = [], {rel}, [rel]
        while todo:
            path = todo.pop()
            above = sorted(included_by.get(path, ()))
            if not above:
                roots.append(path)
            todo += [q for q in above if q not in seen]
            seen.update(above)
        units += [r for r in sorted(roots) if r not in units
                  and pathlib.PurePath(r).suffix.lower() not in translate.HEADER_SUFFIXES]
    return units


def compile_check(out_root, rels, cflags, included_by=None):
    """Compile each translated file against Cystck.h (syntax and types
    only), a file another includes as part of that one (compiled_units).
    Returns the check section of the report."""
    import cystck
    failures = []
    includes = [cystck.get_include(), sysconfig.get_paths()["include"]]
    units = compiled_units(rels, included_by)
    for rel in units:
        f = out_root / rel
        cpp = f.suffix.lower() in translate.CPP_SUFFIXES
        compiler = os.environ.get("CXX", "c++") if cpp else os.environ.get("CC", "cc")
        # C in the GNU dialect, as setuptools builds it (no -std: the
        # compiler's default): strict ISO C hides POSIX names such as
        # SSIZE_MAX (PY_SSIZE_T_MAX) when a system header precedes Python.h.
        cmd = [compiler, "-fsyntax-only", "-std=c++17" if cpp else "-std=gnu11", f"-I{f.parent}", f"-I{out_root}"]
        cmd += [] if cpp else list(CURRENT_C_ERRORS)
        cmd += [f"-I{d}" for d in includes] + shlex.split(cflags) + [str(f)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            errors = [ln for ln in proc.stderr.splitlines() if _COMPILER_ERROR.search(ln)]
            failures.append({"file": rel, "errors": errors or proc.stderr.strip().splitlines()[-1:]})
    return {"total": len(units), "passed": len(units) - len(failures), "failures": failures}


def main(argv=None):
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return exc.code
    if args.list_rules:
        sys.stdout.write(list_rules())
        return 0
    try:
        return run(args)
    except InputError as exc:
        print(f"cystck-migrate: error: {exc}", file=sys.stderr)
        return EXIT_INPUT


def say_selection(added, left_out):
    """Name on stderr the rules --rules and --exclude brought in or left
    out beyond those they named (engine.selection)."""
    if added:
        print(f"cystck-migrate: also running {', '.join(added)} (what the chosen rules need)", file=sys.stderr)
    if left_out:
        print(f"cystck-migrate: also leaving out {', '.join(left_out)} (they need an excluded rule)",
              file=sys.stderr)


def check_output_dir(path, output, force):
    """Refuse an output directory that cannot or must not be written."""
    if path.is_dir():
        try:
            output.resolve().relative_to(path.resolve())
            raise InputError(f"{output}: the output directory is inside the input {path}")
        except ValueError:
            pass
    existing = next(p for p in [output, *output.parents] if p.exists())
    if not existing.is_dir():
        raise InputError(f"{existing}: exists and is not a directory")
    if existing == output and not force and any(output.iterdir()):
        raise InputError(f"{output}: exists (use --force to write into it)")


def check_no_input_written(root, inputs, targets):
    """Refuse to write any of ``targets`` that is one of the input files
    (the same file, through whatever path or link): only --in-place
    rewrites the input."""
    def identity(f):
        st = f.stat()
        return st.st_dev, st.st_ino
    taken = {identity(root / rel) for rel in inputs}
    for target in targets:
        if target.exists() and identity(target) in taken:
            raise InputError(f"{target}: is an input file and would be overwritten "
                             "(only --in-place rewrites the input)")


def run(args):
    started = time.perf_counter()
    path = pathlib.Path(args.path)
    if args.in_place:
        output = None
    else:
        output = pathlib.Path(args.output) if args.output else default_output(path)
        if path.exists():
            check_output_dir(path, output, args.force)
    if args.report and not pathlib.Path(args.report).resolve().parent.is_dir():
        raise InputError(f"{args.report}: no such directory for the report")
    try:
        classes, added, left_out = engine.selection(_names(args.rules), _names(args.exclude))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if not args.quiet:
        say_selection(added, left_out)
    rules = [c() for c in classes]
    root, sources, others = collect(path, output)
    inputs = [*sources, *others]
    if args.in_place:     # the backups must not replace a source (an empty suffix would)
        check_no_input_written(root, sources, [_backup(root / rel, args) for rel in sources])
    else:
        check_no_input_written(root, inputs, [output / rel for rel in inputs])
    if args.report:
        check_no_input_written(root, inputs, [pathlib.Path(args.report)])
    units = translate.translate_files(sources, rules)
    elapsed = time.perf_counter() - started

    notes = []
    for unit in units.values():
        notes += unit.finish_notes()
        notes += analysis.analyse(unit)
    out_root = root if args.in_place else output
    translated = [u.path for u in units.values() if u.text != u.original]
    _write(units, others, root, out_root, args)

    cppcheck_status = "skipped (--no-cppcheck)"
    if not args.no_cppcheck:
        include_dirs = [d[2:] for d in shlex.split(args.cflags) if d.startswith("-I")]
        cppcheck_status, found = cppcheck.run([out_root / r for r in translated
                                               if pathlib.PurePath(r).suffix.lower() not in translate.HEADER_SUFFIXES],
                                              include_dirs + [str(out_root)], out_root)
        notes += found
    check = compile_check(out_root, translated, args.cflags,
                          includers({**sources, **{u.path: u.text for u in units.values()}})) \
        if args.check else None
    rep = report.build(units, notes, input_path=path, output_path=out_root, elapsed=elapsed,
                       cppcheck_status=cppcheck_status, check=check)
    if args.report:
        pathlib.Path(args.report).write_text(json.dumps(rep, indent=2) + "\n")
    if not args.quiet:
        sys.stdout.write(report.render(rep, show_diff=args.diff, verbose=args.verbose))
    elif args.diff:
        sys.stdout.write(rep["diff"])
    if check is not None and check["failures"]:
        return 1
    return 0


def _backup(target, args):
    return target.with_name(target.name + args.backup_suffix)


def _write(units, others, root, out_root, args):
    if args.in_place:
        for unit in units.values():
            if unit.text == unit.original:
                continue
            target = root / unit.path
            shutil.copy2(target, _backup(target, args))
            target.write_text(unit.text)
        return
    out_root.mkdir(parents=True, exist_ok=True)
    for unit in units.values():
        target = out_root / unit.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(unit.text)
    for rel in others:
        target = out_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
