"""kiwisolver's enaml-like benchmark: the stock, HPy (CPython ABI, universal ABI) and Cystck wheels, interleaved.

    python ports/kiwi/bench.py [--quick] [--rounds N] [--output FILE]

The workload is the sdist's ``benchmarks/enaml_like_benchmark.py``, run as
shipped: its module builds a solver with 37 variables, two edit variables
and ~110 constraints, and times ``bench_update_variables(loops, solver)``
(six pairs of ``suggestValue`` on the two edit variables, each followed by
``updateVariables()``, per loop).  It imports ``perf``, the old name of
pyperf; the worker runs it through ``workloads.py``, whose ``perf``
stand-in has ``time.perf_counter`` and a ``Runner.bench_time_func`` that
hands us the timed function and its arguments instead of starting pyperf's
own worker processes, so that the variants can be measured side by side.
Nothing in the workload is changed.

Every measurement is a fresh interpreter that sees one variant's installed
wheel and nothing else called kiwisolver (kiwi_port.variant_command): it
runs the module, warms up, then times ``VALUES`` calls of ``loops`` loops.
A round measures every variant (kiwi_port.VARIANTS) in turn, the order
reversed from one round to the next; the first round is a warm-up and is
dropped.  Reported per variant: the time per loop (median of each
process's values, then the median over rounds, with a distribution-free
95% confidence interval) and its ratio to stock, both as the ratio of
medians and as the median of the per-round ratios (each round's processes
ran close together).  After
timing, each worker reports the value of every variable of the benchmark's
solver: the variants must agree exactly, or the exit status is 1.

Where valgrind is installed (and not with --quick), each variant's
instructions are also counted with callgrind, per loop of the benchmark
and per build of its layout (its ~110 constraints written with Python
operators, the most API-bound part of kiwi): figures that the noise of a
shared machine cannot move.

Results: ``eval/results/kiwi.json`` (``build/kiwi/bench-quick.json`` with
--quick) and a table on standard output.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from eval.harness.config import VARIANT_LABELS
from eval.harness.stats import median_ci
from eval.results.schema import port_summary
from ports import portkit
from ports.kiwi import kiwi_port as kp

WORKLOADS_FILE = kp.PORT_DIR / "workloads.py"
BENCHMARK = "benchmarks/enaml_like_benchmark.py"

# Runs in the worker after kiwi_port.variant_command's bootstrap (kiwisolver
# is imported and checked); argv: workloads.py, loops, warm-up calls, timed calls.
_WORKER = r"""
import importlib.util, json
spec = importlib.util.spec_from_file_location("kiwi_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
loops, warmups, values = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
func, args, inner_loops, namespace = workloads.run_benchmark_module()
for _ in range(warmups):
    func(loops, *args)
per_loop = [func(loops, *args) / (loops * inner_loops) for _ in range(values)]
print(json.dumps({"per_loop": per_loop, "state": workloads.solver_state(kiwisolver, namespace)}))
"""

# Instruction counts: a workload of workloads.py under valgrind's
# callgrind, once with repeat 1 and once with 1 + N; the difference over N
# is the instructions per repeat, a figure machine noise cannot touch.
# suggest_update is the benchmark (per loop); build_layout builds the
# benchmark's constraints with Python operators (per build), where calls
# into the extension are most of the work.
_IR_WORKER = r"""
import importlib.util
spec = importlib.util.spec_from_file_location("kiwi_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
workloads.WORKLOADS[sys.argv[2]](kiwisolver, int(sys.argv[3]))
"""
IR_REPEATS = {"suggest_update": 1000, "build_layout": 100}

MODES = {
    # loops per timed call, timed calls per process, warm-up calls, rounds
    False: dict(loops=1000, values=15, warmups=3, rounds=31),
    True: dict(loops=300, values=5, warmups=1, rounds=3),
}


def summary_of(report):
    """The summary every port writes (eval/results/schema.py): the timed
    workload, suggest_update, per round, with its instruction count."""
    counts = report["instructions"] and report["instructions"]["suggest_update (per loop)"]
    return port_summary(
        report["unit"], report["reference"],
        {"suggest_update": {v: r["per_round"] for v, r in report["variants"].items()}},
        counts and {"suggest_update": {v: counts[v] for v in report["variants"]}},
        "instructions per loop")


def summary(values):
    (lo, hi), cov = median_ci(values)
    return {"median": statistics.median(values), "ci95": [lo, hi], "ci_coverage": round(cov, 4),
            "mean": statistics.fmean(values), "min": min(values), "max": max(values)}


def run_worker(variant, mode):
    command = kp.variant_command(variant, _WORKER, str(WORKLOADS_FILE), str(mode["loops"]),
                                 str(mode["warmups"]), str(mode["values"]))
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"{variant}: benchmark worker failed ({result.returncode})\n"
                         f"{result.stdout}\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def instructions_per_repeat(variant, workload):
    """Instructions per repeat of a workload (callgrind), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    n = IR_REPEATS[workload]
    low, high = (portkit.callgrind_instructions(
        kp.variant_command(variant, _IR_WORKER, str(WORKLOADS_FILE), workload, str(repeat)),
        timeout=1200) for repeat in (1, 1 + n))
    return (high - low) / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: checks that it all works")
    parser.add_argument("--rounds", type=int, help="measured rounds (default: 31, or 3 with --quick)")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip the instruction counts (callgrind; always skipped with --quick)")
    parser.add_argument("--output", type=Path,
                        help="JSON results file (default: eval/results/kiwi.json; with --quick "
                             "build/kiwi/bench-quick.json, so that a quick run, such as the one "
                             "of `make test`, never replaces the recorded results)")
    args = parser.parse_args(argv)
    if args.output is None:
        args.output = (kp.BUILD_ROOT / "bench-quick.json" if args.quick
                       else kp.REPO_ROOT / "eval" / "results" / "kiwi.json")
    mode = dict(MODES[args.quick])
    if args.rounds:
        mode["rounds"] = args.rounds

    missing = [v for v in kp.VARIANTS if kp.wheel_path(v) is None]
    if missing:
        raise SystemExit("; ".join(kp.missing_reason(v) for v in missing))
    kp.ensure_upstream()
    variants = list(kp.VARIANTS)
    ref = kp.REFERENCE
    others = [v for v in variants if v != ref]
    width = max(len(v) for v in variants)

    per_process = {v: [] for v in variants}
    best_per_process = {v: [] for v in variants}
    per_round_ratio = {v: [] for v in others}
    per_round_best_ratio = {v: [] for v in others}
    states = {}
    print(f"enaml-like benchmark, {mode['loops']} loops x {mode['values']} values per process, "
          f"1 warm-up round + {mode['rounds']} rounds, variants in turn: {', '.join(variants)}")
    for r in range(mode["rounds"] + 1):
        order = variants if r % 2 == 0 else variants[::-1]
        medians, bests = {}, {}
        for v in order:
            out = run_worker(v, mode)
            states.setdefault(v, out["state"])
            if out["state"] != states[v]:
                raise SystemExit(f"{v}: the solver's final state differs between processes")
            medians[v] = statistics.median(out["per_loop"])
            bests[v] = min(out["per_loop"])
        tag = "warm-up" if r == 0 else f"round {r}"
        print(f"  {tag:>9}: " + "  ".join(f"{v} {medians[v] * 1e6:7.3f}" for v in variants)
              + " us;  / stock: " + "  ".join(f"{medians[v] / medians[ref]:.3f}" for v in others))
        if r == 0:
            continue
        for v in variants:
            per_process[v].append(medians[v])
            best_per_process[v].append(bests[v])
        for v in others:
            per_round_ratio[v].append(medians[v] / medians[ref])
            per_round_best_ratio[v].append(bests[v] / bests[ref])

    instructions = None
    if not (args.quick or args.no_instructions):
        print("  instruction counts (callgrind) ...")
        instructions = {w: {v: instructions_per_repeat(v, w) for v in variants} for w in IR_REPEATS}
        if instructions["suggest_update"][ref] is None:
            instructions = None
            print("  (valgrind not found: no instruction counts)")
        else:
            for w, counts in instructions.items():
                counts["ratio"] = {v: counts[v] / counts[ref] for v in others}

    agree = {v: states[v] == states[ref] for v in others}
    results = {v: summary([x * 1e6 for x in per_process[v]]) | {"per_round": [x * 1e6 for x in per_process[v]]}
               for v in variants}
    for v in variants:
        results[v]["best_per_round"] = [x * 1e6 for x in best_per_process[v]]
    ratios = {}
    for v in others:
        # The same from each process's fastest call: less sensitive to
        # bursts of load from other processes on a shared machine.
        ratios[v] = summary(per_round_ratio[v]) | {
            "per_round": per_round_ratio[v],
            "ratio_of_medians": results[v]["median"] / results[ref]["median"],
            "fastest_call": summary(per_round_best_ratio[v]) | {"per_round": per_round_best_ratio[v]}}
    report = {
        "schema": "cystck-port-bench/2",
        "port": "kiwi",
        "benchmark": f"kiwisolver-{kp.VERSION} {BENCHMARK} (bench_update_variables)",
        "unit": "microseconds per loop (6 x suggestValue(width), suggestValue(height), updateVariables())",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "command": "python ports/kiwi/bench.py" + (" --quick" if args.quick else "")
                   + (f" --rounds {args.rounds}" if args.rounds else "")
                   + (" --no-instructions" if args.no_instructions else ""),
        "reference": ref,
        "method": {**mode, "warmup_rounds": 1, "order": "all variants in turn, order reversed every other round",
                   "process_value": "median of the process's timed calls (ratios.<variant>); "
                                    "its fastest call (ratios.<variant>.fastest_call)",
                   "ratio": f"<variant> / {ref} per round (the two processes of a round ran close "
                            "together), then the median over rounds",
                   "isolation": "one fresh interpreter per (round, variant), importing only that wheel"},
        "machine": {"platform": platform.platform(), "machine": platform.machine(),
                    "python": platform.python_version()},
        "wheels": {v: {"file": kp.wheel_path(v).name, "sha256": kp.sha256_of(kp.wheel_path(v))}
                   for v in variants},
        "variants": results,
        "ratios": ratios,
        "instructions": None if instructions is None else {
            "suggest_update (per loop)": instructions["suggest_update"],
            "build_layout (per build)": instructions["build_layout"],
            "method": "callgrind Ir of workloads.py's workload with repeat 1 + N minus repeat 1, "
                      f"over N ({IR_REPEATS})"},
        "results_agree": agree,
        "final_state": states[ref],
    }
    report["summary"] = summary_of(report)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")

    width = max(len(VARIANT_LABELS.get(v, v)) for v in variants)
    print(f"\n  {'variant':<{width}} {'median us/loop':>15} {'95% CI':>21} "
          f"{'/ ' + VARIANT_LABELS.get(ref, ref):>9} "
          f"{'95% CI':>15} {'fastest call':>13}")
    for v in variants:
        s = results[v]
        line = (f"  {VARIANT_LABELS.get(v, v):<{width}} {s['median']:15.3f} "
                f"[{s['ci95'][0]:8.3f}, {s['ci95'][1]:8.3f}]")
        if v in ratios:
            q = ratios[v]
            line += (f" {q['median']:9.3f} [{q['ci95'][0]:.3f}, {q['ci95'][1]:.3f}] "
                     f"{q['fastest_call']['median']:13.3f}")
        print(line)
    print(f"  (/ {VARIANT_LABELS.get(ref, ref)}: median of per-round ratios with its 95% CI; "
          "fastest call: the same from each process's fastest call)")
    if instructions is not None:
        for w, unit in (("suggest_update", "loop of the benchmark"), ("build_layout", "build of its layout")):
            c = instructions[w]
            print(f"  instructions per {unit}: " + ", ".join(
                f"{v} {c[v]:.0f}" + (f" ({c['ratio'][v]:.3f})" if v in others else "") for v in variants))
    print(f"  wrote {args.output}")
    if not all(agree.values()):
        bad = [v for v, ok in agree.items() if not ok]
        print(f"  ERROR: the solvers of {', '.join(bad)} ended in a state different from {ref}'s",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
