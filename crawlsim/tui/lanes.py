"""A lane per worker over time, and the frontier/in-flight series under it.

A cluster's lanes are grouped per node, each group under its node's line,
with the messages in transit under the groups (:mod:`crawlsim.tui.nodes`)."""

from __future__ import annotations

import math
import weakref
from bisect import bisect_right
from dataclasses import dataclass

from rich.text import Text
from textual.geometry import Size

from crawlsim.views.replay import PageState, Replay, Span, host_and_path, short_url
from crawlsim.palette import STATES, lane_key
from crawlsim.tui.base import (
    DUPLICATE_NOW,
    IDLE_STYLE,
    SPAN_STYLE,
    SPARK,
    STATE_GLYPH,
    STATE_STYLE,
    Panel,
    Runs,
    ViewState,
    fit,
)
from crawlsim.tui.nodes import Row, label_width, lane_label, lane_rows, node_header, transit_line
from crawlsim.words import counted

# -- worker lanes and the frontier/in-flight series ------------------------------------------


class LanesView(Panel):
    """A lane per worker over time (what it fetched, and when it sat idle),
    then frontier and in-flight counts over the same time axis."""

    max_lanes = 16

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lane_cache: dict[int, tuple[tuple[object, ...], Text]] = {}
        self._settled_by_slot: dict[int, _Settled] = {}
        self._legend = ""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        view = self.view
        lanes = len(view.replay.lanes) if view else 1
        cluster = view.replay.cluster if view else None
        if cluster is not None:  # a header per node, its lanes, the messages in transit
            return lanes + cluster.count + 1 + 3
        shown = min(lanes, self.max_lanes) + (1 if lanes > self.max_lanes else 0)
        return shown + 3

    def update(self, view: ViewState | None) -> list[int]:
        """A cluster's lanes may take more rows (the stylesheet's ``-cluster``);
        the key under them names what this run's lanes draw."""
        self.set_class(view is not None and view.replay.cluster is not None, "-cluster")
        key = legend(view.replay if view is not None else None)
        if self._legend != key:
            self._legend = key
            self.border_subtitle = key
        return super().update(view)

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        replay = view.replay
        t = view.t
        end = replay.end if replay.end > 0 else 1.0
        label_w = 22 if width >= 120 else 14
        head_w = label_width(replay)
        bar_w = max(10, width - 5 - head_w - label_w)
        lanes = replay.lanes
        room = max(1, height - 3)
        lines: list[Text] = []
        cursor = min(bar_w - 1, int(t / end * bar_w))
        scale = bar_w / end
        for row in self.rows(replay, room, t):
            if row.kind == "lane":
                lines.append(self._cached_lane(replay, row.index, t, end, (bar_w, label_w, head_w), cursor, scale))
            elif row.kind == "node" and replay.cluster is not None:
                lines.append(node_header(replay, replay.cluster.status[row.index], row.hidden, head_w, width))
            elif row.kind == "nodes":
                lines.append(Text(f"  … {counted(row.hidden, 'more node')}", style="dim"))
            else:
                busy = sum(1 for s in range(row.index, len(lanes)) if replay.current_span(s, t) is not None)
                lines.append(Text(f"  … {counted(row.hidden, 'more lane')}, {busy:,} busy now", style="dim"))
        if replay.cluster is not None:
            lines.append(transit_line(replay, head_w, width))
        frontier, flight = replay.value_at(t)
        for index, state, name, value in (
            (1, PageState.FRONTIER, "frontier", frontier),
            (2, PageState.IN_FLIGHT, "in flight", flight),
        ):
            lines.append(self.spark(replay, index, state, name, value, t, end, bar_w, label_w, head_w))
        lines.append(self.axis(end, bar_w, cursor, head_w))
        return lines

    @staticmethod
    def rows(replay: Replay, room: int, t: float) -> list[Row]:
        """What the lanes' ``room`` rows show: the lanes (the last row says how
        many more there are), or a cluster's lanes grouped under their nodes."""
        lanes = len(replay.lanes)
        if replay.cluster is not None:
            rows = lane_rows(replay.cluster, lanes, max(1, room - 1))
            return [Row("nodes", 0, r.hidden) if r.kind == "more" else r for r in rows]
        shown = lanes if lanes <= room else max(1, room - 1)
        rows = [Row("lane", slot) for slot in range(shown)]
        if shown < lanes:
            rows.append(Row("more", shown, lanes - shown))
        return rows

    def _cached_lane(
        self, replay: Replay, slot: int, t: float, end: float, widths: tuple[int, int, int], cursor: int, scale: float
    ) -> Text:
        """Lane ``slot``, drawn again only when a fetch starts or ends or t
        reaches a new column."""
        bar_w, label_w, head_w = widths
        started = replay.started_count(slot, t)
        ended = replay.ended_count(slot, t)
        key = (replay, started, ended, math.ceil(t * scale - 1e-9), cursor, bar_w, label_w, head_w)
        cached = self._lane_cache.get(slot)
        if cached is None or cached[0] != key:
            cached = (key, self.lane(replay, slot, t, end, bar_w, label_w, cursor))
            self._lane_cache[slot] = cached
        return cached[1]

    def lane(self, replay: Replay, slot: int, t: float, end: float, bar_w: int, label_w: int, cursor: int) -> Text:
        """Worker ``slot``'s row: its fetches as coloured bars up to ``t``,
        idle time as a thin line, then what it fetches now."""
        scale = bar_w / end
        prefix = self._settled(replay, slot, t, bar_w, scale)
        runs = Runs()
        runs.parts = list(prefix.parts)
        filled = prefix.filled
        named = prefix.named
        for span in replay.lanes[slot][prefix.spans : replay.started_count(slot, t)]:
            filled, named = paint_span(runs, span, t, scale, bar_w, filled, named)
        now = min(bar_w, cursor + 1)
        if now > filled:
            runs.add(STATES["idle"].glyph * (now - filled), IDLE_STYLE)
            filled = now
        runs.add(" " * (bar_w - filled))
        runs.add("▏ ", "dim")
        current = replay.current_span(slot, t)
        if current is None:
            runs.add("idle".ljust(label_w), IDLE_STYLE)
        else:
            style = DUPLICATE_NOW if current.duplicate else STATE_STYLE[PageState.IN_FLIGHT]
            runs.add(fit(span_label(current), label_w).ljust(label_w), style)
        return runs.text()

    def _settled(self, replay: Replay, slot: int, t: float, bar_w: int, scale: float) -> _Settled:
        """The part of lane ``slot`` that ``t`` no longer changes: its fetches
        finished by ``t``, painted once and extended as the clock moves on
        (a lane holds hundreds of fetches; a frame adds one or two)."""
        ended = replay.ended_count(slot, t)
        settled = self._settled_by_slot.get(slot)
        if settled is None or settled.replay is not replay or settled.bar_w != bar_w or settled.spans > ended:
            head = Runs()
            head.add(lane_label(replay, slot).ljust(label_width(replay)), "bold")
            head.add("▕", "dim")
            settled = _Settled(replay, bar_w, 0, 0, head.parts, "")
            self._settled_by_slot[slot] = settled
        if settled.spans < ended:
            runs = Runs()
            runs.parts = settled.parts
            for span in replay.lanes[slot][settled.spans : ended]:
                settled.filled, settled.named = paint_span(
                    runs, span, math.inf, scale, bar_w, settled.filled, settled.named
                )
            settled.spans = ended
        return settled

    @staticmethod
    def spark(
        replay: Replay,
        index: int,
        state: PageState,
        name: str,
        value: int,
        t: float,
        end: float,
        bar_w: int,
        label_w: int,
        head_w: int = 5,
    ) -> Text:
        """A count over time as block heights, scaled to its peak over the run."""
        style = STATE_STYLE[state]
        columns, peak = spark_columns(replay, index, bar_w)
        runs = Runs()
        runs.add(f" {STATE_GLYPH[state]}".ljust(head_w), style)
        runs.add("▕", "dim")
        step = end / bar_w
        now = min(bar_w - 1, int(t / step)) if t < end else bar_w - 1
        chars = [SPARK[level] for level in columns[:now]]
        # the column t is in: only the points up to t count
        lo = now * step
        series = replay.series
        i = max(0, bisect_right(series, (lo, math.inf, math.inf)) - 1)
        best = 0
        while i < len(series) and series[i][0] <= t:
            best = max(best, int(series[i][index]))
            i += 1
        chars.append(SPARK[0 if best == 0 else max(1, round(best / peak * 8))])
        runs.add("".join(chars), style)
        runs.add(" " * (bar_w - len(chars)))
        runs.add("▏ ", "dim")
        runs.add(fit(f"{name} {value}", label_w), style)
        return runs.text()

    @staticmethod
    def axis(end: float, bar_w: int, cursor: int, head_w: int = 5) -> Text:
        line = [" "] * bar_w
        tick = axis_tick(end, bar_w)
        value = 0.0
        while value <= end + 1e-9:
            col = min(bar_w - 1, int(value / end * bar_w))
            label = f"{value:g}s"
            if col + len(label) <= bar_w and all(ch == " " for ch in line[col : col + len(label) + 1]):
                line[col : col + len(label)] = list(label)
            value += tick
        # the cursor hides the tick label it lands on rather than mangling it
        if line[cursor] != " ":
            left = cursor
            while left > 0 and line[left - 1] != " ":
                left -= 1
            right = cursor
            while right < bar_w and line[right] != " ":
                right += 1
            line[left:right] = [" "] * (right - left)
        runs = Runs()
        runs.add(" " * head_w + "▕", "dim")
        runs.add("".join(line[:cursor]), "dim")
        runs.add("▲", "bold")
        runs.add("".join(line[cursor + 1 :]), "dim")
        return runs.text()


