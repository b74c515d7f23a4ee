"""What a real crawl's parts hand each other: a fetch's outcome (a
:class:`Page` or a :class:`Failure`), what the fetcher may know of the
scheduler's state (:class:`FetchContext`), and the whole crawl's
:class:`CrawlResult`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crawlsim.trace.events import Event
from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import Pace
from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.fetch import CrawlStats, Fetch

if TYPE_CHECKING:
    from crawlsim.real.redirect_scope import RedirectScope


@dataclass(frozen=True, slots=True)
class Page:
    """A fetch that got an HTTP response."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    links: tuple[str, ...] = ()
    """hrefs as written on the page (2xx HTML only)."""
    body: str | None = None
    """robots.txt text (robots fetches only)."""
    content: str | None = None
    """Page text for content fingerprints (only when the crawl asks for it)."""
    final_url: str | None = None
    """Where same-host redirects ended, when not the fetched URL."""
    base: str | None = None
    """What links resolve against: ``<base href>``, else ``final_url``."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A fetch with no usable response."""

    reason: str
    transient: bool


Outcome = Page | Failure


@dataclass(frozen=True, slots=True)
class FetchContext:
    """What a fetcher may need from the scheduler's state, captured by the
    coordinator when the fetch starts (fetch tasks never touch the scheduler)."""

    robots: RobotsPolicy | None
    """The host's robots.txt policy, to check same-host redirect targets."""
    pace: Pace
    """The host's politeness as the wire must keep it (redirect hops included),
    from the core's politeness part (:meth:`~crawlsim.core.politeness.Politeness.pace`)."""
    want_content: bool
    redirect_scope: RedirectScope | None = None
    """Where a redirect may lead (None: anywhere)."""
    steps: frozenset[str] = frozenset()
    """The crawl's normalization steps, to key a redirect target's host as the core does."""


Fetcher = Callable[[Fetch, FetchContext], Awaitable[Outcome]]


@dataclass
class CrawlResult:
    """Everything one real crawl produced."""

    options: CrawlOptions
    stats: CrawlStats
    finish_time: float
    """Seconds from the start to the last fetch's end (the Done event); for a crawl
    the time limit stopped, to when it stopped (at or after the limit)."""
    found: list[str]
    statuses: dict[str, int]
    """Final HTTP status by page URL (pages that got a response)."""
    failures: dict[str, str]
    """Pages recorded as failed, with the reason."""
    events: list[Event]
    stopped: str | None = None
    """Why the crawl stopped before it was done (a time limit), or None."""
    origin: float = 0.0
    """``time.monotonic()`` at time 0 of the trace (to line it up with a server's log)."""
    wire: list[tuple[str, float]] = field(default_factory=list)
    """(host, ``time.monotonic()``) each time a request's headers were sent (HTTP only)."""
    robots_refused: dict[str, str] = field(default_factory=dict)
    """Hosts whose robots.txt could not be read (5xx or no answer), with why:
    RFC 9309 has the crawler treat them as wholly disallowed."""
    unfinished: dict[str, str] = field(default_factory=dict)
    """Pages found but not finished when a time limit stopped the crawl (queued,
    in flight, or waiting for a retry or Retry-After), with why: with
    ``results``/``failures`` every page found is accounted for."""
    skipped: dict[str, str] = field(default_factory=dict)
    """URL -> why a link to it was not followed (robots, scope, cap, depth):
    pages found and lost before any request (see :mod:`crawlsim.real.accounting`)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(URL or host, reason) for each request refused before connecting (an
    address the :class:`AddressPolicy` does not allow, a redirect out of scope)."""
    links_dropped: dict[str, int] = field(default_factory=dict)
    """Page URL -> how many of its links were never looked at: the time limit
    came while they were being admitted (its ``FetchFinished`` counts all of
    the page's links and the new ones among those examined)."""

    @property
    def fetched(self) -> set[str]:
        """Page URLs that were requested (whatever came back)."""
        return set(self.statuses) | set(self.failures)
