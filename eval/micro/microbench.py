"""The micro-benchmarks themselves, shared by the harness and the tests.

Each benchmark is one Python expression (``stmt``) evaluated with names
that ``setup`` takes from a variant's module, plus the result it must give.
Every variant (stock, hpy_cpython, hpy_universal, cystck) exposes the same
functions and a ``Point`` type, so one table serves them all.  This module
also knows how to load a built variant, which differs for the HPy universal
ABI.
"""
import dataclasses
import gc
import importlib.machinery
import importlib.util
import itertools
import pathlib
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]


def callback(x):
    """The Python callable handed to call_callback: as cheap as a Python
    function gets, so the C-to-Python call dominates."""
    return x


@dataclasses.dataclass(frozen=True)
class Benchmark:
    name: str
    stmt: str          # a Python expression, timed in a loop
    setup: object      # module -> {name: value} used by stmt
    expected: object   # {name: value} -> the result stmt must give
    description: str
    # False for the typed_* rows: stock runs another function there (see
    # _typed), so their ratios stay out of the geomeans
    in_geomean: bool = True


SUM_LIST_LEN = 1000


def _typed(module, name):
    """What a variant runs in the typed_<name> row: its typed method, else
    its PyArg_ParseTuple version parsetuple_<name>, else <name>."""
    for attr in ("typed_" + name, "parsetuple_" + name, name):
        if hasattr(module, attr):
            return getattr(module, attr)
    raise AttributeError(f"{module.__name__} has no {name}")

BENCHMARKS = (
    Benchmark("noargs", "f()",
              lambda m: {"f": m.noargs},
              lambda ns: None,
              "METH_NOARGS-style call returning None"),
    Benchmark("identity", "f(o)",
              lambda m: {"f": m.identity, "o": object()},
              lambda ns: ns["o"],
              "one object argument, returned"),
    Benchmark("long_inc", "f(n)",
              lambda m: {"f": m.long_inc, "n": 123456789},
              lambda ns: ns["n"] + 1,
              "int -> C long, +1, -> int"),
    Benchmark("add_doubles", "f(a, b)",
              lambda m: {"f": m.add_doubles, "a": 1.5, "b": 2.25},
              lambda ns: 3.75,
              "two floats -> C doubles, added, -> float"),
    Benchmark("kwargs", "f(1, 2, c=3, d=4)",
              lambda m: {"f": m.kwargs},
              lambda ns: 10,
              "kwargs(a, b, c=0, d=0) called with two keywords"),
    # Cystck's typed methods (docs/typed.md) against the usual way to parse
    # arguments: stock runs parsetuple_* (METH_VARARGS and
    # PyArg_ParseTuple(AndKeywords)), a variant with neither its plain
    # function (see _typed).
    Benchmark("typed_long_inc", "f(n)",
              lambda m: {"f": _typed(m, "long_inc"), "n": 123456789},
              lambda ns: ns["n"] + 1,
              "long_inc: Cystck typed, stock PyArg_ParseTuple", in_geomean=False),
    Benchmark("typed_add_doubles", "f(a, b)",
              lambda m: {"f": _typed(m, "add_doubles"), "a": 1.5, "b": 2.25},
              lambda ns: 3.75,
              "add_doubles: Cystck typed, stock PyArg_ParseTuple", in_geomean=False),
    Benchmark("typed_kwargs", "f(1, 2, c=3, d=4)",
              lambda m: {"f": _typed(m, "kwargs")},
              lambda ns: 10,
              "kwargs: Cystck typed, stock PyArg_ParseTupleAndKeywords", in_geomean=False),
    Benchmark("tuple3", "f(a, b, c)",
              lambda m: {"f": m.tuple3, "a": 1, "b": "two", "c": 3.0},
              lambda ns: (ns["a"], ns["b"], ns["c"]),
              "new 3-tuple of the arguments"),
    Benchmark("call_callback", "f(g, x)",
              lambda m: {"f": m.call_callback, "g": callback, "x": 7},
              lambda ns: 7,
              "C calls a Python function with one argument"),
    Benchmark("Point.__add__", "p + q",
              lambda m: {"p": m.Point(1.0, 2.0), "q": m.Point(0.5, 0.25)},
              lambda ns: ("Point", 1.5, 2.25),
              "nb_add slot returning a new Point"),
    Benchmark("Point.x", "p.x",
              lambda m: {"p": m.Point(1.0, 2.0)},
              lambda ns: 1.0,
              "attribute read through a getset getter"),
    Benchmark("sum_list", "f(lst)",
              lambda m: {"f": m.sum_list, "lst": list(range(SUM_LIST_LEN))},
              lambda ns: SUM_LIST_LEN * (SUM_LIST_LEN - 1) // 2,
              f"sum of a list of {SUM_LIST_LEN} ints in C"),
)

BY_NAME = {b.name: b for b in BENCHMARKS}

# The timing loop with nothing in it: the per-iteration cost every
# benchmark's figure includes, measured so readers can subtract it.
EMPTY_LOOP = Benchmark("(empty loop)", "None", lambda m: {}, lambda ns: None,
                       "the timing loop alone")


def normalize(value):
    """A value comparable across variants: each variant has its own Point
    type, so a Point compares as ("Point", x, y)."""
    if type(value).__name__ == "Point":
        return ("Point", value.x, value.y)
    return value


def evaluate(bench, ns):
    """Run the benchmark's expression once and return its result."""
    return eval(bench.stmt, {}, dict(ns))


def make_timer(bench, ns):
    """A function loops -> nanoseconds for ``loops`` evaluations of stmt.

    Like timeit, the statement is compiled into the body of a for loop over
    itertools.repeat with its names bound to locals, so the loop adds as
    little as Python allows, and the garbage collector is off while timing
    (allocation-heavy benchmarks would otherwise pay for collections at
    arbitrary points).
    """
    names = sorted(ns)
    src = ("def _timed(_it, _clock, _ns):\n"
           + "".join(f"    {n} = _ns[{n!r}]\n" for n in names)
           + "    _t0 = _clock()\n"
           + "    for _ in _it:\n"
           + f"        {bench.stmt}\n"
           + "    return _clock() - _t0\n")
    code = compile(src, f"<micro {bench.name}>", "exec")
    scope = {}
    exec(code, scope)
    timed = scope["_timed"]

    def run(loops):
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return timed(itertools.repeat(None, loops), time.perf_counter_ns, ns)
        finally:
            if gc_was_enabled:
                gc.enable()
    return run


def load_variant(entry):
    """Import the module a build manifest entry describes.

    Universal-ABI HPy modules are not CPython extensions: hpy.universal
    loads them.  (The stub .py hpy.devel writes beside them needs
    pkg_resources, which recent setuptools no longer ships.)
    """
    name = entry["module"]
    path = REPO / entry["path"]
    if entry["loader"] == "hpy_universal":
        import hpy.universal
        spec = importlib.machinery.ModuleSpec(name, None, origin=str(path))
        return hpy.universal.load(name, str(path), spec)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError(f"cannot load {name} from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
