"""Every key of the terminal app, driven with Textual's Pilot, asserting what
a user would see change on screen (the panels' text)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from crawlsim.trace.events import event_to_dict
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.picker import ScenarioPicker
from crawlsim.tui.widgets import BoundsView, CountersBar, KeyBar, LanesView, PagesView, StatusBar, Timeline

SIZE = (160, 48)


def app_for(name: str = "see-it", *, at: float = 0.0, **overrides: object) -> CrawlApp:
    """A still app (no frame timer): keys move the clock, nothing else does."""
    scenario = load_scenario(name)
    if overrides:
        scenario = scenario.with_options(**overrides)
    return CrawlApp(scenario, paused=True, at=at, animate=False, threaded=False)


def status(app: CrawlApp) -> str:
    return app.query_one(StatusBar).plain()


def counters(app: CrawlApp) -> str:
    return app.query_one(CountersBar).plain()


def shown_time(app: CrawlApp) -> float:
    return float(re.search(r"t (\d+\.\d)/", counters(app)).group(1))


def shown_finish(app: CrawlApp) -> float:
    """The finish time on the status line (the new one after "->")."""
    text = status(app)
    match = re.search(r"-> (\d+\.\d) s", text) or re.search(r"finish (\d+\.\d) s", text)
    return float(match.group(1))


def shown_duplicates(app: CrawlApp) -> int:
    return int(re.search(r"dup (\d+)", counters(app)).group(1))


class FakeClock:
    """A wall clock that moves only when told (``advance``); ``read`` is set
    each time someone reads it, so a test can wait for the app's frame timer
    to have drawn a frame instead of sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.read = asyncio.Event()

    def __call__(self) -> float:
        self.read.set()
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.read.clear()

    async def next_frame(self, pilot: object) -> None:
        """Wait (event-driven, no fixed sleep) until the app reads the clock again."""
        await asyncio.wait_for(self.read.wait(), timeout=30)
        await pilot.pause()  # type: ignore[attr-defined]


