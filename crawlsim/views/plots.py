"""One look for every chart crawlsim draws: ``sweep.png``, the notebook's
``sweep_plot``, the notebook picture, the GIF/MP4 and the still frames.

A class sees the same colour mean the same thing on every slide, so the
choices live here once:

* each lower bound has its own colour *and* line style (depth: blue dotted,
  busiest host: purple dashed, work: orange dash-dot) -- two bounds never
  share a look, even after a GIF's 256-colour palette has merged near hues;
* each series of a sweep has its own colour (from a palette that avoids the
  bounds' colours) and marker; a bound that differs between series is drawn
  per series in the series' colour (the bound's style says which bound),
  and all bounds are drawn over the finish lines, so none hides under one;
* the region below the largest bound is shaded: no crawl gets there;
* a bound that would sit on an axis (the 1.5 s depth bound under a 500 s
  finish time) is drawn above the spine and labelled with its value, the
  label placed where it crosses no line;
* counts get integer ticks; times are labelled "seconds", not "s";
* workers are w1..wN everywhere (lane ``slot`` 0 is w1);
* titles name the scenario and the options the picture was drawn with.

:func:`draw_sweep` is the one sweep chart; the command and the notebook only
turn their rows into :class:`SweepSeries`.  This module imports matplotlib,
so it is imported only by code that draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Annotation, Text
from matplotlib.ticker import MaxNLocator

from crawlsim.words import busiest_host_note

BOUND_KEYS = ("depth", "busiest_host", "work")
BOUND_COLOURS: dict[str, str] = {"depth": "#1864ab", "busiest_host": "#6a3d9a", "work": "#e8590c"}
"""Blue, dark purple, orange: far apart in hue, so a GIF palette keeps them apart, and
none red: red is the duplicate fetch's (:mod:`crawlsim.palette`)."""
BOUND_STYLES: dict[str, str] = {"depth": ":", "busiest_host": "--", "work": "-."}
BOUND_GID = "crawlsim-bound"
"""``gid`` of a bound's line: ``crawlsim-bound:KEY:SERIES`` (``crawlsim-bound:KEY``: its legend entry)."""
BOUND_WIDTH = 1.5
PER_LINE_COLOUR = "#495057"
"""A per-line bound's legend entry: its style in grey, the lines' colours saying which is whose."""
NODE_BOUND_COLOUR = "#946200"
"""A cluster's node bound: brown, apart from the three bounds' and the series' hues."""
NODE_BOUND_STYLE: tuple[float, tuple[float, ...]] = (0, (5, 1.5, 1, 1.5, 1, 1.5))
"""Dash-dot-dot: a fourth style, so it reads apart from the others in grey too."""
FINISH_COLOUR = "#212529"
SERIES_COLOURS = ("#212529", "#0c8599", "#7048e8", "#5c940d", "#9c36b5", "#868e96", "#1098ad", "#66a80f")
"""Finish-time lines: near-black first, then hues none of the bounds use."""
SERIES_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
IMPOSSIBLE_COLOUR = "#adb5bd"
IMPOSSIBLE_ALPHA = 0.22
IMPOSSIBLE_LABEL = "below the largest bound: impossible"
NEAR_AXIS = 0.06
"""A line closer to an axis than this fraction of the axis is labelled with its value."""

TIME_AXIS = "simulated time (seconds)"
FINISH_AXIS = "finish time (simulated seconds)"
WORKERS_AXIS = "workers"
COUNT_AXIS = "URLs"
FINISH_GID = "crawlsim-finish"
IMPOSSIBLE_GID = "crawlsim-impossible"
"""``gid`` of a sweep's finish-time line: the next series on the same axes takes the next colour."""


def worker_name(slot: int) -> str:
    """Worker lane ``slot`` (0-based, as the scheduler numbers it) as shown: w1, w2, ..."""
    return f"w{slot + 1}"


