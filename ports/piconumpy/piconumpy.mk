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
#   make piconumpy-bench           run the benchmark, write eval/results/piconumpy.json
#   make piconumpy-bench QUICK=1   the same, small and fast (for CI)
#   make piconumpy-metrics         migration metrics of the Cystck variant into
#                                  eval/results/migration.json ("piconumpy")
#   make piconumpy-test            build the wheels, run ports/piconumpy/tests against them
#                                  (`make test` runs them too: TEST_PATHS)

PICONUMPY_DIR := ports/piconumpy
# Made by the cystck variant's build (piconumpy_variants.prepare_cystck).
PICONUMPY_CYSTCK_BUILD := build/piconumpy/cystck

WHEEL_TARGETS += piconumpy-wheels
TEST_PATHS += $(PICONUMPY_DIR)/tests
EVAL_TARGETS += piconumpy-bench piconumpy-metrics

.PHONY: piconumpy-wheels piconumpy-bench piconumpy-metrics piconumpy-test

# Phony on purpose: recipe.py decides what is stale from a hash of
# every input, which make's timestamps cannot see (hpy or setuptools
# upgraded in the venv, a wheel deleted by hand).
piconumpy-wheels: $(CYSTCK_STAMP)
	$(PY) $(PICONUMPY_DIR)/recipe.py wheels

piconumpy-bench: piconumpy-wheels
	$(PY) $(PICONUMPY_DIR)/bench.py $(if $(filter 1,$(QUICK)),--quick)

# Three versions of the one source file: upstream (the stock source), the
# translator's output and the final port (output + manual.patch), which the
# wheel build has just made.  eval/harness/coverage.py defines the metrics.
piconumpy-metrics: piconumpy-wheels
	$(PY) eval/harness/coverage.py piconumpy $(PICONUMPY_DIR)/src/piconumpy.c \
		$(PICONUMPY_CYSTCK_BUILD)/translated/piconumpy.c $(PICONUMPY_CYSTCK_BUILD)/src/piconumpy.c \
		--tool-report $(PICONUMPY_CYSTCK_BUILD)/migrate-report.json \
		--out eval/results/migration.json

piconumpy-test: piconumpy-wheels
	$(PYTEST) -q $(PICONUMPY_DIR)/tests
