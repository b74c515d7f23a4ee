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
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.widget import Widget

from crawlsim.replay import PageState, Replay

if TYPE_CHECKING:
    from crawlsim.session import Knobs, Result


STATE_STYLE = ("grey50", "yellow", "bright_magenta", "green", "bright_red", "dark_orange", "deep_sky_blue3")
STATE_GLYPH = ("·", "○", "◉", "●", "◆", "✗", "⊘")
STATE_SHORT = ("unseen", "frontier", "fetching", "fetched", "dup", "failed", "skipped")
"""Legend words; the counters bar uses the same ones (README, "Words")."""
SPAN_STYLE = {
    "ok": "black on green",
    "duplicate": "white on red",
    "failed": "black on dark_orange",
    "retry": "black on dark_orange",
    "robots": "white on blue",
    "open": "black on bright_magenta",
}
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
    """The event log tells each event's why (:mod:`crawlsim.narrate`) instead of its short line."""

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
        out = Text(no_wrap=True, overflow="crop")
        for chunk, style in self.parts:
            out.append(chunk, style or None)
        return out


def join_lines(lines: list[Text]) -> Text:
    return Text("\n", no_wrap=True, overflow="crop").join(lines)


class Panel(Widget):
    """Base of every panel: reads the app's current ViewState.

    :meth:`update` draws the panel's text for a new frame and asks Textual
    to repaint only when the text differs from the last frame's: most
    panels are unchanged most frames, and the repaint, not the drawing, is
    the expensive part."""

    _last: Text | None = None
    _last_key: tuple[object, int, int] | None = None

    @property
    def view(self) -> ViewState | None:
        return cast("ViewState | None", getattr(self.app, "view", None))

    def update(self, view: ViewState) -> None:
        width, height = self.size
        if not width or not height:
            self.refresh(layout=True)
            return
        text = self.draw(view, width, height)
        changed = text != self._last
        self._last, self._last_key = text, (view, width, height)
        if changed:
            self.refresh()

    def render(self) -> Text:
        view = self.view
        if view is None:
            return Text("")
        width, height = self.size
        key = self._last_key
        if self._last is not None and key is not None and key[0] is view and key[1:] == (width, height):
            return self._last
        text = self.draw(view, width, height)
        self._last, self._last_key = text, (view, width, height)
        return text

    def draw(self, view: ViewState, width: int, height: int) -> Text:
        raise NotImplementedError

    def plain(self) -> str:
        """What the panel shows, without colours (for tests)."""
        view = self.view
        if view is None:
            return ""
        return self.draw(view, self.size.width or 160, self.size.height or 40).plain