async def wait_until(pilot: object, condition: object, what: str, timeout: float = 30.0) -> None:
    """Let the app run until ``condition()`` holds (a timer's work), failing after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():  # type: ignore[operator]
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)  # type: ignore[attr-defined]


async def test_space_plays_and_pauses() -> None:
    clock = FakeClock()
    app = CrawlApp(load_scenario("see-it"), paused=True, animate=False, threaded=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        assert "paused" in status(app) and shown_time(app) == 0.0 and "(1x)" in status(app)
        await pilot.press("space")
        assert "playing" in status(app)
        clock.advance(2.5)
        app.tick()  # the frame the timer would draw (this app has no timer)
        await pilot.pause()
        assert shown_time(app) == 2.5  # 2.5 s of wall clock at 1x
        await pilot.press("space")
        assert "paused" in status(app)
        clock.advance(5.0)
        app.tick()
        await pilot.pause()
        assert shown_time(app) == 2.5  # a paused app stays still however long it waits


async def test_the_frame_timer_animates_on_the_simulated_clock() -> None:
    clock = FakeClock()
    app = CrawlApp(load_scenario("interview"), speed=10.0, threaded=False, clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        clock.advance(0.0)
        await clock.next_frame(pilot)
        assert "playing" in status(app) and shown_time(app) == 0.0  # frames come, the clock has not moved
        clock.advance(0.01)
        await clock.next_frame(pilot)
        assert shown_time(app) == 0.1  # 0.01 s of wall clock at 10x
        clock.advance(1.0)  # 10 s at 10x: past the 0.2 s crawl
        await clock.next_frame(pilot)
        assert "finished" in status(app)
        assert "fetched 3/3" in counters(app)
        await pilot.press("space")  # at the end, play starts over from t = 0
        assert app.t == 0.0 and "playing" in status(app)
        clock.advance(0.01)
        await clock.next_frame(pilot)
        assert shown_time(app) == 0.1


async def test_step_moves_to_the_next_event() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        pages = app.query_one(PagesView)
        assert "○ frontier 0" in pages.plain()
        await pilot.press("full_stop")
        assert shown_time(app) == 1.0
        assert "○ frontier 1" in pages.plain() and "● fetched 1" in pages.plain()
        await pilot.press("full_stop")
        assert shown_time(app) == 2.0
        assert "paused" in status(app)


async def test_faster_and_slower() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        assert "(1x)" in status(app)
        await pilot.press("f", "f")
        assert "(5x)" in status(app)
        await pilot.press("s")
        assert "(2x)" in status(app)


async def test_restart_goes_back_to_zero_and_plays() -> None:
    app = app_for(at=10.0)
    async with app.run_test(size=SIZE) as pilot:
        assert shown_time(app) == 10.0
        await pilot.press("r")
        assert shown_time(app) == 0.0 and "playing" in status(app)


async def test_seek_keys_and_timeline_click() -> None:
    app = app_for(at=5.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right")
        assert shown_time(app) > 5.0
        await pilot.press("left", "left")
        assert shown_time(app) < 5.0
        await pilot.press("end")
        assert shown_time(app) == 19.0 and "fetched 14/14" in counters(app)
        await pilot.press("home")
        assert shown_time(app) == 0.0
        timeline = app.query_one(Timeline)
        await pilot.click(Timeline, offset=(timeline.size.width - 12, 0))
        assert shown_time(app) > 15.0


async def test_normalize_off_shows_duplicates_on_variants() -> None:
    # the example: normalization off makes duplicate fetches appear
    app = app_for("variants", normalize="aggressive")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        assert shown_duplicates(app) == 0
        assert "normalize aggressive" in status(app)
        await pilot.press("n")  # aggressive -> off
        assert "normalize off" in status(app)
        assert shown_duplicates(app) > 0
        assert "◆ dup" in app.query_one(PagesView).plain()
        assert "normalize aggressive→off: finish" in status(app)


async def test_normalize_cycle_on_see_it_shows_the_finish_change() -> None:
    app = app_for(at=19.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # rfc3986 -> aggressive -> off
        assert "finish 19.0 s -> 22.0 s" in status(app)
        assert shown_duplicates(app) == 6
        assert "duplicate of http://a.com/x" in app.query_one(PagesView).plain()


@pytest.mark.slow  # eight 2,000-page simulations (about 4 s)
async def test_more_workers_stop_helping_at_the_busiest_host_bound() -> None:
    # the example, run in the worker thread as the app does for large webs
    scenario = load_scenario("busiest-host").with_options(workers=1)
    app = CrawlApp(scenario, paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        finishes = [shown_finish(app)]
        for _ in range(8):  # 1 -> 2 -> ... -> 8 -> 16 workers
            await pilot.press("plus")
            await app.workers.wait_for_complete()
            await pilot.pause()
            finishes.append(shown_finish(app))
        assert "workers 16" in status(app) and "workers 8→16: finish" in status(app)
        bound = app.result.bounds.busiest_host
        assert finishes[0] > 2 * finishes[-1]  # the first few workers help a lot
        # then h0.example holds the crawl: doubling 8 workers to 16 gains nothing, at its bound
        assert finishes[-1] == pytest.approx(finishes[-2], rel=0.01)
        assert finishes[-1] == pytest.approx(bound, rel=0.01)
        assert finishes == sorted(finishes, reverse=True)
        while app.result.advice_pending:  # the advice follows the run, from its own thread
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert "h0.example holds the crawl" in app.query_one(BoundsView).plain()
        await pilot.press("minus")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "workers 8" in status(app)


async def test_polite_off_lets_workers_help() -> None:
    app = app_for(at=19.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("p")
        assert "polite off" in status(app)
        assert "polite off: finish 19.0 s ->" in status(app)
        assert shown_finish(app) < 19.0
        await pilot.press("p")
        assert "polite on (per-host 1, gap 0 s)" in status(app)
        assert shown_finish(app) == 19.0


async def test_gap_keys_slow_every_host() -> None:
    app = app_for(at=19.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert "gap 0.5 s" in status(app) and "gap 0.25→0.5 s" in status(app)
        assert shown_finish(app) == 19.0  # shorter than every fetch: no effect yet
        await pilot.press(*["right_square_bracket"] * 3)  # 1, 2, then 3 s between starts on a host
        assert "gap 3 s" in status(app)
        slower = shown_finish(app)
        assert slower > 19.0  # a.com's 8 pages now need 7 x 3 s + 1 s
        await pilot.press("left_square_bracket")
        assert "gap 2 s" in status(app) and shown_finish(app) < slower


async def test_order_cycles_bfs_dfs_and_the_named_priorities() -> None:
    app = app_for("trap", at=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        before = app.query_one(PagesView).plain()
        await pilot.press("o")
        assert "order DFS" in status(app) and "order BFS→DFS" in status(app)
        dfs = app.query_one(PagesView).plain()
        assert dfs != before
        await pilot.press("o")
        assert "order best (shallowest)" in status(app) and "order DFS→best (shallowest)" in status(app)
        assert app.query_one(PagesView).plain() != dfs
        await pilot.press("o", "o", "o")  # host-round-robin, shortest-url, then back to the start
        assert "order BFS" in status(app)


async def test_scenario_picker_opens_another_scenario() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert isinstance(app.screen, ScenarioPicker)
        await pilot.press("escape")
        assert not isinstance(app.screen, ScenarioPicker) and "see-it" in status(app)
        await pilot.press("c")
        picker = app.screen
        names = [name for name, _ in picker.scenarios]
        target = names.index("isro")
        current = names.index("see-it")
        await pilot.press(*(["up"] * (current - target)))
        await pilot.press("enter")
        await pilot.pause()
        assert "isro — ISRO and Wikipedia" in status(app)
        assert "finish 7.0 s" in status(app) and "->" not in status(app)


async def test_quit() -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
    assert app.return_code == 0


async def test_lanes_show_idle_workers_and_the_series() -> None:
    app = app_for(at=7.0)
    async with app.run_test(size=SIZE):
        lanes = app.query_one(LanesView).plain().splitlines()
        assert lanes[0].startswith("w1") and "a.com/docs/api" in lanes[0]
        assert lanes[2].startswith("w3") and lanes[2].rstrip().endswith("idle")
        assert "frontier 3" in lanes[4] and "in flight 2" in lanes[5]


async def test_keys_are_listed_at_the_bottom() -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)):
        keys = app.query_one(KeyBar).plain()
        for label in (
            "space play/pause",
            ". step",
            "f/s faster/slower",
            "r restart",
            "n normalize",
            "+/- workers",
            "p polite",
            "[/] gap",
            "o order",
            "c scenario",
            "←/→ seek",
            "q quit",
        ):
            assert label in keys


async def test_a_trace_replays_with_what_if_keys_off(tmp_path) -> None:
    run = simulate(load_scenario("see-it"))
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(event_to_dict(e)) + "\n" for e in run.trace))
    from crawlsim.trace.jsonl import load_trace

    app = CrawlApp(trace=load_trace(path), trace_file=str(path), paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        assert "what-if keys need a scenario" in status(app)
        shown = {desc for _, desc, _, _ in app.query_one(KeyBar).items()}
        # only keys that work on a trace are listed: no what-if key, no why (it needs the options)
        assert shown == {"play/pause", "step", "faster/slower", "restart", "scenario", "seek", "quit"}
        await pilot.press("n", "plus", "p", "w")
        assert app.knobs is None and "->" not in status(app)
        await pilot.press("end")
        assert "fetched 14/14" in counters(app)
        assert "need the scenario" in app.query_one(BoundsView).plain()


async def test_million_is_capped_with_a_message() -> None:
    app = CrawlApp(load_scenario("million"), paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "capped at 5,000 pages (max_pages)" in status(app)
        assert "/5000 " in counters(app)
        assert "more hosts" in app.query_one(PagesView).plain()


async def test_live_mode_follows_a_crawl_as_its_events_arrive() -> None:
    """`crawlsim crawl --tui` feeds events from a running crawl: the view
    grows with them and says when the crawl has finished."""
    from crawlsim.views.session import LiveFeed
    from crawlsim.sim.driver import simulate
    from crawlsim.tui.app import CrawlApp

    recorded = simulate(load_scenario("see-it")).trace
    feed = LiveFeed("http://a.com/")
    app = CrawlApp(live=feed)
    async with app.run_test(size=(160, 48)) as pilot:
        half = len(recorded) // 2
        feed.events.extend(recorded[:half])
        await wait_until(pilot, lambda: app.result is not None, "the live feed's first events")
        middle = app.result.replay.end
        assert 0 < middle < recorded[-1].t
        assert "crawling live" in app.message
        feed.events.extend(recorded[half:])
        feed.done = True
        await wait_until(pilot, lambda: app.message == "crawl finished", "the live feed's end")
        assert app.result.replay.end == recorded[-1].t
        assert app.t == recorded[-1].t
        assert app.message == "crawl finished"


async def test_w_switches_the_event_log_to_the_narrators_sentences_and_back() -> None:
    from crawlsim.views.narrate import Narrator
    from crawlsim.tui.widgets import EventLog

    app = app_for(at=1.0)
    async with app.run_test(size=SIZE) as pilot:
        log = app.query_one(EventLog)
        short = log.plain()
        assert "start   w2 b.com/" in short  # b.com/ goes to the second worker: w2, as its lane says
        await pilot.press("w")
        why = " ".join(log.plain().split())  # the sentences wrap: compare them unwrapped
        scenario = load_scenario("see-it")
        narrator = Narrator(scenario.options)
        told = [(e, narrator.narrate(e)) for e in simulate(scenario).trace]
        (b_start,) = [s for e, s in told if e.t == 1.0 and s.startswith("b.com/ starts")]
        assert "a.com is busy (1/1 in flight)" in b_start
        assert b_start in why  # the newest event's whole sentence is in the log
        assert "start   w2 b.com/" not in why
        await pilot.press("w")
        assert log.plain() == short


async def test_plus_and_minus_step_the_workers_the_same_way() -> None:
    app = app_for(at=19.0)  # see-it: 4 workers
    async with app.run_test(size=SIZE) as pilot:
        finish = shown_finish(app)
        assert "+/- workers (±1 to 8, then ×2 ÷2)" in app.query_one(KeyBar).plain()  # the rule, shown
        await pilot.press("plus")
        assert "workers 4→5: finish" in status(app)
        await pilot.press("minus")
        assert "workers 5→4: finish" in status(app) and shown_finish(app) == finish  # undone
        await pilot.press("minus")
        assert "workers 4→3: finish" in status(app)  # one down, as one up


def lane_bars(app: CrawlApp) -> list[str]:
    """Each worker's row of the lanes panel, between its name and its current fetch."""
    rows = app.query_one(LanesView).plain().splitlines()[: len(app.result.replay.lanes)]
    return [row.split("▕", 1)[1].rsplit("▏ ", 1)[0] for row in rows]


