import math

import pytest

from eval.harness.stats import mean_ci, ratio_ci, t_cdf, t_quantile


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
