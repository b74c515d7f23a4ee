"""What every panel shares: the per-frame ViewState, colours, glyphs, and
the Panel base class that repaints only when its text changed.

Panels render from the app's :class:`ViewState` (one snapshot per frame,
replaced, never mutated by a panel) and the replay it points to, so a frame
is "seek the replay to t, then update the panels".  Panels return Rich
``Text`` built run by run (consecutive cells of one style merged), and each
has ``plain()`` -- the text it shows, without styles -- so tests can assert
on what a user would read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, cast

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from crawlsim.palette import PAGE_STATES, SPAN_STATES, STATES
from crawlsim.views.replay import PageState, Replay

if TYPE_CHECKING:
    from crawlsim.views.session import Knobs, Result


STATE_STYLE = tuple(STATES[name].rich for name in PAGE_STATES)
"""Each page state's colour, by ``PageState`` (the one palette, :mod:`crawlsim.palette`)."""
STATE_GLYPH = tuple(STATES[name].glyph for name in PAGE_STATES)
STATE_SHORT = ("unseen", "frontier", "fetching", "fetched", "dup", "failed", "skipped")
"""Legend words; the counters bar uses the same ones (docs/reference/words.md)."""
SPAN_STYLE = {outcome: STATES[name].rich_block for outcome, name in SPAN_STATES.items()}
"""A lane's fetch, by outcome (``open``: running): the state's ink on its colour."""
IDLE_STYLE = STATES["idle"].rich
"""A lane's idle time, the thin line between fetches."""
DUPLICATE_NOW = f"bold {STATES['duplicate'].rich}"
"""A duplicate fetch while it runs (the lane's label, the event log's start)."""
SPARK = " ▁▂▃▄▅▆▇█"
LEGEND_ORDER = (
    PageState.DONE,
    PageState.IN_FLIGHT,
    PageState.FRONTIER,
    PageState.UNDISCOVERED,
    PageState.DUPLICATE,
    PageState.FAILED,
    PageState.SKIPPED,
)
BAR_ORDER = (
    PageState.DONE,
    PageState.DUPLICATE,
    PageState.FAILED,
    PageState.SKIPPED,
    PageState.IN_FLIGHT,
    PageState.FRONTIER,
    PageState.UNDISCOVERED,
)


@dataclass(frozen=True)
class ViewState:
    """Everything the panels need for one frame."""

    result: Result
    t: float
    playing: bool
    speed: float
    name: str
    title: str
    knobs: Knobs | None
    previous_finish: float | None = None
    change: str = ""
    simulating: bool = False
    message: str = ""
    about: str = ""
    """The status bar's second line, from the source: the knobs, or what is
    replayed and why the what-if keys are off."""
    per_host: int | None = None
    why: bool = False
    """The event log tells each event's why (:mod:`crawlsim.views.narrate`) instead of its short line."""

    @property
    def replay(self) -> Replay:
        return self.result.replay


