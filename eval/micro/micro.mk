# Micro-benchmarks: the same ten functions written against the stock C API,
# HPy (CPython and universal ABI) and Cystck, timed side by side.
# See eval/micro/README.md.
#
#   make bench-micro           full run (about a minute), eval/results/micro.json
#   make bench-micro QUICK=1   CI-sized run (a few seconds plus the builds), into
#                              build/micro/micro-quick.json: `make test` runs it, and
#                              must not overwrite the measured results
#
# Included by the root Makefile, which defines PY, VENV_STAMP, CYSTCK_STAMP,
# QUICK, TEST_PATHS and EVAL_TARGETS.

MICRO_DIR := eval/micro

.PHONY: bench-micro
# CYSTCK_STAMP installs the cystck package the cystck variant is built with;
# without it that variant is reported as missing, the others still run.
bench-micro: $(VENV_STAMP) $(CYSTCK_STAMP)
	$(PY) $(MICRO_DIR)/run.py$(if $(filter 1,$(QUICK)), --quick)

TEST_PATHS += $(MICRO_DIR)/test_micro.py
EVAL_TARGETS += bench-micro
