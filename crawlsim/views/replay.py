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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import accumulate
from typing import TYPE_CHECKING, Any, TypeVar, cast

from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    MessageDelivered,
    MessageSent,
    NodeFailed,
    NodeRecovered,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.core.urls import host_key
from crawlsim.views.replay_nodes import NodeReplay
from crawlsim.trace.cluster import node_label
from crawlsim.words import counted

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
class UrlStatus:
    """One URL (one spelling, as the crawler canonicalized it) and its state
    at time t: a row of the pages view.  (Not a page of the web: two
    spellings of one page are two of these.)"""

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
    node: int = 0
    """The crawler node that queued it (a cluster's trace; 0 otherwise)."""


@dataclass(slots=True)
class HostStatus:
    """A host's pages and politeness state at time t."""

    name: str
    pages: list[UrlStatus] = field(default_factory=list)
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
    ``robots``, ``open``, or ``lost`` (its node failed while it was in flight)."""


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
    workers: int
    """The crawl's worker lanes: as many as it ran with when the trace says, for its utilisation."""
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


def _time(e: Event) -> float:
    return e.t


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
    return f"{host}{rest}" if rest.startswith(("/", ":")) else rest  # ":80/": a spelling with its port


def host_of_url(url: str) -> str:
    """The host key (:func:`crawlsim.core.urls.host_key`, the one every module
    uses) of a URL taken from a skip event or the web; ``?`` when it has none."""
    return host_key(url) or "?"


HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


class EventTable(dict[type[Event], Callable[..., Any]]):
    """A dispatch table: event class -> the function that handles it.

    Each question this module asks of an event (which pages and hosts does
    it name? how does it change the state at t? how did its fetch end? what
    line does the log show?) is one table, filled by decorating the
    handlers, so a new event kind is one handler per question it matters
    to, written next to the others, instead of a branch in every chain.
    Event classes are final (frozen, slotted), so looking up ``type(e)``
    finds every event."""

    def handles(self, *kinds: type[Event]) -> Callable[[HandlerT], HandlerT]:
        def register(handler: HandlerT) -> HandlerT:
            for kind in kinds:
                self[kind] = handler
            return handler

        return register


_MENTIONS = EventTable()
"""Replay methods adding the pages and hosts an event names to the layout."""
_APPLY = EventTable()
"""Replay methods applying an event's effect on pages, hosts and counters."""
_SPAN_OUTCOME = EventTable()
"""How a fetch ended, from its start event and the event that ended it."""
_LOG_LINE = EventTable()
"""The event log's line for an event."""


