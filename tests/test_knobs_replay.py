"""A knob's new finish time and bounds come first, its replay after.

A large run is simulated once with event recording off (its finish time,
counters and bounds) and drawn at once; the same crawl is then run again with
its events recorded and replayed (``replay_result``), off the UI thread in
the app and on the kernel's next turn in the widget.  What a user relies on:

* the finish shown first is the replay's finish (and the one-step run's):
  a hypothesis property over random scenarios and knob presses;
* the replay installed is the scheduler's own events, the same as the
  one-step run's (nothing computed a second way for the picture);
* a newer key press cancels the older replay, and an older replay is never
  installed over a newer run.

No test waits on a clock: the replay's thread is held by a gate the test opens.
"""

from __future__ import annotations

import asyncio
import functools
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crawlsim.notebook.widget as widget_module
import crawlsim.tui.app as app_module
from crawlsim.notebook.widget import CrawlWidget
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.views.session import REPLAY_PENDING, Knobs, Result, large_run, replay_result, run_session
from crawlsim.sim.advisor import AdviceCancelled
from crawlsim.sim.bounds import retry_after_held
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.sources import ScenarioSource
from crawlsim.tui.widgets import BoundsView, StatusBar, Timeline
from tests.test_bounds_properties import random_scenarios
from tests.test_tui_advice import GATE_SECONDS, SIZE, settle, shown_finish, until

TURNS: tuple[Callable[[Knobs], Knobs], ...] = (
    Knobs.more_workers,
    Knobs.fewer_workers,
    Knobs.toggle_polite,
    Knobs.cycle_normalize,
    Knobs.gap_up,
    Knobs.gap_down,
    Knobs.next_order,
)
"""What the app's what-if keys do to the knobs (``+ - p n ] [ o``)."""


def check_two_steps(data: dict[str, Any], turns: list[int]) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    knobs = Knobs.for_scenario(scenario)
    for turn in turns:
        knobs = TURNS[turn](knobs)
    first = run_session(scenario, knobs, advice=False, replay=False)
    assert first.replay_pending and first.advice_pending and not first.replay.events
    assert first.replay.end == first.finish  # the clock spans the run before its events arrive
    replayed = replay_result(first)
    whole = run_session(scenario, knobs, advice=False)
    assert not replayed.replay_pending and replayed.advice_pending
    assert first.finish == replayed.finish == replayed.replay.end == whole.finish
    assert replayed.replay.events == whole.replay.events  # the scheduler's own events, once
    assert replayed.bounds == whole.bounds
    assert first.bounds is not None and replayed.bounds is not None
    # the bounds drawn first are the same run's: only the depth bound, and the Retry-After
    # holds the busiest-host bound counts (both read from the events), wait for the events.
    # Equal up to float noise: the replay's bounds are snapped to a depth bound within 1e-9
    # of them (sim/bounds.py's _snap), which the first step, without the depth bound, has not.
    assert first.bounds.work == pytest.approx(replayed.bounds.work, rel=1e-9, abs=1e-9)
    if retry_after_held(whole.replay.events):
        assert first.bounds.busiest_host <= replayed.bounds.busiest_host + 1e-9
    else:
        assert first.bounds.busiest_host == pytest.approx(replayed.bounds.busiest_host, rel=1e-9, abs=1e-9)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios(), st.lists(st.integers(0, len(TURNS) - 1), max_size=4))
def test_the_finish_shown_first_is_the_replays_finish(data: dict[str, Any], turns: list[int]) -> None:
    check_two_steps(data, turns)


@pytest.mark.parametrize("name", ["busiest-host", "variants", "one-big-host", "trap"])
def test_the_shipped_large_scenarios_replay_the_finish_shown_first(name: str) -> None:
    scenario = load_scenario(name).with_options(max_pages=400)
    knobs = Knobs.for_scenario(scenario).toggle_polite()
    first = run_session(scenario, knobs, advice=False, replay=False)
    assert replay_result(first).replay.end == first.finish == run_session(scenario, knobs, advice=False).finish


