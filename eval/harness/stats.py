"""The one statistic of the evaluation: medians with their distribution-free
95% confidence interval (eval/README.md, "Statistics").

The ports' benchmarks, the micro-benchmarks, the results schema and the
harness all take it from here.  Standard library only.
"""

from __future__ import annotations

import math
import statistics

LEVEL = 0.95


median = statistics.median


def median_ci(values: list[float], level: float = LEVEL) -> tuple[tuple[float, float], float]:
    """Distribution-free confidence interval of the median.

    The order statistics [x_(k), x_(n+1-k)] cover the median with
    probability 1 - 2 P(Binomial(n, 1/2) < k), whatever the distribution;
    k is the largest that keeps this >= level.  Below 6 values no interval
    reaches 95%: then the full range is returned with its (lower) coverage,
    which the caller reports.  Returns ((low, high), coverage).
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")

    def coverage(k):
        return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n

    k = 1
    while k + 1 <= (n + 1) // 2 and coverage(k + 1) >= level:
        k += 1
    return (ordered[k - 1], ordered[n - k]), coverage(k)


def estimate(values: list[float], level: float = LEVEL) -> dict:
    """The median of `values` with its median_ci interval, as results files
    keep it: {"median", "ci95": [low, high] (None for a single value),
    "ci_coverage", "n"}.  A ratio to the reference is the estimate of the
    paired ratios (runs of the same round), so drift between rounds cancels."""
    (low, high), coverage = median_ci(values, level)
    return {"median": median(values), "ci95": None if len(values) < 2 else [low, high],
            "ci_coverage": round(coverage, 4), "n": len(values)}
