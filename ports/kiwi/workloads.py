"""kiwisolver workloads: the sdist's enaml-like benchmark, as functions.

Used by ``bench.py`` and by the evaluation harness
(``eval/harness/PORT_INTERFACE.md``): ``WORKLOADS[name](kiwisolver,
repeat)`` does the work and returns a checksum whose ``repr`` is the same
for every variant; ``SIZES[quick][name]`` is the repeat count of a full
(1-3 s for the stock wheel) or quick run.

The workload is the release's ``benchmarks/enaml_like_benchmark.py``, run
unchanged.  It imports ``perf``, pyperf's old name, and at import builds a
solver for an enaml-like layout (37 variables, two edit variables, ~110
constraints written with Python operators) and registers
``bench_update_variables`` with ``perf.Runner().bench_time_func``.  Here
``perf`` is a stand-in whose ``perf_counter`` is ``time.perf_counter`` and
whose ``Runner`` hands the function and its arguments back instead of
timing it, so the caller can time it (and pyperf need not be installed).

This module is loaded by file path into interpreters that see the
standard library, the checkout and one variant's installed wheel: it
imports kiwi_port, for where the release is unpacked, and the standard
library (``kiwisolver`` is passed in).
"""

from __future__ import annotations

import sys
import time
import types

from ports.kiwi.kiwi_port import UPSTREAM_DIR

BENCHMARK = "benchmarks/enaml_like_benchmark.py"
BENCHMARK_FILE = UPSTREAM_DIR / BENCHMARK

_code = None


def run_benchmark_module():
    """Execute enaml_like_benchmark.py's module code with the ``perf``
    stand-in; returns (timed function, its arguments, inner_loops, the
    module's namespace).  Each call builds a new solver."""
    global _code
    if _code is None:
        _code = compile(BENCHMARK_FILE.read_text(), str(BENCHMARK_FILE), "exec")
    timed = []

    class Runner:
        # What the benchmark uses of pyperf's Runner: registering the
        # function.  The caller runs it.
        def bench_time_func(self, name, func, *args, inner_loops=None):
            timed.append((func, args, inner_loops or 1))

    perf = types.ModuleType("perf")
    perf.perf_counter = time.perf_counter
    perf.Runner = Runner
    saved = sys.modules.get("perf")
    sys.modules["perf"] = perf
    try:
        namespace = {"__name__": "enaml_like_benchmark", "__file__": str(BENCHMARK_FILE)}
        exec(_code, namespace)
    finally:
        if saved is None:
            del sys.modules["perf"]
        else:
            sys.modules["perf"] = saved
    if len(timed) != 1:
        raise RuntimeError(f"{BENCHMARK} registered {len(timed)} functions, expected 1")
    func, args, inner_loops = timed[0]
    return func, args, inner_loops, namespace


def solver_state(kiwisolver, namespace):
    """The value of every variable of the benchmark's module, by name."""
    return {name: v.value() for name, v in sorted(namespace.items())
            if isinstance(v, kiwisolver.Variable)}


def suggest_update(kiwisolver, repeat):
    """enaml_like_benchmark.py as shipped: repeat x 6 (suggestValue x 2, updateVariables)"""
    func, args, _, namespace = run_benchmark_module()
    func(repeat, *args)
    return sum(solver_state(kiwisolver, namespace).values())


def build_layout(kiwisolver, repeat):
    """Building the enaml-like layout repeat times: ~110 constraints from Python operators"""
    for _ in range(repeat):
        _, args, _, namespace = run_benchmark_module()
    solver = args[0]
    solver.updateVariables()
    return sum(solver_state(kiwisolver, namespace).values())


WORKLOADS = {
    "suggest_update": suggest_update,
    "build_layout": build_layout,
}

# Full runs: 1-3 s of the stock wheel on the development machine; quick
# runs: 0.05-0.5 s.
SIZES = {
    False: {"suggest_update": 150_000, "build_layout": 2_000},
    True: {"suggest_update": 10_000, "build_layout": 100},
}
