"""Replay a crawl trace: what a view shows at simulated time ``t``.

The views (terminal app, notebook) never schedule anything: they take the core's events (from a
simulation or a ``--trace`` file) and asks this module "what did the crawl
look like at t?".  Keeping that question free of Textual means it can be
tested with plain asserts and reused by any other front end.

``Replay`` keeps an index into the time-sorted trace.  Seeking forward
applies the events between the old and the new time; seeking backward starts
again from the beginning (a few tens of thousands of events replay in tens
of milliseconds, so no checkpoints are needed at the sizes the app shows).
Everything that does not depend on ``t`` -- the set of pages, the hosts, the
fetch spans of each worker lane, the frontier/in-flight series -- is computed
once when the replay is built, so the page layout never jumps while the
crawl plays.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from crawlsim.core.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.core.urls import split_host

if TYPE_CHECKING:
    from crawlsim.sim.coverage import Coverage

LARGE_PAGES = 300
"""Above this many pages a view summarises by host instead of drawing pages."""

PAGE_SKIPS = frozenset({"scope", "robots", "depth"})
"""Skip reasons that make a page "skipped": a rule excluded it.  ``seen`` is
a link to a known page; ``malformed`` and ``scheme`` are not pages at all;
``cap`` is the crawl's page budget running out -- on a capped large crawl
that is most of the web, so it is counted (``Counters.capped``), not drawn."""


class PageState(IntEnum):
    """What a page is doing at time t, in the order a page moves through them."""

    UNDISCOVERED = 0
    FRONTIER = 1
    IN_FLIGHT = 2
    DONE = 3
    DUPLICATE = 4
    FAILED = 5
    SKIPPED = 6

    @property
    def label(self) -> str:
        return STATE_LABELS[self]


STATE_LABELS = ("undiscovered", "frontier", "in flight", "done", "duplicate", "failed", "skipped")
N_STATES = len(STATE_LABELS)


@dataclass(slots=True)
class Page:
    """One URL (one spelling, as the crawler canonicalized it) and its state."""

    url: str
    host: str
    index: int
    state: PageState = PageState.UNDISCOVERED
    parent: str | None = None
    depth: int | None = None
    links: int | None = None
    """Links on the page (as written), once fetched."""
    new_links: int | None = None
    note: str = ""
    """Why it was skipped or failed, what it duplicates, or the pending retry."""
    attempts: int = 0


@dataclass(slots=True)
class HostStatus:
    """A host's pages and politeness state at time t."""

    name: str
    pages: list[Page] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [0] * N_STATES)
    in_flight: int = 0
    deferred_until: float = 0.0
    deferred_reason: str = ""
    robots: str = ""
    """``""`` (not used), ``"fetching"``, or the robots.txt status, e.g. ``"200"``."""
    crawl_delay: float | None = None
    fetches: int = 0

    @property
    def total(self) -> int:
        return len(self.pages)

    def waiting(self, t: float) -> bool:
        """True while a gap, Crawl-delay or Retry-After keeps new starts off."""
        return self.deferred_until > t


@dataclass(frozen=True, slots=True)
class Span:
    """One fetch on one worker lane, from start to finish (``inf`` if the
    trace ends while it is in flight)."""

    fetch_id: int
    slot: int
    start: float
    end: float
    url: str
    host: str
    kind: str
    duplicate: bool
    outcome: str
    """``ok``, ``duplicate``, ``failed`` (final), ``retry`` (will be retried),
    ``robots`` or ``open``."""


@dataclass(frozen=True, slots=True)
class Counters:
    """The running numbers at time t."""

    t: float
    end: float
    discovered: int
    fetched: int
    """Pages fetched (distinct pages: duplicate fetches not counted)."""
    fetches: int
    """Page fetches started (retries and duplicates included)."""
    duplicates: int
    """Duplicate fetches completed (the page was already fetched under another spelling)."""
    duplicates_in_flight: int
    """Duplicate fetches started and not yet answered."""
    content_duplicates: int
    """Fetches whose text repeated another page's (``content_dedup``), not duplicates already."""
    failed: int
    skipped: int
    retries: int
    capped: int
    """Links not queued because ``max_pages`` (or the per-host cap) was reached."""
    frontier: int
    in_flight: int
    busy: float
    """Worker-seconds spent fetching so far."""
    wasted: float
    """Worker-seconds spent on duplicate fetches so far."""
    done: bool
    pages: int
    """Progress's denominator: the pages reachable when known (a scenario's
    web), else the pages the crawl discovers by the end of the trace."""
    reachable: int | None = None
    """Pages reachable from the seeds within scope (None: not known)."""
    lost: int | None = None
    """Reachable pages never fetched; known once the crawl is done (else None)."""