def seconds(value: float) -> str:
    """A time for a legend or label: ``1.5 s`` (the axis spells the unit out)."""
    return f"{value:.1f} s" if value >= 0.05 or value == 0 else f"{value:.2g} s"


def bound_name(key: str, host: str | None = None, fetches: int | None = None, robots: int = 0) -> str:
    """``depth bound``, ``busiest host bound (b.com, 6 fetches)`` (the host and its fetches
    as ``run`` writes them beside the bound; the host alone where ``fetches`` is not one
    count), ``work bound``."""
    if key == "busiest_host":
        return "busiest host bound" + (f" ({busiest_host_note(host, fetches, robots)})" if host else "")
    return f"{key} bound"


def integer_ticks(axis: Axis) -> None:
    """Ticks only at whole numbers: counts have no 2.5."""
    axis.set_major_locator(MaxNLocator(nbins=5, integer=True, min_n_ticks=2))


def options_text(options: Mapping[str, Any]) -> str:
    """``workers=4, per_host=1, normalize=off``: the options a picture depends
    on, spelled as ``--set`` takes them."""
    return ", ".join(f"{key}={_value(value)}" for key, value in options.items())


def _value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (list, tuple, frozenset, set)):
        return ",".join(sorted(map(str, value))) if isinstance(value, (frozenset, set)) else ",".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def chart_title(name: str, title: str, options: Mapping[str, Any] | None = None) -> str:
    """``see-it: See it -- a quick host and a slow one`` and, on a second line, the options."""
    head = f"{name}: {title}" if name and title and name != title else (title or name)
    tail = options_text(options) if options else ""
    return f"{head}\n{tail}" if tail else head


def near_axis(value: float, low: float, high: float) -> bool:
    """Whether ``value`` sits within :data:`NEAR_AXIS` of ``low`` on a ``low..high`` axis."""
    return high > low and (value - low) / (high - low) < NEAR_AXIS


def label_vertical(ax: Axes, x: float, text: str, colour: str) -> None:
    """Label a vertical line at ``x`` with ``text`` at the top of ``ax``
    (for a bound so early it hides against the y-axis)."""
    ax.annotate(text, (x, 1.0), xycoords=("data", "axes fraction"), xytext=(2, 1), textcoords="offset points",
                ha="left", va="bottom", fontsize=7, color=colour, annotation_clip=False)


def label_horizontal(ax: Axes, x: float, y: float, text: str, colour: str) -> Annotation:
    """Label a horizontal line ending at ``(x, y)`` with ``text`` just above it
    (for a bound so small it would vanish into the x-axis); :func:`place_label`
    moves it off any line it lands on."""
    return ax.annotate(text, (x, y), xytext=(-2, 3), textcoords="offset points", ha="right", va="bottom",
                       fontsize=8, color=colour, annotation_clip=False)


def place_label(label: Annotation, line: Line2D) -> None:
    """Move ``label`` (of ``line``) to the first of its places that crosses
    no other plotted line: above the line's end, its start, each of its
    points, then below them; if every place crosses one, the place that
    crosses fewest.  Call once the axes' limits and scales are final."""
    ax = label.axes
    assert ax is not None
    others = [other for other in ax.get_lines() if other is not line and other.get_visible() and len(other.get_xdata())]
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    places = [(xs[-1], ys[-1], "right"), (xs[0], ys[0], "left")] + [(x, y, "center") for x, y in zip(xs, ys)]
    best: tuple[int, tuple[float, float, str, float]] | None = None
    for dy in (3.0, -3.0):
        for x, y, ha in places:
            _move(label, x, y, ha, dy)
            crossed = crossings(label, others)
            if crossed == 0:
                return
            if best is None or crossed < best[0]:
                best = (crossed, (x, y, ha, dy))
    assert best is not None
    _move(label, *best[1])


def _move(label: Annotation, x: float, y: float, ha: str, dy: float) -> None:
    label.xy = (x, y)
    label.set_position(({"right": -2.0, "left": 2.0}.get(ha, 0.0), dy))
    label.set_horizontalalignment(ha)
    label.set_verticalalignment("bottom" if dy > 0 else "top")


