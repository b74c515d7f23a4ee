"""One palette for every view: the colour, glyph and hatch of each state a
page or a worker's fetch can be in.

A class reads the same colour as the same thing on every screen -- the
terminal app, the notebook widget, the sweep plots, the GIFs and the web
page -- so each state is defined here once, and every view imports it.
The lesson most views teach is the duplicate fetch, so duplicate is red,
and no other state is red, orange-red or as dark a colour near it.

How the colours were chosen: hues after Okabe and Ito's palette for colour
blindness (yellow, sky blue, bluish green, vermillion-red, reddish purple,
orange), then lightness spread so that no two states drawn in one view
(the pages' states; the lanes' states) are close in lightness either --
they read apart in greyscale, on a projector that washes colours out, and
for protanopia, deuteranopia and tritanopia (``tests/test_palette.py``
checks CIEDE2000 distances under simulated colour vision and the CIELAB
lightness difference of every pair).  Each state also has a glyph (the
terminal's pages view and legends) and a hatch (matplotlib bars), so it
reads without colour at all.

Every colour works both as a mark on white (matplotlib) and as text on the
terminal app's dark background; ``ink`` is the text colour that reads on
the state's colour used as a background (the terminal's lanes).

This module imports nothing, so anything may import it: the core never
does, the views all do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class StateStyle:
    """How one state is drawn, everywhere.

    ``hex`` is the colour (``#rrggbb``); ``ansi`` its nearest entry in the
    256-colour terminal palette (what Rich picks for a terminal without
    true colour, so ``38;5;{ansi}`` / ``48;5;{ansi}``); ``ink`` the text
    colour (``#000000`` or ``#ffffff``) that reads on ``hex``; ``glyph``
    the one-cell mark for text views; ``hatch`` the matplotlib hatch for
    bars and patches (empty: plain fill); ``label`` the legend's word."""

    name: str
    label: str
    hex: str
    ansi: int
    ink: str
    glyph: str
    hatch: str
    meaning: str

    @property
    def rgb(self) -> tuple[int, int, int]:
        """``hex`` as three 0-255 integers."""
        value = self.hex.lstrip("#")
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)

    @property
    def rich(self) -> str:
        """A Rich style for this state's text (the colour as foreground)."""
        return self.hex

    @property
    def rich_block(self) -> str:
        """A Rich style for a block of this state (its ``ink`` on its colour)."""
        return f"{self.ink} on {self.hex}"


_BLACK = "#000000"
_WHITE = "#ffffff"

STATES: dict[str, StateStyle] = {
    s.name: s
    for s in (
        StateStyle("undiscovered", "unseen", "#cbcbcb", 251, _BLACK, "·", "",
                   "no link to it followed yet"),
        StateStyle("frontier", "frontier", "#f7eb4f", 221, _BLACK, "○", "",
                   "seen and queued, waiting for a worker"),
        StateStyle("fetching", "fetching", "#5dbff5", 75, _BLACK, "◉", "",
                   "a worker is fetching it now (in flight)"),
        StateStyle("fetched", "fetched", "#1ca870", 35, _BLACK, "●", "",
                   "fetched once, the fetch that counts"),
        StateStyle("duplicate", "duplicate", "#cf1c1b", 160, _WHITE, "◆", "xx",
                   "fetched again: a worker's time wasted on a page already fetched"),
        StateStyle("failed", "failed", "#b464ae", 133, _BLACK, "✗", "\\\\",
                   "the fetch failed and will not be retried"),
        StateStyle("retry", "retry", "#ffb973", 216, _BLACK, "↻", "..",
                   "the fetch failed and the page waits to be retried"),
        StateStyle("skipped", "skipped", "#535682", 60, _WHITE, "⊘", "",
                   "never fetched by rule: out of scope, robots.txt, over a cap"),
        StateStyle("robots", "robots.txt", "#cfdeff", 189, _BLACK, "R", "--",
                   "a worker fetching a host's robots.txt"),
        StateStyle("lost", "lost", "#474747", 238, _WHITE, "⊗", "//",
                   "a fetch lost with the cluster node that ran it"),
        StateStyle("idle", "idle", "#6e6e6e", 242, _WHITE, "─", "",
                   "a worker with nothing to fetch (drawn as a thin line)"),
    )
}
"""Every state, by name."""

PAGE_STATES: tuple[str, ...] = ("undiscovered", "frontier", "fetching", "fetched", "duplicate", "failed", "skipped")
"""The states of a page, in :class:`crawlsim.views.replay.PageState`'s order
(``PAGE_STATES[state]`` is a ``PageState``'s name here)."""

SPAN_STATES: dict[str, str] = {
    "open": "fetching",
    "ok": "fetched",
    "duplicate": "duplicate",
    "failed": "failed",
    "retry": "retry",
    "robots": "robots",
    "lost": "lost",
}
"""A worker's fetch (a lane's span), by outcome (``open``: still running),
to the state it is drawn as."""

LANE_STATES: tuple[str, ...] = ("fetched", "duplicate", "fetching", "retry", "failed", "robots", "lost", "idle")
"""The lanes' legend, in its order: every state a lane can show."""


ALWAYS_IN_LANE_KEY: frozenset[str] = frozenset({"fetched", "duplicate", "fetching"})
"""A lanes' key names these even before a lane shows one: the duplicate
fetch is what the lanes teach to look for."""


def lane_key(outcomes: Iterable[str]) -> tuple[str, ...]:
    """The states a lanes' key lists, in :data:`LANE_STATES`' order, for
    lanes whose fetches ended with ``outcomes`` (``ok``, ``retry``, ...):
    :data:`ALWAYS_IN_LANE_KEY`, and a retry, a failure, a robots.txt fetch
    or a lost fetch only when there is one (``idle`` is the caller's)."""
    drawn = ALWAYS_IN_LANE_KEY | {SPAN_STATES[outcome] for outcome in outcomes}
    return tuple(name for name in LANE_STATES if name in drawn)


def page_style(index: int) -> StateStyle:
    """The style of ``PageState`` ``index`` (an ``IntEnum`` works)."""
    return STATES[PAGE_STATES[index]]


def span_style(outcome: str) -> StateStyle:
    """The style of a fetch whose outcome is ``outcome`` (``open``, ``ok``, ...)."""
    return STATES[SPAN_STATES[outcome]]


def as_dict() -> dict[str, dict[str, object]]:
    """The palette as plain data, for JSON (a self-contained HTML page):
    ``{"states": {name: {...}}, "page_states": [...], "span_states": {...},
    "lane_states": [...]}``."""
    return {
        "states": {name: asdict(style) for name, style in STATES.items()},
        "page_states": list(PAGE_STATES),
        "span_states": dict(SPAN_STATES),
        "lane_states": list(LANE_STATES),
    }


__all__ = [
    "ALWAYS_IN_LANE_KEY",
    "LANE_STATES",
    "PAGE_STATES",
    "SPAN_STATES",
    "STATES",
    "StateStyle",
    "as_dict",
    "lane_key",
    "page_style",
    "span_style",
]