def short_url(url: str, host: str) -> str:
    """The part of ``url`` after its host (``/x#top``), or the URL when it
    is spelled with another host or scheme case (``HTTP://A.COM/about``)."""
    for scheme in ("http://", "https://"):
        prefix = scheme + host
        if url.startswith(prefix):
            rest = url[len(prefix) :]
            return rest or "/"
    return url


def host_and_path(url: str, host: str) -> str:
    """``a.com/x#top`` for a URL spelled with its host as usual; a URL spelled
    otherwise (``HTTP://A.COM/about``) is shown whole, exactly as written."""
    if not host:
        return url
    rest = short_url(url, host)
    return f"{host}{rest}" if rest.startswith("/") else rest


def host_of_url(url: str) -> str:
    """Host (with a non-default port) of a URL taken from a skip event."""
    if "://" not in url:
        return "?"
    return split_host(url)[0] or "?"


class Replay:
    """The view state of a trace at any simulated time.

    ``events``: the core's events (any order; sorted stably by time here).
    ``known_pages``: page identities the web is known to hold, so pages the
    crawl never reached are drawn too (undiscovered to the end).
    ``workers``: lane count when the trace alone would show fewer.
    ``coverage``: pages reachable and lost (:mod:`crawlsim.sim.coverage`),
    when a scenario's web is known.
    """

    def __init__(
        self,
        events: Sequence[Event],
        *,
        known_pages: Iterable[str] = (),
        workers: int = 0,
        coverage: Coverage | None = None,
    ) -> None:
        self.coverage = coverage
        self.events: list[Event] = sorted(events, key=lambda e: e.t)
        self.times: list[float] = [e.t for e in self.events]
        self.end: float = self.times[-1] if self.times else 0.0
        self._layout(known_pages)
        self._build_spans(workers)
        self._reset()
        self.series = self._build_series()
        self._reset()

    # -- built once ----------------------------------------------------------

    def _layout(self, known_pages: Iterable[str]) -> None:
        """Every page and host the trace (or the web) mentions, in order of
        first mention, so the drawing keeps its shape while the crawl plays."""
        self.pages: dict[str, Page] = {}
        self.hosts: dict[str, HostStatus] = {}
        identities: set[str] = set()
        for e in self.events:
            if isinstance(e, Discovered):
                self._page(e.url, e.host)
            elif isinstance(e, FetchStarted):
                if e.kind == "page":
                    self._page(e.url, e.host)
                    identities.add(e.page)
                else:
                    self._host(e.host)
            elif isinstance(e, Skipped) and e.reason in PAGE_SKIPS and "://" in e.url:
                self._page(e.url, host_of_url(e.url))
        # progress counts distinct pages: a URL that turned out to be another
        # spelling of a page already fetched is a duplicate, not a page to wait for
        self.discovered_total = sum(1 for e in self.events if isinstance(e, Discovered)) - sum(
            1 for e in self.events if isinstance(e, FetchStarted) and e.duplicate
        )
        identities.update(self.pages)
        for url in sorted(set(known_pages) - identities):
            self._page(url, host_of_url(url))
        self.page_list: list[Page] = list(self.pages.values())

    def _page(self, url: str, host: str) -> Page:
        page = self.pages.get(url)
        if page is None:
            status = self._host(host)
            page = self.pages[url] = Page(url, host, len(self.pages))
            status.pages.append(page)
        return page

    def _host(self, name: str) -> HostStatus:
        status = self.hosts.get(name)
        if status is None:
            status = self.hosts[name] = HostStatus(name)
        return status

    def _build_spans(self, workers: int) -> None:
        """Fetch spans per worker lane, sorted by start."""
        open_: dict[int, FetchStarted] = {}
        spans: list[Span] = []
        for e in self.events:
            if isinstance(e, FetchStarted):
                open_[e.fetch_id] = e
            elif isinstance(e, (FetchFinished, FetchFailed)):
                s = open_.pop(e.fetch_id, None)
                if s is None:
                    continue
                if isinstance(e, FetchFailed):
                    outcome = "failed" if e.final else "retry"
                elif s.kind == "robots":
                    outcome = "robots"
                elif s.duplicate or e.duplicate_of:
                    outcome = "duplicate"
                elif e.status >= 400:
                    outcome = "failed"
                else:
                    outcome = "ok"
                spans.append(Span(s.fetch_id, s.slot, s.t, e.t, s.url, s.host, s.kind, s.duplicate, outcome))
        for o in open_.values():
            spans.append(Span(o.fetch_id, o.slot, o.t, math.inf, o.url, o.host, o.kind, o.duplicate, "open"))
        slots = max([workers, *(span.slot + 1 for span in spans)])
        self.lanes: list[list[Span]] = [[] for _ in range(slots)]
        for span in sorted(spans, key=lambda span: (span.start, span.fetch_id)):
            self.lanes[span.slot].append(span)
        self._lane_starts = [[s.start for s in lane] for lane in self.lanes]
        self._lane_ends = [[s.end for s in lane] for lane in self.lanes]

    def _build_series(self) -> list[tuple[float, int, int]]:
        """(t, frontier, in flight) after each instant, by replaying once."""
        points: list[tuple[float, int, int]] = [(0.0, 0, 0)]
        i, n = 0, len(self.events)
        while i < n:
            t = self.times[i]
            while i < n and self.times[i] == t:
                self._apply(self.events[i])
                i += 1
            point = (t, self._counts[PageState.FRONTIER], self._in_flight)
            if point[1:] != points[-1][1:]:
                if points[-1][0] == t:
                    points[-1] = point
                else:
                    points.append(point)
        self._cursor = n
        return points

    # -- state at t ------------------------------------------------------------

    def _reset(self) -> None:
        for page in self.page_list:
            page.state = PageState.UNDISCOVERED
            page.parent = page.depth = page.links = page.new_links = None
            page.note = ""
            page.attempts = 0
        for host in self.hosts.values():
            host.counts = [0] * N_STATES
            host.counts[PageState.UNDISCOVERED] = len(host.pages)
            host.in_flight = host.fetches = 0
            host.deferred_until = 0.0
            host.deferred_reason = host.robots = ""
            host.crawl_delay = None
        self._counts = [0] * N_STATES
        self._counts[PageState.UNDISCOVERED] = len(self.page_list)
        self._cursor = 0
        self.t = 0.0
        self._in_flight: int = 0
        self._open: dict[int, tuple[float, bool]] = {}
        self._busy = 0.0
        self._wasted = 0.0
        self._fetches = 0
        self._dup_done = 0
        self._content_dups = 0
        self._first_spelling: dict[str, str] = {}
        self._retries = 0
        self._capped = 0
        self._done = False

    def seek(self, t: float) -> None:
        """Make the state that of time ``t`` (every event with time <= t applied)."""
        t = max(0.0, t)
        target = bisect_right(self.times, t)
        if target < self._cursor:
            self._reset()
        events = self.events
        for i in range(self._cursor, target):
            self._apply(events[i])
        self._cursor = target
        self.t = t

    @property
    def cursor(self) -> int:
        """How many events are applied (the index of the next one)."""
        return self._cursor

    def next_time(self, t: float) -> float | None:
        """Time of the first event after ``t`` ("step one event")."""
        i = bisect_right(self.times, t)
        return self.times[i] if i < len(self.times) else None

    def previous_time(self, t: float) -> float | None:
        """Time of the last event before ``t``."""
        i = bisect_left(self.times, t) - 1
        return self.times[i] if i >= 0 else None

    def _set(self, page: Page, state: PageState) -> None:
        old = page.state
        if old == state:
            return
        counts = self.hosts[page.host].counts
        counts[old] -= 1
        counts[state] += 1
        self._counts[old] -= 1
        self._counts[state] += 1
        page.state = state

    def _apply(self, e: Event) -> None:
        """One event's effect on pages, hosts and counters."""
        if isinstance(e, Discovered):
            page = self.pages[e.url]
            page.parent, page.depth = e.parent, e.depth
            self._set(page, PageState.FRONTIER)
        elif isinstance(e, FetchStarted):
            host = self.hosts[e.host]
            host.in_flight += 1
            host.fetches += 1
            self._in_flight += 1
            self._open[e.fetch_id] = (e.t, e.duplicate)
            if e.kind == "robots":
                host.robots = "fetching"
                return
            self._fetches += 1
            if not e.duplicate and e.attempt == 1:
                self._first_spelling.setdefault(e.page, e.url)
            page = self.pages[e.url]
            page.attempts = e.attempt
            # name the other spelling, the one fetched first (not the page's identity,
            # which may be this very spelling)
            page.note = f"duplicate of {self._first_spelling.get(e.page, e.page)}" if e.duplicate else ""
            self._set(page, PageState.IN_FLIGHT)
        elif isinstance(e, (FetchFinished, FetchFailed)):
            self._close(e)
        elif isinstance(e, Skipped):
            if e.reason == "cap":
                self._capped += 1
            elif e.reason in PAGE_SKIPS and e.url in self.pages:
                page = self.pages[e.url]
                if page.state in (PageState.UNDISCOVERED, PageState.FRONTIER):
                    page.note = f"skipped: {e.reason}"
                    self._set(page, PageState.SKIPPED)
        elif isinstance(e, RetryScheduled):
            self._retries += 1
            retrying = self.pages.get(e.url)
            if retrying is not None:
                retrying.note = f"retry #{e.attempt} at {e.at:.1f} s ({e.reason})"
        elif isinstance(e, HostDeferred):
            host = self._host(e.host)
            host.deferred_until = e.until
            host.deferred_reason = e.reason
        elif isinstance(e, RobotsLoaded):
            host = self._host(e.host)
            host.robots = str(e.status) if e.status else "unreachable"
            host.crawl_delay = e.crawl_delay
        elif isinstance(e, Done):
            self._done = True
            for item in self.coverage.lost or () if self.coverage is not None else ():
                lost = self.pages.get(item.page)
                if lost is not None and lost.state == PageState.UNDISCOVERED:
                    lost.note = f"lost: {item.reason}"

    def _close(self, e: FetchFinished | FetchFailed) -> None:
        started = self._open.pop(e.fetch_id, None)
        host = self.hosts[e.host]
        if started is not None:
            host.in_flight -= 1
            self._in_flight -= 1
            took = e.t - started[0]
            self._busy += took
            if started[1]:
                self._wasted += took
        if e.kind == "robots":
            return
        page = self.pages[e.url]
        duplicate = started is not None and started[1]
        if duplicate and (isinstance(e, FetchFinished) or e.final):
            # a duplicate fetch is wasted whatever it answered: drawn and counted as one
            self._dup_done += 1
            if isinstance(e, FetchFailed) or e.status >= 400:
                failure = e.reason if isinstance(e, FetchFailed) else f"HTTP {e.status}"
                page.note = f"{page.note}; failed: {failure}"
            if isinstance(e, FetchFinished):
                page.links, page.new_links = e.links, e.new_links
            self._set(page, PageState.DUPLICATE)
            return
        if isinstance(e, FetchFailed):
            if e.final:
                page.note = f"failed: {e.reason}"
                self._set(page, PageState.FAILED)
            else:
                page.note = f"{e.reason}, retrying"
                self._set(page, PageState.FRONTIER)
            return
        page.links, page.new_links = e.links, e.new_links
        if e.duplicate_of:
            self._content_dups += 1
            page.note = f"same content as {e.duplicate_of}"
            self._set(page, PageState.DUPLICATE)
        elif e.status >= 400:
            page.note = f"HTTP {e.status}"
            self._set(page, PageState.FAILED)
        else:
            self._set(page, PageState.DONE)

    # -- reading ---------------------------------------------------------------

    def count(self, state: PageState) -> int:
        return self._counts[state]

    def counters(self) -> Counters:
        """The running counters at the current time."""
        t = self.t
        busy, wasted = self._busy, self._wasted
        for start, duplicate in self._open.values():
            busy += t - start
            if duplicate:
                wasted += t - start
        c = self._counts
        dup_flight = sum(1 for _, duplicate in self._open.values() if duplicate)
        coverage = self.coverage
        reachable = coverage.reachable if coverage is not None else None
        lost = None
        if coverage is not None and coverage.lost is not None and self._done:
            lost = len(coverage.lost)
        return Counters(
            t=t,
            end=self.end,
            discovered=len(self.page_list) - c[PageState.UNDISCOVERED] - c[PageState.SKIPPED],
            fetched=c[PageState.DONE],
            fetches=self._fetches,
            duplicates=self._dup_done,
            duplicates_in_flight=dup_flight,
            content_duplicates=self._content_dups,
            failed=c[PageState.FAILED],
            skipped=c[PageState.SKIPPED],
            retries=self._retries,
            capped=self._capped,
            frontier=c[PageState.FRONTIER],
            in_flight=self._in_flight,
            busy=busy,
            wasted=wasted,
            done=self._done,
            pages=reachable if reachable is not None else self.discovered_total,
            reachable=reachable,
            lost=lost,
        )

    @property
    def large(self) -> bool:
        """Too many pages to draw one by one: views summarise by host."""
        return len(self.page_list) > LARGE_PAGES

    def lane_spans(self, slot: int, t: float | None = None) -> list[Span]:
        """Spans of lane ``slot`` that started by ``t`` (default: now)."""
        t = self.t if t is None else t
        lane = self.lanes[slot]
        return lane[: bisect_right(self._lane_starts[slot], t)]

    def started_count(self, slot: int, t: float) -> int:
        """How many fetches lane ``slot`` has started by ``t``."""
        return bisect_right(self._lane_starts[slot], t)

    def ended_count(self, slot: int, t: float) -> int:
        """How many fetches lane ``slot`` has finished by ``t`` (a lane's
        fetches never overlap, so their ends are sorted too)."""
        return bisect_right(self._lane_ends[slot], t)

    def current_span(self, slot: int, t: float | None = None) -> Span | None:
        """The fetch lane ``slot`` is busy with at ``t``, or None (idle)."""
        t = self.t if t is None else t
        i = bisect_right(self._lane_starts[slot], t) - 1
        if i >= 0:
            span = self.lanes[slot][i]
            if span.end > t or (span.end == t == span.start):
                return span
        return None

    def value_at(self, t: float) -> tuple[int, int]:
        """(frontier, in flight) at ``t`` from the precomputed series."""
        i = bisect_right(self.series, (t, math.inf, math.inf)) - 1
        _, frontier, flight = self.series[max(i, 0)]
        return frontier, flight

    def recent(self, n: int, *, hide_seen: bool = False) -> list[Event]:
        """The last ``n`` events applied (optionally without ``seen`` skips,
        which outnumber everything else on large crawls)."""
        out: list[Event] = []
        i = self._cursor - 1
        limit = max(0, self._cursor - 50 * n)
        while i >= limit and len(out) < n:
            e = self.events[i]
            if not (hide_seen and isinstance(e, Skipped) and e.reason == "seen"):
                out.append(e)
            i -= 1
        out.reverse()
        return out

    def host_order(self) -> list[HostStatus]:
        """Hosts in display order: by first mention for a few hosts, the
        largest first when there are many (so the bottleneck is on screen)."""
        hosts = list(self.hosts.values())
        if len(hosts) > 12:
            hosts.sort(key=lambda h: -h.total)
        return hosts