AXIS_TICKS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600)


def axis_tick(end: float, bar_w: int) -> float:
    """Seconds between the time axis's labels: the first nice step that
    gives at most one label per ten columns; past an hour a step, hours
    times 1, 2 or 5 times a power of ten, so a trace of any length
    draws a few labels, never millions."""
    room = max(1.0, bar_w / 10)
    tick = next((n for n in AXIS_TICKS if end / n <= room), None)
    if tick is not None:
        return tick
    hours = end / room / 3600.0  # > 1 here
    power = 10.0 ** math.floor(math.log10(hours))
    return 3600.0 * next(m * power for m in (1, 2, 5, 10) if m * power >= hours)


_SPARK_CACHE: weakref.WeakKeyDictionary[Replay, dict[tuple[int, int], tuple[list[int], int]]] = (
    weakref.WeakKeyDictionary()
)


def spark_columns(replay: Replay, index: int, bar_w: int) -> tuple[list[int], int]:
    """Block level (0-8) of each column over the whole run, and the peak:
    computed once per replay and width, since the series never changes."""
    cache = _SPARK_CACHE.setdefault(replay, {})
    hit = cache.get((index, bar_w))
    if hit is not None:
        return hit
    series = replay.series
    peak = int(max((p[index] for p in series), default=0)) or 1
    end = replay.end if replay.end > 0 else 1.0
    step = end / bar_w
    levels = []
    j, current = 0, 0
    for c in range(bar_w):
        hi = (c + 1) * step
        best = current
        while j < len(series) and (series[j][0] < hi or c == bar_w - 1):
            current = int(series[j][index])
            best = max(best, current)
            j += 1
        levels.append(0 if best == 0 else max(1, round(best / peak * 8)))
    cache[(index, bar_w)] = (levels, peak)
    return levels, peak


