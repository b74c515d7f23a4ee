"""A web written out by hand: page URL -> links exactly as written.

This is the form of every teaching example (the "See it" demo, the ISRO
trace, the interview cases): small enough to draw, exact enough to check a
crawl order against.  A page's identity is its RFC 3986 canonical form, so
``http://A.com/x#top`` and ``http://a.com/x`` are one page while
``/x`` and ``/x/`` stay two, as on a real server.  A URL that a written page
links to but that has no entry of its own is a page with no links (status
200), like a leaf the author did not bother to write down.  Any other URL is
not a page of this web and answers 404, as a real server would: a crawler
that respells a link into a URL nobody wrote (``/docs/`` as ``/docs``) gets
a failed fetch, not a phantom page.

One leniency: a page listed under ``http://`` is also served under
``https://``, because most servers answer both and the aggressive
normalization rewrites every link to https.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from crawlsim.core.urls import canonicalize, host_key
from crawlsim.sim.policies import NO_HEADERS
from crawlsim.sim.web import Loc, Unlisted, Web, rfc3986_identity


@dataclass(frozen=True)
class PageSpec:
    """One written-out page: links as written, optional fixed text and status."""

    links: tuple[str, ...] = ()
    content: str | None = None
    """Page text; pages with equal text are mirrors of each other."""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=lambda: NO_HEADERS)
    before: tuple[tuple[int, Mapping[str, str]], ...] = ()
    """The answers (status, headers) to the page's first attempts, before ``status``:
    a recorded 429 with its ``Retry-After``, then 200, replayed as it happened."""


class ExplicitWeb(Web):
    """Pages from a mapping ``url -> links`` (or ``url -> PageSpec``)."""

    def __init__(self, pages: Mapping[str, PageSpec | Sequence[str]], seeds: Sequence[str] | None = None) -> None:
        super().__init__()
        self._pages: dict[str, PageSpec] = {}
        self._written: dict[str, str] = {}
        for url, spec in pages.items():
            ident = rfc3986_identity(url)
            if ident is None:
                raise ValueError(f"expected an absolute http(s) URL as a page, got {url!r}")
            if ident in self._pages:
                raise ValueError(f"{url!r} and {self._written[ident]!r} are the same page ({ident})")
            if not isinstance(spec, PageSpec):
                if isinstance(spec, str):
                    raise TypeError(f"links of {url!r} must be a list of strings, got a string")
                spec = PageSpec(tuple(spec))
            self._pages[ident] = spec
            self._written[ident] = url
        self._known: set[str] | None = None
        self._counted: tuple[Web, Counter[str]] | None = None
        """The last web that asked for host sizes (itself, or a web it is part of), and its answer."""
        self._answered_before = {ident for ident, spec in self._pages.items() if spec.before}
        """Pages with earlier answers (``PageSpec.before``)."""
        self._leaves: set[str] = set()
        for ident, spec in self._pages.items():
            for href in spec.links:
                target = canonicalize(href, ident)
                if target is not None and self._written_page(target) is None:
                    self._leaves.add(target)
        first = next(iter(pages), None)
        self.seeds = tuple(seeds) if seeds else ((first,) if first is not None else ())

    @property
    def pages(self) -> Mapping[str, PageSpec]:
        """Written pages by identity (read-only view for tools and tests)."""
        return self._pages

    def _written_page(self, ident: str) -> str | None:
        """The written page ``ident`` names (also under https), or None."""
        if ident in self._pages:
            return ident
        if ident.startswith("https://"):
            plain = "http://" + ident[8:]
            if plain in self._pages:
                return plain
        return None

    def _locate(self, url: str) -> Loc | None:
        ident = rfc3986_identity(url)
        if ident is None:
            return None
        written = self._written_page(ident)
        if written is not None:
            return written, host_key(written), written
        if ident in self._leaves:
            return ident, host_key(ident), Unlisted(ident)
        if ident.startswith("https://") and "http://" + ident[8:] in self._leaves:
            plain = "http://" + ident[8:]
            return plain, host_key(plain), Unlisted(plain)
        return ident, host_key(ident), None

    def _links_at(self, key: Hashable) -> list[str]:
        spec = self._pages.get(key) if isinstance(key, str) else None
        return list(spec.links) if spec is not None else []

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        if isinstance(key, Unlisted):
            return key.page, None
        spec = self._pages[str(key)]
        if spec.content is not None:
            return spec.content, spec.content
        return str(key), None

    def _status_at(self, key: Hashable) -> tuple[int, Mapping[str, str]]:
        spec = self._pages.get(key) if isinstance(key, str) else None
        return (spec.status, spec.headers) if spec is not None else (200, NO_HEADERS)

    def _earlier_answer(self, key: Hashable, attempt: int) -> tuple[int, Mapping[str, str]] | None:
        if key not in self._answered_before:
            return None
        before = self._pages[str(key)].before
        return before[attempt - 1] if attempt <= len(before) else None

    def answers_before(self) -> bool:
        return bool(self._answered_before)

    def known_pages(self) -> set[str]:
        """Identities of every written page and every link target (a linked URL
        with no entry is a page too); the finite page set of this web."""
        if self._known is None:
            known = set(self._pages)
            for ident, spec in self._pages.items():
                for href in spec.links:
                    target = canonicalize(href, ident)
                    if target is not None:
                        loc = self._locate(target)
                        known.add(loc[0] if loc is not None else target)
            self._known = known
        return self._known

    def hosts(self) -> Iterator[str]:
        """Hosts of written pages and of every link target, in order of appearance."""
        seen: dict[str, None] = {}
        for ident, spec in self._pages.items():
            seen.setdefault(host_key(ident))
            for href in spec.links:
                target = canonicalize(href, ident)
                if target is not None:
                    seen.setdefault(host_key(target))
        return iter(seen)

    def host_size(self, host: str) -> int | None:
        """Pages on ``host``: written ones plus link targets without an entry."""
        return self._count_pages(host, self)

    def _count_pages(self, host: str, top: Web) -> int | None:
        return self._host_counts(top).get(host.lower()) or None

    def _host_counts(self, top: Web) -> Counter[str]:
        """Host -> the pages of it this web serves when ``top`` routes the URLs,
        counted in one pass over the pages the first time ``top`` asks: so the
        size of every host is O(pages + hosts), not a scan of every page per host
        (10,000 one-page hosts were 10**8 steps)."""
        if self._counted is None or self._counted[0] is not top:
            counts = Counter(host_key(ident) for ident in self.known_pages() if top._serving(ident) is self)
            self._counted = (top, counts)
        return self._counted[1]


__all__ = ["ExplicitWeb", "PageSpec"]