def crossings(label: Text, lines: Sequence[Line2D]) -> int:
    """How many of ``lines`` pass through ``label``'s box on the canvas."""
    box = label.get_window_extent()
    count = 0
    for line in lines:
        path = line.get_transform().transform_path(line.get_path())
        if path.intersects_bbox(box, filled=False):
            count += 1
    return count


# -- the sweep chart ---------------------------------------------------------------


@dataclass(frozen=True)
class SweepSeries:
    """One finish-time line of a sweep and its three bounds, per worker count."""

    label: str
    workers: Sequence[int]
    finish: Sequence[float]
    depth: Sequence[float]
    busiest_host: Sequence[float]
    work: Sequence[float]
    host: str | None = None
    """The busiest host's name (the bound's label), if one host is it throughout."""

    def bound(self, key: str) -> list[float]:
        return list(getattr(self, key))

    @property
    def floor(self) -> list[float]:
        """The largest bound at each worker count: nothing finishes sooner."""
        return [max(values) for values in zip(self.depth, self.busiest_host, self.work, strict=True)]


def draw_sweep(ax: Axes, series: Sequence[SweepSeries], *, title: str = "", bounds: bool = True) -> None:
    """Finish time against workers for each series, its bounds and the
    impossible region, on ``ax``.  Bounds equal across the series are drawn
    once; bounds that differ are drawn per series, in the bound's colour with
    the series' marker.  Call again on the same ``ax`` (``bounds=False``) to
    add a series to a chart: it takes the next colour."""
    first = sum(1 for line in ax.get_lines() if line.get_gid() == FINISH_GID)
    for i, s in enumerate(series, start=first):
        ax.plot(s.workers, s.finish, marker=SERIES_MARKERS[i % len(SERIES_MARKERS)], linewidth=2, markersize=6,
                color=SERIES_COLOURS[i % len(SERIES_COLOURS)], label=s.label, zorder=4, gid=FINISH_GID)
    top = max([ax.get_ylim()[1] / 1.08 if first else 0.0]
              + [v for s in series for v in (*s.finish, *(s.floor if bounds else ()))], default=1.0)
    ax.set_ylim(0, max(top, 1e-9) * 1.08)
    labels: list[tuple[Annotation, Line2D]] = []
    if bounds:
        labels = _draw_bounds(ax, series, first)
        _shade_impossible(ax, series, first)
    workers_axis(ax, sorted({w for line in ax.get_lines() if line.get_gid() == FINISH_GID for w in line.get_xdata()}))
    ax.set_ylabel(FINISH_AXIS)
    ax.grid(True, alpha=0.25)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    _legend(ax)
    for label, line in labels:
        place_label(label, line)


def _draw_bounds(ax: Axes, series: Sequence[SweepSeries], first: int) -> list[tuple[Annotation, Line2D]]:
    """Each bound in its style: one line in the bound's colour when every
    series has the same values (the depth bound rarely depends on the
    grid), else one per series in that series' colour (with its marker),
    and a legend entry saying so.  Bounds are drawn over the finish lines,
    so a bound a line runs along still shows.  Returns the labels of
    bounds that would hide against the x-axis, with their lines, to be
    placed once the axes are final."""
    ymax = ax.get_ylim()[1]
    labels = []
    for key in BOUND_KEYS:
        curves = {(tuple(s.workers), tuple(s.bound(key))) for s in series}
        shared = len(curves) == 1
        hosts = {s.host for s in series}
        name = bound_name(key, hosts.pop() if len(hosts) == 1 else None)
        if not shared:  # the legend's entry: the bound's style, in a neutral colour
            ax.plot([], [], linestyle=BOUND_STYLES[key], color=PER_LINE_COLOUR, linewidth=BOUND_WIDTH,
                    label=f"{name}: one per line, in its colour", gid=f"{BOUND_GID}:{key}")
        for i, s in enumerate(series[:1] if shared else series, start=first):
            values = s.bound(key)
            colour = BOUND_COLOURS[key] if shared else SERIES_COLOURS[i % len(SERIES_COLOURS)]
            low = bool(values) and near_axis(max(values), 0.0, ymax)
            (line,) = ax.plot(s.workers, values, linestyle=BOUND_STYLES[key], color=colour, linewidth=BOUND_WIDTH,
                              marker=None if shared else SERIES_MARKERS[i % len(SERIES_MARKERS)], markersize=4,
                              markerfacecolor="none", label=name if shared and i == first else "_nolegend_",
                              zorder=5, clip_on=not low, gid=f"{BOUND_GID}:{key}:{s.label}")
            if low:
                labels.append((label_horizontal(ax, s.workers[-1], values[-1], f"{name} {seconds(values[-1])}",
                                                colour), line))
    return labels


