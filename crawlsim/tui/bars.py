"""The one- and two-line panels: status, counters, bounds, event log,
timeline, and the key bar that replaces Textual's one-line footer."""

from __future__ import annotations

import textwrap
from dataclasses import replace

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widget import Widget

from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    Skipped,
)
from crawlsim.core.options import CrawlOptions
from crawlsim.views.narrate import narrate_trace
from crawlsim.views.replay import Counters, PageState, Replay, describe_event, duplicates_text, fetched_text
from crawlsim.palette import STATES
from crawlsim.words import bounds_heading, busiest_host_note
from crawlsim.views.session import REPLAY_PENDING
from crawlsim.views.summary import margin_line, model_margin, percent
from crawlsim.sim.driver import utilisation
from crawlsim.tui.base import (
    DUPLICATE_NOW,
    STATE_STYLE,
    Panel,
    Runs,
    ViewState,
    fit,
    join_lines,
    seconds,
)
from crawlsim.tui.keys import unlisted_actions
from crawlsim.tui.nodes import cluster_bounds, status_runs

# -- top bars ------------------------------------------------------------------------


class StatusBar(Panel):
    """Scenario, play state, the knobs, and the what-if finish comparison."""

    def placeholder(self) -> list[Text]:
        """What is loading (or why it could not), while no run is drawn."""
        loading = str(getattr(self.app, "loading", ""))
        return [Text(f" {loading}", style="bold yellow")] if loading else []

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        first = Runs()
        replay = view.replay
        at_end = view.t >= replay.end
        if view.simulating:
            state, style = "⟳ simulating…", "bold yellow"
        elif view.playing:
            state, style = f"▶ playing {view.speed:g}x", "bold green"
        elif at_end:
            state, style = "■ finished", "bold"
        else:
            state, style = f"❚❚ paused ({view.speed:g}x)", "bold yellow"
        first.add(f" {state} ", style)
        first.add(" ")
        first.add(view.name, "bold")
        first.add(f" — {view.title}")
        finish = Runs()
        if view.previous_finish is not None:
            change = f"{view.change}: " if view.change else ""
            finish.add(f"{change}finish {seconds(view.previous_finish)} -> ", "bold")
            delta = replay.end - view.previous_finish
            colour = "bold green" if delta < -1e-9 else "bold red" if delta > 1e-9 else "bold"
            finish.add(seconds(replay.end), colour)
        else:
            finish.add(f"finish {seconds(replay.end)}", "bold")
        line1 = first.text()
        right = finish.text()
        room = width - right.cell_len - 1
        if line1.cell_len > room:
            line1.truncate(max(room, 0), overflow="ellipsis")
        line1.append(" " * max(1, width - line1.cell_len - right.cell_len))
        line1.append_text(right)
        second = Runs()
        if view.about:
            second.add(" " + view.about)
        for text, style in status_runs(view):  # a cluster's figures
            second.add(text, style)
        if view.message:
            second.add("  " + view.message, "italic yellow")
        return [line1, second.text()]


class CountersBar(Panel):
    """t, pages fetched of reachable (and lost), duplicate fetches, wasted
    worker-seconds, frontier, in flight: the words of docs/reference/words.md."""

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        c = view.replay.counters()
        narrow = width < 110
        runs = Runs()
        runs.add(" t ", "dim")
        runs.add(f"{c.t:.1f}", "bold")
        runs.add(f"/{c.end:.1f} s", "dim")
        gap = " " if narrow else "  "
        used = sum(len(text) for text, _ in runs.parts)
        for label, value, style in counter_items(c, narrow):
            used += len(gap + label + " " + value)
            if used > width:
                break  # whole items only: a number cut in half would misread
            runs.add(gap + label + " ", "dim")
            runs.add(value, ("bold " + style).strip())
        return [runs.text()]


def counter_items(c: Counters, narrow: bool) -> list[tuple[str, str, str]]:
    """(label, value, style) of each counter, most important first; some only
    when they are not zero, some only when there is room (not ``narrow``)."""
    wasted_unit = "w·s" if narrow else "worker-seconds"  # w·s: the lanes' title spells it out
    items = [
        ("fetched", fetched_text(c), STATE_STYLE[PageState.FAILED] if c.lost else STATE_STYLE[PageState.DONE]),
        ("dup", duplicates_text(c), STATE_STYLE[PageState.DUPLICATE] if c.duplicates else ""),
        ("wasted", f"{c.wasted:.1f} {wasted_unit}", STATE_STYLE[PageState.DUPLICATE] if c.wasted else ""),
        ("frontier", str(c.frontier), STATE_STYLE[PageState.FRONTIER]),
        ("in flight", str(c.in_flight), STATE_STYLE[PageState.IN_FLIGHT]),
    ]
    if c.failed or not narrow:
        items.insert(3, ("failed", str(c.failed), STATE_STYLE[PageState.FAILED] if c.failed else ""))
    if c.content_duplicates:
        items.insert(2, ("same content", str(c.content_duplicates), STATE_STYLE[PageState.DUPLICATE]))
    if c.retries:
        items.insert(4, ("retries", str(c.retries), STATES["retry"].rich))
    if c.capped:
        items.insert(4, ("over cap", str(c.capped), STATE_STYLE[PageState.SKIPPED]))
    if not narrow:
        items.append(("workers busy", percent(utilisation(c.busy, c.workers, c.t)) if c.t > 0 else "–", ""))
    return items