@dataclass
class _Settled:
    """A lane's fetches finished by some time, painted: the first ``spans``
    of the lane fill ``filled`` columns with ``parts`` (label included);
    ``named`` is the host the lane last wrote out."""

    replay: Replay
    bar_w: int
    spans: int
    filled: int
    parts: list[tuple[str, str]]
    named: str


def paint_span(runs: Runs, span: Span, t: float, scale: float, bar_w: int, filled: int, named: str) -> tuple[int, str]:
    """Add fetch ``span`` as seen at ``t`` to a lane already ``filled``
    columns long (idle time before it as a thin line), the lane having last
    written out host ``named``; the columns now filled and the host named."""
    c0 = min(bar_w - 1, int(span.start * scale))
    stop = min(span.end, t)
    c1 = min(bar_w, max(c0 + 1, math.ceil(min(stop * scale, bar_w) - 1e-9)))  # an open span ends at the edge
    if c1 <= filled:
        return filled, named
    c0 = max(c0, filled)
    if c0 > filled:
        runs.add(STATES["idle"].glyph * (c0 - filled), IDLE_STYLE)
    style = SPAN_STYLE["open"] if span.end > t else SPAN_STYLE[span.outcome]
    body, named = span_body(span, c1 - c0, named)
    runs.add(body, style)
    return c1, named


