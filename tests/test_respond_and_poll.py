"""The simulator's fast paths change nothing a user sees.

``Scheduler.respond_and_poll`` is ``on_response`` (a plain 200 page) then
``poll`` in one call, and the SimPy driver re-arms one event per worker lane
instead of making a ``Timeout`` per fetch.  Checked here: random crawls give
the same trace, counters, finish time and series as the two separate calls;
the combined call refuses exactly what ``on_response`` refuses, changing
nothing; and a latency model that draws a negative latency is still refused
as SimPy's ``Timeout`` refused it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.trace.events import event_to_dict
from crawlsim.core.scheduler import Fetch, UnknownFetch
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim import driver
from crawlsim.sim.explicit import ExplicitWeb
from crawlsim.sim.latency import LatencyModel
from crawlsim.sim.web import Web
from tests.test_bounds_properties import random_scenarios


class _TwoCalls(Scheduler):
    """A scheduler whose ``respond_and_poll`` is the two calls it stands for (a
    subclass, not a patched method: the compiled build's class takes no patch)."""

    def respond_and_poll(self, fetch_id: int, now: float, links: Any) -> list[Fetch]:
        self.on_response(fetch_id, now, links=links)
        return self.poll(now)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_one_call_crawls_exactly_as_two(data: dict[str, Any]) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    fused = driver.simulate(scenario)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(driver, "Scheduler", _TwoCalls)
        split = driver.simulate(scenario)
    assert [event_to_dict(e) for e in fused.trace] == [event_to_dict(e) for e in split.trace]
    assert fused.stats == split.stats and fused.finish_time == split.finish_time
    assert list(fused.series) == list(split.series) and fused.host_busy == split.host_busy


def _one_in_flight() -> tuple[Scheduler, Fetch]:
    sched = Scheduler(CrawlOptions(workers=2, scope="any"))
    sched.add_seeds(["http://a.com/"], now=0.0)
    (fetch,) = sched.poll(0.0)
    return sched, fetch


@pytest.mark.parametrize(
    ("fetch_id", "now", "links", "error"),
    [
        (99, 1.0, [], UnknownFetch),
        ("1", 1.0, [], TypeError),
        (None, 1.0, [], TypeError),
        (1, -1.0, [], ValueError),
        (1, float("nan"), [], ValueError),
        (1, "1", [], TypeError),
        (1, 1.0, "/a", TypeError),
        (1, 1.0, None, TypeError),
    ],
)
def test_it_refuses_what_on_response_refuses_and_changes_nothing(
    fetch_id: object, now: object, links: object, error: type[Exception]
) -> None:
    sched, fetch = _one_in_flight()
    assert fetch.id == 1
    with pytest.raises(error):
        sched.on_response(fetch_id, now, links=links)  # type: ignore[arg-type]
    with pytest.raises(error):
        sched.respond_and_poll(fetch_id, now, links)  # type: ignore[arg-type]
    assert sched.in_flight == 1 and sched.stats.pages_fetched == 0
    started = sched.respond_and_poll(fetch.id, 1.0, iter(["/b", "/c"]))  # any iterable, as on_response takes
    assert [f.url for f in started] == ["http://a.com/b", "http://a.com/c"]


@dataclass(frozen=True)
class _Backwards:
    """A latency model (a user's, say) whose draws go back in time."""

    def sampler(self, rng: Any) -> Any:
        return lambda: -1.0


@dataclass(frozen=True)
class _Input:
    options: CrawlOptions
    web: Web
    seeds: tuple[str, ...] = ("http://a.com/",)
    seed: int = 0

    def latency_for(self, host: str) -> LatencyModel:
        return _Backwards()  # type: ignore[return-value]


def test_a_negative_latency_is_refused_as_before() -> None:
    sim = _Input(CrawlOptions(), ExplicitWeb({"http://a.com/": []}))
    with pytest.raises(ValueError, match="Negative delay"):
        driver.simulate(sim)  # type: ignore[arg-type]
