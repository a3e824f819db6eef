"""Benchmarks and memory check of the UltraJSON ports against stock ujson.

    python ports/ultrajson/bench.py [--quick] [--rounds N] [--output FILE]

The variants are ujson_port.VARIANTS: stock, hpy_cpython, hpy_universal and
cystck.  Each measurement has all of them in one run, interleaved:

* ``loads`` and ``dumps``: the paper's "load operation for 1000
  iterations".  The document is ``tests/sample.json`` of the ujson 6.1.0
  sdist (687,492 bytes of nested objects and arrays with non-ASCII strings):
  one sample is the wall time of 1000 ``ujson.loads(text)`` calls, and of
  1000 ``ujson.dumps(obj)`` calls on the same document (obj is the
  stdlib's ``json.loads`` of it, so both variants encode the same object).
  One persistent worker process per variant; in every round each variant
  takes one sample of each workload, the order reversing from round to
  round (ABCD DCBA), after one warm-up round that is not recorded.
* ``benchmark.py``: the sdist's own benchmark script, unchanged, run once per
  variant per round (order reversing), ujson only (``--disable json simplejson
  orjson``), with Python's random module seeded so both variants get the
  same data and timeit's timer set to the CPU clock (time.process_time).
  (The universal-ABI variant imports hpy.universal, from the interpreter's
  environment: ujson_port.ensure_site checks it is there.)
  Its calls/sec figures are turned into seconds per call.
* memory: ``ujson.loads`` of a generated JSON array of small objects
  (100 MB; 10 MB with --quick) read as bytes, in a fresh process per
  variant; peak RSS (ru_maxrss) before and after the call.  The Cystck
  variant runs a second time with CYSTCK_HANDLE_LIMIT=1024: decoding
  millions of values under a limit of 1024 live handles shows that the
  handle array stays bounded.

* instructions (full mode, when valgrind is installed): the instructions
  executed per ``loads`` and per ``dumps`` of the same document, counted
  by callgrind: (count of a process doing 2n calls - count of one doing n)
  / n, with n = 10, so that start-up and tear-down cancel out; the cyclic
  GC is off during the calls (it would run at points that depend on n).  Deterministic, so unlike times it does not depend on what else
  the machine runs.

Statistics: per workload and variant the samples, their median and a
distribution-free 95% confidence interval of the median; the ratio of each
variant is its median / stock median (> 1: slower than stock), also given as
the median of the per-round ratios with its confidence interval; ratios are
keyed by variant.  loads/dumps samples
record wall time and the worker's CPU time (time.process_time); on a shared
machine the CPU-time ratio is the steadier of the two.  Results go to
eval/results/ultrajson.json.  Exit status 1 if the variants disagree on a
result or a check fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eval.harness.stats import median, median_ci
from eval.results.schema import port_summary
from ports import portkit
from ports.ultrajson import ujson_port as port, workloads

WORKLOADS_FILE = Path(workloads.__file__).resolve()
LOOPS = {False: 1000, True: 100}         # iterations per sample (quick: 100)
ROUNDS = {False: 10, True: 3}
BENCHMARK_PY_ROUNDS = {False: 5, True: 1}
BENCHMARK_PY_FACTOR = {False: 0.25, True: 0.02}
MEMORY_BYTES = {False: 100_000_000, True: 10_000_000}
MEMORY_HANDLE_LIMIT = 1024


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------

def summary_of(report):
    """The summary every port writes (eval/results/schema.py), from the
    loads/dumps timings and their instruction counts."""
    timed = report.get("loads_dumps", {}).get("workloads", {})
    counted = report.get("instructions", {}).get("workloads", {})
    return port_summary(
        f"seconds per {report.get('loads_dumps', {}).get('iterations_per_sample')} calls",
        report["reference"],
        {op: {v: s["samples"] for v, s in w["seconds"].items()} for op, w in timed.items()},
        {op: w["instructions_per_call"] for op, w in counted.items()}, "instructions per call")


def summarize(samples):
    (low, high), cov = median_ci(samples)
    return {"samples": samples, "median": median(samples),
            "ci95": [low, high], "ci_coverage": round(cov, 4)}


def ratios(stock, other):
    """other ÷ stock: of the medians, and the median of per-round ratios."""
    per_round = [c / s for s, c in zip(stock, other)]
    (low, high), cov = median_ci(per_round)
    return {"ratio_of_medians": median(other) / median(stock),
            "median_paired_ratio": median(per_round),
            "paired_ratio_ci95": [low, high], "ci_coverage": round(cov, 4),
            "paired_ratios": per_round}


def ported():
    """The variants measured against the reference (stock)."""
    return [v for v in port.VARIANTS if v != port.REFERENCE]


def ratios_by_variant(samples):
    """{variant: ratios(stock samples, variant samples)} for every port."""
    return {v: ratios(samples[port.REFERENCE], samples[v]) for v in ported()}


# ---------------------------------------------------------------------------
# loads / dumps of sample.json
# ---------------------------------------------------------------------------

# Runs in the variant's interpreter: loads workloads.py and answers each
# "workload repeat" line with "wall cpu checksum": the wall and CPU seconds
# of the loop alone, the checksum computed after.
_WORKER = r"""
import gc, importlib.util, time
spec = importlib.util.spec_from_file_location("ujson_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
workloads.document()
for line in sys.stdin:
    name, repeat = line.split()
    loop, checksum = workloads.PARTS[name]
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    result = loop(ujson, int(repeat))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(wall, cpu, checksum(result), flush=True)
"""


class BenchWorker:
    def __init__(self, variant):
        self.variant = variant
        command = port.variant_command(variant, _WORKER, str(WORKLOADS_FILE))
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def ask(self, op, n):
        self.process.stdin.write(f"{op} {n}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.variant}: the benchmark worker died "
                             f"(exit status {self.process.wait()})")
        return line.strip()

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def bench_loads_dumps(quick, rounds, log):
    document = workloads.DOCUMENT_PATH
    loops = LOOPS[quick]
    workers = {v: BenchWorker(v) for v in port.VARIANTS}
    checksums = set()
    try:
        samples = {op: {v: [] for v in port.VARIANTS} for op in workloads.WORKLOADS}
        cpu = {op: {v: [] for v in port.VARIANTS} for op in workloads.WORKLOADS}
        for r in range(-1, rounds):           # round -1: warm-up, not recorded
            order = list(port.VARIANTS) if r % 2 == 0 else list(reversed(port.VARIANTS))
            for op in workloads.WORKLOADS:
                for v in order:
                    wall, cpu_seconds, checksum = workers[v].ask(op, loops).split()
                    checksums.add((op, checksum))
                    if r >= 0:
                        samples[op][v].append(float(wall))
                        cpu[op][v].append(float(cpu_seconds))
            if r >= 0:
                log(f"  round {r + 1}/{rounds}: " + ", ".join(
                    f"{op} {v} {samples[op][v][-1]:.3f} s" for op in samples for v in port.VARIANTS))
    finally:
        for w in workers.values():
            w.close()
    result = {
        "document": {"name": f"ujson-{port.VERSION} sdist {workloads.DOCUMENT}",
                     "bytes": document.stat().st_size,
                     "sha256": port.sha256_of(document)},
        "iterations_per_sample": loops,
        "rounds": rounds, "warmup_rounds_dropped": 1,
        "results_identical": len(checksums) == len(workloads.WORKLOADS),
        "workloads": {},
    }
    for op, per_variant in samples.items():
        result["workloads"][op] = {
            "call": "ujson.loads(text)" if op == "loads" else "ujson.dumps(obj)",
            "seconds": {v: summarize(s) for v, s in per_variant.items()},
            "ratio": ratios_by_variant(per_variant),
            "cpu_seconds": {v: summarize(s) for v, s in cpu[op].items()},
            "cpu_ratio": ratios_by_variant(cpu[op]),
        }
    return result


# ---------------------------------------------------------------------------
# the sdist's benchmark.py
# ---------------------------------------------------------------------------

_RUN_BENCHMARK_PY = r"""
import random, runpy, time, timeit
random.seed(20240601)
# Time with the process's CPU clock instead of the wall clock: the script's
# own measurement (the best of 10 timeit repeats) is otherwise at the mercy
# of whatever else the machine runs.
_repeat = timeit.repeat
timeit.repeat = lambda *args, **kwargs: _repeat(*args, **{"timer": time.process_time, **kwargs})
script, *rest = sys.argv[1:]
sys.argv = [script, *rest]
runpy.run_path(script, run_name="__main__")
"""

_RESULT_LINE = re.compile(r"^ujson (encode|decode): ([\d,]+\.\d+) calls/sec$")


def parse_benchmark_output(text):
    """{(benchmark name, "encode"|"decode"): calls per second}."""
    results, name = {}, None
    for line in text.splitlines():
        m = _RESULT_LINE.match(line.strip())
        if m:
            if name is None:
                raise ValueError(f"result before any benchmark name: {line!r}")
            results[(name, m.group(1))] = float(m.group(2).replace(",", ""))
        elif line and not line.startswith(("Enabled ", "|", "#", "-", " ")) and "calls/sec" not in line:
            if line.startswith(("Above", "Linux", "Darwin", "Windows")):
                continue
            name = line.strip()
    return results


def bench_benchmark_py(quick, log):
    script = port.UPSTREAM_DIR / "tests" / "benchmark.py"
    factor = BENCHMARK_PY_FACTOR[quick]
    rounds = BENCHMARK_PY_ROUNDS[quick]
    runs = {v: [] for v in port.VARIANTS}
    for r in range(rounds):
        order = list(port.VARIANTS) if r % 2 == 0 else list(reversed(port.VARIANTS))
        for v in order:
            command = port.variant_command(v, _RUN_BENCHMARK_PY, str(script), "--disable", "json",
                                           "simplejson", "orjson", "--factor", str(factor))
            start = time.perf_counter()
            out = subprocess.run(command, capture_output=True, text=True, cwd=script.parent)
            if out.returncode != 0:
                raise SystemExit(f"benchmark.py failed on {v}:\n{out.stdout}\n{out.stderr}")
            runs[v].append(parse_benchmark_output(out.stdout))
            log(f"  benchmark.py round {r + 1}/{rounds} {v}: {time.perf_counter() - start:.1f} s")
    keys = list(runs["stock"][0])
    table = []
    for name, kind in keys:
        row = {"benchmark": name, "operation": kind}
        seconds = {}
        for v in port.VARIANTS:
            per_call = [1.0 / run[(name, kind)] for run in runs[v]]
            seconds[v] = per_call
            row[v] = {"seconds_per_call": summarize(per_call),
                      "calls_per_second_median": 1.0 / median(per_call)}
        row["ratio"] = ratios_by_variant(seconds)
        table.append(row)
    geo = {v: math.exp(sum(math.log(row["ratio"][v]["ratio_of_medians"]) for row in table)
                       / len(table)) for v in ported()}
    return {"script": f"ujson-{port.VERSION} sdist tests/benchmark.py",
            "arguments": ["--disable", "json", "simplejson", "orjson", "--factor", str(factor)],
            "random_seed": 20240601, "rounds": rounds, "timer": "time.process_time",
            "note": "benchmark.py reports the best of 10 timeit repeats per case, here timed "
                    "with the CPU clock; seconds_per_call = 1 / calls_per_second",
            "results": table, "geometric_mean_ratio": geo}


# ---------------------------------------------------------------------------
# instructions (callgrind)
# ---------------------------------------------------------------------------

INSTRUCTION_REPEAT = 10

_INSTRUCTIONS = r"""
import gc, importlib.util
spec = importlib.util.spec_from_file_location("ujson_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
workloads.document()
loop, _ = workloads.PARTS[sys.argv[2]]
gc.disable()   # collections depend on allocation counts, not linearly on n
loop(ujson, int(sys.argv[3]))
"""


def count_instructions(variant, op, repeat):
    """Instructions callgrind counts for the whole process."""
    with tempfile.TemporaryDirectory() as tmp:
        return portkit.callgrind_instructions(
            port.variant_command(variant, _INSTRUCTIONS, str(WORKLOADS_FILE), op, str(repeat)),
            Path(tmp) / "callgrind.out")


def bench_instructions(log):
    if shutil.which("valgrind") is None:
        log("  valgrind not found: instruction counts skipped")
        return {"skipped": "valgrind not found"}
    repeat = INSTRUCTION_REPEAT
    result = {"tool": "valgrind --tool=callgrind", "n": repeat,
              "note": "instructions per call = (count(2n calls) - count(n calls)) / n",
              "workloads": {}}
    for op in workloads.WORKLOADS:
        per_call = {}
        for v in port.VARIANTS:
            # (callgrind_instructions runs each command once uncounted
            # first, so the modules' bytecode is cached: portkit.)
            once = count_instructions(v, op, repeat)
            twice = count_instructions(v, op, 2 * repeat)
            per_call[v] = (twice - once) / repeat
        result["workloads"][op] = {"instructions_per_call": per_call,
                                   "ratio": {v: per_call[v] / per_call[port.REFERENCE]
                                             for v in ported()}}
        log(f"  {op}: " + ", ".join(f"{v} {n / 1e6:.2f} M/call" for v, n in per_call.items()))
    return result


# ---------------------------------------------------------------------------
# memory: decoding a large array of small objects
# ---------------------------------------------------------------------------

def memory_document(size):
    """build/ultrajson/bench/array-<size>.json: a JSON array of small
    objects, at least ``size`` bytes (written once, then reused)."""
    path = port.BUILD_ROOT / "bench" / f"array-{size}.json"
    if path.is_file() and path.stat().st_size >= size:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    written, i = 0, 0
    with open(tmp, "w", encoding="ascii") as f:
        f.write("[")
        while written < size:
            chunk = ",".join(
                '{"id":%d,"name":"user%d","active":%s,"score":%d.%d,"tags":["a","bc"]}'
                % (j, j % 9973, "true" if j % 3 else "false", j % 1000, j % 8)
                for j in range(i, i + 10000))
            f.write(("," if i else "") + chunk)
            written += len(chunk) + 1
            i += 10000
        f.write("]")
    tmp.rename(path)
    return path


_MEMORY = r"""
import resource
with open(sys.argv[1], "rb") as f:
    data = f.read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
value = ujson.loads(data)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"items": len(value), "last": value[-1], "peak_rss_kib_before": before,
                  "peak_rss_kib": after}))
