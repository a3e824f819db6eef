"""The ports: each sub-package one extension (its pins, patches, workloads
and tests) built as every variant, and portkit, what they share.

The checkout's root is on the venv's sys.path (the Makefile's
.venv/.checkout-stamp), so `from ports import portkit` works from any
script or test; the scripts run as files, `python ports/<port>/recipe.py`.
"""
