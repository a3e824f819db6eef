"""One side of the differential check: runs ujson calls sent by the test.

The test process (tests/test_ultrajson_differential.py) starts one worker
per variant with :func:`start` and sends it requests; each worker imports
only its own variant's ujson (ujson_port.variant_command).  Requests and
replies are pickles, each preceded by its length (8 bytes, little endian),
over the worker's stdin and stdout:

    request  ("dumps", obj, kwargs), ("loads", data, kwargs) or ("file", None, {})
    reply    ("ok", result) or ("raised", "module.QualName", message)

Objects that are not plain data travel as the marker classes below, which
the worker turns into the objects they stand for, so both variants receive
equal inputs.
"""

from __future__ import annotations

import decimal
import pickle
import struct
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class ToDict:
    """Becomes an object whose toDict() returns ``result``."""
    result: object


@dataclass(frozen=True)
class JSONMethod:
    """Becomes an object whose __json__() returns ``result`` (raw JSON)."""
    result: object


@dataclass(frozen=True)
class Opaque:
    """Becomes an object ujson cannot serialize (its repr is ``name``)."""
    name: str


@dataclass(frozen=True)
class Default:
    """The ``default`` argument of dumps: a builtin, by name."""
    name: str


class _ToDict:
    def __init__(self, result):
        self._result = result

    def toDict(self):
        return self._result


class _JSONMethod:
    def __init__(self, result):
        self._result = result

    def __json__(self):
        return self._result


class _Opaque:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name


_DEFAULTS = {"str": str, "repr": repr, "sorted": sorted, "float": float}


def materialize(x):
    """Turn markers (at any depth, keys included) into real objects."""
    if isinstance(x, ToDict):
        return _ToDict(materialize(x.result))
    if isinstance(x, JSONMethod):
        return _JSONMethod(x.result)
    if isinstance(x, Opaque):
        return _Opaque(x.name)
    if isinstance(x, Default):
        return _DEFAULTS[x.name]
    if type(x) is list:
        return [materialize(v) for v in x]
    if type(x) is tuple:
        return tuple(materialize(v) for v in x)
    if type(x) is dict:
        return {materialize(k): materialize(v) for k, v in x.items()}
    return x


def handle(ujson, request):
    op, arg, kwargs = request
    kwargs = {k: materialize(v) for k, v in kwargs.items()}
    try:
        if op == "dumps":
            result = ujson.dumps(materialize(arg), **kwargs)
        elif op == "loads":
            result = ujson.loads(arg, **kwargs)
        elif op == "file":
            result = ujson.__file__
        else:
            raise ValueError(f"unknown request {op!r}")
    except Exception as exc:  # noqa: BLE001  (every exception is a result here)
        kind = type(exc)
        return ("raised", f"{kind.__module__}.{kind.__qualname__}", str(exc))
    return ("ok", result)


def _read(stream):
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    return pickle.loads(stream.read(size))


def _write(stream, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def serve(ujson):
    """The worker's loop: answer requests until stdin closes."""
    sys.setrecursionlimit(20000)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (request := _read(stdin)) is not None:
        reply = handle(ujson, request)
        try:
            _write(stdout, reply)
        except (pickle.PicklingError, RecursionError, TypeError) as exc:
            _write(stdout, ("unpicklable", type(exc).__name__, str(exc)))


class Worker:
    """A running worker for one variant (see ujson_port.variant_command)."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def call(self, op, arg, **kwargs):
        _write(self.process.stdin, (op, arg, kwargs))
        reply = _read(self.process.stdout)
        if reply is None:
            status = self.process.wait()
            raise RuntimeError(f"the worker died (exit status {status}) on {op}({arg!r}, {kwargs!r})")
        return reply

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


# Run in the variant's interpreter by start().
_SERVE = """
from ports.ultrajson import diff_worker
diff_worker.serve(ujson)
"""


def start(variant: str) -> Worker:
    from ports.ultrajson import ujson_port
    return Worker(ujson_port.variant_command(variant, _SERVE))


def same(a, b) -> bool:
    """Equal values of the same types (True is not 1, 1 is not 1.0, NaN
    equals NaN, -0.0 is not 0.0, dict order matters)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if a != a or b != b:
            return a != a and b != b
        return a == b and (str(a) == str(b))
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return len(a) == len(b) and all(same(ka, kb) and same(va, vb)
                                        for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    if type(a) is decimal.Decimal:
        return str(a) == str(b)
    return a == b
