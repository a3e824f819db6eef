"""PicoNumPy benchmark: the variants side by side, in one run.

    python ports/piconumpy/bench.py [--quick] [--variants stock,hpy_cpython]

The two workloads, `board` and `ops`, are in workloads.py: pure Python
over `piconumpy.array`.

Each (round, workload, variant) runs in a fresh interpreter that sees only
that variant's installed wheel (piconumpy_variants.variant_command); the
variants take turns within every round, in an order rotated from round to
round, so that drift of the machine's speed hits them all alike.  The first
round is a warm-up and is dropped.  Reported per variant: the median time
with a distribution-free 95% confidence interval, and the ratio of medians
variant / stock.  Results go to eval/results/piconumpy.json (from the
repository root) and to a table on standard output.

Where valgrind is installed (and not with --quick or --no-instructions),
each workload's instructions per repeat are also counted for every variant
(callgrind, see callgrind_ops.py), with their ratios to stock: figures the
noise of a shared machine cannot move, unlike the times.  Quick runs write
build/piconumpy/bench-quick.json, not eval/results/ (`make test` runs the
quick evaluation, which must not overwrite the measured results).

All variants must compute bit-identical results (they do the same IEEE
operations); the benchmark checks this, so a fast but wrong variant cannot
pass unnoticed.  The exit status is 1 if a variant failed, disagreed, or
was asked for (by default: every variant of the table) but is not built.
"""

from __future__ import annotations

from pathlib import Path

from ports.piconumpy import workloads as _workloads
from ports.piconumpy.workloads import SIZES, WORKLOADS  # noqa: F401  (this module's interface)

# The workers load the workloads by path, as the harness does.
WORKLOADS_FILE = Path(_workloads.__file__)


# Executed in the worker interpreter (piconumpy is already imported): one
# small warm-up call, then the timed one.
_WORKER = """
import importlib.util, json, time
spec = importlib.util.spec_from_file_location("piconumpy_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
workload = workloads.WORKLOADS[sys.argv[2]]
repeat = int(sys.argv[3])
workload(piconumpy, max(1, repeat // 50))
start = time.perf_counter()
checksum = workload(piconumpy, repeat)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "checksum": checksum.hex()}))
"""


# -- statistics -------------------------------------------------------------

def summary_of(report):
    """The summary every port writes (eval/results/schema.py), from the
    timed runs and their instruction counts."""
    from eval.results.schema import port_summary   # see summarize()

    counts = report["instructions"] and report["instructions"]["per_repeat"]
    return port_summary(
        "seconds per run of the workload", report["reference"],
        {w: {v: t["runs"] for v, t in by_variant.items()} for w, by_variant in report["times"].items()},
        counts, "instructions per repeat of the workload")


def summarize(values):
    # Imported here: workers load this module with the standard library
    # only; main() imports piconumpy_variants, which makes eval/ importable.
    from eval.harness.stats import median, median_ci

    (low, high), cover = median_ci(values)
    return {
        "runs": values,
        "median": median(values),
        # The interval aims at 95%; ci_coverage is what the number of runs
        # allows (below 6 runs, less).
        "ci": [low, high],
        "ci_coverage": round(cover, 4),
    }


# -- the runner -------------------------------------------------------------

def machine_info():
    import os
    import platform
    import sys

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
    }