class Replay:
    """The view state of a trace at any simulated time.

    ``events``: the core's events (any order; sorted stably by time here).
    ``known_pages``: page identities the web is known to hold, so pages the
    crawl never reached are drawn too (undiscovered to the end).
    ``workers``: lane count when the trace alone would show fewer.
    ``coverage``: pages reachable and lost (:mod:`crawlsim.sim.coverage`),
    when a scenario's web is known.
    ``nodes``: a cluster's trace -- the node of each event; ``workers`` is
    then per node and ``node_count`` the number of nodes (``self.cluster``
    replays what each node does, :mod:`crawlsim.views.replay_nodes`).  ``end``: the clock's span with no events yet.
    """

    def __init__(
        self,
        events: Sequence[Event],
        *,
        known_pages: Iterable[str] = (),
        workers: int = 0,
        coverage: Coverage | None = None,
        nodes: Sequence[int] | None = None,
        node_count: int = 1,
        end: float = 0.0,
    ) -> None:
        self.coverage = coverage
        listed = list(events)  # once: a compact Trace decodes an event per read
        order = sorted(range(len(listed)), key=lambda i: listed[i].t) if nodes is not None else []
        self.events: list[Event] = [listed[i] for i in order] if nodes is not None else sorted(listed, key=_time)
        self.times: list[float] = [e.t for e in self.events]
        self.end: float = self.times[-1] if self.times else end
        self.cluster: NodeReplay | None = None
        self._node = 0
        """The node of the event being applied (a cluster's trace)."""
        if nodes is not None:
            if len(nodes) != len(listed):
                raise ValueError(f"{len(nodes)} node tags for {len(listed)} events")
            self.cluster = NodeReplay.build(self.events, [nodes[i] for i in order], max(1, node_count), workers)
            workers *= max(1, node_count)
        self._layout(known_pages)
        self._build_spans(workers)
        self._reset()
        self.series = self._build_series()
        self._reset()

    # -- built once ----------------------------------------------------------

    def _layout(self, known_pages: Iterable[str]) -> None:
        """Every page and host the trace (or the web) mentions, in order of
        first mention, so the drawing keeps its shape while the crawl plays."""
        self.pages: dict[str, UrlStatus] = {}
        self.hosts: dict[str, HostStatus] = {}
        for e in self.events:
            mention = _MENTIONS.get(type(e))
            if mention is not None:
                mention(self, e)
        # progress counts distinct pages: a URL that turned out to be another
        # spelling of a page already fetched is a duplicate, not a page to wait for
        self.discovered_total = sum(1 for e in self.events if isinstance(e, Discovered)) - sum(
            1 for e in self.events if isinstance(e, FetchStarted) and e.duplicate
        )
        identities = {e.page for e in self.events if isinstance(e, FetchStarted) and e.kind == "page"}
        identities.update(self.pages)
        for url in sorted(set(known_pages) - identities):
            self._page(url, host_of_url(url))
        self.page_list: list[UrlStatus] = list(self.pages.values())

    def _page(self, url: str, host: str) -> UrlStatus:
        page = self.pages.get(url)
        if page is None:
            status = self._host(host)
            page = self.pages[url] = UrlStatus(url, host, len(self.pages))
            status.pages.append(page)
        return page

    def _host(self, name: str) -> HostStatus:
        status = self.hosts.get(name)
        if status is None:
            status = self.hosts[name] = HostStatus(name)
        return status

    @_MENTIONS.handles(Discovered)
    def _mention_discovered(self, e: Discovered) -> None:
        self._page(e.url, e.host)

    @_MENTIONS.handles(FetchStarted, FetchFinished, FetchFailed)
    def _mention_fetch(self, e: FetchStarted | FetchFinished | FetchFailed) -> None:
        """A fetch's page and host; its answer names them too, so an answer
        whose start is not in the trace (a trace cut short, or edited) still
        has a page to land on.  The host always (a URL first met under
        another host keeps that one, and the fetch still counts on its own)."""
        self._host(e.host)
        if e.kind == "page":
            self._page(e.url, e.host)

    @_MENTIONS.handles(HostDeferred, RobotsLoaded)
    def _mention_host(self, e: HostDeferred | RobotsLoaded) -> None:
        self._host(e.host)

    @_MENTIONS.handles(Skipped)
    def _mention_skip(self, e: Skipped) -> None:
        """A URL a rule excluded is drawn (skipped); a ``seen`` link, a
        malformed one or another scheme's is not a page of its own."""
        if e.reason in PAGE_SKIPS and "://" in e.url:
            self._page(e.url, host_of_url(e.url))

    def _build_spans(self, workers: int) -> None:
        """Fetch spans per worker lane, sorted by start."""
        open_: dict[int, FetchStarted] = {}
        spans: list[Span] = []
        for e in self.events:
            if isinstance(e, FetchStarted):
                open_[e.fetch_id] = e
                continue
            if isinstance(e, NodeFailed):
                spans.extend(self._lost_spans(open_, e))
                continue
            outcome_of = _SPAN_OUTCOME.get(type(e))
            if outcome_of is None:
                continue
            ended = cast("FetchFinished | FetchFailed", e)
            started = open_.pop(ended.fetch_id, None)
            if started is not None:
                spans.append(_span(started, e.t, outcome_of(started, ended)))
        spans.extend(_span(o, math.inf, "open") for o in open_.values())
        slots = max([workers, *(span.slot + 1 for span in spans)])
        self.lanes: list[list[Span]] = [[] for _ in range(slots)]
        for span in sorted(spans, key=lambda span: (span.start, span.fetch_id)):
            self.lanes[span.slot].append(span)
        self._lane_starts = [[s.start for s in lane] for lane in self.lanes]
        # a lane's fetches never overlap, so their ends are sorted -- in a crawl's
        # trace; an edited one may overlap them, and bisecting needs them sorted
        self._lane_ends = [list(accumulate((s.end for s in lane), max)) for lane in self.lanes]

    def _lost_spans(self, open_: dict[int, FetchStarted], e: NodeFailed) -> list[Span]:
        """The spans a node failure ends: its fetches in flight (removed from ``open_``)."""
        cluster = self.cluster
        if cluster is None:
            return []
        lost = [fid for fid, started in open_.items() if cluster.node_of_slot(started.slot) == e.node]
        return [_span(open_.pop(fid), e.t, "lost") for fid in lost]

    def _build_series(self) -> list[tuple[float, int, int]]:
        """(t, frontier, in flight) after each instant, by replaying once."""
        points: list[tuple[float, int, int]] = [(0.0, 0, 0)]
        i, n = 0, len(self.events)
        apply = self._apply_at if self.cluster is not None else None
        events = self.events
        while i < n:
            t = self.times[i]
            while i < n and self.times[i] == t:
                if apply is None:
                    self._apply(events[i])
                else:
                    apply(i)
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
        self._open_slot: dict[int, tuple[int, str, str]] = {}
        """A cluster's open fetches: fetch id -> (slot, url, host)."""
        if self.cluster is not None:
            self.cluster.reset()
            for page in self.page_list:
                page.node = 0

    def seek(self, t: float) -> None:
        """Make the state that of time ``t`` (every event with time <= t applied)."""
        t = max(0.0, t)
        target = bisect_right(self.times, t)
        if target < self._cursor:
            self._reset()
        if self.cluster is not None:
            for i in range(self._cursor, target):
                self._apply_at(i)
        else:
            apply = _APPLY.get
            for e in self.events[self._cursor : target]:
                handler = apply(type(e))
                if handler is not None:
                    handler(self, e)
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

    def _set(self, page: UrlStatus, state: PageState) -> None:
        old = page.state
        if old == state:
            return
        counts = self.hosts[page.host].counts
        counts[old] -= 1
        counts[state] += 1
        self._counts[old] -= 1
        self._counts[state] += 1
        page.state = state
        if self.cluster is not None and (old == PageState.FRONTIER or state == PageState.FRONTIER):
            self.cluster.frontier_moved(page.node, 1 if state == PageState.FRONTIER else -1)

    def _apply(self, e: Event) -> None:
        """One event's effect on pages, hosts and counters."""
        handler = _APPLY.get(type(e))
        if handler is not None:
            handler(self, e)

    def _apply_at(self, i: int) -> None:
        """Event ``i``'s effect, with its node's (a cluster's trace)."""
        e = self.events[i]
        if self.cluster is not None:
            self._node = self.cluster.nodes[i]
            self.cluster.apply(e, self._node)
        self._apply(e)

    @_APPLY.handles(Discovered)
    def _discovered(self, e: Discovered) -> None:
        page = self.pages[e.url]
        page.parent, page.depth = e.parent, e.depth
        if self.cluster is not None and page.node != self._node:
            if page.state == PageState.FRONTIER:  # queued again by its new owner (a failure moved it)
                self.cluster.frontier_moved(page.node, -1)
                self.cluster.frontier_moved(self._node, 1)
            page.node = self._node
        self._set(page, PageState.FRONTIER)

    @_APPLY.handles(FetchStarted)
    def _fetch_started(self, e: FetchStarted) -> None:
        host = self.hosts[e.host]
        host.in_flight += 1
        host.fetches += 1
        self._in_flight += 1
        self._open[e.fetch_id] = (e.t, e.duplicate)
        if self.cluster is not None:
            self._open_slot[e.fetch_id] = (e.slot, e.url, e.host)
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

    def _end_fetch(self, e: FetchFinished | FetchFailed) -> bool:
        """Close the fetch ``e`` ends (its worker time counted, wasted if it
        was a duplicate fetch); whether it was a duplicate fetch."""
        started = self._open.pop(e.fetch_id, None)
        host = self.hosts[e.host]
        if started is None:
            return False
        self._open_slot.pop(e.fetch_id, None)
        host.in_flight -= 1
        self._in_flight -= 1
        took = e.t - started[0]
        self._busy += took
        if started[1]:
            self._wasted += took
        return started[1]

    def _duplicate_done(self, page: UrlStatus, failure: str) -> None:
        """A duplicate fetch is wasted whatever it answered: drawn and counted
        as one (``failure``: what went wrong besides, if anything)."""
        self._dup_done += 1
        if failure:
            page.note = f"{page.note}; failed: {failure}"
        self._set(page, PageState.DUPLICATE)

    @_APPLY.handles(FetchFinished)
    def _fetch_finished(self, e: FetchFinished) -> None:
        duplicate = self._end_fetch(e)
        if e.kind == "robots":
            return
        page = self.pages[e.url]
        page.links, page.new_links = e.links, e.new_links
        if duplicate:
            self._duplicate_done(page, f"HTTP {e.status}" if e.status >= 400 else "")
        elif e.duplicate_of:
            self._content_dups += 1
            page.note = f"same content as {e.duplicate_of}"
            self._set(page, PageState.DUPLICATE)
        elif e.status >= 400:
            page.note = f"HTTP {e.status}"
            self._set(page, PageState.FAILED)
        else:
            self._set(page, PageState.DONE)

    @_APPLY.handles(FetchFailed)
    def _fetch_failed(self, e: FetchFailed) -> None:
        duplicate = self._end_fetch(e)
        if e.kind == "robots":
            return
        page = self.pages[e.url]
        if e.final and duplicate:
            self._duplicate_done(page, e.reason)
        elif e.final:
            page.note = f"failed: {e.reason}"
            self._set(page, PageState.FAILED)
        else:
            page.note = f"{e.reason}, retrying"
            self._set(page, PageState.FRONTIER)

    @_APPLY.handles(Skipped)
    def _skipped(self, e: Skipped) -> None:
        if e.reason == "cap":
            self._capped += 1
        elif e.reason in PAGE_SKIPS and e.url in self.pages:
            page = self.pages[e.url]
            if page.state in (PageState.UNDISCOVERED, PageState.FRONTIER):
                page.note = f"skipped: {e.reason}"
                self._set(page, PageState.SKIPPED)

    @_APPLY.handles(RetryScheduled)
    def _retry_scheduled(self, e: RetryScheduled) -> None:
        self._retries += 1
        retrying = self.pages.get(e.url)
        if retrying is not None:
            retrying.note = f"retry #{e.attempt} at {e.at:.1f} s ({e.reason})"

    @_APPLY.handles(HostDeferred)
    def _host_deferred(self, e: HostDeferred) -> None:
        host = self._host(e.host)
        host.deferred_until = e.until
        host.deferred_reason = e.reason

    @_APPLY.handles(RobotsLoaded)
    def _robots_loaded(self, e: RobotsLoaded) -> None:
        host = self._host(e.host)
        host.robots = str(e.status) if e.status else "unreachable"
        host.crawl_delay = e.crawl_delay

    @_APPLY.handles(NodeFailed)
    def _node_failed(self, e: NodeFailed) -> None:
        """A node stopped: its fetches in flight end unanswered and the pages
        it had queued are lost with it (until some node queues them again)."""
        cluster = self.cluster
        if cluster is None:
            return
        why = f"lost with node {e.node}"
        for fid, (slot, url, host) in list(self._open_slot.items()):
            if cluster.node_of_slot(slot) != e.node:
                continue
            start, duplicate = self._open.pop(fid)
            del self._open_slot[fid]
            self.hosts[host].in_flight -= 1
            self._in_flight -= 1
            self._busy += e.t - start
            if duplicate:
                self._wasted += e.t - start
            page = self.pages.get(url)
            if page is not None and page.state == PageState.IN_FLIGHT:
                page.note = why
                self._set(page, PageState.UNDISCOVERED)
        for page in self.page_list:
            if page.node == e.node and page.state == PageState.FRONTIER:
                page.note = why
                self._set(page, PageState.UNDISCOVERED)

    @_APPLY.handles(Done)
    def _done_event(self, e: Done) -> None:
        """The crawl is over: pages it never reached say why they were lost."""
        self._done = True
        lost_pages = self.coverage.lost if self.coverage is not None else None
        for item in lost_pages or ():
            lost = self.pages.get(item.page)
            if lost is not None and lost.state == PageState.UNDISCOVERED:
                lost.note = f"lost: {item.reason}"

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
            workers=len(self.lanes),
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


