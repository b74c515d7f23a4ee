"""Where each page sits in the notebook's drawing of the crawl graph.

Positions are computed once per run from the whole trace, so a page never
moves while the crawl plays: only its colour changes.  Two arrangements
answer two questions:

``host``
    one column block per host, in the order hosts were first seen.  The
    busiest host is the tallest block, which is the picture behind the
    busiest-host bound.
``level``
    one column block per BFS depth (link distance from a seed).  BFS
    colours the blocks left to right; DFS and crawler traps show up as a
    long thin tail of single-page levels.

A block taller than ``rows`` pages wraps into several sub-columns, so a
2,000-page crawl still fits.  Pure Python (no matplotlib): tests check the
geometry directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from crawlsim.trace.events import Discovered, Skipped
from crawlsim.views.replay import PAGE_SKIPS, Replay

LAYOUTS = ("host", "level")
UNREACHED = "not reached"
"""Group label of pages the web holds but the crawl never linked to."""


@dataclass(frozen=True)
class Layout:
    """Page positions in ``Replay.page_list`` order, plus what to label."""

    by: str
    xy: list[tuple[float, float]]
    groups: list[tuple[str, float]]
    """(label, x of the block's centre) for each host or depth block."""
    edges: list[tuple[int, int]]
    """(parent index, child index): the link each page was discovered by."""
    depth: list[int | None]
    """Link distance from a seed, when the trace says (None: never discovered)."""
    xlim: tuple[float, float]
    ylim: tuple[float, float]


def page_depths(replay: Replay) -> tuple[list[int | None], list[int | None]]:
    """Depth and parent index of every page, read from Discovered events
    (and, for pages the crawler refused, one more than the linking page)."""
    index = {page.url: page.index for page in replay.page_list}
    depth: list[int | None] = [None] * len(index)
    parent: list[int | None] = [None] * len(index)
    for e in replay.events:
        if isinstance(e, Discovered):
            i = index.get(e.url)
            if i is not None and depth[i] is None:
                depth[i] = e.depth
                parent[i] = index.get(e.parent) if e.parent else None
        elif isinstance(e, Skipped) and e.reason in PAGE_SKIPS:
            i = index.get(e.url)
            p = index.get(e.parent) if e.parent else None
            if i is not None and depth[i] is None and p is not None and depth[p] is not None:
                depth[i] = depth[p] + 1  # type: ignore[operator]
                parent[i] = p
    return depth, parent


def default_rows(pages: int) -> int:
    """Rows per block: about square overall, never fewer than eight."""
    return max(8, math.ceil(1.3 * math.sqrt(max(pages, 1))))


def compute_layout(replay: Replay, by: str = "host", rows: int | None = None, column_width: float = 0.7) -> Layout:
    """Positions for ``replay``'s pages, grouped ``by`` host or level.

    ``rows`` caps a block's height; ``column_width`` spaces the sub-columns
    of a wrapped block (wider when pages carry labels)."""
    if by not in LAYOUTS:
        raise ValueError(f"layout: expected one of {', '.join(LAYOUTS)}; got {by!r}")
    pages = replay.page_list
    depth, parent = page_depths(replay)
    groups = _GROUPINGS[by](pages, depth)
    blocks = _Blocks(len(pages), rows or default_rows(len(pages)), column_width)
    for label, members in groups.items():
        blocks.place(label, members)
    edges = [(p, i) for i, p in enumerate(parent) if p is not None]
    half = (blocks.tallest - 1) / 2
    return Layout(
        by=by,
        xy=blocks.xy,
        groups=blocks.labels,
        edges=edges,
        depth=depth,
        xlim=(-0.8, max(blocks.x - BLOCK_SPACING, 0.0) + 0.8),
        ylim=(-half - 0.8, half + 1.4),
    )


class _Placed(Protocol):
    """What a grouping reads of a page (:class:`crawlsim.views.replay.Replay`'s pages have it)."""

    host: str
    index: int


def _by_host(pages: Sequence[_Placed], depth: list[int | None]) -> dict[str, list[int]]:
    """One group per host, hosts in order of first sight; in a block,
    shallow pages first and undiscovered ones last, so a block reads top
    down as the crawl went."""
    groups: dict[str, list[int]] = {}
    for page in pages:
        groups.setdefault(page.host, []).append(page.index)
    for members in groups.values():
        members.sort(key=lambda i: (depth[i] is None, depth[i] or 0, i))
    return groups


def _by_level(pages: Sequence[_Placed], depth: list[int | None]) -> dict[str, list[int]]:
    """One group per depth, shallowest first, then the pages never reached
    (:data:`UNREACHED`); empty depths are left out."""
    groups: dict[str, list[int]] = {}
    deepest = max((d for d in depth if d is not None), default=0)
    for level in range(deepest + 1):
        groups[f"depth {level}"] = []
    for page in pages:
        d = depth[page.index]
        groups.setdefault(UNREACHED if d is None else f"depth {d}", []).append(page.index)
    return {k: v for k, v in groups.items() if v}


_GROUPINGS: dict[str, Callable[[Sequence[_Placed], list[int | None]], dict[str, list[int]]]] = {
    "host": _by_host,
    "level": _by_level,
}
"""Each layout's grouping of pages into blocks, keyed as :data:`LAYOUTS`."""

BLOCK_SPACING = 1.6
"""Horizontal distance from one block's last sub-column to the next block."""


class _Blocks:
    """Blocks laid out left to right.  Invariant: ``x`` is where the next
    block starts, and ``tallest`` the most pages in any sub-column so far
    (the figure's height)."""

    def __init__(self, pages: int, rows: int, column_width: float) -> None:
        self.xy: list[tuple[float, float]] = [(0.0, 0.0)] * pages
        self.labels: list[tuple[str, float]] = []
        self.rows = rows
        self.column_width = column_width
        self.x = 0.0
        self.tallest = 1

    def place(self, label: str, members: list[int]) -> None:
        """Put ``members`` in as few sub-columns of at most ``rows`` pages as
        fit, each sub-column centred vertically, and label the block's centre."""
        columns = max(1, math.ceil(len(members) / self.rows))
        per_column = math.ceil(len(members) / columns)
        self.tallest = max(self.tallest, per_column)
        for k, i in enumerate(members):
            column, row = divmod(k, per_column)
            height = min(per_column, len(members) - column * per_column)
            self.xy[i] = (self.x + column * self.column_width, (height - 1) / 2 - row)
        self.labels.append((label, self.x + (columns - 1) * self.column_width / 2))
        self.x += (columns - 1) * self.column_width + BLOCK_SPACING


__all__ = ["LAYOUTS", "UNREACHED", "Layout", "compute_layout", "default_rows", "page_depths"]
