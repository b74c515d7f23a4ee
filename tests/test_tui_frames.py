"""The app repaints only what changed: what is on screen after any sequence
of frames must be exactly what a fresh drawing of that moment shows.

Each panel keeps the lines of its last frame (and the lanes keep the part of
each worker's row that time no longer changes), and tells Textual which
lines to repaint.  A line it forgot to repaint, or a cache that outlived a
seek backward, a resize or a new run, would leave a stale picture: these
tests read the lines Textual holds for the screen and compare them with a
panel drawn from scratch at the same moment.
"""

from __future__ import annotations

import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.geometry import Region

from crawlsim.scenario import load_scenario
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.base import Panel
from crawlsim.tui.sources import ScenarioSource
from crawlsim.tui.widgets import LanesView, PagesView, StatusBar

SIZE = (160, 48)


def on_screen(panel: Panel) -> list[str]:
    """The panel's content rows as Textual will paint them (its line cache,
    refreshed only where the panel asked), without border and padding."""
    strips = panel.render_lines(Region(0, 0, *panel.outer_size))
    gutter = panel.styles.gutter
    width, height = panel.size
    rows = strips[gutter.top : gutter.top + height]
    return [strip.crop(gutter.left, gutter.left + width).text.rstrip() for strip in rows]


def drawn_afresh(panel: Panel) -> list[str]:
    """The same panel's rows drawn by a new instance (no cache of any earlier frame)."""
    view = panel.app.view  # type: ignore[attr-defined]
    width, height = panel.size
    fresh = type(panel)()
    lines = [line.plain[:width].rstrip() for line in fresh.draw_lines(view, width, height)]
    return lines + [""] * (height - len(lines))


def assert_screen_is_fresh(app: CrawlApp) -> None:
    for panel in app.query(Panel):
        if panel.WRAP or not panel.size.height:
            continue  # wrapped text is drawn whole each frame (no cache to go stale)
        assert on_screen(panel) == drawn_afresh(panel), f"{type(panel).__name__} at t={app.t}"


@settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(times=st.lists(st.floats(min_value=0, max_value=1), min_size=3, max_size=12))
async def test_any_sequence_of_frames_leaves_the_picture_a_fresh_drawing_shows(times: list[float]) -> None:
    # forward in small steps, as the clock plays, then wherever hypothesis jumps (backward too)
    app = CrawlApp(load_scenario("see-it"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=SIZE) as pilot:
        end = app.end
        for t in [end * k / 20 for k in range(1, 8)] + [end * f for f in times]:
            app.show(t)
            await pilot.pause()
            assert_screen_is_fresh(app)


async def test_a_resize_and_a_new_run_redraw_everything() -> None:
    app = CrawlApp(load_scenario("see-it"), paused=True, at=9.0, animate=False, threaded=False)
    async with app.run_test(size=SIZE) as pilot:
        lanes_before = on_screen(app.query_one(LanesView))
        await pilot.press("minus")  # a new run (fewer workers): fewer lanes, other spans
        assert_screen_is_fresh(app)
        assert on_screen(app.query_one(LanesView)) != lanes_before
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert_screen_is_fresh(app)
        assert app.query_one(PagesView).size.width < SIZE[0] - 64


async def test_a_still_frame_repaints_nothing() -> None:
    """Drawing the same moment again asks Textual for no repaint at all: a
    paused app, or a frame between two events, costs no terminal output."""
    app = CrawlApp(load_scenario("see-it"), paused=True, at=7.0, animate=False, threaded=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.show(7.0)
        view = app.view
        assert {type(p).__name__: p.update(view) for p in app.query(Panel)} == {
            type(p).__name__: [] for p in app.query(Panel)
        }


def screen_text(app: CrawlApp) -> str:
    return "\n".join("\n".join(on_screen(panel)) for panel in app.query(Panel))


async def test_switching_scenario_shows_a_loading_state_never_the_old_pages(monkeypatch) -> None:
    """While the new scenario is simulated (in a thread), the screen says so
    and is otherwise empty: never the new name over the old scenario's pages."""
    release = threading.Event()
    real_run = ScenarioSource.run

    def held_run(self: ScenarioSource, knobs: object, **how: bool) -> object:
        if self.name == "busiest-host":
            assert release.wait(timeout=60)
        return real_run(self, knobs, **how)  # type: ignore[arg-type]

    monkeypatch.setattr(ScenarioSource, "run", held_run)
    app = CrawlApp(load_scenario("see-it"), paused=True, at=7.0, animate=False, threaded=True)
    async with app.run_test(size=SIZE) as pilot:
        try:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert "a.com" in screen_text(app) and "see-it" in status_line(app)
            await pilot.press("c")
            names = [name for name, _ in app.screen.scenarios]  # type: ignore[attr-defined]
            steps = names.index("busiest-host") - names.index("see-it")
            await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")
            await pilot.pause()
            assert "simulating busiest-host" in status_line(app)
            shown = screen_text(app)
            assert "a.com" not in shown and "b.com" not in shown and "see-it" not in shown
            assert [line.strip() for line in shown.splitlines() if line.strip()] == [status_line(app)]
        finally:
            release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "busiest-host —" in status_line(app) and "simulating" not in status_line(app)
        assert "h0.example" in "\n".join(on_screen(app.query_one(PagesView)))


def status_line(app: CrawlApp) -> str:
    return on_screen(app.query_one(StatusBar))[0].strip()
