"""The evaluation harness of Cystck: the paper's method (section 5) applied
to every variant of every port.

Run it from the repository root as ``python -m eval.harness`` (``make eval``
does, see eval/eval.mk); eval/README.md explains the method and the report.
"""
