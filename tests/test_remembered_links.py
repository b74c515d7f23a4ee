"""A session's reruns answer plain pages from a memo on the web (crawlsim/sim/remembered.py):
the same crawl as without it, and a memo that stops growing at its bound."""

from __future__ import annotations

import pytest

import crawlsim.sim.remembered as remembered
from crawlsim.scenario import load_scenario
from crawlsim.views.session import Knobs, run_session
from crawlsim.sim.driver import simulate


def _million(cap: int):
    scenario = load_scenario("million")
    return scenario, scenario.with_options(max_pages=cap, record_events=True)


def test_a_remembered_rerun_is_the_crawl_without_the_memo() -> None:
    scenario, plain = _million(300)
    knobs = Knobs.for_scenario(scenario)
    for turned in (knobs, knobs.more_workers(), knobs.more_workers().toggle_polite()):  # the 2nd and 3rd from the memo
        result = run_session(scenario, turned, cap=300, advice=False)
        expected = simulate(plain.with_options(**turned.overrides()), compact=False)
        assert result.finish == expected.finish_time
        assert list(result.run.trace) == list(expected.trace)
    assert remembered._MEMOS[scenario.web]  # the pages were remembered


def test_the_memo_stops_growing_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remembered, "MEMO_PAGES", 25)
    scenario, _ = _million(100)
    first = run_session(scenario, Knobs.for_scenario(scenario), cap=100, advice=False)
    assert len(remembered._MEMOS[scenario.web]) == 25
    again = run_session(scenario, Knobs.for_scenario(scenario), cap=100, advice=False)
    assert again.finish == first.finish
    assert len(remembered._MEMOS[scenario.web]) == 25
