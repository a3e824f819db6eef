# Cystck: the entry points.  `make eval` builds every variant of every port
# and writes the timing report; `make test` runs every test.  Both set up
# their own virtual environment in .venv.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST := $(VENV)/bin/pytest
VENV_STAMP := $(VENV)/.requirements-stamp
CYSTCK_STAMP := $(VENV)/.cystck-stamp
CHECKOUT_STAMP := $(VENV)/.checkout-stamp
QUICK ?=

# Fragments below add to these.
WHEEL_TARGETS :=
TEST_PATHS :=
EVAL_TARGETS :=

# pytest runs test files in parallel, one worker per core, each file whole
# on one worker (its module fixtures build its extensions once).
PYTEST_WORKERS ?= auto

.PHONY: all test eval wheels bench-micro gen clean help
all: help

help:
	@echo "make eval   build every variant of every port and write eval/report/"
	@echo "make test   run every test (QUICK=1 eval included)"
	@echo "make wheels build every port's wheels into dist/<variant>/"
	@echo "make gen    regenerate the API wrappers and docs from cystck/apitable.py"

$(VENV_STAMP): requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

# The checkout's own tools, ports/ and eval/, import as packages (`from
# ports import portkit`, `from eval.harness import stats`) in every
# interpreter of the venv: a .pth file appends the repository root to
# sys.path.  Appended, so it comes after site-packages: the installed cystck
# (which holds cystck.migrate) goes before the source tree's cystck/ folder.
$(CHECKOUT_STAMP): $(VENV_STAMP)
	$(PY) -c 'import pathlib, sysconfig; pathlib.Path(sysconfig.get_path("purelib"), "cystck-checkout.pth").write_text(str(pathlib.Path.cwd()) + "\n")'
	touch $@

# The cystck package itself, reinstalled whenever its sources change.
CYSTCK_SOURCES := pyproject.toml setup.py $(shell find cystck include migrate -type f \
	\( -name '*.py' -o -name '*.c' -o -name '*.h' \) 2>/dev/null)
$(CYSTCK_STAMP): $(VENV_STAMP) $(CHECKOUT_STAMP) $(CYSTCK_SOURCES)
	$(PY) -m pip install -q --no-deps --no-build-isolation --force-reinstall .
	touch $@

gen: $(VENV_STAMP)
	$(PY) -m cystck.gen_api

include $(sort $(wildcard ports/*/*.mk eval/*.mk eval/*/*.mk))

# After the fragments' paths: the slowest file (the corpus's quick run) is
# handed out first, so the workers finish together.
TEST_PATHS += tests ports/tests

# The quick evaluation keeps the whole pipeline (builds, benchmarks, Scalene,
# report) working in CI; pytest runs last so its summary ends the output.
test: $(CYSTCK_STAMP) $(WHEEL_TARGETS)
	$(PY) -m cystck.gen_api --check
	$(MAKE) eval QUICK=1
	$(PYTEST) -q -n $(PYTEST_WORKERS) --dist loadfile --durations=30 $(TEST_PATHS)

wheels: $(WHEEL_TARGETS)

eval: $(CYSTCK_STAMP) $(EVAL_TARGETS)

clean:
	rm -rf build dist .pytest_cache cystck.egg-info
