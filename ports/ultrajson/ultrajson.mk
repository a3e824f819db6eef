# UltraJSON port (ports/ultrajson/), included from the root Makefile.
#
# Relies on the root Makefile for PY (the virtual environment's python) and
# CYSTCK_STAMP (cystck, and so cystck-migrate, installed in it).
#
#   make ultrajson-wheels           download ujson 6.1.0 (cached, sha256-checked), translate it,
#                                   apply hpy.patch, build the dist/stock/, dist/hpy_cpython/,
#                                   dist/hpy_universal/ and dist/cystck/ wheels (kept when up to date)
#   make ultrajson-bench            benchmarks and memory check -> eval/results/ultrajson.json
#   make ultrajson-bench QUICK=1    the same, small and fast
#   make ultrajson-metrics          migration metrics -> eval/results/migration.json ("ultrajson")
#   make ultrajson-test             builds the wheels, then runs ports/ultrajson/tests (the sdist's
#                                   own suite against every wheel, the differential check, a
#                                   fresh-venv install; `make test` runs them too: TEST_PATHS)

ULTRAJSON_DIR := ports/ultrajson

WHEEL_TARGETS += ultrajson-wheels
TEST_PATHS += $(ULTRAJSON_DIR)/tests
EVAL_TARGETS += ultrajson-bench ultrajson-metrics

.PHONY: ultrajson-wheels ultrajson-bench ultrajson-metrics ultrajson-test

# Phony on purpose: recipe.py decides what is stale from a hash of every
# input (sdist, translator output, patches, runtime, hpy, flags), which make's
# timestamps cannot see.
ultrajson-wheels: $(CYSTCK_STAMP)
	$(PY) $(ULTRAJSON_DIR)/recipe.py wheels

ultrajson-metrics: ultrajson-wheels
	$(PY) $(ULTRAJSON_DIR)/metrics.py

ultrajson-bench: ultrajson-wheels
	$(PY) $(ULTRAJSON_DIR)/bench.py $(if $(filter 1,$(QUICK)),--quick)

ultrajson-test: ultrajson-wheels
	$(PYTEST) -q $(ULTRAJSON_DIR)/tests