# -- bounds and the event log ---------------------------------------------------------------


NARROW = 100
"""The bounds panel's width (cells) below which it says each bound, and its heading, in short."""


class BoundsView(Panel):
    """The three lower bounds, which one binds, and the one-sentence diagnosis,
    after the heading ``run`` prints over them (its short form when narrow: the
    panel has no frame to carry it in the smallest layout)."""

    WRAP = True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        view = self.view
        if view is None:
            return 2
        return len(self.draw(view, width, 10).wrap(self.app.console, max(width, 1)))

    def draw(self, view: ViewState, width: int, height: int) -> Text:
        bounds = view.result.bounds
        if view.replay.cluster is not None:
            return cluster_bounds(view.result, width)
        if bounds is None:
            return Text(
                "bounds need the scenario (a trace alone does not say what the crawl could have done)", style="dim"
            )
        narrow = width < NARROW
        host = bounds.busiest_host_name
        values = {
            "depth": (f"depth {seconds(bounds.depth)}{'…' if view.result.replay_pending else ''}", bounds.depth),
            "busiest_host": (
                (f"{host} {seconds(bounds.busiest_host)}" if narrow else f"busiest host {seconds(bounds.busiest_host)}")
                + ("" if narrow or not host
                   else f" ({busiest_host_note(host, bounds.busiest_host_pages, bounds.busiest_host_robots)})"),
                bounds.busiest_host,
            ),
            "work": (f"work {seconds(bounds.work)}", bounds.work),
        }
        margin = model_margin(view.result.simulated)
        text = Text()
        text.append(bounds_heading(model=margin is not None, short=narrow), "bold")
        for key, (label, _) in values.items():
            style = "bold reverse" if key == bounds.binding else "dim"
            text.append(f" {label} ", style)
            text.append(" ")
        text.append(f"{'' if narrow else 'efficiency '}{bounds.efficiency:.0%}", "dim")
        if view.result.note:
            text.append(f"  ({view.result.note})", "italic yellow")
        if margin:  # a model's bounds are the model's: the real site within its margin
            text.append("\n")
            text.append(margin_line(margin), "yellow")
        text.append("\n")
        text.append(bounds.explanation)
        return text


class EventLog(Panel):
    """The last few events up to t, newest at the bottom; in why mode (``w``)
    each is the narrator's sentence (:mod:`crawlsim.views.narrate`), wrapped whole."""

    _why_of: tuple[Replay, dict[int, str]] | None = None

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        replay = view.replay
        hide = len(replay.page_list) > 60
        events = replay.recent(max(1, height), hide_seen=hide)
        if view.why:
            lines = self._why_lines(view, events, width, height)
        else:
            lines = [_log_line(f"{e.t:7.2f} ", fit(describe_event(e), width - 8), e) for e in events]
        if not lines:
            lines.append(Text("(no events yet)", style="dim"))
        return lines

    def _why_lines(self, view: ViewState, events: list[Event], width: int, height: int) -> list[Text]:
        """The newest events' sentences, each wrapped over as many lines as it
        needs (the time on its first), as many as fit, newest at the bottom."""
        options = view.result.options
        if options is None:
            return [Text("why mode needs the run's options (a trace alone does not carry them)", style="dim")]
        sentences = self._sentences(view.replay, options)
        lines: list[Text] = []
        for e in reversed(events):
            wrapped = textwrap.wrap(sentences[id(e)], max(8, width - 8)) or [""]
            block = [_log_line(f"{e.t:7.2f} " if i == 0 else " " * 8, part, e) for i, part in enumerate(wrapped)]
            if lines and len(lines) + len(block) > height:
                break
            lines[:0] = block
        return lines

    def _sentences(self, replay: Replay, options: CrawlOptions) -> dict[int, str]:
        """Every event's sentence, by the event object's id: narrated once
        per replay, from the first event (the narrator replays state in order)."""
        if self._why_of is None or self._why_of[0] is not replay:
            self._why_of = (replay, {id(e): s for e, s in narrate_trace(replay.events, options)})
        return self._why_of[1]


def _log_line(time: str, text: str, e: Event) -> Text:
    runs = Runs()
    runs.add(time, "dim")
    runs.add(text, event_style(e))
    return runs.text()


