"""The UltraJSON workloads: ``loads`` and ``dumps`` of the sdist's sample.json.

Measured by bench.py (interleaved wall and CPU time, instruction counts) and
by the evaluation harness (eval/harness/PORT_INTERFACE.md), which loads this
file by path into interpreters that see nothing but the standard library and
one variant's ujson: so only the standard library here, and the document is
found from this file's own location (build/ultrajson/, made by recipe.py).
"""

import hashlib
import json
from pathlib import Path

DOCUMENT = "tests/sample.json"
DOCUMENT_PATH = (Path(__file__).resolve().parent.parent.parent / "build" / "ultrajson"
                 / "upstream" / "ujson-6.1.0" / DOCUMENT)

_document_cache = {}


def document():
    """sample.json as text, and the object the stdlib parses from it (so
    every variant encodes the same object)."""
    if not _document_cache:
        text = DOCUMENT_PATH.read_text(encoding="utf-8")
        _document_cache.update(text=text, obj=json.loads(text))
    return _document_cache["text"], _document_cache["obj"]


def _digest(text):
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def loads_loop(ujson, repeat):
    text, _ = document()
    value = None
    for _ in range(repeat):
        value = ujson.loads(text)
    return value


def dumps_loop(ujson, repeat):
    _, obj = document()
    out = ""
    for _ in range(repeat):
        out = ujson.dumps(obj)
    return out


# workload -> (the loop to time, the checksum of its last result); bench.py
# times the loop alone and computes the checksum after.
PARTS = {
    "loads": (loads_loop, lambda value: _digest(json.dumps(value, sort_keys=True))),
    "dumps": (dumps_loop, _digest),
}


def workload_loads(ujson, repeat):
    """ujson.loads of the ujson 6.1.0 sdist's tests/sample.json (687,492 bytes)"""
    loop, checksum = PARTS["loads"]
    return checksum(loop(ujson, repeat))


def workload_dumps(ujson, repeat):
    """ujson.dumps of the object in the ujson 6.1.0 sdist's tests/sample.json"""
    loop, checksum = PARTS["dumps"]
    return checksum(loop(ujson, repeat))


WORKLOADS = {"loads": workload_loads, "dumps": workload_dumps}

# Full: the paper's "1000 iterations" (loads about 1.8 s, dumps about 0.9 s
# on the development machine); quick: 100 (0.05-0.2 s).
SIZES = {False: {"loads": 1000, "dumps": 1000}, True: {"loads": 100, "dumps": 100}}
