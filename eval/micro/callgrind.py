"""Instructions per call of each micro-benchmark and variant, by callgrind.

    python eval/micro/callgrind.py [--variants stock cystck ...]
                                   [--benchmarks kwargs ...] [--loops N]
                                   [--keep DIR] [--out FILE] [--no-build]

Wall time on a shared machine drifts by several percent; instruction counts
do not.  Each variant runs in one interpreter under ``valgrind
--tool=callgrind`` (modules built first by ``build.py``, which rebuilds a
variant only when its inputs changed; ``--no-build`` takes the last build's
as they are), timing every
benchmark with the harness's own loop (``microbench.make_timer``) for N and
then 2N iterations.  A call to ``os.getppid`` marks the boundaries and
callgrind dumps its counters there (``--dump-before=getppid``), so one
process gives every benchmark:

    per call = (I(2N) - I(N)) / N  -  the same for the empty loop

that is, what one evaluation costs (interpreter and extension), without
start-up, import, calibration or the timing loop (--with-loop keeps the
loop, as the wall times of run.py do).  Ratios are to stock.
With --keep the dumps stay in DIR for callgrind_annotate (they are made
with --dump-instr=yes).
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

import build as micro_build  # noqa: E402  (beside this script: first on sys.path)
import microbench  # noqa: E402

# Run inside valgrind: the marker before each measured loop is the dump.
_CHILD = r"""
import json, os, sys
sys.path.insert(0, {here!r})
import microbench
entry, names, loops = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
module = microbench.load_variant(entry)
benches = [microbench.BY_NAME.get(n, microbench.EMPTY_LOOP) for n in names]
timers = [microbench.make_timer(b, b.setup(module)) for b in benches]
for t in timers:
    t(loops)                    # warm up: caches, specialisation, free lists
for t in timers:
    os.getppid(); t(loops)
    os.getppid(); t(2 * loops)
os.getppid()
"""

_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.M)


def run_variant(entry, names, loops, outdir):
    """Instructions per call {bench: float} of one variant."""
    prefix = pathlib.Path(outdir) / f"callgrind.{entry['variant']}"
    cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid", "--dump-instr=yes",
           f"--callgrind-out-file={prefix}.%p", sys.executable, "-c",
           _CHILD.format(here=str(HERE)), json.dumps(entry), json.dumps(names), str(loops)]
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run(cmd, check=True, cwd=micro_build.REPO, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dumps = sorted(pathlib.Path(outdir).glob(prefix.name + ".*.*"),
                   key=lambda p: int(p.name.rsplit(".", 1)[1]))
    counts = [int(_TOTALS.search(p.read_text()).group(1)) for p in dumps]
    # dump 1 ends at the first marker (start-up); then N, 2N pairs.
    per = counts[1:1 + 2 * len(names)]
    return {n: (per[2 * i + 1] - per[2 * i]) / loops for i, n in enumerate(names)}


def typed_comparisons(benchmarks, variants, counts):
    """Lines for the typed_* rows: their stock column runs PyArg_ParseTuple
    (microbench._typed), so also give each typed method over stock's
    hand-written function of the plain row, when both rows ran."""
    lines = []
    for n in benchmarks:
        plain = n[len("typed_"):]
        if not n.startswith("typed_") or plain not in benchmarks:
            continue
        if not lines:
            lines.append("typed_* rows: stock runs PyArg_ParseTuple(AndKeywords); "
                         "over stock's hand-written function instead:")
        cells = [f"{v} {counts[v][n] / counts['stock'][plain]:.3f}x" for v in variants if v != "stock"]
        lines.append(f"  {n} / stock {plain}: " + ", ".join(cells))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["stock", "hpy_universal", "cystck"])
    parser.add_argument("--benchmarks", nargs="+", default=[b.name for b in microbench.BENCHMARKS])
    parser.add_argument("--loops", type=int, default=2000)
    parser.add_argument("--with-loop", action="store_true",
                        help="do not subtract the timing loop's instructions")
    parser.add_argument("--keep", type=pathlib.Path, help="keep the callgrind dumps here")
    parser.add_argument("--out", type=pathlib.Path, help="write the counts as JSON")
    parser.add_argument("--no-build", action="store_true",
                        help="count the modules of the last build.py as they are")
    args = parser.parse_args(argv)
    variants = ["stock"] + [v for v in args.variants if v != "stock"]
    if not args.no_build:
        # Counts of modules built from older sources would pass for the
        # current code's: rebuild whatever changed first.
        micro_build.build_all(tuple(variants))
    manifest = micro_build.read_manifest()
    if manifest is None:
        parser.error("no build manifest: run eval/micro/build.py first")
    names = list(args.benchmarks) + [microbench.EMPTY_LOOP.name]
    outdir = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="micro-callgrind-"))
    outdir.mkdir(parents=True, exist_ok=True)
    counts = {}
    for v in variants:
        raw = run_variant(manifest["variants"][v], names, args.loops, outdir)
        loop = 0.0 if args.with_loop else raw[microbench.EMPTY_LOOP.name]
        raw.pop(microbench.EMPTY_LOOP.name)
        counts[v] = {n: c - loop for n, c in raw.items()}
    width = max(len(n) for n in args.benchmarks)
    print(f"{'benchmark':{width}}  " + "  ".join(f"{v:>22}" for v in variants))
    ratios = {v: [] for v in variants}
    for n in args.benchmarks:
        cells = []
        for v in variants:
            r = counts[v][n] / counts["stock"][n]
            if microbench.BY_NAME[n].in_geomean:     # not the typed_* rows
                ratios[v].append(r)
            cells.append(f"{counts[v][n]:12.1f} {r:7.3f}x")
        print(f"{n:{width}}  " + "  ".join(cells))
    geo = {v: 1.0 for v in variants}
    for v in variants:
        for r in ratios[v]:
            geo[v] *= r ** (1 / len(ratios[v]))
    print(f"{'geomean':{width}}  " + "  ".join(f"{'':12} {geo[v]:7.3f}x" for v in variants)
          + ("  (typed_* rows excluded)" if any(not microbench.BY_NAME[n].in_geomean for n in args.benchmarks) else ""))
    print("instructions per call, timing loop " + ("included" if args.with_loop else "subtracted")
          + "; x: ratio to stock")
    for line in typed_comparisons(args.benchmarks, variants, counts):
        print(line)
    if args.out:
        args.out.write_text(json.dumps({"loops": args.loops, "timing_loop_subtracted": not args.with_loop,
                                        "instructions_per_call": counts,
                                        "geomean_ratio": geo}, indent=2) + "\n")
    if not args.keep:
        for p in outdir.iterdir():
            p.unlink()
        outdir.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