def test_a_replay_asked_for_after_a_newer_key_is_never_built() -> None:
    see_it = load_scenario("see-it")
    first = run_session(see_it, Knobs.for_scenario(see_it), advice=False, replay=False)
    with pytest.raises(AdviceCancelled):
        replay_result(first, cancelled=lambda: True)
    assert replay_result(first, cancelled=lambda: False).replay.events


def test_large_runs_are_the_ones_the_app_threads() -> None:
    busiest, see_it = load_scenario("busiest-host"), load_scenario("see-it")
    assert large_run(busiest, None) and not large_run(see_it, None)
    assert ScenarioSource(busiest).run(Knobs.for_scenario(busiest)).replay_pending
    assert not ScenarioSource(see_it).run(Knobs.for_scenario(see_it)).replay_pending  # replayed at once


def test_a_webs_size_is_counted_once_for_every_knob_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    # the app asks large_run() on every key; million's count walks 10,000 hosts
    from crawlsim.views.session import web_size

    million = load_scenario("million")
    walks = 0
    real = million.web.hosts

    def hosts() -> Any:
        nonlocal walks
        walks += 1
        return real()

    monkeypatch.setattr(million.web, "hosts", hosts)
    assert [web_size(million.with_options(workers=w)) for w in (1, 2, 3)] == [1_000_000] * 3
    assert large_run(million, 5_000) and walks == 1


# -- the app -------------------------------------------------------------------------------


