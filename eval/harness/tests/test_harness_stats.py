import pytest

from eval.harness.stats import estimate, median, median_ci


def test_estimate_is_the_median_with_its_interval():
    values = [10.4, 9.8, 10.1, 9.9, 30.0, 10.3, 10.0]   # one burst of load
    (low, high), coverage = median_ci(values)
    assert estimate(values) == {"median": 10.1, "ci95": [low, high],
                                "ci_coverage": round(coverage, 4), "n": 7}
    assert estimate([3.0]) == {"median": 3.0, "ci95": None, "ci_coverage": 0.0, "n": 1}
    with pytest.raises(ValueError):
        estimate([])


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
