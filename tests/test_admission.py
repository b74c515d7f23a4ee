"""A response's links admitted a bounded number at a time
(``Scheduler.begin_response`` and its ``Admission``).

Stepping an admission to its end is ``on_response``: random crawls give the
same trace, counters and finish time whatever the step, so a driver that
steps (the real crawler, to look at its time limit between steps) crawls
exactly as one that does not.  Closing one early drops the links not yet
examined -- never queued, never marked seen, counted -- and while one is
open the scheduler refuses every call that would change it, changing
nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.trace.events import Discovered, FetchFinished, Skipped, event_to_dict
from crawlsim.core.admission import Admission
from crawlsim.core.refusals import SchedulerBusy
from crawlsim.core.fetch import Fetch
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim import driver
from tests.test_bounds_properties import random_scenarios


def _stepped(step: int) -> Any:
    """``on_response`` made of ``begin_response`` and ``step(step)`` calls."""
    begin = Scheduler.begin_response

    def on_response(self: Scheduler, fetch_id: int, now: float, **kwargs: Any) -> None:
        admission = begin(self, fetch_id, now, **kwargs)
        while not admission.step(step):
            pass

    return on_response


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios(), st.integers(1, 4))
def test_stepping_a_response_crawls_exactly_as_one_call(data: dict[str, Any], step: int) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    whole = driver.simulate(scenario)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Scheduler, "on_response", _stepped(step))
        stepped = driver.simulate(scenario)
    assert [event_to_dict(e) for e in stepped.trace] == [event_to_dict(e) for e in whole.trace]
    assert stepped.stats == whole.stats and stepped.finish_time == whole.finish_time


LINKS = ["/a", "/b", "/a", "mailto:x@a.com", "http://elsewhere.com/", "/c", "/d", "/e"]


def _page_in_flight(**options: Any) -> tuple[Scheduler, Fetch]:
    sched = Scheduler(CrawlOptions(scope="host", **options))
    sched.add_seeds(["http://a.com/"], now=0.0)
    (fetch,) = sched.poll(0.0)
    sched.drain_events()
    return sched, fetch


def test_closing_early_drops_the_rest_counted_and_unseen() -> None:
    sched, fetch = _page_in_flight()
    admission = sched.begin_response(fetch.id, 1.0, links=LINKS)
    assert not admission.step(3) and admission.remaining == 5
    assert admission.close() == 5 and admission.finished and admission.dropped == 5
    events = sched.drain_events()
    assert [type(e) for e in events] == [Discovered, Discovered, Skipped, FetchFinished]
    assert isinstance(events[-1], FetchFinished) and (events[-1].links, events[-1].new_links) == (8, 2)
    assert sched.found() == ["http://a.com/", "http://a.com/a", "http://a.com/b"]  # /c, /d, /e never seen
    assert admission.close() == 5 and admission.step(1)  # idempotent once finished
    # the dropped links were not marked seen: another page's link to one is queued
    (next_fetch, _) = sched.poll(1.0)
    sched.on_response(next_fetch.id, 2.0, links=["/c"])
    assert "http://a.com/c" in sched.found()


def test_an_admission_stepped_to_its_end_reports_once() -> None:
    sched, fetch = _page_in_flight()
    admission = sched.begin_response(fetch.id, 1.0, links=LINKS)
    steps = 0
    while not admission.step(2):
        steps += 1
    assert steps == 3 and admission.examined == 8 and admission.new == 5 and admission.close() == 0
    finished = [e for e in sched.drain_events() if isinstance(e, FetchFinished)]
    assert len(finished) == 1 and (finished[0].links, finished[0].new_links) == (8, 5)


def test_a_robots_answer_or_a_retry_is_finished_at_once() -> None:
    sched = Scheduler(CrawlOptions(scope="host", robots=True))
    sched.add_seeds(["http://a.com/"], now=0.0)
    (robots,) = sched.poll(0.0)
    assert robots.kind == "robots"
    assert sched.begin_response(robots.id, 1.0, body="User-agent: *\nDisallow:\n").finished
    (page,) = sched.poll(1.0)
    assert sched.begin_response(page.id, 2.0, status=503, links=LINKS).finished  # retried: no links followed
    assert sched.pending_retries == 1


def _busy() -> tuple[Scheduler, Admission, Fetch]:
    sched, fetch = _page_in_flight(workers=2)
    sched.add_seeds(["http://a.com/other"], now=0.5)
    (other,) = sched.poll(0.5)
    admission = sched.begin_response(fetch.id, 1.0, links=LINKS)
    admission.step(1)
    return sched, admission, other


@pytest.mark.parametrize(
    "call",
    [
        lambda s, f: s.poll(2.0),
        lambda s, f: s.on_response(f.id, 2.0, links=["/z"]),
        lambda s, f: s.begin_response(f.id, 2.0, links=["/z"]),
        lambda s, f: s.on_error(f.id, 2.0, "timeout"),
        lambda s, f: s.add_seeds(["http://a.com/z"], 2.0),
        lambda s, f: s.add_links("http://a.com/", ["/z"], 0, 2.0),
        lambda s, f: s.add_scope(["http://b.com/"]),
    ],
)
def test_while_an_admission_is_open_every_change_is_refused(call: Any) -> None:
    sched, admission, other = _busy()
    before = (sched.found(), sched.in_flight, sched.frontier_size, sched.stats.discovered)
    with pytest.raises(SchedulerBusy, match="still being admitted"):
        call(sched, other)
    assert (sched.found(), sched.in_flight, sched.frontier_size, sched.stats.discovered) == before
    admission.close()
    call(sched, other)  # accepted once it is closed


def test_the_links_are_those_given_even_if_the_list_changes_between_steps() -> None:
    sched, fetch = _page_in_flight()
    links = ["/a", "/b", "/c"]
    admission = sched.begin_response(fetch.id, 1.0, links=links)
    admission.step(1)
    links[1:] = ["/x", "/y", "/z"]
    while not admission.step(1):
        pass
    assert sched.found() == ["http://a.com/", "http://a.com/a", "http://a.com/b", "http://a.com/c"]


@pytest.mark.parametrize("limit", [0, -1, 1.5, "3", None, True])
def test_a_bad_step_is_refused(limit: Any) -> None:
    sched, fetch = _page_in_flight()
    admission = sched.begin_response(fetch.id, 1.0, links=LINKS)
    with pytest.raises(ValueError, match="limit"):
        admission.step(limit)
    assert admission.examined == 0 and not admission.finished


def test_a_cut_crawl_is_not_announced_done_a_finished_one_is() -> None:
    for cut in (True, False):
        sched, fetch = _page_in_flight()
        admission = sched.begin_response(fetch.id, 1.0, links=["/"] * 5)  # all seen: nothing left to fetch
        admission.step(2)
        if cut:
            assert admission.close() == 3
        else:
            while not admission.step(2):
                pass
        kinds = [type(e).__name__ for e in sched.drain_events()]
        assert kinds[-1] == ("FetchFinished" if cut else "Done")
