# The evaluation harness (eval/harness/), included from the root Makefile.
# See eval/README.md.
#
#   make eval-report           Scalene and wall time of every built variant of every
#                              port, then eval/report/: REPORT.md, results.json, PNGs
#   make eval-report QUICK=1   3 runs and small inputs: the pipeline check
#   make eval-report-only      rewrite REPORT.md and the charts from results.json
#
# Relies on the root Makefile for PY, CYSTCK_STAMP, QUICK, TEST_PATHS,
# EVAL_TARGETS and the `wheels` target.

TEST_PATHS += eval/harness/tests
EVAL_TARGETS += eval-report

.PHONY: eval-report eval-report-only

# The report measures what the other eval targets built and shows what they
# wrote (micro.json, migration.json), so it runs after every one of them:
# they are its order-only prerequisites.  This fragment is included before
# the ports' fragments, so that list is only complete once every makefile has
# been read: hence the secondary expansion ($$).  `wheels` makes
# `make eval-report` on its own build every variant first.
.SECONDEXPANSION:
eval-report: $(CYSTCK_STAMP) wheels | $$(filter-out eval-report,$$(EVAL_TARGETS))
	$(PY) -m eval.harness $(if $(filter 1,$(QUICK)),--quick)

eval-report-only: $(VENV_STAMP)
	$(PY) -m eval.harness --report-only
