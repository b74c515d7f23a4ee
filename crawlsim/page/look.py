"""The page's colours and marks, from the one palette (:mod:`crawlsim.palette`).

Every view takes its colours, glyphs and words from the palette; the page
adds only a shape per state, so the drawing reads on a greyscale projector
and for colour-blind students twice over (shape and glyph as well as
colour).  The table is passed into the page as data: the script has no
colour of its own.
"""

from __future__ import annotations

from crawlsim import palette

SHAPES: dict[str, str] = {
    "undiscovered": "circle",
    "frontier": "circle",
    "fetching": "circle",
    "fetched": "circle",
    "duplicate": "diamond",
    "failed": "square",
    "skipped": "square",
}
"""A mark's outline per page state (the glyph inside it comes from the palette)."""

LOST = {"hex": "#ffffff", "ink": "#000000", "glyph": "?", "shape": "dashed", "label": "lost"}
"""A page never fetched once the crawl is over (with its reason in its note):
the page's own mark, not a state of the scheduler's, so not in the palette."""


def look_data() -> dict[str, object]:
    """What the page draws each state with: by page-state code (0-6 in
    :class:`~crawlsim.views.replay.PageState` order, 7 lost), and a lane's fetch
    by its outcome."""
    states: list[dict[str, str]] = []
    for name in palette.PAGE_STATES:
        style = palette.STATES[name]
        states.append({"hex": style.hex, "ink": style.ink, "glyph": style.glyph, "shape": SHAPES[name],
                       "label": style.label})
    states.append(dict(LOST))
    spans = {outcome: palette.span_style(outcome).hex for outcome in palette.SPAN_STATES}
    return {"states": states, "spans": spans}


__all__ = ["LOST", "SHAPES", "look_data"]
