"""One look for every chart crawlsim draws: ``sweep.png``, the notebook's
``sweep_plot``, the notebook picture, the GIF/MP4 and the still frames.

A class sees the same colour mean the same thing on every slide, so the
choices live here once:

* each lower bound has its own colour *and* line style (depth: blue dotted,
  busiest host: purple dashed, work: orange dash-dot) -- two bounds never
  share a look, even after a GIF's 256-colour palette has merged near hues;
* each series of a sweep has its own colour (from a palette that avoids the
  bounds' colours) and marker;
* the region below the largest bound is shaded: no crawl gets there;
* a bound that would sit on an axis (the 1.5 s depth bound under a 500 s
  finish time) is drawn above the spine and labelled with its value;
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
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

BOUND_KEYS = ("depth", "busiest_host", "work")
BOUND_COLOURS: dict[str, str] = {"depth": "#1864ab", "busiest_host": "#6a3d9a", "work": "#e8590c"}
"""Blue, dark purple, orange: far apart in hue, so a GIF palette keeps them apart, and
none red: red is the duplicate fetch's (:mod:`crawlsim.palette`)."""
BOUND_STYLES: dict[str, str] = {"depth": ":", "busiest_host": "--", "work": "-."}
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


def bound_name(key: str, host: str | None = None) -> str:
    """``depth bound``, ``b.com bound`` (the busiest host by name), ``work bound``."""
    if key == "busiest_host":
        return f"{host or 'busiest-host'} bound"
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


def label_horizontal(ax: Axes, x: float, y: float, text: str, colour: str) -> None:
    """Label a horizontal line ending at ``(x, y)`` with ``text`` just above it
    (for a bound so small it would vanish into the x-axis)."""
    ax.annotate(text, (x, y), xytext=(-2, 3), textcoords="offset points", ha="right", va="bottom", fontsize=8,
                color=colour, annotation_clip=False)


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
    if bounds:
        _draw_bounds(ax, series, first)
        _shade_impossible(ax, series, first)
    workers_axis(ax, sorted({w for line in ax.get_lines() if line.get_gid() == FINISH_GID for w in line.get_xdata()}))
    ax.set_ylabel(FINISH_AXIS)
    ax.grid(True, alpha=0.25)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    _legend(ax)


def _draw_bounds(ax: Axes, series: Sequence[SweepSeries], first: int) -> None:
    """Each bound in its colour and style; one line when every series has
    the same values (the depth bound rarely depends on the grid)."""
    ymax = ax.get_ylim()[1]
    for key in BOUND_KEYS:
        curves = {(tuple(s.workers), tuple(s.bound(key))) for s in series}
        shared = len(curves) == 1
        hosts = {s.host for s in series}
        name = bound_name(key, hosts.pop() if len(hosts) == 1 else None)
        for i, s in enumerate(series[:1] if shared else series, start=first):
            values = s.bound(key)
            ax.plot(s.workers, values, linestyle=BOUND_STYLES[key], color=BOUND_COLOURS[key], linewidth=1.6,
                    marker=None if shared else SERIES_MARKERS[i % len(SERIES_MARKERS)], markersize=4,
                    markerfacecolor="none", label=name if i == first else "_nolegend_", zorder=3, clip_on=False)
            if values and near_axis(max(values), 0.0, ymax):
                label_horizontal(ax, s.workers[-1], values[-1], f"{name} {seconds(values[-1])}", BOUND_COLOURS[key])


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
    fills = sum(1 for c in ax.collections if c.get_gid() == IMPOSSIBLE_GID)
    if fills:
        text = IMPOSSIBLE_LABEL if fills == 1 else "shaded: below each line's largest bound, impossible"
        handles.append(Patch(facecolor=IMPOSSIBLE_COLOUR, alpha=IMPOSSIBLE_ALPHA * 2, label=text))
        labels.append(text)
    if below:
        ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.14), ncols=2, frameon=False)
    else:
        ax.legend(handles, labels, fontsize=8, loc="upper right", framealpha=0.9)


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
    _draw_count_bounds(ax, series, bound_label)
    count_axis(ax, sorted({x for s in series for x in s.x}), x_label)
    ax.set_ylabel(FINISH_AXIS)
    ax.grid(True, alpha=0.25)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    _legend(ax, below=True)


def _draw_count_bounds(ax: Axes, series: Sequence[CountSeries], bound_label: str) -> None:
    """Each series' bound (once when all are equal) and the shaded region under it."""
    shared = len({(tuple(s.x), tuple(s.bound)) for s in series}) == 1
    for i, s in enumerate(series[:1] if shared else series):
        ax.plot(s.x, s.bound, linestyle=NODE_BOUND_STYLE, color=NODE_BOUND_COLOUR, linewidth=1.6,
                marker=None if shared else SERIES_MARKERS[i % len(SERIES_MARKERS)], markersize=4,
                markerfacecolor="none", label=bound_label if i == 0 else "_nolegend_", zorder=3, clip_on=False)
        if s.bound and near_axis(max(s.bound), 0.0, ax.get_ylim()[1]):
            label_horizontal(ax, s.x[-1], s.bound[-1], f"{bound_label} {seconds(s.bound[-1])}", NODE_BOUND_COLOUR)
    several = len(series) > 1
    for i, s in enumerate(series):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)] if several else IMPOSSIBLE_COLOUR
        ax.fill_between(s.x, 0, s.bound, color=colour, alpha=0.07 if several else IMPOSSIBLE_ALPHA, linewidth=0,
                        zorder=1, gid=IMPOSSIBLE_GID)


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
    "near_axis",
    "options_text",
    "seconds",
    "series_from",
    "worker_name",
    "workers_axis",
]
