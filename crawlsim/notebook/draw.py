"""The matplotlib picture of a crawl at time t: graph, worker lanes, curves.

One :class:`CrawlFigure` owns one ``Figure`` for its whole life.  A new run
(the widget's what-if, or a notebook cell) rebuilds its artists once; a new
time only mutates them -- node colours with ``set_facecolor``, lane bars
with ``set_verts``, curves with ``set_data``; the picture is rendered when
it is asked for (:meth:`CrawlFigure.png`, :meth:`CrawlFigure.frames`), not
on every update (the Agg canvas has no idle loop: ``draw_idle`` there is a
full draw).  Redrawing from scratch per frame would be slower, would flicker
in Jupyter, and would let the layout jump between frames.  Colours, bound
styles, axis words and worker names come from :mod:`crawlsim.views.plots`, the
look every chart shares.

What is drawn comes from :class:`crawlsim.views.replay.Replay`, the same
trace replay the terminal app uses, so the notebook and the terminal can
never disagree about what the scheduler did.

The figure has its own Agg canvas (no pyplot), so building one in a notebook
does not also display it, and it renders the same under any backend.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.colors import to_rgba, to_rgba_array
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from crawlsim.views import plots
from crawlsim.notebook.layout import Layout, compute_layout
from crawlsim.notebook.nodes import NodeDrawing
from crawlsim.palette import LANE_STATES, SPAN_STATES, STATES, lane_key, page_style
from crawlsim.words import BINDING_MARK
from crawlsim.views.replay import Counters, PageState, Replay, Span, duplicates_text, fetched_text, short_url

if TYPE_CHECKING:
    from crawlsim.sim.bounds import Bounds

STATE_COLOURS: dict[PageState, str] = {state: page_style(state).hex for state in PageState}
"""Each page state's colour, from the one palette (:mod:`crawlsim.palette`):
yellow waiting in the frontier, sky blue being fetched, green fetched, red a
duplicate fetch (the same page under another spelling, or the same content
under another URL), purple failed, slate skipped (robots, scope, cap)."""

STATE_NAMES: dict[PageState, str] = {state: page_style(state).label for state in PageState}
"""Each page state's legend word, from the one palette: the app's and the see-it page's words."""

SPAN_COLOURS: dict[str, str] = {"running": STATES["fetching"].hex} | {
    outcome: STATES[name].hex for outcome, name in SPAN_STATES.items()
}
"""A lane's fetch by outcome (``running``: in flight at the time drawn)."""
BOUND_COLOURS = plots.BOUND_COLOURS
"""Re-exported from :mod:`crawlsim.views.plots`: one colour per bound everywhere."""
LABEL_LIMIT = 24
"""Pages are labelled with their path up to this many pages."""
EDGE_LIMIT = 1500
"""Discovery edges are drawn up to this many pages (beyond, they are a blur)."""


