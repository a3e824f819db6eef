"""Medians, means, ratios and their 95% confidence intervals.

Standard library only (no scipy): the Student t quantile is computed from
the regularized incomplete beta function.  The ports' benchmarks and the
micro-benchmarks import median and median_ci from here (eval/README.md,
"Statistics").
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

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


def _incomplete_beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _incomplete_beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _incomplete_beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: int) -> float:
    """The t with P(T <= t) = p, by bisection on t_cdf."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval (None below two values)."""

    mean: float
    low: float | None
    high: float | None
    n: int

    @property
    def half_width(self) -> float | None:
        return None if self.low is None else (self.high - self.low) / 2.0

    def as_dict(self) -> dict:
        return {"mean": self.mean, "ci95": None if self.low is None else [self.low, self.high],
                "n": self.n}


def mean_ci(values: list[float], level: float = LEVEL) -> Estimate:
    """Arithmetic mean and its Student t confidence interval."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(mean, None, None, 1)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(variance / n)
    return Estimate(mean, mean - half, mean + half, n)


def ratio_ci(ratios: list[float], level: float = LEVEL) -> Estimate:
    """Geometric mean of paired ratios and its confidence interval.

    The interval is the t interval of the mean of log(ratio), mapped back
    with exp: ratios are multiplicative, so 0.5 and 2 are equally far from 1.
    """
    if any(r <= 0 for r in ratios):
        raise ValueError("ratios must be positive")
    logs = mean_ci([math.log(r) for r in ratios], level)
    if logs.low is None:
        return Estimate(math.exp(logs.mean), None, None, logs.n)
    return Estimate(math.exp(logs.mean), math.exp(logs.low), math.exp(logs.high), logs.n)
