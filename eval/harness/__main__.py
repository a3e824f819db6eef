"""python -m eval.harness [--quick] [--ports P,...] [--variants V,...] [--report-only]

Run from the repository root.  Measures every built variant of every port
under Scalene and bare, reads the micro-benchmark and migration results,
and writes eval/report/: REPORT.md, results.json and the PNG charts.
Exit status 1 if a variant failed (the report is written all the same).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from pathlib import Path

from . import charts, paper, profiler, report, sources
from .config import FULL, QUICK, REPORT_DIR, VARIANTS, WORK_DIR, Plan
from .measure import PHASES, make_groups, measure, summarize_scalene, summarize_wall
from .ports import Port, VariantState, load_ports, variant_states
from .progress import Progress, format_duration

SCHEMA = "cystck-eval/1"
RESULTS_FILE = "results.json"
REPORT_FILE = "REPORT.md"
# A single run that takes longer than this has hung.
TIMEOUT = {False: 3600.0, True: 300.0}


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"platform": platform.platform(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "load_average": list(os.getloadavg())}


def _comma_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m eval.harness", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="3 runs (1 dropped) and the ports' small inputs: a pipeline check")
    parser.add_argument("--ports", type=_comma_list, help="only these ports")
    parser.add_argument("--variants", type=_comma_list, help="only these variants")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: rewrite REPORT.md and the charts from results.json")
    parser.add_argument("--output-dir", type=Path, default=REPORT_DIR,
                        help="where the report goes (default: eval/report)")
    args = parser.parse_args(argv)
    unknown = set(args.variants or ()) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(sorted(unknown))}; "
                     f"known: {', '.join(VARIANTS)}")
    return args


def collect(ports: list[Port], variants: tuple[str, ...], plan: Plan) -> dict:
    """Measure everything; the results as written to results.json."""
    states: dict[str, dict[str, VariantState]] = {}
    for port in ports:
        states[port.name] = variant_states(port, variants)
        for variant, state in states[port.name].items():
            detail = "" if state.status == "ok" else f": {state.reason}"
            print(f"{port.name} {variant}: {state.status}{detail}", file=sys.stderr)

    timeout = TIMEOUT[plan.quick]
    print("checking that Scalene measures copy volume here...", file=sys.stderr, flush=True)
    copy_probe = profiler.probe_copy_volume(WORK_DIR, plan.scalene_options, timeout)
    if not copy_probe["available"]:
        print(f"copy volume unavailable: {copy_probe['reason']}", file=sys.stderr)

    groups = {phase: make_groups(ports, states) for phase in PHASES}
    progress = Progress({(phase, group.key): plan.runs * len(group.combos)
                         for phase in PHASES for group in groups[phase]})
    for phase in PHASES:
        measure(groups[phase], phase, plan, progress, WORK_DIR, timeout)

    scalene = {g.key: g for g in groups["scalene"]}
    wall = {g.key: g for g in groups["wall"]}
    port_results = {}
    for port in ports:
        entry = {
            "title": port.spec.title,
            "paper_row": port.spec.paper_row,
            "status": "missing" if port.problem else "ok",
            "reason": port.problem,
            "variants": {v: {"status": s.status, "reason": s.reason}
                         for v, s in states[port.name].items()},
            "workloads": {},
        }
        for workload, repeat in port.sizes.items():
            key = f"{port.name}/{workload}"
            entry["workloads"][workload] = {
                "repeat": repeat,
                "description": port.descriptions[workload],
                "scalene": summarize_scalene(scalene[key], states[port.name], plan,
                                             copy_probe["available"]),
                "wall": summarize_wall(wall[key], states[port.name], plan),
            }
        port_results[port.name] = entry

    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": plan.quick,
        "plan": {"runs": plan.runs, "dropped": plan.dropped, "confidence": 0.95},
        "machine": machine_info(),
        "scalene": {"version": profiler.version(), "options": list(plan.scalene_options),
                    "copy_probe": copy_probe},
        "variants": list(variants),
        "ports": port_results,
        "micro": sources.micro(),
        "corpus": sources.corpus(),
        "migration": sources.migration([port.name for port in ports]),
        "paper": paper.load(),
    }


def failures(results: dict) -> list[str]:
    """Every variant that failed, as 'port/workload variant (phase): reason'."""
    found = []
    for name, port in results["ports"].items():
        for variant, state in port["variants"].items():
            if state["status"] == "failed":
                found.append(f"{name} {variant} (build): {state.get('reason')}")
        for workload, data in port["workloads"].items():
            for phase in PHASES:
                for variant, entry in data[phase].items():
                    if entry["status"] == "failed" and port["variants"][variant]["status"] == "ok":
                        found.append(f"{name}/{workload} {variant} ({phase}): "
                                     f"{entry.get('reason')}")
    return found


def write(results: dict, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    temporary = directory / f".{RESULTS_FILE}.tmp"
    temporary.write_text(json.dumps(results, indent=1) + "\n")
    temporary.replace(directory / RESULTS_FILE)
    charts.write_all(results, directory)
    (directory / REPORT_FILE).write_text(report.render(results))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = datetime.datetime.now()
    if args.report_only:
        results = json.loads((args.output_dir / RESULTS_FILE).read_text())
        # A results.json from before the corpus was part of the report.
        results.setdefault("corpus", sources.corpus())
    else:
        plan = QUICK if args.quick else FULL
        ports = load_ports(plan.quick, args.ports)
        results = collect(ports, tuple(args.variants or VARIANTS), plan)
    write(results, args.output_dir)
    elapsed = (datetime.datetime.now() - started).total_seconds()
    print(f"wrote {args.output_dir / REPORT_FILE} in {format_duration(elapsed)}", file=sys.stderr)
    failed = failures(results)
    if failed:
        print("FAILED:", *failed, sep="\n  ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
