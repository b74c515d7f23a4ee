"""The notebook's what-if widget: play a crawl, turn a knob, see it again.

Controls map one-to-one onto :class:`crawlsim.views.session.Knobs` -- the same
knobs, with the same meaning of "polite", as the terminal app -- and a run
is :func:`crawlsim.views.session.run_session`: the SimPy driver running the
core, then the bounds.  The widget only replays the resulting events.
With ``nodes`` above 1 the run is a simulated cluster (the scenario's
``[cluster]`` table for the rest); :mod:`crawlsim.notebook.nodes` draws
its nodes and words its figures.

The widget opens at t = 0, so a class watches the crawl happen rather than
its end, and a knob keeps the moment shown (clamped to the new run's
length): turning a knob mid-crawl compares the two runs at the same time.
Under the picture a caption narrates the instant shown, in
:mod:`crawlsim.views.narrate`'s sentences, and a box draws the seen set with the
frontier, the fetches in flight and the fetched pages nested inside it.

Play is a clock in the kernel (:mod:`crawlsim.notebook.clock`), so the
widget plays however many times it is shown.  Everything a browser would do
is a plain method here: tests (and curious users) call :meth:`frame`,
:meth:`step` or set a control's ``value`` and read :attr:`counters`,
:attr:`result`, :attr:`caption_lines`, :attr:`sets` and the PNG bytes in
:attr:`image`.  The picture is one :class:`CrawlFigure`,
mutated in place and shown through an ``ipywidgets.Image`` of fixed size, so
the cell never changes height or flickers while the crawl plays, with or
without an interactive matplotlib backend.
"""

from __future__ import annotations

import asyncio
import html
from typing import TYPE_CHECKING, Any

from crawlsim.core.urls import MODES
from crawlsim.extras import needs
from crawlsim.notebook.clock import CallLater, PlayClock, play_button
from crawlsim.notebook.draw import CrawlFigure
from crawlsim.notebook.layout import LAYOUTS
from crawlsim.notebook.nodes import cluster_lines
from crawlsim.notebook.runs import as_scenario
from crawlsim.notebook.steps import SeenSets, Story, seen_sets
from crawlsim.palette import STATES
from crawlsim.views.replay import Counters
from crawlsim.views.summary import margin_line, model_margin
from crawlsim.words import bounds_heading, counted
from crawlsim.scenario import Scenario
from crawlsim.views.session import (
    ORDER_CHOICES,
    PARTITION_CYCLE,
    Knobs,
    REPLAY_PENDING,
    Result,
    advise_result,
    interactive_cap,
    large_run,
    normalize_label,
    replay_result,
    run_session,
)

with needs("notebook", "the crawl widget (crawlsim.notebook.show)"):
    import ipywidgets as widgets

if TYPE_CHECKING:
    from collections.abc import Mapping

    from crawlsim.cluster.sim import ClusterRun
    from crawlsim.sim.bounds import Bounds
    from crawlsim.sim.coverage import Coverage
    from crawlsim.sim.driver import SimRun


