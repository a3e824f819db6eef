# kiwisolver port (ports/kiwi/), included from the root Makefile.
#
# Relies on the root Makefile for PY (the virtual environment's python) and
# CYSTCK_STAMP (cystck, with its translator, installed into it).
#
#   make kiwi-wheels          dist/{stock,hpy_cpython,hpy_universal,cystck}/kiwisolver-1.5.1-*.whl
#                             (kept when up to date; rebuilt when an input changes;
#                             a variant that fails leaves build/kiwi/<v>/build.error)
#   make kiwi-bench           the enaml-like benchmark, the four wheels interleaved;
#                             writes eval/results/kiwi.json
#   make kiwi-bench QUICK=1   the same, a few seconds, into build/kiwi/bench-quick.json
#   make kiwi-metrics         migration metrics into eval/results/migration.json ("kiwi")
#   make kiwi-test            builds the wheels, then runs kiwisolver's own tests against
#                             all four (`make test` runs them too: TEST_PATHS)

KIWI_DIR := ports/kiwi
KIWI_REQS_STAMP := $(VENV)/.kiwi-requirements-stamp

WHEEL_TARGETS += kiwi-wheels
TEST_PATHS += $(KIWI_DIR)/tests
EVAL_TARGETS += kiwi-bench kiwi-metrics

.PHONY: kiwi-wheels kiwi-bench kiwi-metrics kiwi-test

# cppy and setuptools_scm: the sdist's build requirements (the builds run
# without build isolation, so that the Cystck one sees cystck).
$(KIWI_REQS_STAMP): $(VENV_STAMP) $(KIWI_DIR)/requirements.txt
	$(PY) -m pip install -q -r $(KIWI_DIR)/requirements.txt
	touch $@

# Phony on purpose: recipe.py decides what is stale from a hash of every
# input (sdist, patch, installed translator and runtime, tool versions).
kiwi-wheels: $(CYSTCK_STAMP) $(KIWI_REQS_STAMP)
	$(PY) $(KIWI_DIR)/recipe.py wheels

kiwi-bench: kiwi-wheels
	$(PY) $(KIWI_DIR)/bench.py $(if $(filter 1,$(QUICK)),--quick)

kiwi-metrics: kiwi-wheels
	$(PY) $(KIWI_DIR)/metrics.py

kiwi-test: kiwi-wheels
	$(PYTEST) -q $(KIWI_DIR)/tests
