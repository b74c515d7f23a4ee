"""What the scheduler hands a driver (:class:`Fetch`) and what it counts (:class:`CrawlStats`).

A module of their own so that the parts that take them (the page ledger, the
drivers, the cluster) import them without importing the scheduler.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from crawlsim.trace.events import FetchKind


class Fetch(NamedTuple):
    """One request the driver should make now.

    Immutable.  A named tuple rather than a frozen dataclass because one is
    built per fetch, and a frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field) costs three times as much -- measurable
    at a million fetches.
    """

    id: int
    url: str
    host: str
    kind: FetchKind
    depth: int
    attempt: int
    slot: int
    duplicate: bool = False
    """The page was already fetched under another spelling (wasted work)."""


@dataclass(slots=True)
class CrawlStats:
    """Running counters; cheap enough to keep even with events off."""

    fetches: int = 0
    """Page fetches started (retries and duplicates included; robots.txt not)."""
    robots_fetches: int = 0
    pages_fetched: int = 0
    """Distinct pages (by true identity) that got a response."""
    duplicate_fetches: int = 0
    """Fetches of a page already fetched under another spelling."""
    retries: int = 0
    failed: int = 0
    """Pages recorded as failed (final error or HTTP status >= 400)."""
    content_duplicates: int = 0
    discovered: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    peak_in_flight: int = 0
    peak_frontier: int = 0
