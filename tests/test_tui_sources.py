"""The app's sources: what each mode (scenario, trace, live crawl) tells the
app, tested without Textual; then one app built from a source directly."""

from __future__ import annotations

import pytest

from crawlsim.scenario import load_scenario
from crawlsim.views.session import INTERACTIVE_CAP, Knobs, LiveFeed
from crawlsim.sim.driver import simulate
from crawlsim.tui.sources import LiveSource, ScenarioSource, TraceSource, source_for


@pytest.fixture(scope="module")
def see_it_trace():
    return simulate(load_scenario("see-it")).trace


def test_a_scenario_reruns_with_the_knobs_it_is_given() -> None:
    source = ScenarioSource(load_scenario("see-it"))
    assert source.knobs == Knobs.from_options(load_scenario("see-it").options)
    assert source.about() == source.knobs.describe()
    assert source.poll() is None  # results come from runs, not from polling
    assert source.notice() is None and not source.wants_thread()  # 14 pages: on the UI thread
    first = source.run(source.knobs)
    more = source.run(source.knobs.toggle_polite())
    assert first.knobs == source.knobs and first.bounds is not None and first.coverage is not None
    assert more.knobs is not None and not more.knobs.polite
    assert more.finish < first.finish  # polite off lets the workers help (see test_tui's key test)


def test_a_large_scenario_runs_in_a_thread_and_a_huge_one_is_capped() -> None:
    assert ScenarioSource(load_scenario("busiest-host")).wants_thread()
    million = ScenarioSource(load_scenario("million"))
    notice = million.notice()
    assert million.cap == INTERACTIVE_CAP
    assert notice is not None and f"first {INTERACTIVE_CAP:,} pages only" in notice.message
    assert "crawlsim run million" in notice.detail


def test_a_trace_is_shown_once_and_cannot_rerun(see_it_trace) -> None:
    source = TraceSource(list(see_it_trace), "run.jsonl")
    assert source.knobs is None and source.scenario is None and source.name == "trace"
    assert "trace run.jsonl: replayed as recorded" in source.about()
    update = source.poll()
    assert update is not None and update.message is None and not update.latest
    assert update.result.replay.end == see_it_trace[-1].t and update.result.bounds is None
    assert source.poll() is None  # nothing new arrives in a file
    with pytest.raises(TypeError):
        source.run(Knobs.from_options(load_scenario("see-it").options))
    assert TraceSource(list(see_it_trace)).about() == ""  # events given without a file name


def test_a_live_source_shows_each_new_prefix_of_the_feed(see_it_trace) -> None:
    feed = LiveFeed("http://a.com/")
    source = LiveSource(feed)
    assert source.poll_seconds is not None and source.knobs is None
    assert source.title == "live: http://a.com/" and "a real crawl" in source.about()
    assert source.poll() is None  # no events yet
    half = len(see_it_trace) // 2
    feed.events.extend(see_it_trace[:half])
    update = source.poll()
    assert update is not None and update.latest and "crawling live" in (update.message or "")
    assert len(update.result.replay.events) == half
    assert source.poll() is None  # nothing arrived since
    feed.time_left = "time left: at least 3 s more: b.com has 3 queued at one per 1 s (gap); known pages only"
    feed.events.append(see_it_trace[half])
    update = source.poll()  # the crawl's latest time-left line rides on the status message
    assert update is not None and (update.message or "").endswith(feed.time_left)
    feed.events.extend(see_it_trace[half + 1 :])
    feed.done = True
    update = source.poll()
    assert update is not None and update.message == "crawl finished"
    assert update.result.replay.end == see_it_trace[-1].t
    feed.error = "ConnectError: refused"
    feed.events.append(see_it_trace[-1])
    update = source.poll()
    assert update is not None and update.message == "crawl failed: ConnectError: refused"


def test_the_app_keywords_name_exactly_one_source(see_it_trace) -> None:
    scenario = load_scenario("see-it")
    assert isinstance(source_for(scenario), ScenarioSource)
    assert isinstance(source_for(trace=list(see_it_trace)), TraceSource)
    assert isinstance(source_for(live=LiveFeed("x")), LiveSource)
    for wrong in ({}, {"scenario": scenario, "trace": []}, {"scenario": scenario, "live": LiveFeed("x")}):
        with pytest.raises(ValueError, match="give a scenario or a trace"):
            source_for(**wrong)


async def test_the_app_shows_a_source_passed_directly(see_it_trace) -> None:
    from crawlsim.tui.app import CrawlApp
    from crawlsim.tui.widgets import CountersBar, KeyBar, StatusBar

    app = CrawlApp(source=TraceSource(list(see_it_trace), "x.jsonl"), paused=True, animate=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert "trace — x.jsonl" in app.query_one(StatusBar).plain()
        enabled = {desc: on for _, desc, on, _ in app.query_one(KeyBar).items()}
        assert "workers" not in enabled and enabled["seek"] is True  # what-if keys left out: nothing to rerun
        await pilot.press("end")
        assert "fetched 14/14" in app.query_one(CountersBar).plain()
    with pytest.raises(ValueError):
        CrawlApp(load_scenario("see-it"), source=TraceSource([]))


async def test_opening_a_scenario_stops_following_the_live_feed(see_it_trace) -> None:
    """After ``c`` picks a scenario in a live view, the crawl's later events
    no longer replace the scenario's run on screen."""
    from crawlsim.tui.app import CrawlApp

    feed = LiveFeed("http://a.com/")
    feed.events.extend(see_it_trace[:5])
    app = CrawlApp(live=feed, animate=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert app.result is not None and len(app.result.replay.events) == 5
        app.open_scenario(load_scenario("interview"))
        assert app.result.knobs is not None  # the scenario's run
        feed.events.extend(see_it_trace[5:])
        feed.done = True
        app.follow_source()  # what the live timer would do next
        await pilot.pause()
        assert app.result.knobs is not None and app.source.name == "interview"


async def test_a_scenario_picked_in_a_live_view_plays_on_the_frame_clock(see_it_trace) -> None:
    """A live view has no frame clock (it shows the latest moment); the
    scenario picked from it does, so it plays instead of standing at t = 0."""
    import asyncio

    from crawlsim.tui.app import CrawlApp

    now = [1000.0]
    read = asyncio.Event()

    def clock() -> float:
        read.set()
        return now[0]

    feed = LiveFeed("http://a.com/")
    feed.events.extend(see_it_trace)
    feed.done = True
    app = CrawlApp(live=feed, clock=clock, threaded=False)
    async with app.run_test(size=(160, 48)) as pilot:
        app.open_scenario(load_scenario("interview"))
        assert app.playing and app.t == 0.0 and app.speed > 0
        now[0] += 0.01
        read.clear()
        await asyncio.wait_for(read.wait(), timeout=30)  # the frame clock read the clock: no sleep
        await pilot.pause()
        assert app.t == pytest.approx(0.01 * app.speed)
