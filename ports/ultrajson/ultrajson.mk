# UltraJSON port (ports/ultrajson/), included from the root Makefile.
#
# Relies on the root Makefile for PY (the virtual environment's python) and
# CYSTCK_STAMP (cystck, and so cystck-migrate, installed in it).
#
#   make ultrajson-wheels           download ujson 6.1.0 (cached, sha256-checked), translate it,
#                                   apply hpy.patch, build the dist/stock/, dist/hpy_cpython/,
#                                   dist/hpy_universal/ and dist/cystck/ wheels (kept when up to date)
#   make bench-ultrajson            benchmarks and memory check -> eval/results/ultrajson.json,
#                                   migration metrics -> eval/results/migration.json ("ultrajson")
#   make bench-ultrajson QUICK=1    the same, small and fast
#   make test                       includes ports/ultrajson/tests (the sdist's own suite against
#                                   every wheel, the differential check, a fresh-venv install)

ULTRAJSON_DIR := ports/ultrajson

WHEEL_TARGETS += ultrajson-wheels
TEST_PATHS += $(ULTRAJSON_DIR)/tests
EVAL_TARGETS += bench-ultrajson

.PHONY: ultrajson-wheels bench-ultrajson ultrajson-metrics

# Phony on purpose: recipe.py decides what is stale from a hash of every
# input (sdist, translator output, patches, runtime, hpy, flags), which make's
# timestamps cannot see.
ultrajson-wheels: $(CYSTCK_STAMP)
	$(PY) $(ULTRAJSON_DIR)/recipe.py wheels

ultrajson-metrics: ultrajson-wheels
	$(PY) $(ULTRAJSON_DIR)/metrics.py

bench-ultrajson: ultrajson-wheels ultrajson-metrics
	$(PY) $(ULTRAJSON_DIR)/bench.py $(if $(filter 1,$(QUICK)),--quick)