"""


def bench_memory(quick, log):
    path = memory_document(MEMORY_BYTES[quick])
    runs = {}
    plan = [(v, v, {}) for v in port.VARIANTS]
    plan.append(("cystck_handle_limit", "cystck", {"CYSTCK_HANDLE_LIMIT": str(MEMORY_HANDLE_LIMIT)}))
    for name, variant, env in plan:
        command = port.variant_command(variant, "import json\n" + _MEMORY, str(path))
        out = subprocess.run(command, capture_output=True, text=True,
                             env={**os.environ, **env})
        if out.returncode != 0:
            runs[name] = {"error": (out.stdout + out.stderr)[-2000:]}
            log(f"  memory {name}: FAILED\n{out.stderr[-2000:]}")
            continue
        runs[name] = json.loads(out.stdout)
        runs[name]["env"] = env
        log(f"  memory {name}: peak RSS {runs[name]['peak_rss_kib'] / 1024:.0f} MiB "
            f"(before loads {runs[name]['peak_rss_kib_before'] / 1024:.0f} MiB)")
    ok = all("error" not in r for r in runs.values())
    result = {"document": {"path": str(path.relative_to(port.REPO_ROOT)),
                           "bytes": path.stat().st_size,
                           "description": "JSON array of small objects "
                                          '{"id","name","active","score","tags":[2 str]}'},
              "runs": runs}
    if ok:
        peak = {k: r["peak_rss_kib"] for k, r in runs.items()}
        result["peak_rss_mib"] = {k: round(v / 1024, 1) for k, v in peak.items()}
        result["peak_ratio"] = {v: peak[v] / peak[port.REFERENCE] for v in ported()}
        result["within_1_2x"] = all(r <= 1.2 for r in result["peak_ratio"].values())
        result["same_result"] = all(r["items"] == runs[port.REFERENCE]["items"]
                                    and r["last"] == runs[port.REFERENCE]["last"]
                                    for r in runs.values())
    return result, ok


# ---------------------------------------------------------------------------

def machine():
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "cpu": cpu, "cpu_count": os.cpu_count(),
            "load_average": list(os.getloadavg())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small and fast (well under a minute)")
    parser.add_argument("--rounds", type=int,
                        help="measured rounds of loads/dumps (default 10, quick 3)")
    parser.add_argument("--output", type=Path,
                        help="where the results go (default eval/results/ultrajson.json; with "
                             "--quick, build/ultrajson/bench-quick.json: `make test` runs the "
                             "quick benchmark, which must not overwrite the measured results)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: loads_dumps, "
                                                   "benchmark_py, instructions, memory")
    parser.add_argument("--variants", help="comma-separated variants to measure (default: all; "
                                           f"{port.REFERENCE} is always measured)")
    args = parser.parse_args()
    if args.variants:
        chosen = {v.strip() for v in args.variants.split(",")} | {port.REFERENCE}
        unknown = chosen - set(port.VARIANTS)
        if unknown:
            parser.error(f"unknown variants {sorted(unknown)}; known: {', '.join(port.VARIANTS)}")
        port.VARIANTS = tuple(v for v in port.VARIANTS if v in chosen)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if args.output is None:
        args.output = (port.BUILD_ROOT / "bench-quick.json" if args.quick
                       else port.RESULTS_DIR / "ultrajson.json")
    rounds = args.rounds or ROUNDS[args.quick]

    def log(message):
        print(message, flush=True)

    for v in port.VARIANTS:
        if port.wheel_path(v) is None:
            raise SystemExit(port.missing_reason(v))
        port.ensure_site(v)
    report = {"benchmark": "ultrajson", "created": datetime.datetime.now(datetime.timezone.utc)
              .replace(microsecond=0).isoformat(),
              "quick": args.quick, "machine": machine(), "reference": port.REFERENCE,
              "variants": {v: port.wheel_path(v).name for v in port.VARIANTS},
              "compile_flags": {"define_macros": [list(m) for m in port.DEFINE_MACROS],
                                "extra_compile_args": list(port.EXTRA_COMPILE_ARGS),
                                "extra_link_args": list(port.EXTRA_LINK_ARGS),
                                "note": "plus Python's own CFLAGS (sysconfig), identical for all; "
                                        "the HPy variants add hpy's -DHPY -DHPY_ABI_<ABI>"}}
    failed = []
    if "loads_dumps" not in skip:
        log(f"loads/dumps of {workloads.DOCUMENT}, {LOOPS[args.quick]} iterations per sample, "
            f"{rounds} rounds")
        report["loads_dumps"] = bench_loads_dumps(args.quick, rounds, log)
        if not report["loads_dumps"]["results_identical"]:
            failed.append("loads/dumps results differ between the variants")
    if "benchmark_py" not in skip:
        log("tests/benchmark.py")
        report["benchmark_py"] = bench_benchmark_py(args.quick, log)
    if "instructions" not in skip:
        if args.quick:
            # A dozen processes under callgrind: too slow for the quick mode.
            report["instructions"] = {"skipped": "quick mode"}
        else:
            log("instructions (callgrind)")
            report["instructions"] = bench_instructions(log)
    if "memory" not in skip:
        log("memory")
        report["memory"], ok = bench_memory(args.quick, log)
        if not ok:
            failed.append("a memory run failed")
        elif not report["memory"]["same_result"]:
            failed.append("the memory runs decoded different values")
    report["load_average_at_end"] = list(os.getloadavg())
    report["failed"] = failed
    report["summary"] = summary_of(report)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    log("")
    others = ported()
    if "loads_dumps" in report:
        for op, w in report["loads_dumps"]["workloads"].items():
            log(f"{op}: stock {w['seconds'][port.REFERENCE]['median']:.3f} s")
            for v in others:
                r = w["ratio"][v]
                log(f"  {v:13} {w['seconds'][v]['median']:.3f} s  ratio {r['ratio_of_medians']:.3f} "
                    f"(paired {r['median_paired_ratio']:.3f}, CI {r['paired_ratio_ci95'][0]:.3f}"
                    f"-{r['paired_ratio_ci95'][1]:.3f}); CPU time ratio "
                    f"{w['cpu_ratio'][v]['ratio_of_medians']:.3f}")
    if "benchmark_py" in report:
        log(f"  {'benchmark.py ratios':67} " + " ".join(f"{v:>13}" for v in others))
        for row in report["benchmark_py"]["results"]:
            log(f"  {row['benchmark'][:60]:60} {row['operation']}  "
                + " ".join(f"{row['ratio'][v]['ratio_of_medians']:13.3f}" for v in others))
        geo = report["benchmark_py"]["geometric_mean_ratio"]
        log("benchmark.py geometric mean ratio " + ", ".join(f"{v} {geo[v]:.3f}" for v in others))
    if report.get("instructions", {}).get("workloads"):
        for op, w in report["instructions"]["workloads"].items():
            log(f"{op:6} instructions ratio " + ", ".join(f"{v} {w['ratio'][v]:.3f}" for v in others))
    if "memory" in report and "peak_rss_mib" in report["memory"]:
        m = report["memory"]
        log(f"memory peak RSS MiB {m['peak_rss_mib']}  ratio "
            + ", ".join(f"{v} {m['peak_ratio'][v]:.3f}" for v in others))
    log(f"wrote {args.output}")
    for f in failed:
        log(f"FAILED: {f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
