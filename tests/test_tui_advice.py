"""A what-if key answers with the new finish time and bounds at once; the
advice (the advisor's reruns) follows from a worker thread.  Driven with
Textual's Pilot: what the screen says while the advice is measured, what it
says once it is in, and that the advice of an older setting never shows.

No test waits on a clock: the advice's thread is held by a gate the test
opens, so "still measuring" is a state the test chooses, not a race."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable

import pytest
from textual.worker import WorkerState

from crawlsim.cli import main
from crawlsim.scenario import load_scenario
from crawlsim.views.session import ADVICE_PENDING, Knobs, Result, run_session
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.sources import ScenarioSource
from crawlsim.tui.widgets import BoundsView, StatusBar

SIZE = (160, 48)
GATE_SECONDS = 120
"""How long a held advice waits for its gate before failing the test (only
reached if the app never asks, or the test forgets to open it)."""


class GatedSource(ScenarioSource):
    """A scenario whose advice waits for the test to open its gate, one gate
    per run asked for (in the order asked)."""

    def __init__(self, name: str) -> None:
        super().__init__(load_scenario(name))
        self.gates: list[tuple[Knobs, threading.Event]] = []

    def advise(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        gate = threading.Event()
        assert result.knobs is not None
        self.gates.append((result.knobs, gate))
        if not gate.wait(GATE_SECONDS):
            raise RuntimeError("the test never opened this advice's gate")
        return super().advise(result, cancelled)

    def gate_of(self, knobs: Knobs) -> threading.Event | None:
        return next((gate for asked, gate in self.gates if asked == knobs), None)

    def open_all(self) -> None:
        for _, gate in self.gates:
            gate.set()


def bounds_text(app: CrawlApp) -> str:
    return app.query_one(BoundsView).plain()


def shown_finish(app: CrawlApp) -> str:
    """The new finish time on the status line, as it is printed (``19.0``)."""
    text = app.query_one(StatusBar).plain()
    match = re.search(r"-> (\d+\.\d) s", text) or re.search(r"finish (\d+\.\d) s", text)
    assert match, text
    return match.group(1)


PASSES = 200_000
"""Message-loop passes :func:`until` allows before it gives up (a state that never comes)."""


async def until(pilot: object, condition: Callable[[], bool]) -> None:
    """Let the app run (message by message, no fixed sleep) until ``condition``."""
    for _ in range(PASSES):
        if condition():
            return
        await pilot.pause()  # type: ignore[attr-defined]
    raise AssertionError("the app never reached the state waited for")


async def settle(app: CrawlApp, pilot: object) -> None:
    """Until no worker of the app is left (simulation, advice)."""
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    while any(w.state in busy for w in app.workers):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]


def cli_summary(capsys: pytest.CaptureFixture[str], name: str, knobs: Knobs) -> dict[str, object]:
    """``crawlsim run NAME --json`` with the settings ``knobs`` stand for."""
    options = knobs.overrides()
    argv = ["run", name, "--workers", str(options["workers"]), "--normalize", str(options["normalize"])]
    if options["per_host"] is not None:
        argv += ["--per-host", str(options["per_host"])]
    argv += ["--gap", f"{options['gap']:g}", "--json"]
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def advice_for(name: str, knobs: Knobs) -> str:
    bounds = run_session(load_scenario(name), knobs).bounds
    assert bounds is not None
    return bounds.explanation


async def test_the_advice_says_measuring_until_it_is_measured(capsys: pytest.CaptureFixture[str]) -> None:
    knobs = Knobs.for_scenario(load_scenario("see-it")).more_workers()
    summary = cli_summary(capsys, "see-it", knobs)  # before the app: it takes stdout while it runs
    source = GatedSource("see-it")
    app = CrawlApp(source=source, paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        try:
            await until(pilot, lambda: app.result is not None and len(source.gates) == 1)
            await pilot.press("plus")  # the new run is drawn; its advice waits at the gate
            assert app.source.knobs == knobs
            await until(pilot, lambda: source.gate_of(knobs) is not None)
            assert app.result is not None and app.result.knobs == knobs and app.result.advice_pending
            assert ADVICE_PENDING in bounds_text(app)
            assert "lower bounds" in bounds_text(app)  # the bounds themselves are already there
            # the finish time on screen is the one `crawlsim run` gives for these settings
            assert shown_finish(app) == f"{summary['finish_time']:.1f}"
        finally:
            source.open_all()
        await settle(app, pilot)
        await pilot.pause()
        assert not app.result.advice_pending
        assert ADVICE_PENDING not in bounds_text(app)
        assert summary["explanation"] in bounds_text(app)  # the sentence `crawlsim run` prints


async def test_a_stale_advice_is_never_shown_for_newer_settings() -> None:
    source = GatedSource("see-it")
    app = CrawlApp(source=source, paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.result is not None and len(source.gates) == 1)
        first = app.source.knobs
        await pilot.press("plus")
        middle = app.source.knobs
        await pilot.press("plus")  # pressed again before the first advice came
        final = app.source.knobs
        assert first is not None and middle is not None and final is not None
        assert final.workers == middle.workers + 1 == first.workers + 2
        await until(pilot, lambda: source.gate_of(final) is not None)
        assert app.result.knobs == final and ADVICE_PENDING in bounds_text(app)
        # the final settings' advice arrives first ...
        final_gate = source.gate_of(final)
        assert final_gate is not None
        final_gate.set()
        await until(pilot, lambda: not app.result.advice_pending)
        wanted = advice_for("see-it", final)
        assert wanted != advice_for("see-it", middle)  # the two settings' sentences differ
        assert wanted in bounds_text(app)
        # ... and the older settings' advice, let go afterwards, never replaces it
        source.open_all()
        await settle(app, pilot)
        await pilot.pause()
        assert app.result.knobs == final
        assert wanted in bounds_text(app)
        assert advice_for("see-it", middle) not in bounds_text(app)


async def test_a_threaded_run_draws_its_bounds_before_its_advice() -> None:
    # busiest-host's simulation runs in the simulation thread, then its advice in another
    scenario = load_scenario("busiest-host").with_options(max_pages=400)
    source = GatedSource("busiest-host")
    source.scenario = scenario
    source.knobs = Knobs.for_scenario(scenario)
    app = CrawlApp(source=source, paused=True, animate=False, threaded=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.result is not None and len(source.gates) == 1)
        await pilot.press("p")
        knobs = app.source.knobs
        await until(pilot, lambda: source.gate_of(knobs) is not None)
        assert app.result.knobs == knobs and not app.simulating
        assert ADVICE_PENDING in bounds_text(app)
        source.open_all()
        await settle(app, pilot)
        await pilot.pause()
        assert run_session(scenario, knobs).bounds.explanation in bounds_text(app)