def _shade_impossible(ax: Axes, series: Sequence[SweepSeries], first: int) -> None:
    """Grey below the largest bound for one series; each series' own colour,
    faint, for several (the legend's grey patch explains both)."""
    several = len(series) > 1 or first > 0
    for i, s in enumerate(series, start=first):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)] if several else IMPOSSIBLE_COLOUR
        ax.fill_between(s.workers, 0, s.floor, color=colour, alpha=0.07 if several else IMPOSSIBLE_ALPHA, linewidth=0,
                        zorder=1, gid=IMPOSSIBLE_GID)


def _legend(ax: Axes, *, below: bool = False) -> None:
    """The lines' labels, then one grey patch for the shaded region;
    ``below`` puts it under the axes, where many lines cannot hide behind it."""
    handles, labels = ax.get_legend_handles_labels()
    hidden = off_scale(ax)
    keep = [(h, lab) for h, lab in zip(handles, labels, strict=True) if lab not in hidden]
    handles, labels = [h for h, _ in keep], [lab for _, lab in keep]
    fills = sum(1 for c in ax.collections if c.get_gid() == IMPOSSIBLE_GID)
    if fills:
        text = IMPOSSIBLE_LABEL if fills == 1 else "shaded: below each line's largest bound, impossible"
        handles.append(Patch(facecolor=IMPOSSIBLE_COLOUR, alpha=IMPOSSIBLE_ALPHA * 2, label=text))
        labels.append(text)
    title = f"off the scale: {', '.join(hidden)}" if hidden else None
    if below:
        ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.14), ncols=2, frameon=False,
                  title=title, title_fontsize=7)
    else:
        ax.legend(handles, labels, fontsize=8, loc="upper right", framealpha=0.9, title=title, title_fontsize=7)


def off_scale(ax: Axes) -> list[str]:
    """Legend labels of bound lines with no point inside the axes' y range
    (a bound above a chart whose scale was set by another call): left out
    of the legend, which says so, rather than listed and not seen."""
    low, high = ax.get_ylim()
    hidden = []
    for line in ax.get_lines():
        label = str(line.get_label())
        if label.startswith("_") or not str(line.get_gid() or "").startswith(BOUND_GID):
            continue
        ys = [float(y) for y in line.get_ydata()]
        if ys and not any(low <= y <= high for y in ys):
            hidden.append(label)
    return hidden


def workers_axis(ax: Axes, workers: Sequence[int]) -> None:
    """Ticks at the workers swept; a log2 scale once they span 8x or more,
    so 1, 2, 4, ..., 64 are evenly spaced."""
    count_axis(ax, workers, WORKERS_AXIS)