def event_style(e: Event) -> str:
    if isinstance(e, FetchStarted):
        return DUPLICATE_NOW if e.duplicate else STATE_STYLE[PageState.IN_FLIGHT]
    if isinstance(e, FetchFinished):
        return STATE_STYLE[PageState.DUPLICATE] if e.duplicate_of else STATE_STYLE[PageState.DONE]
    if isinstance(e, RetryScheduled):
        return STATES["retry"].rich
    if isinstance(e, FetchFailed):
        return STATE_STYLE[PageState.FAILED]
    if isinstance(e, Discovered):
        return STATE_STYLE[PageState.FRONTIER]
    if isinstance(e, Skipped):
        return "grey50" if e.reason == "seen" else STATE_STYLE[PageState.SKIPPED]
    if isinstance(e, HostDeferred):
        return "yellow"
    if isinstance(e, Done):
        return "bold"
    return ""


# -- timeline ---------------------------------------------------------------------------------


class Timeline(Panel):
    """The simulated clock as a bar: click or drag on it to seek."""

    can_focus = False
    BAR_LEFT = 10

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        end = view.replay.end
        right = f" {seconds(end)}"
        runs = Runs()
        runs.add(f"{view.t:8.1f} ".rjust(self.BAR_LEFT), "bold")
        if view.result.replay_pending:  # the finish is known, the events are being recorded
            room = max(1, width - self.BAR_LEFT - len(right))
            runs.add(fit(REPLAY_PENDING, room).ljust(room), "italic yellow")
            runs.add(right, "dim")
            return [runs.text()]
        bar_w = max(4, width - self.BAR_LEFT - len(right))
        pos = 0 if end <= 0 else min(bar_w - 1, int(view.t / end * bar_w))
        runs.add("━" * pos, "green")
        runs.add("●", "bold")
        runs.add("─" * (bar_w - pos - 1), "grey42")
        runs.add(right, "dim")
        return [runs.text()]

    def time_at(self, x: int) -> float | None:
        view = self.view
        if view is None:
            return None
        end = view.replay.end
        right = len(f" {seconds(end)}")
        bar_w = max(4, self.size.width - self.BAR_LEFT - right)
        frac = (x - self.BAR_LEFT + 0.5) / bar_w
        return max(0.0, min(1.0, frac)) * end

    def _seek_to(self, x: int) -> None:
        t = self.time_at(x)
        if t is not None:
            seek = getattr(self.app, "seek_to", None)
            if seek is not None:
                seek(t)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.capture_mouse()
        self._seek_to(event.x)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if event.button:
            self._seek_to(event.x)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.release_mouse()


# -- the key bar (footer) ------------------------------------------------------------------------


class KeyBar(Widget):
    """Every key, wrapped over as many lines as the width needs.

    Textual's Footer is one line and cuts keys off at 80 columns; this one
    wraps instead, lists only the keys that work (the app leaves the others
    out), and runs a key when its label is clicked.  A binding's tooltip is
    its longer description, shown on terminals at least :attr:`ROOMY` wide."""

    ROOMY = 120

    DEFAULT_CSS = """
    KeyBar { height: auto; dock: bottom; background: $footer-background; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spots: list[tuple[int, int, int, str]] = []

    def items(self, width: int | None = None) -> list[tuple[str, str, bool, str]]:
        """(key display, description, enabled, key) per action, in binding
        order, for a bar ``width`` cells wide (default: as wide as it is)."""
        seen: set[str] = set()
        out: list[tuple[str, str, bool, str]] = []
        roomy = (self.size.width if width is None else width) >= self.ROOMY
        unlisted = unlisted_actions(getattr(self.app, "knobs", None))
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen or binding.action.partition("(")[0] in unlisted:
                continue
            seen.add(binding.action)
            display = binding.key_display or self.app.get_key_display(binding)
            if roomy and binding.tooltip:
                binding = replace(binding, description=binding.tooltip)
            if out and out[-1][1] == binding.description:
                # a pair of keys for one knob: "+/- workers"
                prev = out[-1]
                out[-1] = (f"{prev[0]}/{display}", prev[1], prev[2] or enabled, prev[3])
                continue
            out.append((display, binding.description, enabled, binding.key))
        return out

    def layout_lines(self, width: int) -> list[list[tuple[str, str, bool, str]]]:
        lines: list[list[tuple[str, str, bool, str]]] = [[]]
        used = 0
        for item in self.items(width):
            size = len(item[0]) + len(item[1]) + 4  # " key " "description " and a space: as render() draws it
            if used and used + size > width:
                lines.append([])
                used = 0
            lines[-1].append(item)
            used += size
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.layout_lines(width))

    def render(self) -> Text:
        width = self.size.width or 80
        rows = []
        self._spots = []
        for y, line in enumerate(self.layout_lines(width)):
            text = Text(no_wrap=True, overflow="crop")
            for display, description, enabled, key in line:
                start = text.cell_len
                text.append(f" {display} ", "bold reverse" if enabled else "dim reverse")
                text.append(f"{description} ", "" if enabled else "dim strike")
                self._spots.append((y, start, text.cell_len, key))
                text.append(" ")
            rows.append(text)
        return join_lines(rows)

    def plain(self) -> str:
        return self.render().plain

    def on_click(self, event: events.Click) -> None:
        for y, x0, x1, key in self._spots:
            if event.y == y and x0 <= event.x < x1:
                self.app.simulate_key(key)
                return
