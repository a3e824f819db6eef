# The porting corpus: pinned PyPI extensions built stock, translated by
# cystck-migrate, built untouched with Cystck and run through their own
# tests (release and CYSTCK_DEBUG=1).  See eval/README.md, "The porting corpus".
#
#   make corpus                   every recipe, full suites: eval/results/corpus.json,
#                                 eval/report/corpus.md (lz4's 19,804 tests included)
#   make corpus QUICK=1           the quick run (recipes.QUICK, quick_tests where a recipe has them): build/corpus/corpus-quick.*
#   make corpus CORPUS=lz4,wrapt  these recipes only: build/corpus/corpus-partial.*
#   make corpus-report-only       rewrite eval/report/corpus.md from the JSON
#
# `make test` runs eval/corpus/test_porting_corpus.py, which runs the quick run.
# Included by the root Makefile (PY, CYSTCK_STAMP, CHECKOUT_STAMP, QUICK, TEST_PATHS).

CORPUS_DIR := eval/corpus
CORPUS ?=

.PHONY: corpus corpus-report-only
corpus: $(CYSTCK_STAMP)
	$(PY) $(CORPUS_DIR)/run.py$(if $(filter 1,$(QUICK)), --quick)$(if $(CORPUS), --only $(CORPUS))

# run.py imports ports.portkit: the checkout on the venv's path is enough.
corpus-report-only: $(CHECKOUT_STAMP)
	$(PY) $(CORPUS_DIR)/run.py --report-only

TEST_PATHS += $(CORPUS_DIR)/test_porting_corpus.py