async def test_lanes_name_the_host_and_label_every_fetch() -> None:
    app = app_for(at=19.0)
    async with app.run_test(size=SIZE):
        w1, w2, *_ = lane_bars(app)
        # "/" alone could be either host's: a lane names the host, then paths while it stays there
        assert w1.split()[0] == "a.com/" and "/x" in w1.split() and "b.com/img/3" in w1
        assert w2.split()[0].strip("─") == "b.com/"
    app = app_for(at=19.0)
    async with app.run_test(size=(80, 24)):
        replay = app.result.replay
        for slot, bar in enumerate(lane_bars(app)):
            labels = [word.strip("─") for word in bar.split() if word.strip("─")]
            # three columns a fetch at 80 columns: each still gets a label, cut short
            assert len(labels) == len(replay.lanes[slot])
            hosts = [span.host for span in replay.lanes[slot]]
            for label, host, before in zip(labels, hosts, [None, *hosts], strict=False):
                if host != before:  # a new host on this lane is named (as much of it as fits)
                    named = label.rstrip("…").split("/")[0]
                    assert named and host.startswith(named)


async def test_worker_numbers_and_units_are_spelled_out() -> None:
    app = app_for(at=7.0)
    async with app.run_test(size=SIZE):
        names = [row.split()[0] for row in app.query_one(LanesView).plain().splitlines()[:4]]
        assert names == ["w1", "w2", "w3", "w4"]  # as in the GIF, the notebook and the event log
        assert "wasted 0.0 worker-seconds" in counters(app)
        title = str(app.query_one(LanesView).border_title)
        assert "w·s = worker-seconds" in title and "simulated seconds" in title
        assert "duplicate" in str(app.query_one(LanesView).border_subtitle)  # the colours' key
    app = app_for(at=7.0)
    async with app.run_test(size=(80, 24)):
        assert "wasted 0.0 w·s" in counters(app)  # short where narrow; the lanes' title says what it is