def _span(started: FetchStarted, end: float, outcome: str) -> Span:
    s = started
    return Span(s.fetch_id, s.slot, s.t, end, s.url, s.host, s.kind, s.duplicate, outcome)


@_SPAN_OUTCOME.handles(FetchFinished)
def _finished_outcome(started: FetchStarted, e: FetchFinished) -> str:
    if started.kind == "robots":
        return "robots"
    if started.duplicate or e.duplicate_of:
        return "duplicate"
    return "failed" if e.status >= 400 else "ok"


@_SPAN_OUTCOME.handles(FetchFailed)
def _failed_outcome(started: FetchStarted, e: FetchFailed) -> str:
    return "failed" if e.final else "retry"


def describe_event(e: Event, host_width: int = 0) -> str:
    """One short line for the event log."""
    line = _LOG_LINE.get(type(e))
    return line(e) if line is not None else type(e).__name__


def _fetched_what(e: FetchStarted | FetchFinished) -> str:
    return "robots.txt" if e.kind == "robots" else host_and_path(e.url, e.host)


@_LOG_LINE.handles(Discovered)
def _discovered_line(e: Discovered) -> str:
    return f"found   {host_and_path(e.url, e.host)} (depth {e.depth})"


@_LOG_LINE.handles(FetchStarted)
def _started_line(e: FetchStarted) -> str:
    extra = " DUPLICATE" if e.duplicate else (f" try {e.attempt}" if e.attempt > 1 else "")
    return f"start   w{e.slot + 1} {_fetched_what(e)}{extra}"  # w1..wN, as every view numbers workers