class ReplayGatedSource(ScenarioSource):
    """A large scenario whose replays wait for the test to open their gate,
    one gate per run (in the order asked); records which replays were built."""

    def __init__(self) -> None:
        scenario = load_scenario("busiest-host").with_options(max_pages=400)
        super().__init__(scenario)
        self.gates: list[tuple[Knobs, threading.Event]] = []
        self.built: list[Knobs] = []
        self.dropped: list[Knobs] = []
        self.released = threading.Event()
        """Set: every replay, held now or asked later, goes on at once."""

    def replay(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        if not result.replay_pending:
            return result
        assert result.knobs is not None
        gate = threading.Event()
        self.gates.append((result.knobs, gate))
        if not self.released.is_set() and not gate.wait(GATE_SECONDS):
            raise RuntimeError("the test never opened this replay's gate")
        try:
            replayed = super().replay(result, cancelled)
        except AdviceCancelled:
            self.dropped.append(result.knobs)
            raise
        self.built.append(result.knobs)
        return replayed

    def gate_of(self, knobs: Knobs) -> threading.Event | None:
        """The latest gate of a run with ``knobs``."""
        return next((gate for asked, gate in reversed(self.gates) if asked == knobs), None)

    def open_all(self) -> None:
        for _, gate in self.gates:
            gate.set()

    def release_all(self) -> None:
        """Open every gate, and let the replays asked from now on pass."""
        self.released.set()
        self.open_all()


class NotedApp(CrawlApp):
    """The app, with the notifications it raised kept in order (a toast
    times out on the wall clock; this list does not)."""

    CSS_PATH = str(Path(app_module.__file__).with_name(CrawlApp.CSS_PATH))  # (relative to its module)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notes: list[str] = []

    def notify(self, message: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(message)
        super().notify(message, *args, **kwargs)


async def test_the_app_draws_the_finish_and_bounds_before_the_replay() -> None:
    source = ReplayGatedSource()
    app = CrawlApp(source=source, paused=True, animate=False, threaded=True)
    async with app.run_test(size=SIZE) as pilot:
        try:
            await until(pilot, lambda: app.result is not None)
            assert not app.result.replay_pending and not source.gates  # a source opened: replayed at once
            await pilot.press("p")
            knobs = source.knobs
            assert knobs is not None
            await until(pilot, lambda: source.gate_of(knobs) is not None)
            # the new run is on screen, its replay held at the gate
            assert app.result is not None and app.result.knobs == knobs and app.result.replay_pending
            assert REPLAY_PENDING in app.query_one(Timeline).plain()
            whole = run_session(source.scenario, knobs, cap=source.cap, advice=False)
            assert shown_finish(app) == f"{whole.finish:.1f}"
            assert "lower bounds" in app.query_one(BoundsView).plain()
        finally:
            source.open_all()
        await until(pilot, lambda: not app.result.replay_pending)
        assert app.result.knobs == knobs
        assert app.result.replay.events == whole.replay.events
        assert REPLAY_PENDING not in app.query_one(Timeline).plain()
        assert f"{whole.finish:.1f}" in app.query_one(StatusBar).plain()
        await settle(app, pilot)


async def test_a_newer_key_cancels_the_older_replay_and_it_is_never_installed() -> None:
    source = ReplayGatedSource()
    app = CrawlApp(source=source, paused=True, animate=False, threaded=True)
    async with app.run_test(size=SIZE) as pilot:
        try:
            await until(pilot, lambda: app.result is not None)
            assert not app.result.replay_pending and not source.gates  # a source opened: replayed at once
            await pilot.press("p")
            older = source.knobs
            assert older is not None
            await until(pilot, lambda: source.gate_of(older) is not None)
            await pilot.press("plus")  # before the older run's replay was built
            newer = source.knobs
            assert newer is not None and newer != older
            await until(pilot, lambda: source.gate_of(newer) is not None)
            newer_gate = source.gate_of(newer)
            assert newer_gate is not None
            newer_gate.set()  # the newer replay first ...
            await until(pilot, lambda: newer in source.built and not app.result.replay_pending)
            assert app.result.knobs == newer
        finally:
            source.open_all()  # ... then the older one, let go late
        await settle(app, pilot)
        await pilot.pause()
        assert older in source.dropped and older not in source.built  # cancelled: never recorded
        assert app.result.knobs == newer and not app.result.replay_pending
        whole = run_session(source.scenario, newer, cap=source.cap, advice=False)
        assert app.result.replay.events == whole.replay.events


class BrokenReplaySource(ScenarioSource):
    """A large scenario whose replays cannot be built (the recording crawl fails)."""

    def __init__(self) -> None:
        super().__init__(load_scenario("busiest-host").with_options(max_pages=400))

    def replay(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        if result.replay_pending:
            raise RuntimeError("the recording crawl ran out of memory")
        return result


async def test_a_replay_that_cannot_be_built_leaves_a_run_the_clock_plays() -> None:
    now = [0.0]  # the app's clock, moved by the test
    source = BrokenReplaySource()
    app = NotedApp(source=source, paused=True, animate=False, threaded=True, clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.result is not None)
        await pilot.press("p")
        knobs = source.knobs
        await until(pilot, lambda: bool(app.notes))
        await settle(app, pilot)
        assert app.notes == ["cannot build the replay: the recording crawl ran out of memory"]
        result = app.result
        assert result is not None and result.knobs == knobs
        assert not result.replay_pending and not result.advice_pending  # nothing left to wait for
        assert REPLAY_PENDING not in app.query_one(Timeline).plain()
        assert "cannot build the replay" in app.query_one(BoundsView).plain()  # in the advice's place
        await pilot.press("space")
        now[0] += 1.0
        app.tick()
        assert app.t > 0.0  # the clock moves over the run's finish, not held for a replay


class FailingRunSource(ReplayGatedSource):
    """:class:`ReplayGatedSource` whose next run fails once ``fail_next`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = False

    def run(self, knobs: Knobs, *, at_once: bool = False) -> Result:
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("the web went away")
        return super().run(knobs, at_once=at_once)


async def test_a_failed_run_gives_back_the_replay_its_key_press_cancelled() -> None:
    source = FailingRunSource()
    app = NotedApp(source=source, paused=True, animate=False, threaded=True)
    async with app.run_test(size=SIZE) as pilot:
        try:
            await until(pilot, lambda: app.result is not None)
            await pilot.press("p")
            shown = source.knobs
            assert shown is not None
            await until(pilot, lambda: source.gate_of(shown) is not None)  # its replay held
            source.fail_next = True
            await pilot.press("plus")  # cancels the replay of the run on screen; then fails
            await until(pilot, lambda: bool(app.notes))
            assert app.notes == ["cannot run that: the web went away"]
            assert source.knobs == shown and app.result.knobs == shown
        finally:
            source.release_all()
        await settle(app, pilot)
        assert shown in source.built  # built again after the failure
        assert app.result.knobs == shown and not app.result.replay_pending and not app.result.advice_pending
        assert REPLAY_PENDING not in app.query_one(Timeline).plain()


# -- the notebook widget ---------------------------------------------------------------------


@pytest.fixture
def replayed(monkeypatch: pytest.MonkeyPatch) -> list[Knobs]:
    """The knobs of every run the widget built a replay for, in order."""
    asked: list[Knobs] = []
    real = widget_module.replay_result

    def recording(result: Result, **kwargs: Any) -> Result:
        if result.replay_pending:
            assert result.knobs is not None
            asked.append(result.knobs)
        return real(result, **kwargs)

    monkeypatch.setattr(widget_module, "replay_result", recording)
    return asked


async def test_the_widget_draws_the_finish_first_and_the_replay_on_the_next_turn(replayed: list[Knobs]) -> None:
    w = CrawlWidget("busiest-host", max_pages=400)
    assert not w.result.replay_pending  # the first run: replayed at once
    await asyncio.sleep(0)  # its advice
    w.workers.value = 6
    assert w.result is not None and w.result.replay_pending and w.result.knobs.workers == 6
    assert f"finish {w.result.finish:.1f} s" in w.summary.value and REPLAY_PENDING in w.summary.value
    finish = w.result.finish
    await asyncio.sleep(0)
    assert not w.result.replay_pending and w.result.advice_pending
    assert REPLAY_PENDING not in w.summary.value
    assert w.result.replay.end == finish
    assert w.result.replay.events == run_session(w.scenario, w.knobs(), advice=False).replay.events
    await asyncio.sleep(0)
    assert not w.result.advice_pending
    assert [k.workers for k in replayed] == [6]


async def test_the_widget_marks_the_depth_bound_provisional_until_the_replay() -> None:
    w = CrawlWidget("busiest-host", max_pages=400)
    await asyncio.sleep(0)
    provisional = re.compile(r"depth \d+\.\d s…")
    assert not provisional.search(w.summary.value)  # the first run: replayed at once
    w.workers.value = 6
    assert w.result.replay_pending and provisional.search(w.summary.value)  # as the app marks it
    await asyncio.sleep(0)
    assert not w.result.replay_pending and not provisional.search(w.summary.value)


async def test_a_widget_control_moved_again_drops_the_older_replay(replayed: list[Knobs]) -> None:
    w = CrawlWidget("busiest-host", max_pages=400)
    await asyncio.sleep(0)
    w.workers.value = 6
    w.workers.value = 7  # before the loop came round to the replay of 6 workers
    await asyncio.sleep(0)
    assert [k.workers for k in replayed] == [7]  # 6 workers' replay never built
    assert w.result.knobs.workers == 7 and not w.result.replay_pending


def test_a_rerun_after_a_knob_turn_finds_every_link_canonicalized_already(monkeypatch: pytest.MonkeyPatch) -> None:
    # the canonical form of each link is remembered: a rerun (the replay's, the advisor's,
    # the next key's) of a 2,000-page web under the same normalization computes none again.
    # Counted on this thread only, with an empty memory of the same size as the real
    # one's: a background thread (an earlier test's replay) can neither add to the count
    # nor evict this test's answers.
    import crawlsim.core.urls as urls

    computed = 0

    def counting(href: str, base: str | None, steps: frozenset[str]) -> str:
        nonlocal computed
        computed += 1
        return urls._canonical(href, base, steps)

    real = urls._remembered
    mine = threading.get_ident()
    memory = functools.lru_cache(maxsize=real.cache_parameters()["maxsize"])(counting)

    def remembered(href: str, base: str | None, steps: frozenset[str]) -> str:
        return memory(href, base, steps) if threading.get_ident() == mine else real(href, base, steps)

    monkeypatch.setattr(urls, "_remembered", remembered)
    scenario = load_scenario("busiest-host")
    knobs = replace(Knobs.for_scenario(scenario), normalize="aggressive")  # every link is canonicalized
    run_session(scenario, knobs, advice=False, replay=False)
    first = computed
    run_session(scenario, knobs, advice=False, replay=False)
    assert first > 0 and computed == first
