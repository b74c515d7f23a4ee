"""The page's colours and marks: one table, passed into the page as data.

Every state has a colour *and* a mark (a shape with a glyph), so the
drawing reads on a greyscale projector and for colour-blind students; the
colours lean on the Okabe-Ito set, keeping the teaching panel's meaning
(yellow waiting in the frontier, purple being fetched, red a duplicate
fetch).  The words are the app's (README, "Words").
"""

from __future__ import annotations

from crawlsim.replay import PageState

STATE_LOOK: dict[str, dict[str, str]] = {
    "undiscovered": {"colour": "#e4e4e4", "glyph": "·", "shape": "circle", "label": "not yet found"},
    "frontier": {"colour": "#f0e442", "glyph": "○", "shape": "circle", "label": "frontier"},
    "in flight": {"colour": "#8e44ad", "glyph": "◉", "shape": "circle", "label": "fetching"},
    "done": {"colour": "#009e73", "glyph": "✓", "shape": "circle", "label": "fetched"},
    "duplicate": {"colour": "#d55e00", "glyph": "◆", "shape": "diamond", "label": "duplicate fetch"},
    "failed": {"colour": "#222222", "glyph": "✗", "shape": "square", "label": "failed"},
    "skipped": {"colour": "#56b4e9", "glyph": "⊘", "shape": "square", "label": "skipped"},
    "lost": {"colour": "#ffffff", "glyph": "?", "shape": "dashed", "label": "lost"},
}
"""Per state (in :class:`~crawlsim.replay.PageState` order, then ``lost``):
colour, glyph, shape and the legend's word."""

SPAN_LOOK: dict[str, str] = {
    "ok": STATE_LOOK["done"]["colour"],
    "duplicate": STATE_LOOK["duplicate"]["colour"],
    "failed": STATE_LOOK["failed"]["colour"],
    "retry": "#e69f00",
    "robots": "#0072b2",
    "open": STATE_LOOK["in flight"]["colour"],
    "lost": "#777777",
}
"""A worker lane's fetch, by how it ended (:class:`~crawlsim.replay.Span` outcomes)."""


def look_data() -> dict[str, object]:
    """The table as the page reads it: states by their code (0-7)."""
    names = [state.label for state in PageState] + ["lost"]
    return {"states": [STATE_LOOK[name] for name in names], "spans": SPAN_LOOK}


__all__ = ["SPAN_LOOK", "STATE_LOOK", "look_data"]