@_LOG_LINE.handles(FetchFinished)
def _finished_line(e: FetchFinished) -> str:
    links = f", {counted(e.links, 'link')} ({e.new_links:,} new)" if e.kind == "page" and e.status < 400 else ""
    dup = f", copy of {e.duplicate_of}" if e.duplicate_of else ""
    return f"done    {_fetched_what(e)} {e.status}{links}{dup}"


@_LOG_LINE.handles(FetchFailed)
def _failed_line(e: FetchFailed) -> str:
    return f"{'FAILED' if e.final else 'failed'}  {host_and_path(e.url, e.host)}: {e.reason}"


@_LOG_LINE.handles(RetryScheduled)
def _retry_line(e: RetryScheduled) -> str:
    return f"retry   {host_and_path(e.url, e.host)} #{e.attempt} at {e.at:.1f} s"


@_LOG_LINE.handles(HostDeferred)
def _deferred_line(e: HostDeferred) -> str:
    return f"next    {e.host} not before {e.until:.1f} s ({e.reason})"  # logged with the start it follows


@_LOG_LINE.handles(RobotsLoaded)
def _robots_line(e: RobotsLoaded) -> str:
    delay = f", Crawl-delay {e.crawl_delay:g} s" if e.crawl_delay else ""
    return f"robots  {e.host} {e.status}{delay}"


