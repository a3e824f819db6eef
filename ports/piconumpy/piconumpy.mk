# PicoNumPy port (ports/piconumpy/), included from the root Makefile.
#
# Relies on the root Makefile for PY (the virtual environment's python) and
# VENV_STAMP (the target that creates that environment).
#
#   make piconumpy-wheels          build the wheels of every variant into dist/<variant>/
#                                  (up-to-date wheels are kept; they are rebuilt when an
#                                  input changes)
#   make bench-piconumpy           run the benchmark, write eval/results/piconumpy.json
#   make bench-piconumpy QUICK=1   the same, small and fast (for CI)

PICONUMPY_DIR := ports/piconumpy

WHEEL_TARGETS += piconumpy-wheels
TEST_PATHS += $(PICONUMPY_DIR)/tests

.PHONY: piconumpy-wheels bench-piconumpy

# Phony on purpose: build_variants.py decides what is stale from a hash of
# every input, which make's timestamps cannot see (hpy or setuptools
# upgraded in the venv, a wheel deleted by hand).
piconumpy-wheels: $(VENV_STAMP)
	$(PY) $(PICONUMPY_DIR)/build_variants.py

bench-piconumpy: piconumpy-wheels
	$(PY) $(PICONUMPY_DIR)/bench_board.py $(if $(filter 1,$(QUICK)),--quick)
