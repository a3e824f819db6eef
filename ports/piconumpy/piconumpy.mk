# PicoNumPy port (ports/piconumpy/), included from the root Makefile.
#
# Relies on the root Makefile for PY (the virtual environment's python) and
# CYSTCK_STAMP (that environment with the cystck package installed: the
# Cystck variant is translated by its cystck-migrate and built with its
# cystck.build).
#
#   make piconumpy-wheels          build the wheels of every variant into dist/<variant>/
#                                  (up-to-date wheels are kept; they are rebuilt when an
#                                  input changes)
#   make bench-piconumpy           run the benchmark, write eval/results/piconumpy.json
#   make bench-piconumpy QUICK=1   the same, small and fast (for CI)
#   make piconumpy-migration       migration metrics of the Cystck variant into
#                                  eval/results/migration.json ("piconumpy")

PICONUMPY_DIR := ports/piconumpy
# Made by the cystck variant's build (piconumpy_variants.prepare_cystck).
PICONUMPY_CYSTCK_BUILD := build/piconumpy/cystck

WHEEL_TARGETS += piconumpy-wheels
TEST_PATHS += $(PICONUMPY_DIR)/tests
EVAL_TARGETS += bench-piconumpy piconumpy-migration

.PHONY: piconumpy-wheels bench-piconumpy piconumpy-migration

# Phony on purpose: build_variants.py decides what is stale from a hash of
# every input, which make's timestamps cannot see (hpy or setuptools
# upgraded in the venv, a wheel deleted by hand).
piconumpy-wheels: $(CYSTCK_STAMP)
	$(PY) $(PICONUMPY_DIR)/build_variants.py

bench-piconumpy: piconumpy-wheels
	$(PY) $(PICONUMPY_DIR)/bench_board.py $(if $(filter 1,$(QUICK)),--quick)

# Three versions of the one source file: upstream (the stock source), the
# translator's output and the final port (output + cystck.patch), which the
# wheel build has just made.  eval/harness/coverage.py defines the metrics.
piconumpy-migration: piconumpy-wheels
	$(PY) -m eval.harness.coverage piconumpy $(PICONUMPY_DIR)/src/piconumpy.c \
		$(PICONUMPY_CYSTCK_BUILD)/translated/piconumpy.c $(PICONUMPY_CYSTCK_BUILD)/src/piconumpy.c \
		--tool-report $(PICONUMPY_CYSTCK_BUILD)/migrate-report.json \
		--out eval/results/migration.json