class CrawlFigure:
    """A crawl drawn at one moment; call :meth:`update` to move in time."""

    def __init__(self, figsize: tuple[float, float] = (10.0, 7.2), dpi: float = 100) -> None:
        self.figure = Figure(figsize=figsize, dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.replay: Replay | None = None
        self.layout: Layout | None = None
        self.horizon = 1.0
        self.t = 0.0
        self._duplicate_urls: set[str] = set()
        self._spans: list[Span] = []
        self.result: Any = None
        """The run drawn, when a helper such as ``snapshot`` made this figure."""
        self.node_drawing: NodeDrawing | None = None
        """A cluster's nodes (lane groups, down bands, the nodes panel); None for one process."""

    # -- a run: build the artists once -------------------------------------------

    def show_run(
        self,
        replay: Replay,
        *,
        title: str = "",
        layout: str = "host",
        finish: float | None = None,
        bounds: Bounds | None = None,
        previous_finish: float | None = None,
        subtitle: str = "",
    ) -> None:
        """Rebuild the drawing for ``replay`` (same Figure, new artists) and
        show its last moment.  ``previous_finish`` is drawn as a dashed line,
        so a what-if shows how far the finish moved.  ``subtitle`` (the
        options, e.g. ``Knobs.describe()``) goes under the title."""
        fig = self.figure
        fig.clear()
        self.replay = replay
        self.node_drawing = NodeDrawing(replay) if replay.cluster is not None else None
        if len(replay.page_list) <= LABEL_LIMIT:  # labelled: taller blocks, room for labels between columns
            self.layout = compute_layout(replay, layout, rows=12, column_width=1.6)
        else:
            self.layout = compute_layout(replay, layout)
        finish = replay.end if finish is None else finish
        self.finish = finish
        marks = [finish, previous_finish or 0.0]
        if bounds is not None:
            marks += [bounds.depth, bounds.busiest_host, bounds.work]
        self.horizon = max(max(marks) * 1.03, 1e-6)
        self._spans = sorted((s for lane in replay.lanes for s in lane), key=lambda s: (s.start, s.fetch_id))
        self._duplicate_urls = {s.url for s in self._spans if s.duplicate}

        # a cluster's lanes are grouped per node and labelled: they get more of the height
        ratios = [3.3, 1.25, 1.0] if self.node_drawing is None else [2.7, 1.85, 1.0]
        grid = fig.add_gridspec(3, 1, height_ratios=ratios, hspace=0.42, left=0.07, right=0.79, top=0.88, bottom=0.07)
        self.ax_graph = fig.add_subplot(grid[0])
        self.ax_lanes = fig.add_subplot(grid[1])
        self.ax_curves = fig.add_subplot(grid[2], sharex=self.ax_lanes)
        fig.suptitle(title, x=0.07, y=0.99, ha="left", va="top", fontsize=12, fontweight="bold")
        if subtitle:
            fig.text(0.07, 0.953, subtitle, ha="left", va="top", fontsize=8.5, color="#495057")
        self.status = fig.text(0.07, 0.905, "", ha="left", va="bottom", fontsize=9, family="monospace")
        self._build_graph()
        self._build_lanes()
        self._build_curves(finish, previous_finish, bounds)
        self.update(replay.end)

    def _build_graph(self) -> None:
        assert self.replay is not None and self.layout is not None
        ax, lay, pages = self.ax_graph, self.layout, self.replay.page_list
        ax.set_axis_off()
        n = len(pages)
        labelled = n <= LABEL_LIMIT
        # labelled pages need room on the right for the last column's labels
        ax.set_xlim(lay.xlim[0], lay.xlim[1] + (1.5 if labelled else 0.0))
        ax.set_ylim(*lay.ylim)
        xy = np.array(lay.xy, dtype=float).reshape(-1, 2)
        segments = [(lay.xy[p], lay.xy[c]) for p, c in lay.edges] if n <= EDGE_LIMIT else []
        self._edge_children = [c for _, c in lay.edges] if segments else []
        self.edges = LineCollection(segments, linewidths=0.6, zorder=1)
        ax.add_collection(self.edges)
        size = min(240.0, max(7.0, 2600.0 / max(n, 1)))
        self.nodes: PathCollection = ax.scatter(xy[:, 0], xy[:, 1], s=size, linewidths=0.6, zorder=2)
        self._xy = xy
        duplicate = STATES["duplicate"]
        self.duplicate_marks: PathCollection = ax.scatter(
            np.zeros(0), np.zeros(0), s=size * 0.4, marker="x", color=duplicate.ink, linewidths=1.0, zorder=2.5
        )
        """A cross on each duplicate page: it reads as a duplicate in greyscale too."""
        if labelled:
            for page, (x, y) in zip(pages, lay.xy):
                label = short_url(page.url, page.host) if lay.by == "host" else page.url.split("://", 1)[-1]
                ax.annotate(label, (x, y), xytext=(math.sqrt(size) / 2 + 2, -3), textcoords="offset points",
                            fontsize=7, zorder=3)
        span = ax.get_xlim()[1] - ax.get_xlim()[0]
        last = -math.inf
        for label, x in lay.groups:
            # keep a label only where it has room: about 11 characters an inch fit across
            text, colour = self.node_drawing.group_label(label) if self.node_drawing else (label, None)
            if x - last >= span * (len(text) + 2) / (11 * self.figure.get_figwidth()):
                ax.text(x, lay.ylim[1] - 0.35, text, ha="center", va="bottom", fontsize=7.5, color=colour or "#495057")
                last = x
        self._graph_legend(ax)

    @staticmethod
    def _graph_legend(ax: Any) -> None:
        """The pages' key, right of the graph: each state's colour as a node,
        the duplicate's with its cross."""
        handles: list[Any] = [
            Line2D([], [], marker="o", linestyle="", markerfacecolor=STATE_COLOURS[s], markeredgecolor="#495057",
                   markersize=7, label=STATE_NAMES[s])
            for s in PageState
        ]
        cross = Line2D([], [], marker="x", linestyle="", color=STATES["duplicate"].ink, markersize=4,
                       markeredgewidth=1.0)
        handles[PageState.DUPLICATE] = (handles[PageState.DUPLICATE], cross)
        ax.legend(handles=handles, labels=[STATE_NAMES[s] for s in PageState], loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, title="pages", title_fontsize=8,
                  alignment="left")

    def _build_lanes(self) -> None:
        assert self.replay is not None
        ax = self.ax_lanes
        lanes = max(1, len(self.replay.lanes))
        self.bars: dict[str, PolyCollection] = {}
        """A collection per state a lane bar can be in, each with its colour and hatch."""
        for name in BAR_STATES:
            style = STATES[name]
            hatched = bool(style.hatch)
            self.bars[name] = PolyCollection([], facecolor=style.hex, edgecolor=style.ink if hatched else "white",
                                             hatch=style.hatch or None, linewidths=0, gid=f"crawlsim-lane-{name}")
            ax.add_collection(self.bars[name])
        self._lane_key(ax)
        ax.set_ylim(lanes - 0.5, -0.5)
        ax.set_xlim(0, self.horizon)
        if lanes <= 10:
            ax.set_yticks(range(lanes), [plots.worker_name(k) for k in range(lanes)], fontsize=7)
        else:
            ax.set_yticks([0, lanes - 1], [plots.worker_name(0), plots.worker_name(lanes - 1)], fontsize=7)
        ax.set_ylabel("workers", fontsize=8)
        ax.tick_params(axis="x", labelbottom=False)
        if self.node_drawing is not None:
            self.node_drawing.build(self.figure, self.ax_graph, ax, self.horizon)
        self.cursor_lanes = ax.axvline(0.0, color="#212529", linewidth=1.0, zorder=5)

    def _lane_key(self, ax: Any) -> None:
        """The lanes' key, in a row under them (over them stand the labels of
        bounds near the y-axis): a swatch, coloured and hatched
        as the bars are, for each state this run's lanes draw."""
        assert self.replay is not None
        names = lane_key({s.outcome for s in self._spans} | {"duplicate" for s in self._spans if s.duplicate})
        handles = [Patch(facecolor=STATES[n].hex, edgecolor=STATES[n].ink if STATES[n].hatch else "#495057",
                         hatch=STATES[n].hatch or None, linewidth=0.4, label=STATES[n].label) for n in names]
        key = Legend(ax, handles, [str(h.get_label()) for h in handles], loc="upper left", bbox_to_anchor=(0.0, -0.03),
                     ncols=len(handles), fontsize=7.5, frameon=False, handlelength=1.6, columnspacing=1.2,
                     borderaxespad=0.1)
        key.set_gid(LANE_KEY_GID)
        ax.add_artist(key)

    def _build_curves(self, finish: float, previous_finish: float | None, bounds: Bounds | None) -> None:
        assert self.replay is not None
        ax = self.ax_curves
        series = self.replay.series
        self._series_t = np.array([p[0] for p in series], dtype=float)
        self._series_frontier = np.array([p[1] for p in series], dtype=float)
        self._series_flight = np.array([p[2] for p in series], dtype=float)
        (self.frontier_line,) = ax.plot([], [], drawstyle="steps-post", color=STATE_COLOURS[PageState.FRONTIER],
                                        linewidth=1.8, label="frontier")
        (self.flight_line,) = ax.plot([], [], drawstyle="steps-post", color=STATE_COLOURS[PageState.IN_FLIGHT],
                                      linewidth=1.8, label="in flight")
        top = max(1.0, float(self._series_frontier.max(initial=0)), float(self._series_flight.max(initial=0)))
        ax.set_ylim(0, top * 1.12)
        plots.integer_ticks(ax.yaxis)  # counts: no tick at 2.5
        ax.set_ylabel(plots.COUNT_AXIS, fontsize=8)
        ax.set_xlim(0, self.horizon)
        ax.set_xlabel(plots.TIME_AXIS, fontsize=8)
        ax.tick_params(labelsize=7)
        self.ax_lanes.tick_params(labelsize=7)
        self.cursor_curves = ax.axvline(0.0, color="#212529", linewidth=1.0, zorder=5)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)

        self._build_marks(finish, previous_finish, bounds)

    def _build_marks(self, finish: float, previous_finish: float | None, bounds: Bounds | None) -> None:
        """The finish line (and the previous run's) across lanes and curves,
        and each bound on the lanes in its own colour and style; a bound so
        early it would hide against the y-axis is labelled with its value."""
        marks: list[Line2D] = []
        for axis in (self.ax_lanes, self.ax_curves):
            line = axis.axvline(finish, color=plots.FINISH_COLOUR, linewidth=1.6, linestyle="-", alpha=0.85)
            if axis is self.ax_lanes:
                line.set_label(f"finish {plots.seconds(finish)}")
                marks.append(line)
            if previous_finish is not None:
                prev = axis.axvline(previous_finish, color="#868e96", linewidth=1.6, linestyle="--")
                if axis is self.ax_lanes:
                    prev.set_label(f"previous run {plots.seconds(previous_finish)}")
                    marks.append(prev)
        for key in plots.BOUND_KEYS if bounds is not None else ():
            value = getattr(bounds, key)
            if value <= 0:
                continue
            name = plots.bound_name(key, bounds.busiest_host_name,  # type: ignore[union-attr]
                                    bounds.busiest_host_pages,  # type: ignore[union-attr]
                                    bounds.busiest_host_robots)  # type: ignore[union-attr]
            binds = key == bounds.binding  # type: ignore[union-attr]
            line = self.ax_lanes.axvline(value, color=plots.BOUND_COLOURS[key], linewidth=2.2 if binds else 1.6,
                                         linestyle=plots.BOUND_STYLES[key], zorder=4,
                                         label=mark_label(name, value, binds))
            marks.append(line)
            if plots.near_axis(value, 0.0, self.horizon):
                plots.label_vertical(self.ax_lanes, value, f"{name} {plots.seconds(value)}", plots.BOUND_COLOURS[key])
        words: dict[str, Any] = {"fontsize": 7.5, "frameon": False, "title": "times in simulated seconds", "title_fontsize": 7,
                 "alignment": "left", "loc": "upper left"}
        if self.node_drawing is None:
            self.ax_lanes.legend(handles=marks, bbox_to_anchor=(1.01, 1.05), **words)
        else:  # right of the lanes stand each node's figures: the times go under the curves' legend
            self.ax_curves.add_artist(Legend(self.ax_curves, marks, [str(m.get_label()) for m in marks],
                                             bbox_to_anchor=(1.01, 0.55), **words))

    # -- a moment: mutate the artists --------------------------------------------

    def page_colours(self) -> Any:
        """RGBA per page for the replay's current time (red for a page whose
        fetch is a duplicate, from the moment it starts)."""
        assert self.replay is not None
        colours = []
        for page in self.replay.page_list:
            state = page.state
            if state == PageState.IN_FLIGHT and page.url in self._duplicate_urls:
                state = PageState.DUPLICATE
            colours.append(STATE_COLOURS[state])
        return to_rgba_array(colours) if colours else np.zeros((0, 4))

    def update(self, t: float) -> Counters:
        """Show the crawl as it was at ``t``; returns the counters then."""
        replay = self.replay
        if replay is None:
            raise RuntimeError("show_run() first: there is no crawl to draw")
        t = min(max(0.0, t), max(replay.end, 0.0))
        replay.seek(t)
        self.t = t
        faces = self.page_colours()
        self.nodes.set_facecolor(faces)
        red = to_rgba(STATE_COLOURS[PageState.DUPLICATE])
        self.duplicate_marks.set_offsets(self._xy[np.all(faces == red, axis=1)] if len(faces) else np.zeros((0, 2)))
        unseen = np.array([p.state == PageState.UNDISCOVERED for p in replay.page_list], dtype=bool)
        edges: Any = np.tile(to_rgba("#495057"), (len(faces), 1)) if len(faces) else np.zeros((0, 4))
        if len(edges):
            edges[unseen] = to_rgba("#ced4da")
        self.nodes.set_edgecolor(edges)
        if self._edge_children:
            shown = np.array([not unseen[c] for c in self._edge_children], dtype=bool)
            colours: Any = np.tile(to_rgba("#868e96", 0.45), (len(shown), 1))
            colours[~shown] = to_rgba("#dee2e6", 0.35)
            self.edges.set_color(colours)
        self._update_lanes(t)
        if self.node_drawing is not None:
            self.node_drawing.update(t)
        upto = int(np.searchsorted(self._series_t, t, side="right"))
        if upto:
            xs = np.append(self._series_t[:upto], t)
            self.frontier_line.set_data(xs, np.append(self._series_frontier[:upto], self._series_frontier[upto - 1]))
            self.flight_line.set_data(xs, np.append(self._series_flight[:upto], self._series_flight[upto - 1]))
        else:
            self.frontier_line.set_data([], [])
            self.flight_line.set_data([], [])
        self.cursor_lanes.set_xdata([t, t])
        self.cursor_curves.set_xdata([t, t])
        counters = replay.counters()
        status = describe(counters, self.finish)
        if self.node_drawing is not None:
            status += "   " + self.node_drawing.status()
        self.status.set_text(status)
        return counters

    def _update_lanes(self, t: float) -> None:
        verts: dict[str, list[Sequence[tuple[float, float]]]] = {name: [] for name in self.bars}
        for span in self._spans:
            if span.start > t:
                break
            end = min(span.end, t, self.horizon)
            y = span.slot
            verts[bar_state(span, t)].append(
                [(span.start, y - 0.38), (end, y - 0.38), (end, y + 0.38), (span.start, y + 0.38)]
            )
        edges = 0.3 if len(self._spans) <= 200 else 0.0  # thin bars vanish under edges
        for name, bars in self.bars.items():
            bars.set_verts(verts[name])
            bars.set_linewidth(edges)

    # -- output ---------------------------------------------------------------------

    def png(self) -> bytes:
        """The current picture as PNG bytes (what the widget shows)."""
        buffer = io.BytesIO()
        self.canvas.print_png(buffer)
        return buffer.getvalue()

    def _repr_png_(self) -> bytes:
        return self.png()

    def save(self, path: str | Path, fmt: str | None = None) -> None:
        """Write the current picture to ``path`` (PNG or SVG, from the suffix
        unless ``fmt`` says): a still frame for a slide."""
        self.figure.savefig(path, format=fmt)

    def frames(self, times: Iterable[float]) -> Iterator[np.ndarray]:
        """The picture at each of ``times``, as RGBA pixel arrays (height x
        width x 4), for a movie.

        Blitted: what never moves (axes, ticks, legends, titles, page labels)
        is drawn once and copied back per frame; only the artists that change
        with t (nodes, edges, lane bars, curves, cursors, the status line) and
        the lines drawn over them are drawn again.  A full redraw per frame
        spends most of its time laying out text that is the same every frame."""
        moving = self._moving_artists()
        for artist in moving:
            artist.set_animated(True)
        try:
            self.canvas.draw()  # everything else, once
            background = self.canvas.copy_from_bbox(self.figure.bbox)
            for t in times:
                self.update(t)
                self.canvas.restore_region(background)
                for artist in moving:
                    self.figure.draw_artist(artist)
                yield np.array(self.canvas.buffer_rgba())
        finally:
            for artist in moving:
                artist.set_animated(False)

    def _moving_artists(self) -> list[Artist]:
        """The artists :meth:`update` changes, with the lines, collections
        and spines that share their axes, in zorder as a full draw takes them
        (a bound line stays over the lane bars, a spine over a curve at 0),
        then a cluster's DOWN marks and nodes panel, then the status line."""
        moving: list[Artist] = []
        for ax in (self.ax_graph, self.ax_lanes, self.ax_curves):
            artists: list[Artist] = [*ax.collections, *ax.lines, *(ax.spines.values() if ax.axison else ())]
            moving += sorted(artists, key=lambda a: a.get_zorder())
        extra: list[Artist] = list(self.node_drawing.artists()) if self.node_drawing is not None else []
        return [*moving, *extra, self.status]