class CrawlWidget:
    """Play ``scenario``'s crawl and rerun it whenever a control changes.

    ``layout``: ``"host"`` or ``"level"``; ``frames``: steps of the time
    slider; ``interval_ms``: time between frames while playing (after each
    is drawn); ``call_later``: the timer Play runs on (default: the
    kernel's event loop); ``overrides``: crawler options applied before the
    first run.
    """

    def __init__(
        self,
        scenario: Scenario | str = "see-it",
        *,
        layout: str = "host",
        frames: int = 80,
        interval_ms: int = 250,
        figsize: tuple[float, float] = (10.0, 7.2),
        dpi: float = 80,
        call_later: CallLater | None = None,
        **overrides: Any,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"layout: expected one of {', '.join(LAYOUTS)}; got {layout!r}")
        self.scenario = as_scenario(scenario, overrides)
        self.cap = interactive_cap(self.scenario)
        self.frames = max(2, int(frames))
        self.drawing = CrawlFigure(figsize=figsize, dpi=dpi)
        self.result: Result | None = None
        self.previous: Result | None = None
        self.counters: Counters | None = None
        self.story: Story | None = None
        self.sets: SeenSets | None = None
        self.caption_lines: list[str] = []
        self.t = 0.0
        """The simulated time shown; a new run keeps it (clamped to its finish)."""
        self._quiet = False
        self._advice_later: asyncio.Handle | None = None
        """The replay or advice asked for on the kernel's loop, not yet done."""
        self._make_playback(interval_ms, call_later)
        self._make_knob_controls(Knobs.for_scenario(self.scenario), layout)
        self._make_outputs(int(figsize[0] * dpi), int(figsize[1] * dpi))
        self.controls = (self.normalize, self.workers, self.polite, self.gap, self.per_host, self.order,
                         self.nodes, self.partition)
        for control in self.controls:
            control.observe(self._on_knob, names="value")
        self.layout_by.observe(self._on_layout, names="value")
        self.time.observe(self._on_time, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.play, self.back, self.forward, self.time, self.clock]),
                widgets.HBox([self.workers, self.normalize, self.order]),
                widgets.HBox([self.polite, self.per_host, self.gap]),
                widgets.HBox([self.nodes, self.partition]),
                self.layout_by,
                self.summary,
                self.image,
                widgets.HBox([self.caption, self.nested]),
            ]
        )
        self._sync_enabled()
        self.rerun()

    # -- building the controls ------------------------------------------------------

    def _make_playback(self, interval_ms: int, call_later: CallLater | None) -> None:
        """Play (a button and the kernel's clock), the time slider, the clock
        label and the step buttons."""
        self.play = play_button()
        self.player = PlayClock(self.play, self._advance, self._rewind_at_end, interval_ms=interval_ms,
                                call_later=call_later)
        self.time = widgets.IntSlider(value=0, min=0, max=self.frames, step=1, readout=False,
                                      description="time", continuous_update=True,
                                      layout=widgets.Layout(width="420px"))
        self.clock = widgets.Label(value="")
        self.back = widgets.Button(description="◀ step", tooltip="the previous instant of the crawl",
                                   layout=widgets.Layout(width="70px"))
        self.forward = widgets.Button(description="step ▶", tooltip="the next instant of the crawl",
                                      layout=widgets.Layout(width="70px"))
        self.back.on_click(lambda _: self.step(-1))
        self.forward.on_click(lambda _: self.step(1))

    def _make_knob_controls(self, knobs: Knobs, layout: str) -> None:
        """One control per knob, starting at the scenario's value (its
        ``[cluster]`` table for nodes and partition); a slider's range grows
        to hold a value beyond its usual maximum, and a normalization given
        as steps joins the list of modes."""
        modes = list(MODES)
        current = normalize_label(knobs.normalize)
        if current not in modes:
            modes.append(current)
        self.normalize = widgets.Dropdown(options=modes, value=current, description="normalize",
                                          layout=widgets.Layout(width="230px"))
        self.workers = widgets.IntSlider(value=knobs.workers, min=1, max=max(16, knobs.workers),
                                         description="workers", continuous_update=False)
        self.polite = widgets.Checkbox(value=knobs.polite, description="polite (per-host limit and gap)",
                                       indent=False)
        self.gap = widgets.FloatSlider(value=knobs.gap, min=0.0, max=max(5.0, knobs.gap), step=0.25,
                                       description="gap (s)", continuous_update=False)
        self.per_host = widgets.IntSlider(value=knobs.per_host, min=1, max=max(8, knobs.per_host),
                                          description="per host", continuous_update=False)
        orders = list(ORDER_CHOICES)
        if knobs.order_choice not in orders:
            orders.append(knobs.order_choice)  # a scenario's own priority function: "best"
        self._custom_priority = knobs.priority if knobs.order_choice == "best" else None
        self.order = widgets.Dropdown(options=orders, value=knobs.order_choice, description="order",
                                      layout=widgets.Layout(width="230px"))
        self._make_cluster_controls(knobs)
        self.layout_by = widgets.ToggleButtons(options=list(LAYOUTS), value=layout, description="layout by",
                                               style={"button_width": "70px"})

    def _make_cluster_controls(self, knobs: Knobs) -> None:
        """Crawler nodes (each with the workers above) and how URLs are split
        between them; one node is today's single crawler."""
        self.nodes = widgets.IntSlider(value=knobs.nodes, min=1, max=max(NODES_SLIDER_MAX, knobs.nodes),
                                       description="nodes", continuous_update=False,
                                       tooltip="crawler machines, each with the workers above")
        partitions = list(PARTITION_CYCLE)
        if knobs.partition not in partitions:
            partitions.append(knobs.partition)
        self.partition = widgets.Dropdown(options=partitions, value=knobs.partition, description="partition",
                                          layout=widgets.Layout(width="230px"))

    def _make_outputs(self, width: int, height: int) -> None:
        """The HTML summary and the picture, an image of fixed pixel size so
        the cell never changes height while the crawl plays."""
        self.summary = widgets.HTML(value="")
        self.image = widgets.Image(format="png", width=width, height=height,
                                   layout=widgets.Layout(width=f"{width}px", height=f"{height}px"))
        # fixed heights, so the cell keeps its size whatever the caption says
        self.caption = widgets.HTML(value="", layout=widgets.Layout(width=f"{max(width - 300, 300)}px",
                                                                     height="190px", overflow="auto"))
        self.nested = widgets.HTML(value="", layout=widgets.Layout(width="290px", height="190px"))

    # -- the controls -----------------------------------------------------------

    def knobs(self) -> Knobs:
        """The knobs the controls show now."""
        knobs = Knobs(
            workers=int(self.workers.value),
            polite=bool(self.polite.value),
            per_host=int(self.per_host.value),
            gap=float(self.gap.value),
            normalize=self.normalize.value,
            order="best",
            priority=self._custom_priority,
            nodes=int(self.nodes.value),
            partition=str(self.partition.value),
        )
        return knobs if self.order.value == "best" else knobs.with_order_choice(self.order.value)

    def _sync_enabled(self) -> None:
        # A gap or a per-host limit means nothing with polite mode off.
        self.gap.disabled = self.per_host.disabled = not self.polite.value
        # and a partition nothing with one node
        self.partition.disabled = self.nodes.value <= 1

    def _on_knob(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        self._sync_enabled()
        if change.get("owner") is self.partition and self.nodes.value <= 1:
            return  # one node has no partition: the run would be the same
        try:
            self.rerun()
        except ValueError as err:  # knobs the scenario cannot run with, e.g. a failing node beyond the count
            self.summary.value = f"<span style='color:{RED}'>{html.escape(str(err))}</span>"

    def _on_layout(self, change: dict[str, Any]) -> None:
        if self.result is not None:
            self._draw_result(self.result, self.previous)

    def _on_time(self, change: dict[str, Any]) -> None:
        if self._quiet or self.result is None:
            return
        self.frame(self.time_of(int(change["new"])))

    def _advance(self) -> bool:
        """One tick of Play: the next slider position, drawn; False once the
        last one is shown."""
        index = min(int(self.time.value) + 1, self.frames)
        self.time.value = index
        return index < self.frames

    def _rewind_at_end(self) -> None:
        """Play pressed at the end starts again from the beginning."""
        if int(self.time.value) >= self.frames:
            self.time.value = 0

    # -- runs and frames ------------------------------------------------------------

    def rerun(self) -> Result:
        """Simulate with the current knobs, keep the last run as "previous",
        and show the new run at the time shown before (clamped to its finish).

        The advice (the advisor's reruns) comes after the picture: the
        summary says "measuring…" until :meth:`advise_now` has run -- on the
        kernel's event loop right after this control's change is handled, so
        the new finish time reaches the browser first, or at once when no
        loop is running (a script, a test).  A large run
        (:func:`~crawlsim.views.session.large_run`) after the first shows its finish
        time and bounds before its replay too: :meth:`replay_now` records and draws it on the
        loop's next turn, the advice on the turn after.  A control moved
        before then makes that work stale: it is dropped, never shown."""
        previous = self.result
        later = previous is not None and large_run(self.scenario, self.cap)  # the first run: replayed at once
        result = run_session(self.scenario, self.knobs(), cap=self.cap, advice=False, replay=not later)
        self.previous, self.result = previous, result
        self.story = Story(result.replay.events, result.options or self.scenario.options)
        self._draw_result(result, previous)
        self._complete_soon()
        return result

    def _complete_soon(self) -> None:
        """Ask for the next missing part of the run shown (its replay, then
        its advice), after this handler returns; at once without a loop."""
        if self._advice_later is not None:
            self._advice_later.cancel()  # an older run's replay or advice: stale now
            self._advice_later = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.replay_now()
            self.advise_now()
            return
        self._advice_later = loop.call_soon(self._complete_step)

    def _complete_step(self) -> None:
        """One turn of the loop's work: the replay if it is missing (and the
        advice asked for on the next turn), else the advice."""
        self._advice_later = None
        if self.result is not None and self.result.replay_pending:
            self.replay_now()
            self._complete_soon()
            return
        self.advise_now()

    def replay_now(self) -> Result | None:
        """Record the events of the run shown (if still missing) and draw its replay."""
        result = self.result
        if result is None or not result.replay_pending:
            return result
        self.result = replayed = replay_result(result)
        self.story = Story(replayed.replay.events, replayed.options or self.scenario.options)
        self._draw_result(replayed, self.previous)
        return replayed

    def advise_now(self) -> Result | None:
        """Measure the pending advice of the run shown (if any) and show it."""
        self._advice_later = None
        result = self.result
        if result is None or not result.advice_pending:
            return result
        self.result = advised = advise_result(result)
        self.summary.value = self.describe(advised, self.previous)
        return advised

    def _draw_result(self, result: Result, previous: Result | None) -> None:
        self.drawing.show_run(
            result.replay,
            title=self.scenario.title,
            layout=self.layout_by.value,
            finish=result.finish,
            bounds=result.bounds,
            previous_finish=previous.finish if previous is not None else None,
        )
        self.summary.value = self.describe(result, previous)
        self.frame(min(self.t, result.finish))

    def time_of(self, index: int) -> float:
        """Simulated time of slider position ``index``."""
        finish = self.result.finish if self.result is not None else 0.0
        return finish * max(0, min(index, self.frames)) / self.frames

    def index_of(self, t: float) -> int:
        """The slider position at or just before simulated time ``t``."""
        finish = self.result.finish if self.result is not None else 0.0
        if finish <= 0:
            return 0
        return max(0, min(self.frames, int(t / finish * self.frames + 1e-9)))

    def frame(self, t: float) -> Counters:
        """Draw the crawl at simulated time ``t`` (what each Play tick does),
        with its caption and nested sets; the slider follows quietly."""
        counters = self.drawing.update(t)
        self.counters = counters
        self.t = counters.t
        self.image.value = self.drawing.png()
        self.clock.value = f"t = {counters.t:.1f} s of {counters.end:.1f} s"
        self._quiet = True
        try:
            self.time.value = self.index_of(self.t)
        finally:
            self._quiet = False
        self._tell(counters.t)
        return counters

    def step(self, direction: int = 1) -> Counters:
        """Move to the next (``1``) or previous (``-1``) instant at which
        something happened, and narrate it."""
        replay = self.result.replay if self.result is not None else None
        if replay is None:
            raise RuntimeError("no run to step through")
        target = replay.next_time(self.t) if direction > 0 else replay.previous_time(self.t)
        if target is None:
            target = replay.end if direction > 0 else 0.0
        return self.frame(target)

    def _tell(self, t: float) -> None:
        """The caption (the narrator's lines for the instant shown) and the nested sets."""
        if self.story is None or self.result is None:
            return
        self.caption_lines = self.story.caption(t)
        self.caption.value = caption_html(self.caption_lines)
        self.sets = seen_sets(self.result.replay, self.story)
        self.nested.value = nested_sets_html(self.sets)

    # -- words ----------------------------------------------------------------------

    def describe(self, result: Result, previous: Result | None) -> str:
        """HTML summary: finish time, the change from the previous run, the
        bounds and which one binds (a cluster: its own figures instead)."""
        parts = [f"<b>finish {result.finish:.1f} s</b>"]
        if previous is not None:
            parts.append(_change_part(result, previous))
        run = result.run if result.run is not None else result.cluster
        if run is not None:
            parts.extend(_fetch_parts(run, result.coverage))
        lines = [" · ".join(parts), *_lost_lines(result.coverage)]
        if result.cluster is not None:
            lines.extend(cluster_lines(result.cluster))
        if result.bounds is not None:
            lines.extend(_bounds_lines(result.bounds, margin=model_margin(result.simulated),
                                       provisional=result.replay_pending))
        if result.note:
            lines.append(f"<i>{html.escape(result.note)}</i>")
        if result.replay_pending:
            lines.append(f"<i>{html.escape(REPLAY_PENDING)}</i>")
        return "<br>".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.box._repr_mimebundle_(**kwargs)


NODES_SLIDER_MAX = 16
"""The nodes slider's usual range (it grows to a scenario's own larger count)."""

LOST_SHOWN = 5
"""Lost pages named in the summary; the rest are counted."""

RED = STATES["duplicate"].hex
"""Wasted work and lost pages: the duplicate fetch's red, as in the drawing."""


def _change_part(result: Result, previous: Result) -> str:
    """The previous run's finish time, the difference, and which knobs changed."""
    delta = result.finish - previous.finish
    change = result.knobs.diff(previous.knobs) if result.knobs and previous.knobs else ""
    return f"previous run {previous.finish:.1f} s ({delta:+.1f} s{'; ' + html.escape(change) if change else ''})"


def _fetch_parts(run: SimRun | ClusterRun, coverage: Coverage | None) -> list[str]:
    """Pages (of those reachable, when counted), fetches, and the duplicate
    and failed fetches when there were any."""
    stats = run.stats
    if coverage is not None and coverage.reachable is not None:
        parts = [f"{counted(coverage.reachable, 'page')} reachable, {stats.pages_fetched:,} fetched"]
    else:
        parts = [f"{counted(stats.pages_fetched, 'page')} fetched"]
    parts.append(counted(stats.fetches, "fetch"))
    if stats.duplicate_fetches:
        parts.append(f"<span style='color:{RED}'>{counted(stats.duplicate_fetches, 'duplicate fetch')} "
                     f"({run.wasted_time:.1f} worker-seconds wasted)</span>")
    if stats.failed:
        parts.append(counted(stats.failed, "failed fetch"))
    return parts


def _lost_lines(coverage: Coverage | None) -> list[str]:
    """The pages lost, the first few with their reasons, or why they were
    not counted; nothing when none was lost."""
    if coverage is None:
        return []
    if coverage.lost:
        lost = "; ".join(
            f"{html.escape(item.page)} ({item.reason}: {html.escape(item.detail)})"
            for item in coverage.lost[:LOST_SHOWN]
        )
        count = len(coverage.lost)
        more = f"; and {count - LOST_SHOWN:,} more" if count > LOST_SHOWN else ""
        return [f"<span style='color:{RED}'>{counted(count, 'page')} lost: {lost}{more}</span>"]
    if coverage.lost is None and coverage.note:
        return [f"pages lost not counted: {html.escape(coverage.note)}"]
    return []


def _bounds_lines(
    bounds: Bounds, *, margin: Mapping[str, Any] | None = None, provisional: bool = False
) -> list[str]:
    """The three lower bounds with the binding one named, a model's ``margin``
    line under them (its bounds are the model's: the real site within it), then
    the advisor's explanation, in the order ``run``, the app and the page give
    them; a ``provisional`` depth bound (the weaker one of a run whose events
    are still being recorded) is marked ``…``, as in the app."""
    host = html.escape(bounds.busiest_host_name or "-")
    mark = "…" if provisional else ""
    return [
        f"{bounds_heading(model=bool(margin))}: depth {bounds.depth:.1f} s{mark} · "
        f"busiest host {host} {bounds.busiest_host:.1f} s · work {bounds.work:.1f} s · binding: {bounds.binding.replace('_', ' ')}",
        *([f"<i>{html.escape(margin_line(margin))}</i>"] if margin else []),
        html.escape(bounds.explanation),
    ]


CAPTION_LINES = 30
"""Sentences shown for one instant (the caption scrolls); the rest are counted."""


def caption_html(lines: list[str]) -> str:
    """The narrator's lines for one instant, one per row (monospace time
    column); before the first event, a hint to press Play or step."""
    if not lines:
        return "<i>before the first event: press play or step ▶</i>"
    shown = [f"<div>{html.escape(line)}</div>" for line in lines[:CAPTION_LINES]]
    if len(lines) > CAPTION_LINES:
        shown.append(f"<div><i>and {len(lines) - CAPTION_LINES:,} more at this instant</i></div>")
    return "<div style='font-size:12px;line-height:1.35'><b>why</b>" + "".join(shown) + "</div>"


def _box(colour: str, title: str, names: tuple[str, ...], count: int) -> str:
    """One inner set: a coloured rounded box with its count and a few members."""
    listed = ", ".join(html.escape(n) for n in names)
    more = f" +{count - len(names)}" if count > len(names) else ""
    members = f"<div style='font-size:10px;line-height:1.2;color:#495057'>{listed}{more}</div>" if names else ""
    return (f"<div style='border:2px solid {colour};border-radius:8px;padding:1px 5px;margin:2px 0;"
            f"background:{colour}22'><b>{html.escape(title)}</b>{members}</div>")


def nested_sets_html(sets: SeenSets) -> str:
    """Seen as the outer box; frontier, in flight and fetched inside it
    (disjoint), with counts: the seen-set invariant, drawn."""
    from crawlsim.notebook.draw import STATE_COLOURS
    from crawlsim.views.replay import PageState

    inner = [
        _box(STATE_COLOURS[PageState.FRONTIER], f"frontier {sets.frontier}", sets.frontier_urls, sets.frontier),
        _box(STATE_COLOURS[PageState.IN_FLIGHT], f"in flight {sets.in_flight}", sets.in_flight_urls, sets.in_flight),
        _box(STATE_COLOURS[PageState.DONE], f"fetched {sets.fetched}", (), sets.fetched),
    ]
    if sets.other:
        inner.append(_box(STATE_COLOURS[PageState.SKIPPED], f"refused after being seen {sets.other}", (), sets.other))
    return ("<div style='border:2px solid #495057;border-radius:10px;padding:2px 6px;font-size:12px;line-height:1.3'>"
            f"<b>seen {sets.seen}</b> <span style='font-size:10px;color:#495057'>"
            "(every URL ever queued: links to these are dropped)</span>" + "".join(inner) + "</div>")


def show(scenario: Scenario | str = "see-it", **kwargs: Any) -> CrawlWidget:
    """Display a :class:`CrawlWidget` for ``scenario`` and return it.  Assign
    the result (``w = show("see-it")``) to show it once; shown again (``w``
    as a cell's last line, ``display(w)``) it is another view of the same
    widget, and every view plays."""
    from IPython.display import display

    widget = CrawlWidget(scenario, **kwargs)
    display(widget.box)
    return widget


__all__ = ["CrawlWidget", "caption_html", "nested_sets_html", "show"]
