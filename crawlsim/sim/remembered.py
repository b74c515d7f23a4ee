"""A web whose plain pages' links are remembered across the reruns of one session.

A what-if key reruns the crawl of the same web with other knobs (workers,
the politeness gap, normalization, the order): the knobs change what the
crawler asks for, never what the web answers.  Generating a page's links is
about a seventh of the crawl of the capped ``million`` scenario, so the app's
reruns ask :func:`remembering` for a stand-in that answers a plain page (the
driver's quick path, :meth:`~crawlsim.sim.web.Web.plain_pages`) from what an
earlier run of the session was told.

The memo belongs to the web (forgotten with it) and holds at most
:data:`MEMO_PAGES` pages; past that a page's links are generated as before.
The generated web's own :meth:`~crawlsim.sim.web.Web.links` is untouched, so
a benchmark that calls it (the fair BFS of ``benchmarks/sim_vs_bfs.py``)
pays for every page as it always did.  The lists are shared between runs:
the core only reads the links it is given.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from crawlsim.sim.web import Web

MEMO_PAGES = 20_000
"""Pages remembered per web at most: 5,000 pages of ``million`` (37,000
links) take about 4 MB, so the memo stays under some 16 MB per web."""

_MEMOS: weakref.WeakKeyDictionary[Web, dict[str, list[str] | None]] = weakref.WeakKeyDictionary()
"""Each web's memo, ``url -> links`` (None: not a plain page), dropped with its web."""


class RememberingWeb:
    """``web`` with :meth:`plain_pages` answered from the memo; every other
    attribute is the web's own."""

    def __init__(self, web: Web, memo: dict[str, list[str] | None]) -> None:
        self._web = web
        self._memo = memo

    def __getattr__(self, name: str) -> Any:
        # only while ``_web`` is set: a copy or an unpickled wrapper, made
        # without __init__, raises AttributeError instead of recursing
        if name.startswith("__") or name in {"_web", "_memo"}:
            raise AttributeError(name)
        return getattr(self._web, name)

    def plain_pages(self) -> Callable[[str], list[str] | None] | None:
        """The web's :meth:`~crawlsim.sim.web.Web.plain_pages`, remembered."""
        plain = self._web.plain_pages()
        if plain is None:
            return None
        memo = self._memo
        get = memo.get
        missing = _MISSING

        def remembered(url: str) -> list[str] | None:
            links = get(url, missing)
            if links is missing:
                links = plain(url)
                if len(memo) < MEMO_PAGES:
                    memo[url] = links
            return links  # type: ignore[return-value]

        return remembered


_MISSING: Any = object()


def remembering(web: Web) -> Web:
    """A stand-in for ``web`` remembering its plain pages' links (``web``
    itself when it cannot be remembered: unhashable, or no weak reference)."""
    try:
        memo = _MEMOS.get(web)
        if memo is None:
            memo = _MEMOS[web] = {}
    except TypeError:
        return web
    return RememberingWeb(web, memo)  # type: ignore[return-value]