def count_axis(ax: Axes, values: Sequence[int], label: str) -> None:
    """An x-axis of counts (workers, nodes): ticks at the values swept, whole
    numbers only; a log2 scale once they span 8x or more."""
    values = [int(v) for v in values]
    if len(values) > 1 and values[-1] / max(values[0], 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(values, [str(v) for v in values])
    ax.minorticks_off()
    ax.set_xlabel(label)


# -- a sweep over a count with one bound per point (a cluster's nodes) --------------


@dataclass(frozen=True)
class CountSeries:
    """One finish-time line against a count (nodes, workers) and its bound at each point."""

    label: str
    x: Sequence[int]
    finish: Sequence[float]
    bound: Sequence[float]


def draw_count_sweep(ax: Axes, series: Sequence[CountSeries], *, x_label: str, bound_label: str,
                     title: str = "") -> None:
    """Finish time against ``x_label`` for each series, in the sweep chart's
    look (:func:`draw_sweep`): series colours and markers, the bound in
    :data:`NODE_BOUND_COLOUR` with the series' marker (one line when every
    series has the same bound), the region below it shaded as impossible,
    labelled with its value when it would hide against the x-axis.  The
    legend goes under the axes: a flat line at the top (more nodes that do
    not help) would hide behind it."""
    for i, s in enumerate(series):
        ax.plot(s.x, s.finish, marker=SERIES_MARKERS[i % len(SERIES_MARKERS)], linewidth=2, markersize=6,
                color=SERIES_COLOURS[i % len(SERIES_COLOURS)], label=s.label, zorder=4, gid=FINISH_GID)
    top = max([v for s in series for v in (*s.finish, *s.bound)], default=1.0)
    ax.set_ylim(0, max(top, 1e-9) * 1.08)
    labels = _draw_count_bounds(ax, series, bound_label)
    count_axis(ax, sorted({x for s in series for x in s.x}), x_label)
    ax.set_ylabel(FINISH_AXIS)
    ax.grid(True, alpha=0.25)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    _legend(ax, below=True)
    for label, line in labels:
        place_label(label, line)


def _draw_count_bounds(ax: Axes, series: Sequence[CountSeries], bound_label: str) -> list[tuple[Annotation, Line2D]]:
    """Each series' bound (once, in :data:`NODE_BOUND_COLOUR`, when all are
    equal; else in each series' colour, over the finish lines) and the
    shaded region under it; the labels of bounds low enough to hide against
    the x-axis, with their lines, to be placed once the axes are final."""
    shared = len({(tuple(s.x), tuple(s.bound)) for s in series}) == 1
    if not shared:
        ax.plot([], [], linestyle=NODE_BOUND_STYLE, color=PER_LINE_COLOUR, linewidth=BOUND_WIDTH,
                label=f"{bound_label}: one per line, in its colour", gid=f"{BOUND_GID}:node")
    labels = []
    for i, s in enumerate(series[:1] if shared else series):
        colour = NODE_BOUND_COLOUR if shared else SERIES_COLOURS[i % len(SERIES_COLOURS)]
        low = bool(s.bound) and near_axis(max(s.bound), 0.0, ax.get_ylim()[1])
        (line,) = ax.plot(s.x, s.bound, linestyle=NODE_BOUND_STYLE, color=colour, linewidth=BOUND_WIDTH,
                          marker=None if shared else SERIES_MARKERS[i % len(SERIES_MARKERS)], markersize=4,
                          markerfacecolor="none", label=bound_label if shared else "_nolegend_", zorder=5,
                          clip_on=not low, gid=f"{BOUND_GID}:node:{s.label}")
        if low:
            labels.append((label_horizontal(ax, s.x[-1], s.bound[-1], f"{bound_label} {seconds(s.bound[-1])}", colour),
                           line))
    several = len(series) > 1
    for i, s in enumerate(series):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)] if several else IMPOSSIBLE_COLOUR
        ax.fill_between(s.x, 0, s.bound, color=colour, alpha=0.07 if several else IMPOSSIBLE_ALPHA, linewidth=0,
                        zorder=1, gid=IMPOSSIBLE_GID)
    return labels