@_LOG_LINE.handles(Skipped)
def _skipped_line(e: Skipped) -> str:
    return f"skip    {e.url} ({e.reason})"


@_LOG_LINE.handles(Done)
def _done_line(e: Done) -> str:
    # Done.pages counts URLs queued (spellings), not pages: say so
    return f"DONE    {counted(e.pages, 'URL')} queued, {counted(e.fetches, 'fetch')}"


@_LOG_LINE.handles(MessageSent)
def _sent_line(e: MessageSent) -> str:
    return f"send    {node_label(e.src)} -> {node_label(e.dst)}: {counted(e.links, 'link')} ({e.size:,} bytes)"


@_LOG_LINE.handles(MessageDelivered)
def _delivered_line(e: MessageDelivered) -> str:
    if e.lost:
        lost = f"{counted(e.links, 'link')} ({node_label(e.dst)} is down)"
        return f"LOST    {node_label(e.src)} -> {node_label(e.dst)}: {lost}"
    return f"receive {node_label(e.src)} -> {node_label(e.dst)}: {counted(e.links, 'link')}"


@_LOG_LINE.handles(NodeFailed)
def _failed_node_line(e: NodeFailed) -> str:
    return f"DOWN    {node_label(e.node)} failed: {counted(e.lost, 'URL')} lost"


@_LOG_LINE.handles(NodeRecovered)
def _recovered_line(e: NodeRecovered) -> str:
    since = f"from its checkpoint at {e.restored_from:.1f} s" if e.restored_from is not None else "empty"
    return f"UP      {node_label(e.node)} is back, {since}"


__all__ = [
    "LARGE_PAGES",
    "STATE_LABELS",
    "Counters",
    "EventTable",
    "HostStatus",
    "PageState",
    "Replay",
    "Span",
    "UrlStatus",
    "describe_event",
    "duplicates_text",
    "fetched_text",
    "short_url",
]
