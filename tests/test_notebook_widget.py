"""The notebook front end without a browser: the widget's update functions,
the drawing, the layouts, the step table, the sweep and the animation export.

The tests do what a browser would: set a control's ``value`` (which fires
the same observers) or call ``frame(t)``; Play's clock runs on a stand-in
timer, or on a real event loop.
"""

from __future__ import annotations

import asyncio
import html
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def animate_main(argv: list[str]) -> int:
    """``crawlsim animate ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["animate", *argv])


pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from matplotlib.colors import to_rgba

from crawlsim.notebook import CrawlWidget, Table, animate, crawl_steps, fetch_order, short, snapshot, sweep
from crawlsim.notebook.clock import loop_call_later
from crawlsim.notebook.draw import STATE_COLOURS, frame_times
from crawlsim.notebook.layout import compute_layout
from crawlsim.notebook.widget import CAPTION_LINES
from crawlsim.views.narrate import narrate_trace, narration_line
from crawlsim.views.replay import PageState, Replay
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def see_it_widget() -> CrawlWidget:
    return CrawlWidget("see-it", frames=20)


# -- the widget -----------------------------------------------------------------


def test_widget_opens_at_the_start_of_the_crawl() -> None:
    w = CrawlWidget("see-it", frames=20)
    assert w.result is not None and w.result.finish == 19.0
    assert w.previous is None
    assert w.t == 0.0 and w.time.value == 0 and w.time.max == 20 and not w.play.value
    assert w.counters is not None and not w.counters.done and w.counters.fetched == 0
    assert bytes(w.image.value).startswith(PNG)
    assert "t = 0.0 s of 19.0 s" in w.clock.value
    assert "b.com" in w.summary.value


def test_a_knob_keeps_the_moment_shown() -> None:
    w = CrawlWidget("see-it", frames=20)
    w.time.value = 10  # 9.5 s of 19 s
    assert w.t == pytest.approx(9.5)
    w.workers.value = 1  # a longer run (26 s): the same moment, not its start or end
    assert w.result.finish == 26.0
    assert w.t == pytest.approx(9.5) and w.counters.t == pytest.approx(9.5)
    assert w.time.value == w.index_of(9.5) == 7
    assert "t = 9.5 s of 26.0 s" in w.clock.value


def test_a_knob_clamps_the_moment_to_a_shorter_run() -> None:
    w = CrawlWidget("see-it", frames=20, workers=1)
    assert w.result.finish == 26.0
    w.time.value = 19  # 24.7 s
    w.workers.value = 4  # finishes at 19 s: shown at its end
    assert w.t == w.result.finish == 19.0 and w.counters.done
    assert w.time.value == 20


def _instants(trace_sentences: list[tuple[float, str]]) -> dict[float, list[str]]:
    by_time: dict[float, list[str]] = {}
    for t, line in trace_sentences:
        by_time.setdefault(t, []).append(line)
    return by_time


def _narrated(result) -> dict[float, list[str]]:
    """The narrator's lines for ``result``'s trace, by instant (the reference)."""
    by_time: dict[float, list[str]] = {}
    for e, said in narrate_trace(result.run.trace, result.options):
        by_time.setdefault(e.t, []).append(narration_line(e, said))
    return by_time


def test_stepping_captions_each_instant_with_the_narrators_sentences() -> None:
    w = CrawlWidget("isro", frames=10)
    expected = _narrated(w.result)
    assert w.caption_lines == expected[0.0]
    shown = []
    while w.t < w.result.replay.end:
        w.step()
        shown.append(w.t)
        assert w.caption_lines == expected[w.t]
        for line in w.caption_lines[:CAPTION_LINES]:
            assert html.escape(line) in w.caption.value
    assert shown == sorted(expected)[1:]  # every instant once, in order
    w.step(-1)
    assert w.caption_lines == expected[shown[-2]]


def test_a_frame_between_instants_narrates_the_latest_one() -> None:
    w = CrawlWidget("isro", frames=10)
    w.frame(6.5)  # inside gaganyaan's fetch: the latest instant is t = 6
    said = dict(narrate_trace(w.result.run.trace, w.result.options))
    assert w.caption_lines == [narration_line(e, said[e]) for e in said if e.t == 6.0]
    w.frame(w.result.finish)
    assert w.caption_lines[-1].endswith(said[w.result.run.trace[-1]])  # the Done sentence


@pytest.mark.parametrize("name", ["see-it", "polite", "trap", "busiest-host"])
def test_the_story_tells_every_instant_as_the_narrator_does(name: str) -> None:
    from crawlsim.notebook.steps import Story
    from crawlsim.views.session import Knobs, interactive_cap, run_session

    scenario = load_scenario(name)
    result = run_session(scenario, Knobs.from_options(scenario.options), cap=interactive_cap(scenario))
    story = Story(result.replay.events, result.options)
    expected = _narrated(result)
    for t, lines in expected.items():
        assert story.caption(t) == lines
    assert story.caption(-1.0) == [] and story.seen_at(-1.0) == 0


@pytest.mark.parametrize("name", ["see-it", "isro", "polite", "trap", "variants"])
def test_the_nested_sets_hold_the_invariant_at_every_instant(name: str) -> None:
    from crawlsim.notebook.steps import Story, seen_sets
    from crawlsim.views.session import Knobs, interactive_cap, run_session

    scenario = load_scenario(name)
    result = run_session(scenario, Knobs.from_options(scenario.options), cap=interactive_cap(scenario))
    replay = result.replay
    story = Story(replay.events, result.options)
    for t in sorted(set(replay.times)):
        replay.seek(t)
        sets = seen_sets(replay, story)
        assert sets.seen >= sets.frontier + sets.in_flight + sets.fetched  # seen holds the other three
        c = replay.counters()
        assert sets.frontier == c.frontier
        assert sets.fetched == sum(replay.count(s) for s in (PageState.DONE, PageState.DUPLICATE, PageState.FAILED))
    assert sets.frontier == sets.in_flight == 0 and sets.fetched == c.fetched + c.duplicates + c.failed


def test_the_widget_draws_the_nested_sets_it_counts(see_it_widget: CrawlWidget) -> None:
    w = see_it_widget
    w.frame(1.0)
    sets = w.sets
    assert (sets.seen, sets.frontier, sets.in_flight, sets.fetched) == (4, 1, 2, 1)
    assert sets.frontier_urls == ("a.com/y",) and sets.in_flight_urls == ("a.com/x", "b.com/")
    for text in ("seen 4", "frontier 1", "in flight 2", "fetched 1", "a.com/y", "b.com/"):
        assert text in w.nested.value
    assert "added to the seen set (4 URLs)" in w.caption.value  # the caption and the box agree


def test_changing_a_control_reruns_and_keeps_the_previous_finish() -> None:
    w = CrawlWidget("see-it", frames=20)
    figure = w.drawing.figure
    w.workers.value = 1
    assert w.result.finish == 26.0 and w.previous.finish == 19.0
    assert "previous run 19.0 s" in w.summary.value and "workers 4→1" in w.summary.value
    assert w.drawing.figure is figure  # one figure for the widget's whole life
    w.workers.value = 2
    assert (w.previous.finish, w.result.finish) == (26.0, 19.0)


def test_the_time_slider_draws_that_moment(see_it_widget: CrawlWidget) -> None:
    w = see_it_widget
    w.time.value = 0
    assert w.counters.t == 0.0 and w.counters.fetched == 0 and w.counters.in_flight == 1
    w.time.value = 10
    assert w.counters.t == pytest.approx(w.result.finish / 2)
    assert 0 < w.counters.fetched < 14
    w.time.value = 20
    assert w.counters.done


class _Timer:
    """A stand-in for the kernel's event loop: Play's pending ticks, run by hand."""

    def __init__(self) -> None:
        self.pending: list[_Tick] = []

    def __call__(self, delay: float, callback: Callable[[], None]) -> _Tick:
        tick = _Tick(delay, callback)
        self.pending.append(tick)
        return tick

    @property
    def live(self) -> list[_Tick]:
        return [tick for tick in self.pending if not tick.cancelled]

    def run_next(self) -> None:
        tick = self.live[0]
        self.pending.remove(tick)
        tick.callback()


class _Tick:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay, self.callback, self.cancelled = delay, callback, False

    def cancel(self) -> None:
        self.cancelled = True


def test_play_runs_on_the_kernels_clock_to_the_end_one_tick_at_a_time() -> None:
    timer = _Timer()
    w = CrawlWidget("isro", frames=4, interval_ms=250, call_later=timer)
    w.play.value = True  # the button pressed, in any view
    assert w.play.description == "pause" and [t.delay for t in timer.live] == [0.25]
    clocks = [w.clock.value]
    while timer.live:
        timer.run_next()  # a tick draws its frame, then sets the next one: never two pending
        assert len(timer.live) <= 1
        clocks.append(w.clock.value)
    assert w.time.value == 4 and w.counters.done and len(set(clocks)) == 5  # every frame drawn
    assert not w.play.value and w.play.description == "play"  # up again at the end
    w.play.value = True  # pressed at the end: from the start again
    assert w.time.value == 0 and w.t == 0.0 and len(timer.live) == 1


def test_pause_stops_the_clock_where_it_is() -> None:
    timer = _Timer()
    w = CrawlWidget("isro", frames=10, call_later=timer)
    w.play.value = True
    timer.run_next()
    timer.run_next()
    w.play.value = False
    assert w.time.value == 2 and not timer.live


def test_play_ticks_on_a_running_event_loop() -> None:
    """The default timer is the running loop's (a Jupyter kernel's)."""
    w = CrawlWidget("isro", frames=3, interval_ms=1)

    async def play() -> None:
        ended = asyncio.Event()
        w.play.observe(lambda change: None if change["new"] else ended.set(), names="value")
        w.play.value = True
        await ended.wait()  # the button comes up at the end

    asyncio.run(asyncio.wait_for(play(), timeout=60))
    assert w.time.value == 3 and w.counters.done
    with pytest.raises(RuntimeError, match="running event loop"):
        loop_call_later(0.1, lambda: None)


def test_frame_can_be_called_directly_and_reuses_the_artists(see_it_widget: CrawlWidget) -> None:
    w = see_it_widget
    nodes, bars = w.drawing.nodes, w.drawing.bars
    early = w.frame(1.5)
    assert (early.fetched, early.in_flight) == (1, 2)
    colours = w.drawing.nodes.get_facecolor()
    assert tuple(colours[0]) == to_rgba(STATE_COLOURS[PageState.DONE])  # a.com/ fetched at t = 1
    assert any(tuple(c) == to_rgba(STATE_COLOURS[PageState.IN_FLIGHT]) for c in colours)
    late = w.frame(18.5)
    assert late.fetched > early.fetched
    assert w.drawing.nodes is nodes and w.drawing.bars is bars  # mutated, not redrawn
    assert sum(len(b.get_paths()) for b in w.drawing.bars.values()) == late.fetches  # a bar per fetch started


def test_polite_off_lifts_the_per_host_limit() -> None:
    w = CrawlWidget("see-it", frames=10)
    assert not w.gap.disabled
    w.polite.value = False
    assert w.gap.disabled and w.per_host.disabled
    assert w.result.options.per_host is None and w.result.options.gap == 0.0
    assert w.result.finish == 9.0 and w.previous.finish == 19.0
    w.polite.value = True
    w.gap.value = 3.0
    assert w.result.options.gap == 3.0 and w.result.finish == 22.0
    assert w.result.bounds.busiest_host_name == "a.com"


def test_normalization_off_draws_duplicate_fetches_in_red() -> None:
    w = CrawlWidget("see-it", frames=10)
    w.frame(w.result.finish)
    w.normalize.value = "off"  # a longer run: its moment 19 s is before its end
    w.frame(w.result.finish)
    assert w.result.run.stats.duplicate_fetches == 6
    assert w.counters.duplicates == 6
    red = to_rgba(STATE_COLOURS[PageState.DUPLICATE])
    assert sum(tuple(c) == red for c in w.drawing.nodes.get_facecolor()) == 6
    assert "duplicate fetches" in w.summary.value


def test_order_and_layout_controls() -> None:
    w = CrawlWidget("isro", frames=10, layout="level")
    steps_before = fetch_order(w.result.run.trace)
    result = w.result
    w.layout_by.value = "host"  # redraw only: no new simulation
    assert w.result is result and w.drawing.layout.by == "host"
    w.order.value = "dfs"
    assert w.result is not result
    assert fetch_order(w.result.run.trace) != steps_before


def test_the_order_control_offers_the_named_priorities() -> None:
    w = CrawlWidget("trap", frames=4)
    assert {"bfs", "dfs", "shallowest", "host-round-robin", "shortest-url"} <= set(w.order.options)
    w.order.value = "host-round-robin"
    scenario = load_scenario("trap")
    expected = simulate(scenario, scenario.options.with_(order="best", priority="host-round-robin"))
    assert w.result.options is not None and str(w.result.options.priority) == "host-round-robin"
    assert fetch_order(w.result.run.trace) == fetch_order(expected.trace)
    assert "order BFS→best (host-round-robin)" in w.summary.value


def test_a_million_page_web_is_capped_for_the_widget() -> None:
    w = CrawlWidget("million", frames=4)
    assert w.cap is not None and w.result.run.stats.discovered <= w.cap
    assert "capped" in w.summary.value


def test_bad_layout_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="layout"):
        CrawlWidget("isro", layout="circle")


# -- drawing, layout, steps -----------------------------------------------------


def test_snapshot_at_a_time_and_previous_line() -> None:
    picture = snapshot("isro", t=3.5, layout="level", previous=9.0)
    now = picture.update(3.5)
    assert (now.fetched, now.in_flight, now.frontier) == (3, 1, 2)
    assert picture.png().startswith(PNG) and picture._repr_png_().startswith(PNG)
    assert picture.result.finish == 7.0


def test_level_layout_puts_depths_left_to_right() -> None:
    run = simulate(load_scenario("isro"))
    replay = Replay(run.trace)
    lay = compute_layout(replay, "level")
    x = {page.url: lay.xy[page.index][0] for page in replay.page_list}
    assert x["http://isro.gov.in/"] < x["http://isro.gov.in/missions"] < x["http://isro.gov.in/missions/gaganyaan"]
    assert [g[0] for g in lay.groups] == ["depth 0", "depth 1", "depth 2"]
    assert len(set(lay.xy)) == len(lay.xy)  # no two pages on one spot
    assert len(lay.edges) == 6  # every page but the seed was discovered by one link


def test_host_layout_groups_by_host_and_wraps_big_hosts() -> None:
    run = simulate(load_scenario("busiest-host"))
    replay = Replay(run.trace)
    lay = compute_layout(replay, "host")
    assert lay.groups[0][0] == "h0.example"
    assert len(lay.groups) == 40
    assert len(set(lay.xy)) == len(lay.xy)
    height = lay.ylim[1] - lay.ylim[0]
    assert height < 80  # h0.example's ~600 pages wrap into sub-columns


def test_crawl_steps_rebuild_the_hand_trace() -> None:
    run = simulate(load_scenario("isro"))
    steps = crawl_steps(run.trace)
    assert [short(s.url) for s in steps][:4] == [
        "isro.gov.in", "isro.gov.in/missions", "isro.gov.in/gallery", "wikipedia.org/ISRO",
    ]
    assert [short(u) for u in steps[0].frontier] == ["isro.gov.in/missions", "isro.gov.in/gallery", "wikipedia.org/ISRO"]
    assert [short(u) for u in steps[3].discarded] == ["wikipedia.org/ISRO"]
    assert steps[-1].frontier == () and len(steps[-1].visited) == 7


def test_crawl_steps_with_several_workers_cover_every_page() -> None:
    scenario = load_scenario("see-it")
    run = simulate(scenario)
    steps = crawl_steps(run.trace)
    assert len(steps) == run.stats.fetches
    assert any(s.in_flight for s in steps)  # steps interleave with other workers' fetches
    assert sorted(steps[-1].visited) == sorted(run.found)


def test_frame_times_and_table() -> None:
    assert frame_times(10.0, 4) == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert frame_times(0.0, 4) == [0.0]
    table = Table.of(["a", "b"], [(1, ["x", "y"]), (2_000, 0.5)], caption="c")
    assert table.column("a") == [1, 2_000]
    assert "2,000" in str(table) and "x, y" in str(table)
    assert table._repr_html_().startswith("<table>")


# -- sweep --------------------------------------------------------------------------


def test_sweep_flattens_on_the_busiest_host_when_polite() -> None:
    points = {p.workers: p for p in sweep("see-it", [1, 2, 4])}
    assert points[1].finish == 26.0 and points[2].finish == points[4].finish == 19.0
    assert points[4].busiest_host_name == "b.com" and points[4].busiest_host == 18.0
    assert points[4].floor == 18.0


def test_sweep_plot_draws_finish_and_bounds() -> None:
    from crawlsim.notebook import sweep_plot

    result = sweep_plot("see-it", workers=[1, 2, 3], per_host=None)
    assert [p.finish for p in result.points] == [26.0, 14.0, 10.0]
    labels = [line.get_label() for line in result.figure.axes[0].get_lines()]
    assert labels[:4] == ["finish time", "depth bound", "busiest host bound (b.com)", "work bound"]
    assert result._repr_png_().startswith(PNG)


# -- animation ------------------------------------------------------------------------


def test_animate_writes_a_gif(tmp_path: Path) -> None:
    from PIL import Image

    out = animate("isro", tmp_path / "crawl.gif", fps=4, seconds=1.0, dpi=40, workers=2)
    with Image.open(out) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames >= 4
        assert gif.size == (320, 230)  # the slide picture, 8 x 5.75 in, at 40 dpi


def test_animate_writes_an_mp4(tmp_path: Path) -> None:
    pytest.importorskip("imageio_ffmpeg")
    out = animate("isro", tmp_path / "crawl.mp4", fps=4, seconds=1.0, dpi=40)
    head = out.read_bytes()[:12]
    assert head[4:8] == b"ftyp"


def test_animate_cli_writes_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "see.gif"
    code = animate_main(["see-it", "-o", str(out), "--fps", "2", "--seconds", "1", "--dpi", "30", "--workers", "2",
                         "--normalize", "off", "--layout", "level"])
    assert code == 0 and out.stat().st_size > 0
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["see-it", "-o", "crawl.avi"], "expected a file name ending in .gif or .mp4"),
        (["no-such-scenario", "-o", "x.gif"], "no scenario file or shipped scenario"),
        (["see-it", "-o", "x.gif", "--workers", "0"], "workers"),
        (["see-it", "-o", "x.gif", "--fps", "0"], "--fps"),
        (["see-it", "-o", f"{__file__}/x.gif"], "is not a folder"),  # a file where the folder would be made
    ],
)
def test_animate_cli_mistakes_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert animate_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("crawlsim: error: ") and "\n" not in err
    assert message in err


def test_animate_cli_without_ffmpeg_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    import shutil

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # import fails
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert animate_main(["isro", "-o", str(tmp_path / "x.mp4")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ('crawlsim: error: writing an MP4 needs the "video" extra: python -m pip install "crawlsim[video]"; '
                   "or put ffmpeg on PATH, or write a .gif")


def test_animate_cli_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert animate_main(["see-it"]) == 2
    assert "-o/--output" in capsys.readouterr().err


def test_animate_module_does_not_load_ipywidgets() -> None:
    code = "import sys, crawlsim.notebook.movie, crawlsim.notebook.draw; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_snapshot_can_leave_the_bound_lines_out() -> None:
    """Notebook 01's hand-trace picture is about the queue: no bound lines."""

    def legend_labels(picture: Any) -> list[str]:
        return [text.get_text() for text in picture.ax_lanes.get_legend().get_texts()]

    with_bounds = legend_labels(snapshot("isro", t=3.5, layout="level"))
    without = legend_labels(snapshot("isro", t=3.5, layout="level", bounds=False))
    assert any("bound" in label for label in with_bounds)
    assert not any("bound" in label for label in without) and any("finish" in label for label in without)