def series_from(points: Iterable[Mapping[str, Any]], label: str) -> SweepSeries:
    """A series from rows with ``workers``, ``finish_time`` (or ``finish``),
    ``depth``, ``busiest_host``, ``work`` and ``busiest_host_name``."""
    rows = sorted(points, key=lambda r: r["workers"])
    hosts = {r.get("busiest_host_name") for r in rows} - {None}
    return SweepSeries(
        label=label,
        workers=[int(r["workers"]) for r in rows],
        finish=[float(r["finish_time"] if "finish_time" in r else r["finish"]) for r in rows],
        depth=[float(r["depth"]) for r in rows],
        busiest_host=[float(r["busiest_host"]) for r in rows],
        work=[float(r["work"]) for r in rows],
        host=hosts.pop() if len(hosts) == 1 else None,
    )


__all__ = [
    "TIME_LEFT_GID",
    "draw_time_left",
    "write_time_left_png",
    "BOUND_COLOURS",
    "BOUND_KEYS",
    "BOUND_STYLES",
    "COUNT_AXIS",
    "FINISH_AXIS",
    "IMPOSSIBLE_LABEL",
    "NODE_BOUND_COLOUR",
    "NODE_BOUND_STYLE",
    "SERIES_COLOURS",
    "TIME_AXIS",
    "CountSeries",
    "SweepSeries",
    "bound_name",
    "chart_title",
    "count_axis",
    "draw_count_sweep",
    "draw_sweep",
    "integer_ticks",
    "label_horizontal",
    "label_vertical",
    "place_label",
    "near_axis",
    "options_text",
    "seconds",
    "series_from",
    "worker_name",
    "workers_axis",
]


TIME_LEFT_GID = "crawlsim-time-left"
"""``gid`` of the time-left chart's lines: ``crawlsim-time-left:truth|lower|estimate``."""


def draw_time_left(ax: Axes, report: Any, *, title: str = "", clock: str = TIME_AXIS) -> None:
    """How a crawl's time-left figures moved against the real time left (a
    :class:`~crawlsim.views.time_left.TimeLeftReport`): the truth in the
    finish's near-black, the lower bound in the busiest host's purple dashes
    (it is that bound, from a state), the estimate in a series colour with
    its range shaded."""
    ts = [m.t for m in report.moments]
    ax.plot(ts, [report.truth(m) for m in report.moments], color=FINISH_COLOUR, linewidth=2,
            label="real time left", gid=f"{TIME_LEFT_GID}:truth")
    ax.fill_between(ts, [m.low for m in report.moments], [m.high for m in report.moments],
                    color=SERIES_COLOURS[1], alpha=0.15, label="estimate's range")
    ax.plot(ts, [m.estimate for m in report.moments], color=SERIES_COLOURS[1], linewidth=1.5,
            label="estimate", gid=f"{TIME_LEFT_GID}:estimate")
    ax.plot(ts, [m.lower for m in report.moments], color=BOUND_COLOURS["busiest_host"],
            linestyle=BOUND_STYLES["busiest_host"], linewidth=BOUND_WIDTH,
            label="lower bound (known pages)", gid=f"{TIME_LEFT_GID}:lower")
    ax.set_ylim(0, max(report.finish, max((m.lower for m in report.moments), default=0.0)) * 1.6 or 1.0)
    ax.set_xlim(0, report.finish or 1.0)
    ax.set_xlabel(clock)
    ax.set_ylabel("time left (seconds)")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper right", frameon=False)


def write_time_left_png(report: Any, path: str, *, title: str = "", clock: str = TIME_AXIS) -> None:
    """:func:`draw_time_left` as a PNG at ``path`` (whole or not at all)."""
    from matplotlib.figure import Figure

    from crawlsim.outfile import replaced

    figure = Figure(figsize=(8, 4.5), dpi=110)
    draw_time_left(figure.add_subplot(), report, title=title, clock=clock)
    figure.tight_layout()
    with replaced(path) as temp:
        figure.savefig(temp, format="png")
