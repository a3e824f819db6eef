"""Scalene: the command that profiles a program, and what its JSON says.

Scalene samples the running program and attributes each sample to a source
line, split into time in the Python interpreter, in native code and in the
system, as percentages of the elapsed time; with memory profiling on it
also samples memcpy and reports, per line, the copy volume in MB/s.  Per
run we add up the lines of every profiled file: the percentages times the
elapsed time are the Python, native and system seconds (the paper's
Table 2), and the per-line rates add up to the program's copy volume (its
Figure 2).
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

from .config import COPY_PROBE
from .runner import RunError, run

TIME_FIELDS = {
    "python_s": "n_cpu_percent_python",
    "native_s": "n_cpu_percent_c",
    "system_s": "n_sys_percent",
}
COPY_FIELD = "n_copy_mb_s"
PROBE_MEGABYTES = 512


def version() -> str | None:
    try:
        return importlib.metadata.version("scalene")
    except importlib.metadata.PackageNotFoundError:
        return None


def command(program: Path, args: list[str], outfile: Path, options: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "scalene", "run", *options, "-o", str(outfile),
            str(program), "---", *args]


def metrics(profile: dict) -> dict:
    """Seconds of Python, native and system time, total (elapsed) seconds,
    copy volume in MB/s (None without memory profiling), and the share of
    the elapsed time that Scalene attributed to some line."""
    if "elapsed_time_sec" not in profile or "files" not in profile:
        raise RunError("Scalene wrote an empty profile (no samples: is the run too short?)")
    elapsed = float(profile["elapsed_time_sec"])
    lines = [line for data in profile["files"].values() for line in data["lines"]]
    percents = {key: sum(line[field] for line in lines) for key, field in TIME_FIELDS.items()}
    result = {key: percent / 100.0 * elapsed for key, percent in percents.items()}
    result["total_s"] = elapsed
    result["copy_mb_s"] = (sum(line[COPY_FIELD] for line in lines)
                           if profile.get("memory") else None)
    result["attributed_percent"] = sum(percents.values())
    return result


def profile(program: Path, args: list[str], outfile: Path, options: tuple[str, ...],
            timeout: float) -> dict:
    """Run `program` under Scalene with `options`; its metrics."""
    outfile.parent.mkdir(parents=True, exist_ok=True)
    outfile.unlink(missing_ok=True)
    run(command(program, args, outfile, options), timeout)
    if not outfile.is_file():
        raise RunError("Scalene wrote no profile")
    return metrics(json.loads(outfile.read_text()))


def probe_copy_volume(work_dir: Path, options: tuple[str, ...], timeout: float) -> dict:
    """Whether Scalene measures copy volume here: profile a program that
    copies PROBE_MEGABYTES with memcpy and see what it reports."""
    probe = {"copied_mb": PROBE_MEGABYTES}
    try:
        measured = profile(COPY_PROBE, [str(PROBE_MEGABYTES)], work_dir / "copy-probe.json",
                           options, timeout)
    except RunError as error:
        return {**probe, "available": False, "reason": f"Scalene failed on the probe: {error}"}
    if measured["copy_mb_s"] is None:
        return {**probe, "available": False, "reason": "Scalene ran without memory profiling"}
    probe["measured_mb"] = measured["copy_mb_s"] * measured["total_s"]
    if probe["measured_mb"] <= 0:
        return {**probe, "available": False,
                "reason": (f"Scalene reported no copying for a program that copies "
                           f"{PROBE_MEGABYTES} MB with memcpy")}
    return {**probe, "available": True, "reason": None}
