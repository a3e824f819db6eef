import math

import pytest

from eval.harness.stats import mean_ci, median, median_ci, ratio_ci, t_cdf, t_quantile


@pytest.mark.parametrize("df, expected", [
    (1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (1000, 1.9623),
])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_cdf_is_symmetric_and_monotonic():
    assert t_cdf(0.0, 5) == pytest.approx(0.5)
    assert t_cdf(-1.3, 7) == pytest.approx(1 - t_cdf(1.3, 7))
    assert t_cdf(1.0, 3) < t_cdf(2.0, 3) < t_cdf(3.0, 3)
    assert t_quantile(0.025, 9) == pytest.approx(-t_quantile(0.975, 9))


def test_mean_ci_of_known_sample():
    values = [9.8, 10.1, 10.4, 9.9, 10.3]
    estimate = mean_ci(values)
    sd = math.sqrt(sum((v - 10.1) ** 2 for v in values) / 4)
    half = 2.7764 * sd / math.sqrt(5)
    assert estimate.mean == pytest.approx(10.1)
    assert estimate.low == pytest.approx(10.1 - half, abs=1e-3)
    assert estimate.high == pytest.approx(10.1 + half, abs=1e-3)
    assert estimate.n == 5


def test_one_value_has_no_interval():
    estimate = mean_ci([3.0])
    assert (estimate.mean, estimate.low, estimate.high) == (3.0, None, None)
    assert estimate.as_dict() == {"mean": 3.0, "ci95": None, "n": 1}
    with pytest.raises(ValueError):
        mean_ci([])


def test_ratio_ci_is_geometric_and_multiplicatively_symmetric():
    estimate = ratio_ci([2.0, 0.5, 2.0, 0.5])
    assert estimate.mean == pytest.approx(1.0)
    assert estimate.low * estimate.high == pytest.approx(1.0)
    assert ratio_ci([1.2, 1.2, 1.2]).as_dict()["ci95"] == pytest.approx([1.2, 1.2])
    with pytest.raises(ValueError):
        ratio_ci([1.0, 0.0])


@pytest.mark.parametrize("n, k, coverage", [
    # k from the binomial tables: the largest k with
    # 1 - 2 P(Bin(n, 1/2) < k) >= 0.95.
    (6, 1, 0.96875),
    (9, 2, 1 - 20 / 512),
    (10, 2, 0.978515625),
    (20, 6, 0.9586),
    (30, 10, 0.9572),
])
def test_median_ci_takes_the_order_statistics_that_keep_95_percent(n, k, coverage):
    values = [float(v) for v in range(n, 0, -1)]     # n..1, unsorted on purpose
    (low, high), got = median_ci(values)
    assert (low, high) == (float(k), float(n + 1 - k))
    assert got == pytest.approx(coverage, abs=1e-4)
    assert got >= 0.95


def test_median_ci_below_six_values_is_the_range_with_its_coverage():
    assert median_ci([5, 1, 3, 2, 4]) == ((1, 5), pytest.approx(1 - 2 / 32))
    assert median_ci([1.0, 2.0, 3.0]) == ((1.0, 3.0), pytest.approx(0.75))
    assert median_ci([7.0]) == ((7.0, 7.0), 0.0)
    with pytest.raises(ValueError):
        median_ci([])


def test_median_of_even_count_is_the_mean_of_the_middle_two():
    assert median([3, 1, 2, 10]) == 2.5
    assert median([3, 1, 2]) == 2
