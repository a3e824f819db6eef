"""One variant's timing process, driven by run.py.

    python worker.py '<manifest entry as JSON>'

Loads the variant's module, prepares a timer per benchmark, then answers
requests, one JSON object per line on stdin:

    {"op": "time", "bench": NAME, "loops": N}  ->  {"ns": total nanoseconds}
    {"op": "quit"}

The first line written is {"ready": true, "broken": {bench: error}} (or
{"ready": false, "error": ...} if the module does not load).  A separate
process per variant keeps the variants' modules, allocator state and
caches apart, and a crash in one variant cannot take the harness down.
"""
import json
import os
import sys
import traceback

import microbench


def _protocol_stream():
    """The original stdout, for replies only; fd 1 is pointed at stderr so
    anything the extension or Python prints cannot corrupt the protocol."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main():
    entry = json.loads(sys.argv[1])
    out = _protocol_stream()

    def reply(obj):
        out.write(json.dumps(obj) + "\n")

    try:
        module = microbench.load_variant(entry)
    except Exception:
        reply({"ready": False, "error": traceback.format_exc(limit=3)})
        return 1

    timers, broken = {}, {}
    for bench in microbench.BENCHMARKS + (microbench.EMPTY_LOOP,):
        try:
            ns = bench.setup(module)
            timer = microbench.make_timer(bench, ns)
            timer(1)                    # fails here, not mid-measurement
            timers[bench.name] = timer
        except Exception as exc:
            broken[bench.name] = f"{type(exc).__name__}: {exc}"
    reply({"ready": True, "broken": broken})

    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "quit":
            break
        if req["op"] == "time":
            try:
                reply({"ns": timers[req["bench"]](req["loops"])})
            except Exception as exc:
                reply({"error": f"{type(exc).__name__}: {exc}"})
        else:
            reply({"error": f"unknown op {req['op']!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