def seconds(value: float) -> str:
    """``12.3 s``: the unit the bounds' explanations use too."""
    return f"{value:.1f} s"


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class Runs:
    """A line built cell run by cell run, merged by style before it becomes Text."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[tuple[str, str]] = []

    def add(self, text: str, style: str = "") -> None:
        if not text:
            return
        if self.parts and self.parts[-1][1] == style:
            self.parts[-1] = (self.parts[-1][0] + text, style)
        else:
            self.parts.append((text, style))

    def text(self) -> Text:
        """The line as Rich Text (one span per styled run), built directly:
        ``Text.append`` per run was a measurable share of a frame."""
        plain: list[str] = []
        spans: list[Span] = []
        at = 0
        for chunk, style in self.parts:
            chunk = chunk.translate(_CONTROL)
            end = at + len(chunk)
            if style:
                spans.append(Span(at, end, style))
            plain.append(chunk)
            at = end
        return Text("".join(plain), no_wrap=True, overflow="crop", spans=spans)


_CONTROL = {code: None for code in (7, 8, 11, 12, 13)}
"""Control codes Rich strips from text (``rich.control.strip_control_codes``):
a URL from a trace file is drawn, never obeyed by the terminal."""


def join_lines(lines: list[Text]) -> Text:
    return Text("\n", no_wrap=True, overflow="crop").join(lines)


class Panel(Widget):
    """Base of every panel: draws the app's current ViewState line by line.

    A panel's :meth:`draw` returns its whole text for a frame, but the
    screen is repainted line by line (Textual's line API): :meth:`update`
    compares each line with the last frame's and asks Textual to repaint
    only the lines that differ, and :meth:`render_line` turns a line into
    terminal segments only when it changed.  Most lines of most panels are
    unchanged from one frame to the next, and turning text into segments,
    not drawing it, was most of a frame's cost (benchmarks/tui_frame_time.py).
    """

    WRAP = False
    """Wrap lines longer than the panel (else they are cut at its edge)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Text] = []
        self._keys: list[tuple[str, str | Style, list[Span]]] = []
        self._strips: dict[int, Strip] = {}
        self._drawn: tuple[object, int, int] | None = None
        """The view and size the lines were drawn for."""
        self._base_style: Style | None = None

    @property
    def view(self) -> ViewState | None:
        return cast("ViewState | None", getattr(self.app, "view", None))

    def update(self, view: ViewState | None) -> list[int]:
        """Draw ``view`` (None: nothing to show yet) and repaint the lines that
        changed; their row numbers."""
        width, height = self.size
        if not width or not height:
            self.refresh(layout=True)
            return []
        changed = self._set_lines(view, width, height)
        for y0, y1 in _runs_of(changed):
            self.refresh(Region(0, y0, width, y1 - y0))
        return changed

    def _set_lines(self, view: ViewState | None, width: int, height: int) -> list[int]:
        """Draw the panel's lines for ``view`` at this size; the rows that changed."""
        self._drawn = (view, width, height)
        lines = self.draw_lines(view, width, height) if view is not None else self.placeholder()
        keys = [(line.plain, line.style, line.spans) for line in lines]
        old = self._keys
        changed = [y for y in range(max(len(keys), len(old))) if y >= len(keys) or y >= len(old) or keys[y] != old[y]]
        self._lines, self._keys = lines, keys
        for y in changed:
            self._strips.pop(y, None)
        return changed

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the panel as segments, made again only when its text changed."""
        width, height = self.size
        drawn = self._drawn
        if drawn is None or drawn[0] is not self.view or drawn[1:] != (width, height):
            # a resize or a repaint before the first frame: draw for what is on screen now
            self._set_lines(self.view, width, height)
            self._strips.clear()
        strip = self._strips.get(y)
        if strip is None:
            style = self._style()
            if y < len(self._lines):
                segments = Segment.apply_style(line_segments(self._lines[y], self.app.console), style)
                strip = Strip(segments).crop_extend(0, width, style)
            else:
                strip = Strip.blank(width, style)
            self._strips[y] = strip
        return strip

    def _style(self) -> Style:
        """The panel's own colours (from the stylesheet) under every line; kept
        until the styles change (looking them up walks the widget tree)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def notify_style_update(self) -> None:
        """The stylesheet changed (a theme, a screen class): draw the strips anew."""
        super().notify_style_update()
        self._base_style = None
        self._strips.clear()

    def placeholder(self) -> list[Text]:
        """The lines shown while there is no run to draw (default: none)."""
        return []

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        """The panel's lines for one frame (default: :meth:`draw`, split or wrapped)."""
        text = self.draw(view, width, height)
        if self.WRAP:
            return list(text.wrap(self.app.console, max(width, 1)))
        return list(text.split("\n", allow_blank=True))

    def draw(self, view: ViewState, width: int, height: int) -> Text:
        """The panel's text for one frame (default: :meth:`draw_lines`, joined)."""
        return join_lines(self.draw_lines(view, width, height))

    def plain(self) -> str:
        """What the panel shows, without colours (for tests)."""
        view = self.view
        if view is None:
            return "\n".join(line.plain for line in self.placeholder())
        return self.draw(view, self.size.width or 160, self.size.height or 40).plain


def line_segments(line: Text, console: Console) -> list[Segment]:
    """One line of text as styled segments.

    A line built by :class:`Runs` has spans in order that never overlap,
    which makes this a slice per span; anything else goes through Rich's
    general (slower) ``Text.render``.  Either way the line's own style is
    under every span, as Rich draws it."""
    spans = line.spans
    plain = line.plain
    base = _style(console, line.style) if line.style else None
    if any(a.end > b.start for a, b in pairwise(spans)):
        return list(Segment.apply_style(line.render(console), base))
    out: list[Segment] = []
    at = 0
    for span in spans:
        if span.start > at:
            out.append(Segment(plain[at : span.start], base))
        style = _style(console, span.style)
        out.append(Segment(plain[span.start : span.end], base + style if base else style))
        at = span.end
    if at < len(plain):
        out.append(Segment(plain[at:], base))
    return out


_STYLES: dict[str, Style] = {}


def _style(console: Console, style: str | Style) -> Style:
    """A style by name, parsed once (Rich parses it again on every render)."""
    if isinstance(style, Style):
        return style
    parsed = _STYLES.get(style)
    if parsed is None:
        parsed = _STYLES[style] = console.get_style(style, default=Style.null())
    return parsed


def _runs_of(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as ``(first, past_last)`` runs of consecutive rows."""
    runs: list[tuple[int, int]] = []
    for y in rows:
        if runs and runs[-1][1] == y:
            runs[-1] = (runs[-1][0], y + 1)
        else:
            runs.append((y, y + 1))
    return runs
