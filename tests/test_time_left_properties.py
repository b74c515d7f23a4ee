"""The live lower bound on a crawl's time left never exceeds the true time left.

In the simulation the truth is exact: the finish time is known, and so is a
true latency floor per host (the run's fastest page fetch there, ``SimRun.host_page_min_latency``).  At every
event of a random crawl, the bound computed from the events so far is at
most ``finish - t``; with no latency assumed at all (the politeness part,
``proven``) it holds too.  The random scenarios are the bounds property's
(robots.txt, Crawl-delay, failures, Retry-After, retries, randomized gaps,
token buckets, FIFO, caps).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from crawlsim.scenario.files import load_scenario, scenario_from_dict
from crawlsim.sim.driver import simulate
from crawlsim.sim.time_left import TimeLeft
from tests.test_bounds_properties import random_scenarios


def check_time_left(data: dict[str, Any]) -> None:
    s = scenario_from_dict(data, path="<random>")
    run = simulate(s, series=False)
    finish = run.finish_time
    left = TimeLeft(run.options, floor=run.host_page_min_latency)  # no page fetch on a host was faster
    for t in instants(run.trace, left):
        lower = left.lower(t)
        assert lower.seconds <= finish - t + 1e-9, (t, lower, finish)
        assert 0.0 <= lower.proven <= lower.seconds + 1e-12
        estimate = left.estimate(t)
        assert estimate.low <= estimate.seconds <= estimate.high
        assert estimate.low >= lower.seconds


def instants(trace: Any, left: TimeLeft) -> Any:
    """Feed ``left`` the events, yielding each instant once all its events are in
    (a start's hold is emitted before the start itself: the state at ``t`` is
    the one after every event at ``t``)."""
    events = list(trace)
    for i, event in enumerate(events):
        left.see(event)
        if i + 1 == len(events) or events[i + 1].t != event.t:
            yield event.t


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_the_live_lower_bound_never_exceeds_the_time_left(data: dict[str, Any]) -> None:
    check_time_left(data)


@pytest.mark.exhaustive
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_the_live_lower_bound_never_exceeds_the_time_left_exhaustive(data: dict[str, Any]) -> None:
    check_time_left(data)


def test_a_crawl_delay_host_names_itself_and_its_rule() -> None:
    s = load_scenario("polite")
    run = simulate(s, series=False)
    left = TimeLeft(run.options)
    names = set()
    margins: list[float] = []
    for t in instants(run.trace, left):
        lower = left.lower(t)
        names.add(lower.holder)
        assert "; known pages only" in lower.sentence() or lower.known == 0
        assert ("(margin " in lower.sentence()) == (lower.margin > 0 and lower.known > 0)
        margins.append(lower.margin)
    assert left.lower(run.finish_time).known == 0
    assert names & set(run.host_fetches), names
    assert max(margins) > 0  # the live floor, the fastest fetch so far, adds to the bound and says so


def test_the_bound_names_the_host_whose_crawl_delay_holds_it() -> None:
    """The sentence the live line prints ("b.com has N queued at one per 2 s
    (Crawl-delay)") is what the crawl does: b.com's ten pages, one per 2 s
    by its robots.txt, hold the crawl, and the bound is at least the
    Crawl-delay times the starts still to come."""
    data = {
        "crawl": {"workers": 4, "per_host": 1, "robots": True, "scope": "any"},
        "hosts": {
            "a.com": {"latency": 0.1},
            "b.com": {"latency": 0.1, "robots": "User-agent: *\nCrawl-delay: 2\n"},
        },
        "pages": {
            "http://a.com/": {"links": ["http://a.com/x", "http://b.com/"]},
            "http://b.com/": {"links": [f"http://b.com/{i}" for i in range(9)]},
        },
    }
    run = simulate(scenario_from_dict(data, path="<crawl-delay>"), series=False)
    left = TimeLeft(run.options, floor=run.host_page_min_latency)
    said = []
    for t in instants(run.trace, left):
        lower = left.lower(t)
        if "b.com has" in lower.sentence():
            said.append((t, lower))
    assert said, "no instant named b.com"
    t, lower = said[0]
    sentence = lower.sentence()
    assert "at one per 2 s (Crawl-delay)" in sentence, sentence
    queued = int(sentence.split("b.com has ", 1)[1].split(" queued", 1)[0])
    assert lower.seconds >= 2.0 * (queued - 1)
    assert lower.seconds <= run.finish_time - t + 1e-9