def span_body(span: Span, cells: int, named: str) -> tuple[str, str]:
    """A fetch's ``cells`` columns and the host the lane names after it.

    Host and path when they fit; else just the path when the lane's last
    named host is this one (a lane names a host once, then paths, until it
    moves to another host), cut short if need be.  Always a space at the
    end, so back-to-back fetches stay apart; a thin bar when not even two
    letters fit."""
    label = span_label(span)
    if cells > len(label):
        return label.ljust(cells), span.host
    text = span_label(span, with_host=False) if named == span.host else label
    if cells > len(text):
        return text.ljust(cells), span.host
    if cells >= 3:
        return fit(text, cells - 1) + " ", span.host
    return ("▏".ljust(cells) if cells >= 2 else " " * cells), named


def span_label(span: Span, *, with_host: bool = True) -> str:
    """``a.com/docs``: host and path, since ``/`` alone may be any host's
    (``/docs`` without the host, for a lane that has just named it)."""
    if span.kind == "robots":
        return f"{span.host}/robots.txt" if with_host else "/robots.txt"
    return host_and_path(span.url, span.host) if with_host else short_url(span.url, span.host)


def worker_name(slot: int) -> str:
    """``w1`` for slot 0: workers are numbered from 1 in every view (the
    event log, the narrator, the notebook and the GIF too)."""
    return f"w{slot + 1}"


TITLE = "workers over time, in simulated seconds · w·s = worker-seconds"
"""The lanes' title: the units of the time axis and of the counters' ``w·s``
(on top, so a short terminal, which drops the panels' bottom edges, shows it)."""
def lane_states(replay: Replay | None) -> tuple[str, ...]:
    """The palette's states the lanes of ``replay`` draw, in the key's
    order (:func:`crawlsim.palette.lane_key`), then the idle line."""
    if replay is None:
        return (*lane_key(()), "idle")
    spans = sum(len(lane) for lane in replay.lanes)
    hit = _DRAWN_CACHE.get(replay)
    if hit is None or hit[0] != (spans, replay.end):  # a live crawl's lanes grow
        drawn = (*lane_key({span.outcome for lane in replay.lanes for span in lane}), "idle")
        hit = _DRAWN_CACHE[replay] = ((spans, replay.end), drawn)
    return hit[1]


_DRAWN_CACHE: weakref.WeakKeyDictionary[Replay, tuple[tuple[int, float], tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)


def legend(replay: Replay | None = None) -> str:
    """The lanes' key, under them (Textual markup): a swatch, drawn exactly
    as the lanes draw the state, for each state the lanes of ``replay`` show."""
    parts = []
    for name in lane_states(replay):
        style = STATES[name]
        if name == "idle":
            parts.append(f"[{style.rich}]{style.glyph}[/] {style.label}")
        else:
            parts.append(f"[{style.rich_block}] {style.label} [/]")
    return " ".join(parts)


LEGEND = legend()
"""The key before a run is drawn."""
