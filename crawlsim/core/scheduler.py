"""The crawl scheduler: the one copy of the crawl algorithm.

It is sans-I/O, in the manner of h11 and aioquic: it never reads a clock and
never touches the network.  A driver feeds it seeds and results, each with
the time ``now`` by the driver's own clock, and asks it what may start::

    sched = Scheduler(options)
    sched.add_seeds(["http://a.com/"], now=0.0)
    while not sched.done:
        for fetch in sched.poll(now):          # start these
            ...
        wake = sched.next_wakeup()             # or sleep until this time
        ...
        sched.on_response(fetch.id, now, status=200, links=[...])

The invariant it keeps: a page URL is marked seen when it is discovered,
never when it is fetched.  So every page URL in the frontier, in flight or
waiting for a retry is already in the seen set, and a link to a seen URL is
never queued a second time.  (Two entries are not links and are not in the
seen set: a host's robots.txt, queued once when the host is first met; and a
retry, which puts the *same* entry back after its backoff.)  The crawl is
done when the frontier is empty *and* nothing is in flight *and* no retry is
pending; any one alone is not enough.

Theory of operation
-------------------

The scheduler is a few parts, each a small class with its invariant in its
docstring; :class:`Scheduler` owns the seen set, the scope, the caps and the
hosts, and moves URLs between the parts:

=====================  ======================================================
part                   holds
=====================  ======================================================
frontier               queued entries per host, and which host may go next
                       (:mod:`crawlsim.core.frontier`)
``CrawlOrder``         the queue keys of the crawl's order (bfs, dfs, best)
                       (:mod:`crawlsim.core.frontier`)
``DownloadSlots``      the frontier as Scrapy's queue and download slots
                       (:mod:`crawlsim.core.download_slots`)
``RetryQueue``         failed fetches waiting for their retry time
                       (:mod:`crawlsim.core.retry`)
``WorkerSlots``        the worker lanes, lowest free first
                       (:mod:`crawlsim.core.slots`)
``RobotsGate``         each host's robots.txt status and policy
                       (:mod:`crawlsim.core.gate`)
``PageLedger``         true page identity, duplicates, failures
                       (:mod:`crawlsim.core.ledger`)
``Politeness``         when a host may start next, and why: each rule
                       (gap, Crawl-delay, Retry-After, ...)
                       (:mod:`crawlsim.core.politeness`)
=====================  ======================================================

A URL's lifecycle.  Every state but the first has one container; every
transition is made by one method (and announced by the event named):

=================  ================  ===================================  ====================
from               to                method (event)                       when
=================  ================  ===================================  ====================
written on a page  skipped           ``_canonical_link`` (Skipped),       malformed, not
                                     for a link or a seed                 http(s)
canonical          skipped           ``_accept`` (Skipped)                already seen
not seen           skipped           ``_admit`` (Skipped)                 depth, cap, scope,
                                                                          robots (the gate)
not seen           queued            ``_admit`` (Discovered)              passes every check;
                                                                          now in the seen set
queued             in flight         ``poll`` -> ``_start``               its host is READY
                                     (FetchStarted)                       and a worker free
queued             skipped           ``RobotsGate`` on load, or           its host's
                                     ``_start`` (Skipped robots)          robots.txt forbids
in flight          done              ``on_response`` -> ``_finished``     a status that is
                                     (FetchFinished)                      not retried
in flight          retry pending     ``_retry`` (FetchFailed not final,   transient error or
                                     RetryScheduled)                      retry status, tries
                                                                          left
retry pending      queued            ``poll`` -> ``_release_retries``     its time has come
in flight          failed            ``_fail_finally`` (FetchFailed       retries spent, not
                                     final); ``on_response``              transient; HTTP
                                     (FetchFinished, status >= 400)       >= 400
=================  ================  ===================================  ====================

A host, meanwhile, is filed in the frontier as ``READY`` (may start now),
``WAITING`` (until its ``ready_at``: a politeness rule holds it) or
``UNFILED`` (nothing queued, at its ``per_host`` limit, or its robots.txt
``PENDING``); see :mod:`crawlsim.core.states`.  Every rule that
sets a host's ``ready_at`` is the ``Politeness`` part's
(:mod:`crawlsim.core.politeness`): ``_start`` tells it of each start on a
``polite`` host, and it emits the ``HostDeferred``; the frontier's
``reconsider`` re-files the host whenever its queue, in-flight count or
ready time changes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from crawlsim.core.admission import Admission
from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchKind,
    FetchStarted,
    RetryScheduled,
    Skipped,
    SkipReason,
)
from crawlsim.core.fetch import CrawlStats, Fetch
from crawlsim.core.download_slots import DownloadSlots, Frontier
from crawlsim.core.frontier import CrawlOrder, Entry, HostState, PerHostFrontier, SingleQueueFrontier
from crawlsim.core.gate import RobotsGate
from crawlsim.core.ledger import PageLedger
from crawlsim.core.options import CrawlOptions
from crawlsim.core.plain import check_headers, checked_status, materialize, plain_number, plain_str, plain_texts, short
from crawlsim.core.politeness import Politeness
from crawlsim.core.refusals import SchedulerBusy, UnknownFetch
from crawlsim.core.retry import RetryQueue, backoff_delay, retry_after_of
from crawlsim.core.scope import Scope
from crawlsim.core.seen import fast_ops, make_seen
from crawlsim.core.slots import WorkerSlots
from crawlsim.core.states import RobotsEntry
from crawlsim.core.urls import (
    CanonicalizeError,
    already_canonical_test,
    canonical_is_fixpoint,
    canonical_or_raise,
    host_key,
)

__all__ = ["Scheduler", "SchedulerBusy", "UnknownFetch"]

_InFlight = tuple[Fetch, Entry, HostState]
"""A fetch handed out and not yet answered, with its frontier entry (queued
again as it is for a retry) and its host."""
_Response = tuple[_InFlight, float, int, Sequence[object], float | None, str | None, str | None, str | None]
"""A response's arguments checked: fetch, now, status, links, Retry-After, body, content, final URL."""

