"""Instructions per PicoNumPy operation, per variant, counted by callgrind.

    python ports/piconumpy/callgrind_ops.py [--variants stock,cystck] [--ops add,getitem]
                                            [--functions] [--output FILE]

Timings on a shared machine drift by several percent; instruction counts do
not.  For each variant and each operation below, this runs the operation in
a loop of N and of 2N iterations (each in a fresh interpreter under
``valgrind --tool=callgrind``, through piconumpy_variants.variant_command
like the tests and the benchmark) and reports

    (instructions(2N) - instructions(N)) / N  -  the same for an empty loop

that is, what one operation costs, interpreter and extension included,
without start-up and import.  The two workloads of workloads.py are
counted the same way, per repeat.  Ratios are to the stock variant.

--functions adds, for each operation, the functions whose instruction count
per operation differs from the stock variant's (exclusive counts, from
callgrind_annotate; inlined code is counted in the function it was inlined
into, so the runtime's inline paths show up under the trampolines).  This
is where a variant's extra cost goes.

Needs valgrind (callgrind_annotate comes with it) and the variants built
(make piconumpy-wheels).  A run takes a few minutes.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ports import portkit
from ports.piconumpy import piconumpy_variants as pv

# Each operation is one statement run in a loop inside a function, on local
# variables: no global-dictionary lookups (whose cost depends on the hash
# seed, which -I does not let us fix) in the counted loop.
OPERATIONS = {
    "loop": "pass",              # the loop itself: subtracted from the others
    "array4": "array([x, x, x, x])",
    "empty4": "empty(4)",
    "getitem": "a[1]",
    "setitem": "a[1] = x",
    "len": "len(a)",
    "size": "a.size",
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * x",
    "rmul": "x * a",
    "div": "a / x",
    "tolist": "a.tolist()",
}

_OPERATION_CODE = """
namespace = {}
exec("def run(piconumpy, n):\\n"
     "    array, empty = piconumpy.array, piconumpy.empty\\n"
     "    a = array([1.0, 2.0, 3.0, 4.0])\\n"
     "    b = array([0.5, 0.25, 0.125, 1.0])\\n"
     "    x = 1.5\\n"
     "    for _ in range(n):\\n"
     "        " + sys.argv[1] + "\\n", namespace)
namespace["run"](piconumpy, int(sys.argv[2]))
"""

_WORKLOAD_CODE = """
import importlib.util
spec = importlib.util.spec_from_file_location("piconumpy_workloads", sys.argv[1])
workloads = importlib.util.module_from_spec(spec)
spec.loader.exec_module(workloads)
workloads.WORKLOADS[sys.argv[2]](piconumpy, int(sys.argv[3]))
"""

# Loop counts: N for the operations; per-repeat counts for the workloads.
CALLS = 20_000
WORKLOAD_REPEATS = {"board": 1, "ops": 20_000}


def callgrind(command: list[str], out: Path) -> int:
    """Run a variant_command() under callgrind; the total instruction count.

    The interpreter's string hashes are randomised per process, and with
    them the cost of start-up (dictionary probes), which would not cancel
    between the two runs of `measure`.  -I ignores PYTHONHASHSEED, so the
    command's -I becomes -s -P (the rest of -I) and the environment holds
    nothing but PATH and PYTHONHASHSEED=0 (the -E part)."""
    if command[1] != "-I":
        raise AssertionError(f"expected an isolated (-I) interpreter: {command[:3]}")
    command = [command[0], "-s", "-P", *command[2:]]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0"}
    return portkit.callgrind_instructions(command, out, env=env)


def function_counts(out: Path) -> collections.Counter:
    """Exclusive instruction count per function name (inlined code included
    in its caller), summed over the source files callgrind attributes it to."""
    text = subprocess.run(
        ["callgrind_annotate", "--auto=no", "--inclusive=no", "--threshold=100", str(out)],
        capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S.*)$", line)
        if match is None or "PROGRAM TOTALS" in line:
            continue
        name = re.sub(r" \[.*\]$", "", match.group(2)).rsplit(":", 1)[-1]
        counts[name] += int(match.group(1).replace(",", ""))
    return counts


def measure(command_for, n: int, tmp: Path, functions: bool) -> tuple[float, dict]:
    """Per-unit instructions: (I(2n) - I(n)) / n, and per function if asked."""
    low, high = tmp / "low.out", tmp / "high.out"
    total = (callgrind(command_for(2 * n), high) - callgrind(command_for(n), low)) / n
    per_function = {}
    if functions:
        lows, highs = function_counts(low), function_counts(high)
        per_function = {name: (highs[name] - lows.get(name, 0)) / n for name in highs}
    return total, per_function


def workload_instructions(variant: str, workload: str) -> float:
    """Instructions per repeat of one of workloads.py's workloads."""
    workloads = str(pv.PORT_DIR / "workloads.py")

    def command(n):
        return pv.variant_command(variant, _WORKLOAD_CODE, workloads, workload, str(n))

    with tempfile.TemporaryDirectory(prefix="piconumpy-callgrind-") as tmp:
        return measure(command, WORKLOAD_REPEATS[workload], Path(tmp), functions=False)[0]


