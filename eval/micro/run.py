"""Micro-benchmark harness: every benchmark on every built variant, side by side.

    python eval/micro/run.py [--quick] [--out FILE]

Builds the variants (build.py), then measures with one worker process per
built variant (worker.py).  For each benchmark the variants are interleaved:
after one warm-up sample each, every round times each variant once, in a
freshly shuffled order, with the same number of loops (calibrated on the
stock variant so that one sample lasts about --target-ms).  Slow drifts of
the machine (frequency, other load) then hit all variants alike instead of
whichever happened to run last.  The full run repeats this with several
successive sets of fresh worker processes (--processes), because a single
process's memory layout can make one variant consistently faster or slower
for its whole lifetime.

Reported per benchmark and variant: ns per call (median over all rounds) with a
distribution-free 95% confidence interval of the median; per variant the
ratio to stock (median of the per-round ratios, i.e. each sample divided by
the stock sample of the same round, with its 95% CI) and the geometric mean
of those ratios.  Times include the timing loop itself ("loop overhead" in
the table and the JSON), which is the same for every variant, so the ratios
understate relative differences slightly rather than inflating them.
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import pathlib
import platform
import random
import subprocess
import sys
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]

import microbench  # noqa: E402  (beside this script: first on sys.path)

from eval.harness.config import VARIANT_LABELS  # noqa: E402
from eval.harness.stats import median, median_ci  # noqa: E402


def _load_build_module():
    # Loaded by path under a private name: "build" is also the name of a
    # popular PyPI package that may be importable in the same environment.
    spec = importlib.util.spec_from_file_location("_micro_build", HERE / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


micro_build = _load_build_module()

BASELINE = "stock"
DEFAULT_OUT = REPO / "eval" / "results" / "micro.json"
# Quick runs check that everything works (`make test` does one): they must
# not overwrite the measured results.
QUICK_OUT = REPO / "build" / "micro" / "micro-quick.json"
FULL = {"processes": 5, "rounds": 6, "target_ms": 25.0}
QUICK = {"processes": 1, "rounds": 7, "target_ms": 2.0}
SCHEMA = "cystck-micro/1"


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------

def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------

class WorkerDied(Exception):
    pass


class Worker:
    """A worker.py process hosting one variant's module."""

    def __init__(self, entry):
        self.variant = entry["variant"]
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "worker.py"), json.dumps(entry)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=HERE)
        hello = self._read()
        if not hello.get("ready"):
            self.close()
            raise WorkerDied(hello.get("error", "worker did not start"))
        self.broken = hello["broken"]

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            raise WorkerDied(f"worker exited with status {rc}")
        return json.loads(line)

    def time(self, bench, loops):
        """Total nanoseconds for ``loops`` evaluations of the benchmark."""
        try:
            self.proc.stdin.write(json.dumps({"op": "time", "bench": bench, "loops": loops}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise WorkerDied(f"worker exited with status {self.proc.wait()}") from None
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply["ns"]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def calibrate(worker, bench, target_ns):
    """Loops for one sample to last about target_ns: grow tenfold until a
    sample lasts a tenth of the target, then scale linearly."""
    loops = 1
    while True:
        elapsed = worker.time(bench, loops)
        if elapsed >= target_ns / 10:
            return max(1, round(loops * target_ns / elapsed))
        loops *= 10


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def measure(entries, benches, processes, rounds, target_ns, rng):
    """Interleaved measurements of the built variants ``entries``.

    The samples come from ``processes`` successive sets of worker processes
    (one worker per variant in each set), ``rounds`` rounds per benchmark in
    each.  Fresh processes re-draw the things that stay fixed for a
    process's lifetime -- address-space layout, where objects and code land
    in the caches -- which otherwise bias every sample of a process the
    same way, beyond what any confidence interval over rounds can show.

    Returns (data, failed, errors): data is {bench: {"loops": n, "samples":
    {variant: [ns per call, one per round, None where missing]}}}, failed is
    {variant: reason} for modules that did not load or workers that died,
    errors is {bench: {variant: error}} for benchmarks that raised.
    """
    total = processes * rounds
    data, failed, errors = {}, {}, {}
    for gen in range(processes):
        workers = {}
        try:
            for v, e in entries.items():
                if v in failed:
                    continue
                try:
                    workers[v] = Worker(e)
                except WorkerDied as exc:
                    failed[v] = f"module does not load: {exc}"
                    continue
                for bench, err in workers[v].broken.items():
                    errors.setdefault(bench, {})[v] = err
            if BASELINE not in workers:
                break
            for bench in benches:
                skip = errors.get(bench, {})
                active = [v for v in workers if v not in failed and v not in skip]
                if BASELINE not in active:
                    continue
                if bench not in data:
                    try:
                        loops = calibrate(workers[BASELINE], bench, target_ns)
                    except RuntimeError as exc:
                        errors.setdefault(bench, {})[BASELINE] = str(exc)
                        continue
                    data[bench] = {"loops": loops, "samples": {v: [None] * total for v in entries}}
                loops = data[bench]["loops"]
                for r in range(-1, rounds):          # round -1 is the warm-up
                    order = list(active)
                    rng.shuffle(order)
                    for v in order:
                        if v in failed or v in errors.get(bench, {}):
                            continue
                        try:
                            ns = workers[v].time(bench, loops)
                        except WorkerDied as exc:
                            failed[v] = f"worker died during {bench}: {exc}"
                            continue
                        except RuntimeError as exc:
                            errors.setdefault(bench, {})[v] = str(exc)
                            continue
                        if r >= 0:
                            data[bench]["samples"][v][gen * rounds + r] = ns / loops
        finally:
            for w in workers.values():
                w.close()
        _log(f"  process set {gen + 1}/{processes} done")
    return data, failed, errors


def summarize(data, variants, errors):
    """Medians, CIs and ratios to the baseline, as stored in the JSON."""
    benchmarks, loop_overhead = {}, {}
    for bench, d in data.items():
        results = {}
        for v, xs in d["samples"].items():
            xs = [x for x in xs if x is not None]
            if not xs:
                continue
            (lo, hi), cov = median_ci(xs)
            results[v] = {"median_ns": round(median(xs), 3), "ci95_ns": [round(lo, 3), round(hi, 3)],
                          "ci_level": round(cov, 4), "min_ns": round(min(xs), 3),
                          "samples_ns": [round(x, 3) for x in xs]}
        if bench == microbench.EMPTY_LOOP.name:
            loop_overhead = {v: r["median_ns"] for v, r in results.items()}
            continue
        b = microbench.BY_NAME[bench]
        benchmarks[bench] = {"stmt": b.stmt, "description": b.description,
                             "loops": d["loops"], "results": results}
        if bench in errors:
            benchmarks[bench]["errors"] = errors[bench]

    ratios = {}
    for v in variants:            # a variant that crashed gets no summary figure
        per_bench = {}
        for bench, d in data.items():
            if bench == microbench.EMPTY_LOOP.name or v not in d["samples"]:
                continue
            pairs = [(x, s) for x, s in zip(d["samples"][v], d["samples"][BASELINE])
                     if x is not None and s is not None]
            if not pairs:
                continue
            rs = [x / s for x, s in pairs]
            (lo, hi), cov = median_ci(rs)
            per_bench[bench] = {"ratio": round(median(rs), 4), "ci95": [round(lo, 4), round(hi, 4)],
                                "ci_level": round(cov, 4)}
        if per_bench:
            ratios[v] = {"per_benchmark": per_bench,
                         "geomean": round(geomean([r["ratio"] for b, r in per_bench.items()
                                                   if microbench.BY_NAME[b].in_geomean]), 4),
                         "benchmarks_measured": len(per_bench)}
    return benchmarks, loop_overhead, ratios


def machine_info():
    info = {"platform": platform.platform(), "machine": platform.machine(),
            "cpu_count": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


def compiler_info(manifest, variants):
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        version = subprocess.run([cc, "--version"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        version = None
    per_variant = {v: {k: e[k] for k in ("compile_args", "define_macros", "extra_compile_args_from_api")
                       if k in e}
                   for v, e in manifest["variants"].items() if v in variants and e["status"] == "ok"}
    return {"cc": sysconfig.get_config_var("CC"), "version": version,
            "interpreter_cflags": manifest["interpreter_cflags"],
            "compile_args": manifest["compile_args"],
            "note": "every variant is compiled with interpreter_cflags followed by compile_args; "
                    "per_variant lists what each build actually received",
            "per_variant": per_variant}


def format_table(report):
    """Benchmarks down, variants across: ns/call and the ratio to stock."""
    variants = [v for v in micro_build.VARIANTS if v in report["ran"]]
    ratios = report["ratios"]
    rows = [["benchmark"] + [VARIANT_LABELS.get(v, v) for v in variants]]
    for bench, b in report["benchmarks"].items():
        row = [bench]
        for v in variants:
            r = b["results"].get(v)
            if r is None:
                row.append("-")
                continue
            cell = f"{r['median_ns']:.1f} ns"
            ratio = ratios.get(v, {}).get("per_benchmark", {}).get(bench)
            if v != BASELINE and ratio is not None:
                cell += f"  {ratio['ratio']:.2f}x"
            row.append(cell)
        rows.append(row)
    rows.append(["geomean"] + [f"{ratios[v]['geomean']:.2f}x" if v in ratios else "-"
                               for v in variants])
    overhead = report["loop_overhead_ns"]
    rows.append(["(loop overhead)"] + [f"{overhead[v]:.1f} ns" if v in overhead else "-"
                                       for v in variants])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for i, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells))
        if i == 0 or i == len(rows) - 3:
            lines.append("  ".join("-" * w for w in widths))
    reference = VARIANT_LABELS[BASELINE]
    lines.append(f"ns: median per call.  x: median of the per-round ratios to the {reference} "
                 f"(each sample over the {reference} sample")
    lines.append("of the same round, which cancels machine drift), so it can differ from "
                 "the ratio of the medians.")
    for v, e in report["variants"].items():
        if e["status"] != "ok":
            reason = (e.get("reason") or "").strip().splitlines()
            lines.append(f"{VARIANT_LABELS.get(v, v)}: {e['status']}"
                         + (f" -- {reason[0]}" if reason else ""))
    return "\n".join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"CI mode: {QUICK['rounds']} rounds of ~{QUICK['target_ms']} ms samples, "
                             "one process per variant")
    parser.add_argument("--out", type=pathlib.Path,
                        help="JSON report (default: eval/results/micro.json; with --quick, "
                             "build/micro/micro-quick.json)")
    parser.add_argument("--processes", type=int,
                        help=f"successive sets of worker processes (default {FULL['processes']})")
    parser.add_argument("--rounds", type=int,
                        help=f"rounds per benchmark and process set (default {FULL['rounds']})")
    parser.add_argument("--target-ms", type=float,
                        help=f"duration of one stock sample (default {FULL['target_ms']})")
    parser.add_argument("--variants", nargs="+", metavar="VARIANT",
                        help="variants to build and run (stock is always included)")
    parser.add_argument("--benchmarks", nargs="+", metavar="NAME",
                        help="benchmarks to run: " + ", ".join(microbench.BY_NAME))
    parser.add_argument("--seed", type=int, help="seed of the order shuffling")
    parser.add_argument("--no-build", action="store_true",
                        help="use the modules of the last build as they are")
    args = parser.parse_args(argv)
    for v in args.variants or ():
        if v not in micro_build.VARIANTS:
            parser.error(f"unknown variant {v!r}; choose from {', '.join(micro_build.VARIANTS)}")
    for b in args.benchmarks or ():
        if b not in microbench.BY_NAME:
            parser.error(f"unknown benchmark {b!r}")
    return args


def main(argv=None):
    args = parse_args(argv)
    mode = QUICK if args.quick else FULL
    processes = args.processes or mode["processes"]
    rounds = args.rounds or mode["rounds"]
    target_ms = args.target_ms or mode["target_ms"]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2 ** 32)
    wanted = [v for v in micro_build.VARIANTS
              if not args.variants or v in args.variants or v == BASELINE]

    if args.no_build:
        manifest = micro_build.read_manifest()
        if manifest is None:
            _log("no build manifest: run without --no-build first")
            return 1
    else:
        _log("building: " + ", ".join(wanted))
        micro_build.build_all(tuple(wanted))
        manifest = micro_build.read_manifest()
    entries = {v: manifest["variants"][v] for v in wanted if v in manifest["variants"]}
    variant_status = {v: {k: e.get(k) for k in ("status", "reason", "module", "source", "log")
                          if e.get(k) is not None}
                      for v, e in entries.items()}
    for v in micro_build.VARIANTS:
        if v not in variant_status:
            variant_status[v] = {"status": "skipped", "reason": "not requested (--variants)"}
    variant_status = {v: variant_status[v] for v in micro_build.VARIANTS}

    built = {v: e for v, e in entries.items() if e["status"] == "ok"}
    benches = [b.name for b in microbench.BENCHMARKS
               if not args.benchmarks or b.name in args.benchmarks]
    if BASELINE in built:
        _log(f"measuring: {', '.join(built)}; {processes} process set(s) x {rounds} rounds, "
             f"~{target_ms} ms per sample")
        data, failed, errors = measure(built, benches + [microbench.EMPTY_LOOP.name],
                                       processes, rounds, target_ms * 1e6, random.Random(seed))
    else:
        data, failed, errors = {}, {}, {}
    for v, reason in failed.items():
        variant_status[v] = dict(variant_status[v], status="failed", reason=reason)
    for bench, errs in errors.items():
        for v, err in errs.items():
            _log(f"{v}: {bench} does not run: {err}")
    ran = [v for v in built if v not in failed]

    benchmarks, loop_overhead, ratios = summarize(data, ran, errors)
    report = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "machine": machine_info(),
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation()},
        "hpy_version": manifest.get("hpy_version"),
        "flags": compiler_info(manifest, entries),
        "config": {"processes": processes, "rounds_per_process": rounds,
                   "samples": processes * rounds,
                   "warmup_samples": "1 per benchmark, variant and process",
                   "target_sample_ms": target_ms,
                   "seed": seed, "order": "variants shuffled in every round",
                   "loops": "calibrated on stock, the same for every variant",
                   "ci": "order-statistic CI of the median (ci_level = exact coverage)",
                   "ratio": "median of per-round ratios variant/stock; geomean over benchmarks "
                            "but the typed_* rows (stock runs another function there)"},
        "variants": variant_status,
        "ran": ran,
        "benchmarks": benchmarks,
        "loop_overhead_ns": loop_overhead,
        "ratios": ratios,
    }
    if args.out is None:
        args.out = QUICK_OUT if args.quick else DEFAULT_OUT
    out = args.out if args.out.is_absolute() else pathlib.Path.cwd() / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(format_table(report))
    _log(f"wrote {out}")
    if BASELINE not in ran:
        _log("the stock variant did not build or run: no ratios")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
