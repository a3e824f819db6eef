"""The measurement loop: every (port, workload) in every built variant, the
variants interleaved, once under Scalene and once bare for the wall time.

Run k of every variant of a workload happens before run k + 1 of any of
them, in an order rotated from run to run, so that drift in the machine's
speed (other load, frequency, heat) hits every variant alike.  Every run is
a fresh interpreter that sees one variant only (the driver's docstring says
how).  A variant whose run fails is not run again in that phase and is
reported as failed with the reason; the others go on.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import profiler
from .config import DRIVER, REFERENCE, Plan
from .ports import Port, VariantState
from .progress import Progress
from .runner import RunError, run
from .stats import estimate, median

PHASES = ("scalene", "wall")
SCALENE_METRICS = ("python_s", "native_s", "system_s", "total_s")
#: Extra attempts at a run that failed, per phase.  Scalene itself now and
#: then fails a run that is fine without it (a short run with no sample, an
#: error in its signal handlers), so a profiled run is tried again; every
#: retry is recorded and shown in the report.  A variant that fails again
#: is failed.  Bare runs get no second chance: there a failure is the
#: variant's.
RETRIES = {"scalene": 2, "wall": 0}


@dataclass
class Combo:
    """One variant of one (port, workload) in one phase, and its runs."""

    variant: str
    site: Path
    runs: list[dict] = field(default_factory=list)
    failure: str | None = None
    #: "run k: reason" of every failed attempt that was tried again.
    retries: list[str] = field(default_factory=list)


@dataclass
class Group:
    """The variants of one (port, workload) that are measured side by side."""

    port: Port
    workload: str
    combos: list[Combo]

    @property
    def key(self) -> str:
        return f"{self.port.name}/{self.workload}"

    @property
    def repeat(self) -> int:
        return self.port.sizes[self.workload]

    def combo(self, variant: str) -> Combo | None:
        return next((c for c in self.combos if c.variant == variant), None)


def make_groups(ports: list[Port], states: dict[str, dict[str, VariantState]]) -> list[Group]:
    return [
        Group(port, workload, [Combo(variant, state.site)
                               for variant, state in states[port.name].items()
                               if state.status == "ok"])
        for port in ports if not port.problem
        for workload in port.sizes
    ]


def run_once(group: Group, combo: Combo, phase: str, plan: Plan, work_dir: Path,
             timeout: float) -> dict:
    """One run of the driver; its result (and Scalene's metrics)."""
    result_file = work_dir / "result.json"
    result_file.unlink(missing_ok=True)
    args = [str(combo.site), group.port.spec.import_name, str(group.port.workloads_file),
            group.workload, str(group.repeat), str(result_file)]
    if phase == "scalene":
        # The last profile of each combination stays in work_dir for a
        # closer look (scalene view --cli FILE).
        profile = work_dir / "profiles" / f"{group.port.name}-{group.workload}-{combo.variant}.json"
        measured = profiler.profile(DRIVER, args, profile, plan.scalene_options, timeout)
    else:
        run([sys.executable, "-I", str(DRIVER), *args], timeout)
        measured = {}
    if not result_file.is_file():
        raise RunError("the driver wrote no result")
    return {**json.loads(result_file.read_text()), **measured}


def rotated(items: list, shift: int) -> list:
    if not items:
        return []
    shift %= len(items)
    return items[shift:] + items[:shift]


def measure(groups: list[Group], phase: str, plan: Plan, progress: Progress, work_dir: Path,
            timeout: float) -> None:
    work_dir.mkdir(parents=True, exist_ok=True)
    for k in range(plan.runs):
        for group in groups:
            for combo in rotated(group.combos, k):
                if combo.failure:
                    continue
                progress.start(phase, group.key, combo.variant, k + 1, plan.runs)
                for attempt in range(RETRIES[phase] + 1):
                    try:
                        combo.runs.append(run_once(group, combo, phase, plan, work_dir,
                                                   timeout))
                        break
                    except RunError as error:
                        if attempt < RETRIES[phase]:
                            combo.retries.append(f"run {k + 1}: {error}")
                            continue
                        combo.failure = (f"run {k + 1} of {plan.runs} failed"
                                         + (f" {attempt + 1} times" if attempt else "")
                                         + f": {error}")
                        progress.skip(phase, group.key, plan.runs - k - 1)
                progress.finish(phase, group.key)
    for group in groups:
        check_results(group)


def check_results(group: Group) -> None:
    """Fail the variants whose workload result varies between runs or
    differs from the reference variant's: a fast wrong answer is no result."""
    for combo in group.combos:
        if not combo.failure and len({r["checksum"] for r in combo.runs}) > 1:
            combo.failure = ("the workload's result differs between runs: "
                             + ", ".join(sorted({r["checksum"] for r in combo.runs})))
    reference = group.combo(REFERENCE)
    if reference is None or reference.failure:
        return
    expected = reference.runs[0]["checksum"]
    for combo in group.combos:
        if not combo.failure and combo.runs[0]["checksum"] != expected:
            combo.failure = (f"the workload's result {combo.runs[0]['checksum']} differs from "
                             f"the {REFERENCE} variant's {expected}")


def _not_measured(state: VariantState) -> dict:
    return {"status": state.status, "reason": state.reason}


def summarize_scalene(group: Group, states: dict[str, VariantState], plan: Plan,
                      copy_available: bool) -> dict[str, dict]:
    summary = {}
    for variant, state in states.items():
        combo = group.combo(variant)
        if combo is None:
            summary[variant] = _not_measured(state)
        elif combo.failure:
            summary[variant] = {"status": "failed", "reason": combo.failure, "runs": combo.runs,
                                "retries": combo.retries}
        else:
            kept = combo.runs[plan.dropped:]
            entry = {"status": "ok", "runs": combo.runs, "retries": combo.retries}
            for metric in SCALENE_METRICS:
                entry[metric] = estimate([r[metric] for r in kept])
            entry["copy_mb_s"] = (estimate([r["copy_mb_s"] for r in kept])
                                  if copy_available else None)
            entry["attributed_percent"] = median([r["attributed_percent"] for r in kept])
            summary[variant] = entry
    return summary


def summarize_wall(group: Group, states: dict[str, VariantState], plan: Plan) -> dict[str, dict]:
    reference = group.combo(REFERENCE)
    reference_ok = reference is not None and not reference.failure
    summary = {}
    for variant, state in states.items():
        combo = group.combo(variant)
        if combo is None:
            summary[variant] = _not_measured(state)
            continue
        if combo.failure:
            summary[variant] = {"status": "failed", "reason": combo.failure,
                                "runs": [r["seconds"] for r in combo.runs]}
            continue
        seconds = [r["seconds"] for r in combo.runs]
        entry = {"status": "ok", "runs": seconds,
                 "seconds": estimate(seconds[plan.dropped:])}
        if variant == REFERENCE:
            entry["ratio"] = None
        elif reference_ok:
            reference_kept = [r["seconds"] for r in reference.runs][plan.dropped:]
            ratios = [t / r for t, r in zip(seconds[plan.dropped:], reference_kept, strict=True)]
            entry["ratio"] = estimate(ratios)
        else:
            entry["ratio"] = None
            entry["ratio_reason"] = f"the {REFERENCE} variant was not measured"
        summary[variant] = entry
    return summary
