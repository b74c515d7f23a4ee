"""The re-crawl model behind the "a crawl never ends" lesson (notebook 17):
the optimal revisit frequencies really are optimal, the schedule spends the
budget as the frequencies say, and the simulated freshness agrees with the
closed form it is taught next to."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlsim.notebook.freshness import (
    POLICIES,
    expected_freshness,
    optimal_frequencies,
    proportional_frequencies,
    revisit,
    uniform_frequencies,
)

rates_st = st.lists(st.floats(min_value=0.01, max_value=500.0), min_size=1, max_size=40)
budget_st = st.floats(min_value=0.5, max_value=200.0)


def total_freshness(rates: list[float], frequencies: list[float]) -> float:
    return sum(expected_freshness(r, f) for r, f in zip(rates, frequencies))


@given(rates_st, budget_st)
def test_optimal_frequencies_spend_the_budget_and_beat_the_other_shares(rates: list[float], budget: float) -> None:
    best = optimal_frequencies(rates, budget)
    assert all(f >= 0 for f in best)
    assert math.isclose(sum(best), budget, rel_tol=1e-6)
    achieved = total_freshness(rates, best)
    for other in (uniform_frequencies(rates, budget), proportional_frequencies(rates, budget)):
        assert achieved >= total_freshness(rates, other) - 1e-6 * len(rates)


@given(rates_st, budget_st)
def test_the_pages_left_alone_are_the_fastest_changing(rates: list[float], budget: float) -> None:
    best = optimal_frequencies(rates, budget)
    skipped = [r for r, f in zip(rates, best) if f == 0]
    kept = [r for r, f in zip(rates, best) if f > 0]
    assert kept, "a positive budget is always spent on some page"
    if skipped:
        assert min(skipped) >= max(kept)


@given(
    st.lists(st.floats(min_value=0.05, max_value=50.0), min_size=1, max_size=30),
    st.integers(min_value=5, max_value=100),
    st.sampled_from(["uniform", "proportional", "optimal"]),
)
def test_the_schedule_fetches_each_page_as_often_as_its_frequency_says(
    rates: list[float], budget: int, policy: str
) -> None:
    days = 20.0
    run = revisit(rates, budget, days, policy)
    assert sum(run.fetches) == int(budget * days)
    for frequency, fetched in zip(run.frequencies, run.fetches):
        assert abs(fetched - frequency * days) <= 2.0


@given(st.lists(st.floats(min_value=0.0, max_value=50.0), min_size=1, max_size=30), st.sampled_from(POLICIES))
def test_freshness_is_a_fraction_and_once_fetches_each_page_once(rates: list[float], policy: str) -> None:
    if policy in ("optimal", "proportional") and (min(rates) <= 0 or sum(rates) == 0):
        return  # these shares need every rate > 0 (optimal) or some change (proportional)
    run = revisit(rates, 10, 5.0, policy, warmup=1.0, seed=3)
    assert 0.0 <= run.average <= 1.0 and 0.0 <= run.at_end <= 1.0
    if policy == "once":
        assert run.fetches == tuple(1 if i < 50 else 0 for i in range(len(rates)))
    assert revisit(rates, 10, 5.0, policy, warmup=1.0, seed=3) == run  # one seed, one answer


def test_simulated_uniform_freshness_matches_the_formula() -> None:
    rates = [0.1] * 400 + [1.0] * 80 + [10.0] * 20
    run = revisit(rates, 250, 60.0, "uniform", warmup=10.0, seed=11)
    formula = sum(expected_freshness(r, 0.5) for r in rates) / len(rates)
    assert run.average == pytest.approx(formula, rel=0.02)


def test_a_page_that_never_changes_stays_fresh_and_one_never_fetched_is_stale() -> None:
    assert expected_freshness(0.0, 1.0) == 1.0
    assert expected_freshness(3.0, 0.0) == 0.0
    run = revisit([0.0, 0.0], 1, 4.0, "once")
    assert run.at_end == 1.0


@pytest.mark.parametrize(
    "args",
    [
        ([], 1, 1.0, "uniform"),
        ([1.0], 0, 1.0, "uniform"),
        ([1.0], 1, 0.0, "uniform"),
        ([1.0], 1, 1.0, "fastest"),
        ([0.0, 0.0], 1, 1.0, "proportional"),
        ([0.0, 1.0], 1, 1.0, "optimal"),
        ([1.0], 1e9, 1e9, "uniform"),
    ],
)
def test_bad_arguments_are_refused(args: tuple) -> None:
    with pytest.raises(ValueError):
        revisit(*args)
