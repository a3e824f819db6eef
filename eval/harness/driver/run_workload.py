"""Run one workload of one port's variant once, in this interpreter.

    python run_workload.py SITE IMPORT_NAME WORKLOADS_FILE WORKLOAD REPEAT RESULT_FILE

This is the program that is measured: with Scalene around it for the
profile, bare for the wall time.  It runs in a fresh interpreter that must
see only the standard library and the variant's site directory, so it
imports nothing else (and it lives alone in its folder: Scalene puts the
program's folder first on sys.path, where a module named like one of
Scalene's own imports would shadow it).

It puts SITE first on sys.path, imports IMPORT_NAME and checks that the
module came from SITE, loads WORKLOADS_FILE (a port's benchmark module; see
eval/harness/PORT_INTERFACE.md), calls ``WORKLOADS[WORKLOAD](module,
max(1, REPEAT // 50))`` as a warm-up, then times ``WORKLOADS[WORKLOAD](module,
REPEAT)`` and writes ``{"seconds": ..., "checksum": repr(result)}`` as JSON
to RESULT_FILE.
"""

import importlib
import importlib.util
import json
import os
import sys
import time


def main(argv):
    site, import_name, workloads_file, workload_name, repeat, result_file = argv
    repeat = int(repeat)
    sys.path.insert(0, site)
    module = importlib.import_module(import_name)
    origin = os.path.abspath(getattr(module, "__file__", None) or "<built-in>")
    if not origin.startswith(os.path.join(os.path.abspath(site), "")):
        raise SystemExit(f"{import_name} was imported from {origin}, not from {site}")

    spec = importlib.util.spec_from_file_location("cystck_eval_workloads", workloads_file)
    workloads = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(workloads)
    workload = workloads.WORKLOADS[workload_name]

    workload(module, max(1, repeat // 50))
    start = time.perf_counter()
    result = workload(module, repeat)
    seconds = time.perf_counter() - start
    with open(result_file, "w") as f:
        json.dump({"seconds": seconds, "checksum": repr(result)}, f)


if __name__ == "__main__":
    main(sys.argv[1:])