def duplicates_text(c: Counters) -> str:
    """Duplicate fetches in the one vocabulary: completed, and the ones in
    flight apart (``348 +8 in flight``), so the number matches the legend's."""
    text = str(c.duplicates)
    if c.duplicates_in_flight:
        text += f" +{c.duplicates_in_flight} in flight"
    return text


def fetched_text(c: Counters) -> str:
    """Pages fetched of pages reachable (or of pages discovered when the web is
    unknown), and the pages lost once the crawl is done: ``13/14, 1 lost``."""
    text = f"{c.fetched}/{c.pages}"
    if c.lost:
        text += f", {c.lost} lost"
    return text


def describe_event(e: Event, host_width: int = 0) -> str:
    """One short line for the event log."""

    where = host_and_path

    if isinstance(e, Discovered):
        return f"found   {where(e.url, e.host)} (depth {e.depth})"
    if isinstance(e, FetchStarted):
        what = "robots.txt" if e.kind == "robots" else where(e.url, e.host)
        extra = " DUPLICATE" if e.duplicate else (f" try {e.attempt}" if e.attempt > 1 else "")
        return f"start   w{e.slot} {what}{extra}"
    if isinstance(e, FetchFinished):
        what = "robots.txt" if e.kind == "robots" else where(e.url, e.host)
        links = f", {e.links} links ({e.new_links} new)" if e.kind == "page" and e.status < 400 else ""
        dup = f", copy of {e.duplicate_of}" if e.duplicate_of else ""
        return f"done    {what} {e.status}{links}{dup}"
    if isinstance(e, FetchFailed):
        return f"{'FAILED' if e.final else 'failed'}  {where(e.url, e.host)}: {e.reason}"
    if isinstance(e, RetryScheduled):
        return f"retry   {where(e.url, e.host)} #{e.attempt} at {e.at:.1f} s"
    if isinstance(e, HostDeferred):
        return f"wait    {e.host} until {e.until:.1f} s ({e.reason})"
    if isinstance(e, RobotsLoaded):
        delay = f", Crawl-delay {e.crawl_delay:g} s" if e.crawl_delay else ""
        return f"robots  {e.host} {e.status}{delay}"
    if isinstance(e, Skipped):
        return f"skip    {e.url} ({e.reason})"
    if isinstance(e, Done):
        # Done.pages counts URLs queued (spellings), not pages: say so
        return f"DONE    {e.pages} URLs queued, {e.fetches} fetches"
    return type(e).__name__


__all__ = [
    "LARGE_PAGES",
    "STATE_LABELS",
    "Counters",
    "HostStatus",
    "Page",
    "PageState",
    "Replay",
    "Span",
    "describe_event",
    "duplicates_text",
    "fetched_text",
    "short_url",
]
