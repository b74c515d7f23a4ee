"""The page ledger: what became of each page, by its true identity."""

from __future__ import annotations

from collections.abc import Callable

from crawlsim.core.content import ContentIndex
from crawlsim.core.fetch import CrawlStats, Fetch
from crawlsim.core.options import CrawlOptions
from crawlsim.core.urls import SAFE_STEPS, CanonicalizeError, canonical_or_raise


class PageLedger:
    """Pages fetched, failed and content-duplicated.

    Invariant: ``stats.pages_fetched`` and ``stats.failed`` count each true
    page at most once.  A page's true identity is ``page_of(url)`` when the
    driver knows it, else the URL under the safe normalization steps; the
    first URL to fetch a page claims it, and any other URL of it is a
    duplicate fetch (wasted work, counted in ``duplicate_fetches``).  Only
    weak normalization (or a ``page_of``) can make duplicates, so identity
    is tracked (``track``) only then.
    """

    def __init__(self, options: CrawlOptions, stats: CrawlStats, page_of: Callable[[str], str] | None) -> None:
        self._stats = stats
        self._page_of = page_of
        self.track = page_of is not None or not (SAFE_STEPS <= options.normalize_steps)
        self._claimed: dict[str, str] = {}
        """Page (true identity) -> the URL that fetched it first."""
        self.failures: dict[str, str] = {}
        """Pages recorded as failed, with the reason (they still count as found)."""
        self.content_duplicate_of: dict[str, str] = {}
        self.dedup_content = options.content_dedup != "off"
        self._content = ContentIndex(options.content_dedup, options.simhash_distance)

    def identity(self, url: str) -> tuple[str, bool]:
        """The page's true identity, and whether it was fetched before under
        another spelling (only possible when normalization is weak)."""
        if not self.track:
            return url, False
        if self._page_of is not None:
            page = self._page_of(url)
        else:
            try:
                page = canonical_or_raise(url, None, SAFE_STEPS)
            except CanonicalizeError:
                page = url
        # A retry is a duplicate exactly when its first attempt was: keyed by
        # the URL that claimed the page, so a retried duplicate's success is
        # never counted as a second page fetched.
        first = self._claimed.setdefault(page, url)
        if first == url:
            return page, False
        self._stats.duplicate_fetches += 1
        return page, True

    def record(self, fetch: Fetch, failure: str | None) -> None:
        """Record a page's outcome; a duplicate fetch adds nothing new."""
        if failure is not None:
            self.failures[fetch.url] = failure
            if not fetch.duplicate:
                self._stats.failed += 1
        elif not fetch.duplicate:
            self._stats.pages_fetched += 1

    def content_duplicate(self, url: str, content: str) -> str | None:
        """The URL whose content ``content`` repeats, or None (then it is indexed)."""
        duplicate_of = self._content.check_and_add(url, content)
        if duplicate_of is not None:
            self._stats.content_duplicates += 1
            self.content_duplicate_of[url] = duplicate_of
        return duplicate_of