MARK_LABEL_WIDTH = 20
"""A mark's legend label longer than this puts its time on a second line:
the legend right of the lanes has about this many letters' room at 8 in."""


def mark_label(name: str, value: float, binds: bool) -> str:
    """``depth bound 7.0 s``, or ``busiest host bound`` over ``(b.com, 6 fetches)`` over
    ``153.2 s`` when long; :data:`~crawlsim.words.BINDING_MARK` under the binding bound, as ``run`` marks it."""
    text = f"{name} {plots.seconds(value)}"
    if len(text) > MARK_LABEL_WIDTH:
        head, _, host = name.partition(" (")  # the busiest host's name on a line of its own
        text = "\n".join([head, *([f"({host}"] if host else []), plots.seconds(value)])
    return text + (f"\n{BINDING_MARK}" if binds else "")


BAR_STATES = tuple(name for name in LANE_STATES if name != "idle")
"""The states a lane bar is drawn in (idle time is left blank)."""
LANE_KEY_GID = "crawlsim-lane-key"


def bar_state(span: Span, t: float) -> str:
    """The palette state fetch ``span`` is drawn as at ``t``: a robots.txt
    fetch as robots, a duplicate as duplicate from its start (the red the
    lesson is about), a fetch still running as fetching, else its outcome."""
    if span.kind == "robots":
        return "robots"
    if span.duplicate:
        return "duplicate"
    return "fetching" if span.end > t else SPAN_STATES[span.outcome]


def describe(c: Counters, finish: float) -> str:
    """The status line above the graph."""
    width = max(4, len(f"{finish:.1f}"))
    parts = [
        f"t = {c.t:{width}.1f} of {finish:.1f} s",
        f"fetched {fetched_text(c)}",
        f"frontier {c.frontier}",
        f"in flight {c.in_flight}",
    ]
    if c.duplicates or c.duplicates_in_flight:
        parts.append(f"duplicate fetches {duplicates_text(c)}")
    if c.content_duplicates:
        parts.append(f"same content {c.content_duplicates}")
    if c.failed:
        parts.append(f"failed {c.failed}")
    if c.retries:
        parts.append(f"retries {c.retries}")
    return "   ".join(parts)


def frame_times(end: float, frames: int) -> list[float]:
    """``frames + 1`` evenly spaced times from 0 to ``end`` inclusive."""
    frames = max(1, frames)
    return [end * k / frames for k in range(frames + 1)] if end > 0 else [0.0]


__all__ = ["SPAN_COLOURS", "STATE_COLOURS", "STATE_NAMES", "CrawlFigure", "describe", "frame_times"]