_INF = float("inf")
_MAX_FLOAT = 1.7976931348623157e308


class Scheduler:
    """Frontier, seen set, scope, politeness, robots.txt, retries and caps.

    Its public calls are total: each checks every argument before it changes
    anything, and a bad call raises ``TypeError``/``ValueError`` (or
    :class:`UnknownFetch`, a ``KeyError``) naming the argument, leaving the
    scheduler exactly as it was.  ``now`` is a finite real number that never
    goes back; ``status`` an int in 100-599; ``links`` and seeds an iterable
    other than a string, whose non-string entries are skipped as
    ``malformed`` with an event each.

    Every caller value passes through :mod:`crawlsim.core.plain` on the way
    in, whose ``type()`` checks (not ``isinstance``) turn a ``str``/``int``
    subclass into the plain value and refuse a ``bool`` where a number is
    due; past that edge the scheduler's values are plain.
    """

    def __init__(
        self,
        options: CrawlOptions | None = None,
        *,
        page_of: Callable[[str], str] | None = None,
        route: Callable[[str, Sequence[object], int, float], Sequence[object]] | None = None,
    ) -> None:
        self.options = opts = options or CrawlOptions()
        self._route = route
        """``route(base, links, depth, now)``, called when a response's links
        are about to be followed (not for a retried or content-duplicate
        response): returns the links this scheduler admits itself.  A node of
        a distributed crawl passes one that sends the others to their owner
        nodes (:mod:`crawlsim.cluster`); None: every link is admitted here."""
        self.stats = CrawlStats()
        self._events: list[Event] = []
        self._record = opts.record_events
        self._init_links(opts)
        self._init_limits(opts)
        self._hosts: dict[str, HostState] = {}
        """Host key -> its state (the per-host queues live in it)."""
        self._frontier: Frontier = (
            PerHostFrontier(self._per_host) if opts.frontier == "per-host"
            else SingleQueueFrontier(self._per_host) if opts.frontier == "fifo"
            else DownloadSlots(self._per_host, one_queue=opts.frontier == "download-slots-one-queue")
        )
        self._in_flight: dict[int, _InFlight] = {}
        """Fetch id -> the fetch handed out and not yet answered, with its key and host."""
        self._slots = WorkerSlots()
        self._retries = RetryQueue()
        self._attempts: dict[str, int] = {}
        """URL -> attempts made so far, for URLs that were retried."""
        self._rng = random.Random(opts.seed)
        """One stream for retry jitter and gap randomisation, in call order."""
        self._politeness = Politeness(opts, self._rng, self._emit)
        self._robots = RobotsGate(opts, self._frontier, self._emit, self._skip, self._politeness)
        self._pages = PageLedger(opts, self.stats, page_of)
        self._next_id = 0
        self._done_emitted = False
        self._open: Admission | None = None
        """The response whose links are being admitted step by step, if any."""
        self._now = -_MAX_FLOAT
        """The latest ``now`` given: time may stand still, never go back."""

    def _init_links(self, opts: CrawlOptions) -> None:
        """What a link goes through before it is queued: canonicalization,
        the seen set, the scope, and the order of the queue it joins."""
        self._steps = opts.normalize_steps
        self._seen = make_seen(opts.seen, opts.bloom_capacity, opts.bloom_error_rate)
        self._seen_set, self._seen_add = fast_ops(self._seen)
        self._already_canonical = already_canonical_test(self._steps)
        self._seen_are_canonical = canonical_is_fixpoint(self._steps) and opts.seen != "bloom"
        """A link written as a URL in the seen set is that canonical URL: the
        set holds canonical URLs, and under these steps (``rfc3986``) each is
        its own canonical form.  (Not with a Bloom filter, whose false
        positives are not URLs it holds.)"""
        self._scope = Scope(opts.scope, opts.allow, opts.deny)
        self._order = CrawlOrder(opts.order, opts.priority)
        self._batch = 0
        """Seeds and each page's links are one batch each (DFS keys use it)."""

    def _init_limits(self, opts: CrawlOptions) -> None:
        """Options read on every link or fetch, copied once (options are frozen)."""
        self._workers = opts.workers
        self._per_host = opts.per_host or opts.workers
        # (no limit is infinity: every link is compared with it alike)
        self._depth_limit = _INF if opts.depth_limit is None else opts.depth_limit
        self._max_pages = _INF if opts.max_pages is None else opts.max_pages
        self._max_per_host = _INF if opts.max_pages_per_host is None else opts.max_pages_per_host
        self._accepted = 0
        """URLs accepted into the frontier (for max_pages)."""
        self._retry_statuses = frozenset(opts.retry_statuses)

    # ------------------------------------------------------------------ input

    def add_seeds(self, urls: Iterable[str], now: float) -> None:
        """Canonicalize the seeds, put their hosts in scope, and queue them.
        A non-string seed is skipped as ``malformed`` (with an event)."""
        self._check_idle()
        hrefs = materialize(urls, "urls")
        now = self._check_now(now)
        self._now = now
        seeds = []
        for raw in hrefs:
            url = self._canonical_link(raw, None, now)
            if url is not None:
                self._scope.add_seed(url)
                seeds.append(url)
        self._batch += 1
        for url in seeds:
            self._accept(url, None, 0, now)

    def add_scope(self, urls: Iterable[str]) -> None:
        """Put the hosts of ``urls`` in scope without queueing them, as seeds
        would be: one node of a distributed crawl shares the crawl's scope
        but queues only the seeds it owns.  Entries that are not strings or
        not canonical http(s) URLs are ignored (``add_seeds`` reports them)."""
        self._check_idle()
        for raw in materialize(urls, "urls"):
            href = plain_str(raw)
            if href is not None:
                try:
                    self._scope.add_seed(canonical_or_raise(href, None, self._steps))
                except CanonicalizeError:
                    pass

    def add_links(self, base: str, links: Iterable[str], depth: int, now: float) -> int:
        """Links found on page ``base`` (fetched at discovery depth ``depth``)
        by another crawler process: canonicalized, deduplicated against the
        seen set and admitted exactly as a response's links are (the same
        per-link loop and events, with ``base`` as their parent).  Returns how
        many were queued.  Checks every argument first, like ``on_response``."""
        self._check_idle()
        hrefs = materialize(links, "links")
        page = plain_str(base)
        if page is None:
            raise TypeError(f"base: expected the URL of the page the links were found on, got {short(base)}")
        level = plain_number(depth)
        if type(level) is not int or level < 0:  # type: ignore[operator]
            raise ValueError(f"depth: expected the page's depth, an int >= 0, got {short(depth)}")
        now = self._check_now(now)
        self._now = now
        return self._expand(page, hrefs, level, now)  # type: ignore[arg-type]

    def poll(self, now: float) -> list[Fetch]:
        """Every fetch that may start at ``now``, within all limits: retries
        whose time has come rejoin the frontier, then the frontier's best
        entries start while a worker is free."""
        self._check_idle()
        self._now = now = self._check_now(now)
        self._release_retries(now)
        started: list[Fetch] = []
        while len(self._in_flight) < self._workers:
            picked = self._frontier.pop(now, self._workers - len(self._in_flight))
            if picked is None:
                break
            host, entry = picked
            fetch = self._start(host, entry, now)
            if fetch is not None:
                started.append(fetch)
        self._maybe_done(now)
        return started

    def next_wakeup(self) -> float | None:
        """When something becomes startable without any fetch finishing, or None
        (nothing is time-blocked, or every worker is busy)."""
        if len(self._in_flight) >= self._workers:
            return None
        times = [at for at in (self._frontier.next_time(), self._retries.next_at()) if at is not None]
        return min(times, default=None)

    def on_response(
        self,
        fetch_id: int,
        now: float,
        *,
        status: int = 200,
        links: Iterable[str] = (),
        headers: Mapping[str, str] | None = None,
        body: str | None = None,
        content: str | None = None,
        final_url: str | None = None,
    ) -> None:
        """A fetch got an HTTP response.  ``links`` are hrefs as written on the
        page (resolved against ``final_url`` or the fetched URL); ``body`` is
        the robots.txt text for a robots fetch; ``content`` the page text for
        content fingerprints.  Every argument is checked before anything changes."""
        self._check_idle()
        flight, now, status, hrefs, retry_after, body, content, final_url = self._checked_all(
            fetch_id, now, status, links, headers, body, content, final_url
        )
        self._respond(flight, now, status, hrefs, retry_after, body, content, final_url)

    def _checked_all(
        self, fetch_id: object, now: object, status: object = 200, links: object = (), headers: object = None,
        body: object = None, content: object = None, final_url: object = None,
    ) -> _Response:  # fmt: skip
        """Every argument of ``on_response`` checked, as :meth:`_respond` takes them."""
        flight, now, status, hrefs = self._checked_response(fetch_id, now, status, links)
        retry_after, (body, content, final_url) = self._checked_extras(status, headers, body, content, final_url)
        return flight, now, status, hrefs, retry_after, body, content, final_url  # type: ignore[return-value]

    def _respond(
        self, flight: _InFlight, now: float, status: int, hrefs: Sequence[object], retry_after: float | None,
        body: str | None, content: str | None, final_url: str | None,
    ) -> None:  # fmt: skip
        """:meth:`on_response` once its arguments are checked: from here on, state changes."""
        opened = self._respond_head(flight, now, status, hrefs, retry_after, body, content, final_url)
        if opened is not None:
            base, follow, duplicate_of = opened
            new = 0 if follow is None else self._expand(base, follow, flight[0].depth, now)
            self._respond_tail(flight, now, status, len(hrefs), new, duplicate_of)

    def _respond_head(
        self, flight: _InFlight, now: float, status: int, hrefs: Sequence[object], retry_after: float | None,
        body: str | None, content: str | None, final_url: str | None,
    ) -> tuple[str, Sequence[object] | None, str | None] | None:  # fmt: skip
        """A response up to its links: the fetch out of flight, a retry or a
        robots.txt handled in full (None: nothing is left to do), else the
        page recorded and ``(base, links to admit or None, duplicate_of)``."""
        self._now = now
        host = self._finish(flight)
        if status in self._retry_statuses and self._retry_response(flight, host, status, retry_after, now):
            return None
        fetch = flight[0]
        if fetch.kind == "robots":
            self._robots.answered(host, status, body, now)
            self._finished(now, fetch, status, 0, 0, None)
            return None
        self._pages.record(fetch, f"HTTP {status}" if status >= 400 else None)
        duplicate_of = None
        if content is not None and status < 400 and self._pages.dedup_content:
            duplicate_of = self._pages.content_duplicate(fetch.url, content)
        if duplicate_of is not None:
            return fetch.url, None, duplicate_of
        base = final_url or fetch.url
        return base, hrefs if self._route is None else self._route(base, hrefs, fetch.depth, now), None

    def _respond_tail(self, flight: _InFlight, now: float, status: int, links: int, new: int, dup: str | None) -> None:
        """A page's response after its links: announced (FetchFinished), its host re-filed."""
        self._finished(now, flight[0], status, links, new, dup)
        self._frontier.reconsider(flight[2], now)

    def begin_response(self, fetch_id: int, now: float, **response: Any) -> Admission:
        """:meth:`on_response` (its arguments, checked alike), the links then admitted
        :meth:`Admission.step` by step: stepped to its end it is ``on_response`` (the same
        state, the same events in order at ``now``), only split so a driver can look at
        its clock between steps.  While it is open, calls that change the scheduler raise
        :class:`SchedulerBusy` (see :mod:`crawlsim.core.admission`)."""
        self._check_idle()
        checked = self._checked_all(fetch_id, now, **response)
        flight, now, status, hrefs = checked[:4]
        opened = self._respond_head(*checked)
        if opened is None:  # a retry or a robots.txt: wholly handled already
            return Admission(flight[0].url, 0, None, None, None)
        base, follow, duplicate_of = opened
        depth, links = flight[0].depth, len(hrefs)
        follow = None if follow is None else tuple(follow)  # a route's list may change meanwhile

        def expand(part: Sequence[object], first: bool) -> int:
            return self._expand(base, part, depth, now, new_batch=first)

        def end(new: int, cut: bool) -> None:
            self._open = None
            if not cut:
                self._respond_tail(flight, now, status, links, new, duplicate_of)
                return
            fetch = flight[0]  # links dropped: announced, but no Done (the crawl was cut, not finished)
            self._emit(FetchFinished, now, fetch.id, fetch.url, fetch.host, fetch.kind, status, links, new, None)
            self._frontier.reconsider(flight[2], now)

        admission = Admission(flight[0].url, links, follow, expand, end)
        self._open = None if admission.finished else admission
        return admission

    def _check_idle(self) -> None:
        """Raise :class:`SchedulerBusy` while a response's links are being admitted."""
        if self._open is not None:
            raise SchedulerBusy(self._open.url)

    def _checked_response(
        self, fetch_id: object, now: object, status: object, links: object
    ) -> tuple[_InFlight, float, int, Sequence[object]]:
        """``on_response``'s fetch, time, status and links checked, as plain
        values: the fetch in flight, ``now``, ``status`` and the links as a
        list.  Raises, changing nothing, on a bad argument."""
        flight = self._flight_of(fetch_id)
        if flight is None:
            raise UnknownFetch(fetch_id)
        return flight, self._check_now(now), checked_status(status), materialize(links, "links")

    def _checked_extras(
        self, status: int, headers: object, body: object, content: object, final_url: object
    ) -> tuple[float | None, tuple[str | None, ...]]:
        """The Retry-After to honour (when ``status`` is retried) and the
        texts as plain strings; raises, changing nothing, on a bad one."""
        texts: tuple[str | None, ...] = (None, None, None)  # a plain page's case: none given
        if body is not None or content is not None or final_url is not None:
            texts = plain_texts(body=body, content=content, final_url=final_url)
        if status in self._retry_statuses:
            return retry_after_of(headers), texts
        if headers is not None:
            check_headers(headers)
        return None, texts

    def _retry_response(
        self, flight: _InFlight, host: HostState, status: int, retry_after: float | None, now: float
    ) -> bool:
        """A response with a retried status (429, 503, ...): retry it, honouring
        Retry-After for the whole host, or fail it when Retry-After is too long.
        False when its retries are spent: the response then counts as it is."""
        if retry_after is not None and retry_after > self.options.max_retry_after:
            self._fail_finally(flight, now, "retry-after too long")
            if not self._in_flight:
                self._maybe_done(now)
            return True
        if retry_after is not None:
            self._politeness.retry_after(host, now, retry_after)
        if self._retry(flight, now, f"HTTP {status}", retry_after):
            self._frontier.reconsider(host, now)
            return True
        return False

    def on_error(self, fetch_id: int, now: float, reason: str, *, transient: bool = True) -> None:
        """A fetch failed without a usable response (timeout, reset, garbage).
        Transient errors are retried with backoff; the rest fail the page."""
        self._check_idle()
        flight = self._flight_of(fetch_id)
        if flight is None:
            raise UnknownFetch(fetch_id)
        now = self._check_now(now)
        text = plain_str(reason)
        if text is None:
            raise TypeError(f"reason: expected a string, got {short(reason)}")
        reason = text
        if type(transient) is not bool:
            raise TypeError(f"transient: expected true or false, got {short(transient)}")
        self._now = now
        host = self._finish(flight)
        if transient and self._retry(flight, now, reason, None):
            self._frontier.reconsider(host, now)
            return
        self._fail_finally(flight, now, reason)

    def _fail_finally(self, flight: _InFlight, now: float, reason: str) -> None:
        """A fetch (already out of flight) will not be retried: the page is
        recorded as failed; a robots.txt that cannot be had means
        "disallow all" (RFC 9309)."""
        fetch, _, host = flight
        self._emit(FetchFailed, now, fetch.id, fetch.url, fetch.host, fetch.kind, reason, True)
        if fetch.kind == "robots":
            self._robots.unreachable(host, now)
        else:
            self._pages.record(fetch, reason)
            self._frontier.reconsider(host, now)

    # ------------------------------------------------------------- checks

    def _flight_of(self, fetch_id: object) -> _InFlight | None:
        plain = plain_number(fetch_id)
        if type(plain) is not int:
            raise TypeError(f"fetch_id: expected the int id of a fetch, got {short(fetch_id)}")
        return self._in_flight.get(plain)  # type: ignore[arg-type]

    def _check_now(self, now: object) -> float:
        """``now`` as a plain number: it must be a finite real number, not
        before the latest one given."""
        plain = plain_number(now)
        if plain is None:
            raise TypeError(f"now: expected a number (int or float), got {short(now)}")
        if not -_MAX_FLOAT <= plain <= _MAX_FLOAT:  # NaN, infinities, ints beyond float
            raise ValueError(f"now: expected a finite number, got {short(plain)}")
        if plain < self._now:
            raise ValueError(f"now: expected a time >= {self._now!r} (time never goes back), got {plain!r}")
        return plain

    # ----------------------------------------------------------------- output

    def drain_events(self) -> list[Event]:
        """Events since the last drain, oldest first."""
        events, self._events = self._events, []
        return events

    @property
    def done(self) -> bool:
        return not self._in_flight and not len(self._frontier) and not len(self._retries)

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def frontier_size(self) -> int:
        return len(self._frontier)

    @property
    def pending_retries(self) -> int:
        """Retries scheduled and not yet back in the frontier."""
        return len(self._retries)

    @property
    def failures(self) -> dict[str, str]:
        """Pages recorded as failed, with the reason (they still count as found)."""
        return self._pages.failures

    @property
    def content_duplicate_of(self) -> dict[str, str]:
        """Page URL -> the URL whose content it repeats (content dedup on)."""
        return self._pages.content_duplicate_of

    @property
    def robots_blocked(self) -> set[str]:
        """URLs found but disallowed by their host's robots.txt."""
        return self._robots.blocked

    def frontier_urls(self) -> list[str]:
        """Every page URL waiting in the frontier or for a retry, sorted
        (robots.txt fetches not included; for views and tests: it walks the
        whole frontier)."""
        entries = self._frontier.entries(list(self._hosts.values())) + self._retries.entries()
        return sorted(e[1] for e in entries if not isinstance(e, RobotsEntry))

    @property
    def politeness(self) -> Politeness:
        """The politeness part: a driver that sends requests itself asks it how
        to space them on the wire (:meth:`Politeness.pace`)."""
        return self._politeness

    def host_states(self) -> dict[str, HostState]:
        """Per-host politeness state, read-only by convention (views show it)."""
        return self._hosts

    def found(self) -> list[str]:
        """Sorted canonical URLs found: queued or fetched, failed ones included,
        robots-disallowed ones excluded.  Needs the ``exact`` seen set."""
        urls = getattr(self._seen, "_urls", None)
        if urls is None:
            raise RuntimeError("found() needs seen='exact'; hash and bloom sets cannot list their URLs")
        blocked = self._robots.blocked
        # (not sorted(urls - blocked): that copies the whole seen set, a traced run's memory peak)
        return sorted(urls) if not blocked else [url for url in sorted(urls) if url not in blocked]

    # -------------------------------------------------------------- internals

    def _emit(self, event_type: type[Event], now: float, *fields: object) -> None:
        """Announce an event: ``event_type(now, *fields)``, built only when
        events are recorded (:data:`crawlsim.trace.events.Emit`)."""
        if self._record:
            self._events.append(event_type(now, *fields))

    def _skip(self, now: float, url: str, parent: str | None, reason: SkipReason, href: str = "") -> None:
        """A URL is not queued, for ``reason``: counted, and announced."""
        self.stats.skipped[reason] += 1
        self._emit(Skipped, now, url, parent, reason, href)

    def _host(self, url: str) -> HostState:
        """The state of ``url``'s host; on first sight, the gate queues its
        robots.txt first."""
        name = host_key(url)
        host = self._hosts.get(name)
        if host is None:
            host = self._hosts[name] = HostState(name, polite=self._politeness.every_host)
            self._robots.first_sight(host, url[: url.index(":")], self._now)
        return host

    def _canonical_link(self, href: object, base: str | None, now: float) -> str | None:
        """The canonical URL of a link (or seed) as written, or None when it
        is skipped (an event): not a string (``malformed``), or not an
        http(s) URL.  Most links on a large web are to pages already seen,
        and written canonical: a set lookup tells the first (when seen URLs
        are canonical forms), one regex match the second (when the steps
        allow it), where a parse costs several times more."""
        text = plain_str(href)
        if text is None:
            self._skip(now, short(href), base, "malformed", short(href))
            return None
        if self._seen_are_canonical and text in self._seen_set:
            return text
        if self._already_canonical is not None and self._already_canonical(text) is not None:
            return text
        try:
            return canonical_or_raise(text, base, self._steps)
        except CanonicalizeError as err:
            self._skip(now, text, base, err.reason, text)  # type: ignore[arg-type]
            return None

    def _accept(self, url: str, parent: str | None, depth: int, now: float) -> bool:
        """The seen set's check (the one a crawl makes most), then
        :meth:`_admit`'s; True if ``url`` was queued."""
        if url in self._seen_set:
            self._skip(now, url, parent, "seen")
            return False
        if not self._admit(url, parent, depth, now):
            return False
        self.stats.peak_frontier = max(self.stats.peak_frontier, self._frontier.size)
        return True

    def _admit(self, url: str, parent: str | None, depth: int, now: float) -> bool:
        """The checks after the seen set's (``url`` is not in it): depth, cap,
        scope, per-host cap, robots.txt; queue it if it passes (it is seen
        from then on, and a URL robots.txt refuses is seen too: never asked again)."""
        if depth > self._depth_limit:
            self._skip(now, url, parent, "depth")
            return False
        if self._accepted >= self._max_pages:
            self._skip(now, url, parent, "cap")
            return False
        if not self._scope.allows(url):
            self._skip(now, url, parent, "scope")
            return False
        host = self._host(url)
        if host.pages >= self._max_per_host:
            self._skip(now, url, parent, "cap")
            return False
        self._seen_add(url)
        if self._robots.refuses(host, url, parent, now):
            return False
        self._accepted += 1
        host.pages += 1
        self.stats.discovered += 1
        self._emit(Discovered, now, url, host.name, depth, parent)
        self._frontier.push(host, (self._order.key(url, depth, self._batch), url, depth), now)
        return True

    def _expand(self, base: str, links: Sequence[object], depth: int, now: float, new_batch: bool = True) -> int:
        """Canonicalize, filter and queue the links of one page (or, with
        ``new_batch`` false, the next part of the page whose first part
        opened the batch: :class:`Admission`); returns how many were queued."""
        if new_batch:
            self._batch += 1
        new = 0
        for href in links:
            url = self._canonical_link(href, base, now)
            if url is not None and self._accept(url, base, depth + 1, now):
                new += 1
        return new

    def _start(self, host: HostState, entry: Entry, now: float) -> Fetch | None:
        """Hand out the fetch of ``entry`` (just taken from ``host``'s queue),
        unless its host's robots.txt forbids it."""
        _, url, depth = entry
        kind: FetchKind = "robots" if isinstance(entry, RobotsEntry) else "page"
        if kind == "page" and self._robots.refuses(host, url, None, now):
            self._frontier.reconsider(host, now)
            return None
        page, duplicate = self._count_start(url, kind)
        self._next_id += 1
        attempt = self._attempts.get(url, 0) + 1
        fetch = Fetch(self._next_id, url, host.name, kind, depth, attempt, self._slots.take(), duplicate)
        host.in_flight += 1
        if host.polite:  # (no rule can hold a host that is not)
            self._politeness.started(host, now)
        self._frontier.reconsider(host, now)  # pop() left it unfiled
        self._in_flight[fetch.id] = (fetch, entry, host)
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, len(self._in_flight))
        self._emit(FetchStarted, now, fetch.id, url, host.name, kind, depth, attempt, fetch.slot, page, duplicate)
        return fetch

    def _count_start(self, url: str, kind: FetchKind) -> tuple[str, bool]:
        """Count a fetch of ``url`` starting; returns its page's true identity
        and whether that page was fetched before under another spelling."""
        if kind == "robots":
            self.stats.robots_fetches += 1
            return url, False
        self.stats.fetches += 1
        return self._pages.identity(url)

    def _finish(self, flight: _InFlight) -> HostState:
        """Take a fetch out of flight (it got an answer): its lane is free, its
        host has one request fewer in flight, and the frontier hears of the free
        worker before the page's links are queued.  Returns the host."""
        fetch, _, host = flight
        del self._in_flight[fetch.id]
        self._slots.give_back(fetch.slot)
        host.in_flight -= 1
        self._frontier.freed(self._workers - len(self._in_flight))
        return host

    def _retry(self, flight: _InFlight, now: float, reason: str, retry_after: float | None) -> bool:
        """Schedule another attempt of a failed fetch, after Retry-After or a
        backoff; False when its retries are spent."""
        fetch, entry, _ = flight
        if fetch.attempt > self.options.max_retries:
            return False
        delay = retry_after
        if delay is None:
            delay = backoff_delay(fetch.attempt, self.options.backoff_base, self.options.backoff_max, self._rng)
        at = now + delay
        self._attempts[fetch.url] = fetch.attempt
        self.stats.retries += 1
        self._emit(FetchFailed, now, fetch.id, fetch.url, fetch.host, fetch.kind, reason, False)
        self._emit(RetryScheduled, now, fetch.url, fetch.host, fetch.attempt + 1, at, reason)
        self._retries.add(at, fetch.id, fetch.host, entry)
        return True

    def _release_retries(self, now: float) -> None:
        """Retries whose time has come go back to their host's queue."""
        for host_name, entry in self._retries.due(now):
            self._frontier.push(self._hosts[host_name], entry, now)

    def _finished(self, now: float, fetch: Fetch, status: int, links: int, new: int, dup: str | None) -> None:
        """Announce a fetch's response (and the crawl's end, if it was the last)."""
        self._emit(FetchFinished, now, fetch.id, fetch.url, fetch.host, fetch.kind, status, links, new, dup)
        self._maybe_done(now)

    def _maybe_done(self, now: float) -> None:
        """Announce the crawl's end (once), when it is done and began at all."""
        if not self._done_emitted and self.done and (self._next_id or self._accepted or self.stats.skipped):
            self._done_emitted = True
            self._emit(Done, now, self._accepted, self.stats.fetches)
