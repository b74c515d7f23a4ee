"""Where each URL sits in the page's drawing of the web.

Hosts are bands, one under the other, in the order the crawl met them; in
a band, a column per link depth (the seed on the left) and a row per URL
of that depth, each spelling of a page right under the page itself, so a
duplicate fetch is drawn beside the fetch it repeats.  A column wraps
into sub-columns at the height that gives the drawing about a projector's
shape.  Each run is laid out with
its own URLs and depths (DFS draws a deeper tree than BFS; normalization
``off`` adds spellings), and runs with the same URLs and depths share one
layout, so a knob that changes neither never moves a node.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

COLUMN = 250.0
"""Drawing units between columns (room for a label such as ``HTTP://A.COM/about``)."""
ROW = 58.0
BAND_GAP = 40.0
"""Between one host's band and the next (its name sits there)."""
LEFT = 24.0
LABEL_AT = 36.0
CHAR = 11.5
"""Drawing units a label's character takes (the page's label font)."""
TOP = 40.0


@dataclass(frozen=True)
class Layout:
    xy: list[tuple[float, float]]
    bands: list[tuple[str, float, float]]
    """(host, top, bottom) of each host's band."""
    width: float
    height: float

    def data(self) -> dict[str, object]:
        return {
            "xy": [[round(x, 1), round(y, 1)] for x, y in self.xy],
            "bands": [[name, top, bottom] for name, top, bottom in self.bands],
            "width": self.width,
            "height": self.height,
        }


@dataclass(frozen=True)
class Place:
    """What the layout needs of one URL of a run."""

    host: str
    page: str
    """The web's page it spells (spellings of one page are drawn together)."""
    depth: int | None
    """Its link depth in this run (None: never discovered)."""
    primary: bool
    """True for the page's own spelling."""
    label: str = ""
    """What is written beside it (the drawing is made wide enough)."""


ASPECT = 1.5
"""The width/height the drawing aims at (the graph's panel on a projector)."""


def lay_out(places: Sequence[Place]) -> Layout:
    """Positions for ``places``, in their order (see the module docstring),
    with the column height whose drawing is closest to :data:`ASPECT`."""
    tallest = max(1, len(places))
    tries = [_lay_out(places, rows) for rows in range(3, min(tallest, 40) + 1)] or [_lay_out(places, 3)]
    return min(tries, key=lambda layout: abs(math.log(layout.width / max(layout.height, 1.0) / ASPECT)))


def _lay_out(places: Sequence[Place], rows: int) -> Layout:
    """:func:`lay_out` with columns of at most ``rows`` URLs."""
    columns_of = _columns(places)
    x_of, x = _column_starts(columns_of, rows)
    xy: list[tuple[float, float]] = [(0.0, 0.0)] * len(places)
    bands: list[tuple[str, float, float]] = []
    top = TOP
    for host, columns in columns_of.items():
        tallest = max(min(rows, len(placed)) for placed in columns.values())
        for depth, placed in columns.items():
            for k, i in enumerate(placed):
                sub, row = divmod(k, rows)
                xy[i] = (x_of[depth] + sub * COLUMN, top + row * ROW + ROW / 2)
        bands.append((host, top - BAND_GAP + 6, top + tallest * ROW))
        top += tallest * ROW + BAND_GAP
    right = max((xy[i][0] + LABEL_AT + CHAR * len(place.label) for i, place in enumerate(places)), default=x)
    return Layout(xy, bands, max(x, right) + 10, top - BAND_GAP + 10)


def _columns(places: Sequence[Place]) -> dict[str, dict[int, list[int]]]:
    """Per host, per depth column, the indices of ``places`` drawn there; a
    page never discovered goes in the column after the deepest, apart."""
    unreached = 1 + max((p.depth or 0) for p in places) if places else 0
    columns_of: dict[str, dict[int, list[int]]] = {}
    for group in _page_groups(places):
        depths = [d for d in (places[i].depth for i in group) if d is not None]
        columns = columns_of.setdefault(places[group[0]].host, {})
        columns.setdefault(min(depths) if depths else unreached, []).extend(group)
    return columns_of


def _column_starts(columns_of: dict[str, dict[int, list[int]]], rows: int) -> tuple[dict[int, float], float]:
    """Where each depth's column starts (a column of more than ``rows`` URLs
    takes several sub-columns, in every band), and where the last one ends."""
    width_of: dict[int, int] = {}
    for columns in columns_of.values():
        for depth, placed in columns.items():
            width_of[depth] = max(width_of.get(depth, 1), -(-len(placed) // rows))
    x_of, x = {}, LEFT
    for depth in sorted(width_of):
        x_of[depth] = x
        x += width_of[depth] * COLUMN
    return x_of, x


def _page_groups(places: Sequence[Place]) -> list[list[int]]:
    """Indices of ``places`` grouped by page, hosts in order of first sight,
    shallowest first within a host, each page before its other spellings."""
    pages: dict[tuple[str, str], list[int]] = {}
    for i, place in enumerate(places):
        pages.setdefault((place.host, place.page), []).append(i)
    hosts = list(dict.fromkeys(place.host for place in places))
    order = sorted(
        pages.values(),
        key=lambda group: (hosts.index(places[group[0]].host), min(_depth_key(places[i].depth) for i in group), group[0]),
    )
    for group in order:
        group.sort(key=lambda i: (not places[i].primary, i))
    return order


def _depth_key(depth: int | None) -> tuple[int, int]:
    return (1, 0) if depth is None else (0, depth)


__all__ = ["Layout", "Place", "lay_out"]