def operation_instructions(variant: str, operation: str, calls: int = CALLS) -> float:
    """Instructions per execution of OPERATIONS[operation], loop included."""
    def command(n):
        return pv.variant_command(variant, _OPERATION_CODE, OPERATIONS[operation], str(n))

    with tempfile.TemporaryDirectory(prefix="piconumpy-callgrind-") as tmp:
        return measure(command, calls, Path(tmp), functions=False)[0]


METHOD = ("callgrind instructions (Ir) of the run with 2N repeats minus the run with N, "
          "divided by N; fixed hash seed")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", help="comma-separated (default: every built variant)")
    parser.add_argument("--ops", help="comma-separated operation names (default: all; "
                                      "'board' and 'ops' are the benchmark's workloads)")
    parser.add_argument("--functions", action="store_true",
                        help="also break each operation down by function")
    parser.add_argument("--output", type=Path, help="write the numbers as JSON too")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")

    variants, missing = pv.select_variants(pv.parse_variant_list(args.variants))
    if missing:
        raise SystemExit("; ".join(pv.missing_reason(v) for v in missing))
    if pv.REFERENCE in variants:            # the reference first: ratios and diffs
        variants.remove(pv.REFERENCE)
        variants.insert(0, pv.REFERENCE)
    names = (pv.parse_variant_list(args.ops)
             or [*OPERATIONS, *WORKLOAD_REPEATS])
    unknown = [n for n in names if n not in OPERATIONS and n not in WORKLOAD_REPEATS]
    if unknown:
        parser.error(f"unknown operation(s) {', '.join(unknown)}; known: "
                     + ", ".join([*OPERATIONS, *WORKLOAD_REPEATS]))
    if any(n in OPERATIONS for n in names) and "loop" not in names:
        names.insert(0, "loop")

    workloads = str(pv.PORT_DIR / "workloads.py")
    results = {}
    with tempfile.TemporaryDirectory(prefix="piconumpy-callgrind-") as tmp:
        for name in names:
            results[name] = {}
            for variant in variants:
                if name in OPERATIONS:
                    def command(n, v=variant, stmt=OPERATIONS[name]):
                        return pv.variant_command(v, _OPERATION_CODE, stmt, str(n))
                    n = CALLS
                else:
                    def command(n, v=variant, w=name):
                        return pv.variant_command(v, _WORKLOAD_CODE, workloads, w, str(n))
                    n = WORKLOAD_REPEATS[name]
                total, per_function = measure(command, n, Path(tmp), args.functions)
                results[name][variant] = {"instructions": total, "functions": per_function}
            print(f"  counted {name}", file=sys.stderr, flush=True)

    # Subtract the empty loop from the operations.
    loop = results.get("loop")
    for name in names:
        if name in OPERATIONS and name != "loop":
            for variant in variants:
                results[name][variant]["net"] = (results[name][variant]["instructions"]
                                                 - loop[variant]["instructions"])
        else:
            for variant in variants:
                results[name][variant]["net"] = results[name][variant]["instructions"]

    reference = variants[0]
    print(f"instructions per operation (per repeat for workloads), net of the loop; "
          f"ratio to {reference}")
    print(f"{'operation':<30}" + "".join(f"{v:>22}" for v in variants))
    for name in names:
        if name == "loop":
            continue
        ref = results[name][reference]["net"]
        cells = []
        for variant in variants:
            net = results[name][variant]["net"]
            cells.append(f"{net:>13.0f} ({net / ref:4.2f})" if ref else f"{net:>20.0f}")
        label = f"{name} ({OPERATIONS[name]})" if name in OPERATIONS else f"{name} (workload)"
        print(f"{label:<30}" + "".join(f"{c:>22}" for c in cells))

    if args.functions:
        for name in names:
            if name == "loop":
                continue
            base = results[name][reference]["functions"]
            for variant in variants[1:]:
                funcs = results[name][variant]["functions"]
                diffs = sorted(((funcs.get(f, 0) - base.get(f, 0), f) for f in set(base) | set(funcs)),
                               reverse=True)
                shown = [f"{f} {d:+.0f}" for d, f in diffs if abs(d) >= 2]
                print(f"\n{name}, {variant} - {reference} "
                      f"({results[name][variant]['instructions'] - results[name][reference]['instructions']:+.0f}):")
                print("    " + ", ".join(shown))

    if args.output:
        args.output.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
