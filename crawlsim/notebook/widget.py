"""The notebook's what-if widget: play a crawl, turn a knob, see it again.

Controls map one-to-one onto :class:`crawlsim.session.Knobs` -- the same
knobs, with the same meaning of "polite", as the terminal app -- and a run
is :func:`crawlsim.session.run_session`: the SimPy driver running the
core, then the bounds.  The widget only replays the resulting events.

Everything a browser would do is a plain method here.  ``Play`` does not
tick without a browser, so tests (and curious users) call :meth:`frame` or
set a control's ``value`` and read :attr:`counters`, :attr:`result` and the
PNG bytes in :attr:`image`.  The picture is one :class:`CrawlFigure`,
mutated in place and shown through an ``ipywidgets.Image`` of fixed size, so
the cell never changes height or flickers while the crawl plays, with or
without an interactive matplotlib backend.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from crawlsim.core.urls import MODES
from crawlsim.notebook.draw import CrawlFigure
from crawlsim.notebook.layout import LAYOUTS
from crawlsim.notebook.runs import as_scenario
from crawlsim.replay import Counters
from crawlsim.scenario import Scenario
from crawlsim.session import Knobs, Result, interactive_cap, normalize_label, run_session

if TYPE_CHECKING:
    from crawlsim.sim.bounds import Bounds
    from crawlsim.sim.coverage import Coverage
    from crawlsim.sim.driver import SimRun


class CrawlWidget:
    """Play ``scenario``'s crawl and rerun it whenever a control changes.

    ``layout``: ``"host"`` or ``"level"``; ``frames``: steps of the time
    slider; ``interval_ms``: time between frames while playing;
    ``overrides``: crawler options applied before the first run.
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
        self._quiet = False
        self._make_playback(interval_ms)
        self._make_knob_controls(Knobs.from_options(self.scenario.options), layout)
        self._make_outputs(int(figsize[0] * dpi), int(figsize[1] * dpi))
        self.controls = (self.normalize, self.workers, self.polite, self.gap, self.per_host, self.order)
        for control in self.controls:
            control.observe(self._on_knob, names="value")
        self.layout_by.observe(self._on_layout, names="value")
        self.time.observe(self._on_time, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.play, self.time, self.clock]),
                widgets.HBox([self.workers, self.normalize, self.order]),
                widgets.HBox([self.polite, self.per_host, self.gap]),
                self.layout_by,
                self.summary,
                self.image,
            ]
        )
        self._sync_enabled()
        self.rerun()

    # -- building the controls ------------------------------------------------------

    def _make_playback(self, interval_ms: int) -> None:
        """Play and the time slider, linked in the browser (so playing needs
        no round trip to the kernel), and the clock label."""
        self.play = widgets.Play(value=self.frames, min=0, max=self.frames, step=1, interval=interval_ms,
                                 description="play")
        self.time = widgets.IntSlider(value=self.frames, min=0, max=self.frames, step=1, readout=False,
                                      description="time", continuous_update=True,
                                      layout=widgets.Layout(width="420px"))
        widgets.jslink((self.play, "value"), (self.time, "value"))
        self.clock = widgets.Label(value="")

    def _make_knob_controls(self, knobs: Knobs, layout: str) -> None:
        """One control per knob, starting at the scenario's value; a slider's
        range grows to hold a value beyond its usual maximum, and a
        normalization given as steps joins the list of modes."""
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
        order = knobs.order if knobs.order in ("bfs", "dfs") else "bfs"
        self.order = widgets.Dropdown(options=["bfs", "dfs"], value=order, description="order",
                                      layout=widgets.Layout(width="230px"))
        self.layout_by = widgets.ToggleButtons(options=list(LAYOUTS), value=layout, description="layout by",
                                               style={"button_width": "70px"})

    def _make_outputs(self, width: int, height: int) -> None:
        """The HTML summary and the picture, an image of fixed pixel size so
        the cell never changes height while the crawl plays."""
        self.summary = widgets.HTML(value="")
        self.image = widgets.Image(format="png", width=width, height=height,
                                   layout=widgets.Layout(width=f"{width}px", height=f"{height}px"))

    # -- the controls -----------------------------------------------------------

    def knobs(self) -> Knobs:
        """The knobs the controls show now."""
        return Knobs(
            workers=int(self.workers.value),
            polite=bool(self.polite.value),
            per_host=int(self.per_host.value),
            gap=float(self.gap.value),
            normalize=self.normalize.value,
            order=self.order.value,
        )

    def _sync_enabled(self) -> None:
        # A gap or a per-host limit means nothing with polite mode off.
        self.gap.disabled = self.per_host.disabled = not self.polite.value

    def _on_knob(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        self._sync_enabled()
        self.rerun()

    def _on_layout(self, change: dict[str, Any]) -> None:
        if self.result is not None:
            self._draw_result(self.result, self.previous)

    def _on_time(self, change: dict[str, Any]) -> None:
        if self._quiet or self.result is None:
            return
        self.frame(self.time_of(int(change["new"])))

    # -- runs and frames ------------------------------------------------------------

    def rerun(self) -> Result:
        """Simulate with the current knobs, keep the last run as "previous",
        and show the new run's last frame."""
        previous = self.result
        result = run_session(self.scenario, self.knobs(), cap=self.cap)
        self.previous, self.result = previous, result
        self._draw_result(result, previous)
        return result

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
        self._quiet = True
        try:
            self.time.value = self.frames
            self.play.value = self.frames
        finally:
            self._quiet = False
        self.frame(result.finish)

    def time_of(self, index: int) -> float:
        """Simulated time of slider position ``index``."""
        finish = self.result.finish if self.result is not None else 0.0
        return finish * max(0, min(index, self.frames)) / self.frames

    def frame(self, t: float) -> Counters:
        """Draw the crawl at simulated time ``t`` (what each Play tick does)."""
        counters = self.drawing.update(t)
        self.counters = counters
        self.image.value = self.drawing.png()
        self.clock.value = f"t = {counters.t:.1f} s of {counters.end:.1f} s"
        return counters

    # -- words ----------------------------------------------------------------------

    def describe(self, result: Result, previous: Result | None) -> str:
        """HTML summary: finish time, the change from the previous run, the
        bounds and which one binds."""
        parts = [f"<b>finish {result.finish:.1f} s</b>"]
        if previous is not None:
            parts.append(_change_part(result, previous))
        if result.run is not None:
            parts.extend(_fetch_parts(result.run, result.coverage))
        lines = [" · ".join(parts), *_lost_lines(result.coverage)]
        if result.bounds is not None:
            lines.extend(_bounds_lines(result.bounds))
        if result.note:
            lines.append(f"<i>{html.escape(result.note)}</i>")
        return "<br>".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.box._repr_mimebundle_(**kwargs)


LOST_SHOWN = 5
"""Lost pages named in the summary; the rest are counted."""

RED = "#e03131"
"""Wasted work and lost pages, as in the drawing."""


def _change_part(result: Result, previous: Result) -> str:
    """The previous run's finish time, the difference, and which knobs changed."""
    delta = result.finish - previous.finish
    change = result.knobs.diff(previous.knobs) if result.knobs and previous.knobs else ""
    return f"previous run {previous.finish:.1f} s ({delta:+.1f} s{'; ' + html.escape(change) if change else ''})"


def _fetch_parts(run: SimRun, coverage: Coverage | None) -> list[str]:
    """Pages (of those reachable, when counted), fetches, and the duplicate
    and failed fetches when there were any."""
    stats = run.stats
    if coverage is not None and coverage.reachable is not None:
        parts = [f"{coverage.reachable} pages reachable, {stats.pages_fetched} fetched"]
    else:
        parts = [f"{stats.pages_fetched} pages fetched"]
    parts.append(f"{stats.fetches} fetches")
    if stats.duplicate_fetches:
        parts.append(f"<span style='color:{RED}'>{stats.duplicate_fetches} duplicate fetches "
                     f"({run.wasted_time:.1f} worker-seconds wasted)</span>")
    if stats.failed:
        parts.append(f"{stats.failed} failed fetch{'es' if stats.failed != 1 else ''}")
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
        more = f"; and {count - LOST_SHOWN} more" if count > LOST_SHOWN else ""
        return [f"<span style='color:{RED}'>{count} page{'s' if count != 1 else ''} lost: {lost}{more}</span>"]
    if coverage.lost is None and coverage.note:
        return [f"pages lost not counted: {html.escape(coverage.note)}"]
    return []


def _bounds_lines(bounds: Bounds) -> list[str]:
    """The three lower bounds with the binding one named, then the advisor's explanation."""
    host = html.escape(bounds.busiest_host_name or "-")
    return [
        f"bounds: depth {bounds.depth:.1f} s · busiest host {host} {bounds.busiest_host:.1f} s · "
        f"work {bounds.work:.1f} s · binding: {bounds.binding.replace('_', ' ')}",
        html.escape(bounds.explanation),
    ]


def show(scenario: Scenario | str = "see-it", **kwargs: Any) -> CrawlWidget:
    """Display a :class:`CrawlWidget` for ``scenario`` and return it (assign
    the result, ``w = show("see-it")``, or Jupyter displays it twice)."""
    from IPython.display import display

    widget = CrawlWidget(scenario, **kwargs)
    display(widget.box)
    return widget


__all__ = ["CrawlWidget", "show"]