def run_worker(pv, variant, workload, repeat):
    import json
    import subprocess

    command = pv.variant_command(variant, _WORKER, str(WORKLOADS_FILE), workload, str(repeat))
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            f"{workload} on {variant} failed (status {result.returncode}):\n{result.stderr}"
        )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None):
    import argparse
    import datetime
    import json
    import os
    import shutil
    import sys
    from pathlib import Path

    from eval.harness.config import VARIANT_LABELS
    from ports.piconumpy import piconumpy_variants as pv

    parser = argparse.ArgumentParser(
        description="Benchmark the PicoNumPy variants side by side.")
    parser.add_argument("--quick", action="store_true",
                        help="small workloads and 3 rounds: a smoke test for CI")
    parser.add_argument("--variants",
                        help="comma-separated variants (default: every variant of the table)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="comma-separated workloads (default: %(default)s)")
    parser.add_argument("--rounds", type=int,
                        help="measured rounds (default: 10, or 3 with --quick)")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip the instruction counts (callgrind; always skipped "
                             "with --quick or without valgrind)")
    parser.add_argument("--output", type=Path,
                        help="JSON results file (default: eval/results/piconumpy.json; "
                             "with --quick, build/piconumpy/bench-quick.json)")
    args = parser.parse_args(argv)
    if args.output is None:
        args.output = (pv.BUILD_ROOT / "bench-quick.json" if args.quick
                       else pv.REPO_ROOT / "eval" / "results" / "piconumpy.json")

    rounds = args.rounds or (3 if args.quick else 10)
    warmup_rounds = 0 if args.quick else 1
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s): {', '.join(unknown)}")
    sizes = {w: SIZES[args.quick][w] for w in workloads}

    variants, missing = pv.select_variants(pv.parse_variant_list(args.variants))
    for name in missing:
        print(f"MISSING: {pv.missing_reason(name)}", file=sys.stderr)
    if not variants:
        print("no variant to benchmark", file=sys.stderr)
        return 1

    load_at_start = list(os.getloadavg())
    times = {w: {v: [] for v in variants} for w in workloads}
    checksums = {w: {} for w in workloads}
    failures = []
    for round_number in range(warmup_rounds + rounds):
        shift = round_number % len(variants)
        order = variants[shift:] + variants[:shift]
        measured = round_number >= warmup_rounds
        label = f"round {round_number + 1 - warmup_rounds}/{rounds}" if measured else "warm-up"
        print(f"{label}: " + ", ".join(order), file=sys.stderr, flush=True)
        for workload in workloads:
            for variant in order:
                if variant in failures:
                    continue
                try:
                    result = run_worker(pv, variant, workload, sizes[workload])
                except RuntimeError as error:
                    print(error, file=sys.stderr)
                    failures.append(variant)
                    continue
                checksums[workload].setdefault(variant, result["checksum"])
                if measured:
                    times[workload][variant].append(result["seconds"])

    measured_variants = [v for v in variants if v not in failures]
    disagreements = {
        w: dict(sums) for w, sums in checksums.items()
        if len({sums[v] for v in measured_variants if v in sums}) > 1
    }

    report = {
        "benchmark": "piconumpy",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "machine": machine_info(),
        # Other work on the machine slows runs down and widens the intervals:
        # the load averages (1, 5, 15 min) tell how quiet it was.
        "load_average": {"start": load_at_start, "end": list(os.getloadavg())},
        "compile_args": list(pv.COMPILE_ARGS),
        "rounds": rounds,
        "warmup_rounds_dropped": warmup_rounds,
        "reference": pv.REFERENCE,
        "variants": measured_variants,
        "missing": {name: pv.missing_reason(name) for name in missing},
        "failed": failures,
        "workloads": {
            w: {"description": (WORKLOADS[w].__doc__ or "").strip(), "repeat": sizes[w]}
            for w in workloads
        },
        "checksums_disagree": disagreements,
        "times": {
            w: {v: summarize(times[w][v]) for v in measured_variants} for w in workloads
        },
        "ratios": {},
    }
    for w in workloads:
        if pv.REFERENCE in measured_variants:
            reference = report["times"][w][pv.REFERENCE]["median"]
            report["ratios"][w] = {
                v: report["times"][w][v]["median"] / reference for v in measured_variants
            }
        else:
            report["ratios"][w] = None   # nothing to divide by
    # Ratios of the runs made in the same round, which share the machine's
    # state of the moment: less sensitive to slow drift than the ratio of
    # medians (kept as "ratios", the headline number).
    report["paired_ratios"] = {}
    for w in workloads:
        if pv.REFERENCE not in measured_variants:
            report["paired_ratios"][w] = None
            continue
        reference_runs = times[w][pv.REFERENCE]
        report["paired_ratios"][w] = {
            v: summarize([t / r for t, r in zip(times[w][v], reference_runs, strict=True)])
            for v in measured_variants if v != pv.REFERENCE
        }

    report["instructions"] = None
    if not (args.quick or args.no_instructions) and shutil.which("valgrind"):
        import callgrind_ops

        print("counting instructions (callgrind)", file=sys.stderr, flush=True)
        try:
            counts = {w: {v: callgrind_ops.workload_instructions(v, w)
                          for v in measured_variants}
                      for w in workloads}
        except RuntimeError as error:      # the times are still worth writing
            print(error, file=sys.stderr)
            failures.append("instruction counts")
        else:
            report["instructions"] = {
                "method": callgrind_ops.METHOD,
                "per_repeat": counts,
                "ratios": {w: ({v: counts[w][v] / counts[w][pv.REFERENCE]
                                for v in measured_variants}
                               if pv.REFERENCE in measured_variants else None)
                           for w in workloads},
            }
    report["summary"] = summary_of(report)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")

    label = {v: VARIANT_LABELS.get(v, v) for v in (*variants, *missing, pv.REFERENCE)}
    print(f"\n{'workload':<9} {'variant':<19} {'median s':>9} {'95% CI (s)':>17} "
          f"{'/ ' + label[pv.REFERENCE]:>8} {'paired, 95% CI':>22}")
    for w in workloads:
        for v in measured_variants:
            t = report["times"][w][v]
            low, high = t["ci"]
            ratio = report["ratios"][w][v] if report["ratios"][w] else float("nan")
            paired = (report["paired_ratios"][w] or {}).get(v)
            paired_text = (f"{paired['median']:.2f} [{paired['ci'][0]:.2f}, {paired['ci'][1]:.2f}]"
                           if paired else "")
            note = "" if t["ci_coverage"] >= 0.95 else f"  (CIs cover {t['ci_coverage']:.0%})"
            print(f"{w:<9} {label[v]:<19} {t['median']:>9.3f} {f'[{low:.3f}, {high:.3f}]':>17} "
                  f"{ratio:>8.2f} {paired_text:>22}{note}")
    if report["instructions"] is not None:
        print(f"\n{'workload':<9} {'variant':<19} {'instructions per repeat':>24} "
              f"{'/ ' + label[pv.REFERENCE]:>8}")
        for w in workloads:
            ratios = report["instructions"]["ratios"][w] or {}
            for v in measured_variants:
                count = report["instructions"]["per_repeat"][w][v]
                print(f"{w:<9} {label[v]:<19} {count:>24,.0f} {ratios.get(v, float('nan')):>8.3f}")
    for name in missing:
        print(f"{'':<9} {label[name]:<19} missing (not built)")
    for name in failures:
        print(f"{'':<9} {label[name]:<19} FAILED")
    for w, sums in disagreements.items():
        print(f"{w}: variants disagree on the result: {sums}")
    try:
        shown = args.output.relative_to(pv.REPO_ROOT)
    except ValueError:
        shown = args.output
    print(f"\nwritten to {shown}")
    return 1 if (missing or failures or disagreements) else 0


if __name__ == "__main__":
    raise SystemExit(main())
