"""Narration: each core event as one sentence of *why*.

The narrator explains decisions the scheduler already made; it makes none.
Its state (fetches in flight per host, the URLs queued per host, the seen
set, when each host may be asked again, whose robots.txt is still awaited)
is replayed from the events themselves, and the run's options only supply
the numbers a sentence quotes (``per_host``, ``workers``, ``depth_limit``,
``max_pages``...).  So "b.com is busy (1/1 in flight): its queue waits" is
what the events say happened, not a second copy of the politeness rule.

``Narrator(options).narrate(event)`` returns the sentence for the next
event of a trace (events must be fed in trace order, one by one);
:func:`narrate_trace` pairs every event of a trace with its time and
sentence, and :func:`narration_line` formats one for ``crawlsim run --narrate``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from crawlsim.trace.events import (
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
from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import SAYS
from crawlsim.views.replay import EventTable, host_and_path, host_of_url
from crawlsim.words import counted

_SAY = EventTable()
"""Narrator methods: event class -> the sentence for it (updating the replayed state)."""

MAX_NAMED_WAITING = 3
"""A start names at most this many other hosts that wait (then "+N more")."""


def seconds(t: float) -> str:
    """A time or duration as the narration prints it: ``3.25`` (3 decimals, no trailing zeros)."""
    text = f"{t:.3f}".rstrip("0").rstrip(".")
    return text or "0"


@dataclass(slots=True)
class _Host:
    """What the events have said about one host so far."""

    name: str
    index: int
    """Its place in order of first mention: sentences name hosts in this order."""
    queued: set[str] = field(default_factory=set)
    retries: dict[str, float] = field(default_factory=dict)
    """URLs whose retry is scheduled, and when: back in the queue from then on."""
    due: set[str] = field(default_factory=set)
    """The retries whose time has come (at or before the latest event's time)."""
    in_flight: int = 0
    until: float = 0.0
    reason: str = ""
    robots_loaded: bool = False

    @property
    def waiting(self) -> int:
        """URLs in its queue now: queued, and retries whose time has come."""
        return len(self.queued) + len(self.due)


class _Waiting:
    """The frontier's size and the hosts whose queues are held, kept as the
    events arrive instead of walked over every host per event.

    A million-page web has thousands of hosts and a sentence per event, so
    walking them all per sentence made narration quadratic.  Here each event
    touches only its own host (and the retries or holds whose time has come,
    through two heaps), so a sentence costs O(log hosts).  ``clock`` is the
    latest event's time; an event earlier than it (a trace out of order)
    rebuilds the counts with one walk, so the answers never depend on order.
    """

    def __init__(self, limit: int | None, robots: bool) -> None:
        self.limit, self.robots = limit, robots
        self.clock = float("-inf")
        self.total = 0
        """Sum of every host's :attr:`_Host.waiting`: the frontier's size."""
        self.hosts: list[_Host] = []
        self.held: set[int] = set()
        """Indices of hosts with waiting URLs that may not start now."""
        self._held_heap: list[int] = []  # a superset of ``held`` (stale entries dropped lazily)
        self._retry_heap: list[tuple[float, int, str, int]] = []  # (at, seq, url, host index)
        self._until_heap: list[tuple[float, int]] = []  # (until, host index)
        self._seq = 0

    def new_host(self, name: str) -> _Host:
        host = _Host(name, len(self.hosts))
        self.hosts.append(host)
        return host

    def is_held(self, host: _Host) -> bool:
        """The host may not start now: busy, held until later, or awaiting its robots.txt."""
        busy = bool(self.limit) and host.in_flight >= (self.limit or 0)
        return busy or host.until > self.clock or (self.robots and not host.robots_loaded)

    def touch(self, host: _Host) -> None:
        """Re-file ``host`` after its state changed."""
        if host.waiting and self.is_held(host):
            if host.index not in self.held:
                self.held.add(host.index)
                heapq.heappush(self._held_heap, host.index)
        else:
            self.held.discard(host.index)

    def advance(self, t: float) -> None:
        """Move the clock to ``t``: retries and holds whose time came are re-filed."""
        if t < self.clock:
            self._rebuild(t)
            return
        self.clock = t
        while self._retry_heap and self._retry_heap[0][0] <= t:
            at, _, url, index = heapq.heappop(self._retry_heap)
            host = self.hosts[index]
            if host.retries.get(url) == at and url not in host.due:
                host.due.add(url)
                self.total += 1
                self.touch(host)
        while self._until_heap and self._until_heap[0][0] <= t:
            self.touch(self.hosts[heapq.heappop(self._until_heap)[1]])

    def _rebuild(self, t: float) -> None:
        """Every count again from scratch at ``t`` (one walk over the hosts)."""
        self.clock, self.total, self.held = t, 0, set()
        self._retry_heap, self._until_heap, self._held_heap = [], [], []
        for host in self.hosts:
            host.due = {url for url, at in host.retries.items() if at <= t}
            for url, at in host.retries.items():
                if at > t:
                    self._push_retry(host, url, at)
            if host.until > t:
                heapq.heappush(self._until_heap, (host.until, host.index))
            self.total += host.waiting
            self.touch(host)

    def _push_retry(self, host: _Host, url: str, at: float) -> None:
        self._seq += 1
        heapq.heappush(self._retry_heap, (at, self._seq, url, host.index))

    def queue(self, host: _Host, url: str) -> None:
        if url not in host.queued:
            host.queued.add(url)
            self.total += 1
            self.touch(host)

    def unqueue(self, host: _Host, url: str) -> None:
        if url in host.queued:
            host.queued.discard(url)
            self.total -= 1
            self.touch(host)

    def retry(self, host: _Host, url: str, at: float) -> None:
        """``url`` is back in ``host``'s queue from ``at`` on."""
        self.unretry(host, url)
        host.retries[url] = at
        self._push_retry(host, url, at)
        self.advance(self.clock)  # due at once if ``at`` has passed

    def unretry(self, host: _Host, url: str) -> None:
        host.retries.pop(url, None)
        if url in host.due:
            host.due.discard(url)
            self.total -= 1
        self.touch(host)

    def hold(self, host: _Host, until: float, reason: str) -> None:
        host.until, host.reason = until, reason
        if until > self.clock:
            heapq.heappush(self._until_heap, (until, host.index))
        self.touch(host)

    def first_held(self, k: int, but: _Host) -> list[_Host]:
        """The first ``k`` held hosts other than ``but``, in order of first mention."""
        found: list[int] = []
        heap = self._held_heap
        while heap and len(found) <= k:
            index = heapq.heappop(heap)
            if index in self.held and (not found or found[-1] != index):
                found.append(index)
        for index in found:
            heapq.heappush(heap, index)
        if len(heap) > 2 * len(self.held) + 64:  # mostly stale: start it afresh
            self._held_heap = sorted(self.held)
        return [self.hosts[i] for i in found if i != but.index][:k]

    def held_count(self, but: _Host) -> int:
        """How many hosts other than ``but`` are held."""
        return len(self.held) - (but.index in self.held)


class Narrator:
    """Turns a trace's events, in order, into sentences of why.

    ``options``: the options the crawl ran with (for the limits a sentence
    quotes).  Feed every event of the trace, in order, to :meth:`narrate`.
    """

    def __init__(self, options: CrawlOptions) -> None:
        self.options = options
        self.limit = options.per_host
        self.hosts: dict[str, _Host] = {}
        self.waiting = _Waiting(options.per_host, options.robots)
        self.seen: set[str] = set()
        self.depth_of: dict[str, int] = {}
        self.in_flight = 0
        self.discovered = 0

    def narrate(self, e: Event) -> str:
        """The sentence for ``e`` (the state moves past it)."""
        say = _SAY.get(type(e))
        if say is None:
            return type(e).__name__
        self.waiting.advance(e.t)
        return say(self, e)

    def _host(self, name: str) -> _Host:
        host = self.hosts.get(name)
        if host is None:
            host = self.hosts[name] = self.waiting.new_host(name)
        return host

    def _flight_text(self, host: _Host) -> str:
        """``1/1 in flight`` with a per-host limit, ``2 in flight`` without."""
        return f"{host.in_flight}/{self.limit} in flight" if self.limit else f"{host.in_flight} in flight"

    def _frontier_size(self) -> int:
        return self.waiting.total

    # -- found, or not ---------------------------------------------------------

    @_SAY.handles(Discovered)
    def _discovered(self, e: Discovered) -> str:
        host = self._host(e.host)
        self.waiting.queue(host, e.url)
        self.seen.add(e.url)
        self.discovered += 1
        self.depth_of[e.url] = e.depth
        where = f"linked from {_short(e.parent)}" if e.parent else "a seed"
        return (
            f"{_where(e.url, e.host)} is new ({where}, depth {e.depth}): added to the seen set "
            f"({counted(len(self.seen), 'URL')}) and to {e.host}'s queue ({len(host.queued):,} waiting)"
        )

    @_SAY.handles(Skipped)
    def _skipped(self, e: Skipped) -> str:
        say = _SKIP_SAY.get(e.reason, Narrator._skip_other)
        return say(self, e)

    def _skip_seen(self, e: Skipped) -> str:
        where = f" (linked from {_short(e.parent)})" if e.parent else ""
        if e.url in self.seen:
            return f"{_short(e.url)}{where} is already in the seen set: dropped"
        return (
            f"{_short(e.url)}{where} was never queued, but the {self.options.seen} seen set "
            "answers 'seen' (a false positive): dropped, never fetched"
        )

    def _skip_robots(self, e: Skipped) -> str:
        name = host_of_url(e.url)
        host = self._host(name)
        if e.url in host.queued:
            self.waiting.unqueue(host, e.url)
            return f"{name}'s robots.txt disallows {_short(e.url)}: taken out of its queue, never fetched"
        self.seen.add(e.url)  # the scheduler marks it seen before asking robots.txt
        return f"{name}'s robots.txt disallows {_short(e.url)}: skipped"

    def _skip_depth(self, e: Skipped) -> str:
        parent_depth = self.depth_of.get(e.parent or "")
        depth = f"depth {parent_depth + 1}" if parent_depth is not None else "its depth"
        return f"{_short(e.url)} would be at {depth}, beyond the depth limit {self.options.depth_limit}: skipped"

    def _skip_cap(self, e: Skipped) -> str:
        opts = self.options
        if opts.max_pages is not None and self.discovered >= opts.max_pages:
            return f"{_short(e.url)}: the page budget is spent (max_pages {opts.max_pages} queued): skipped"
        return f"{_short(e.url)}: its host already has max_pages_per_host {opts.max_pages_per_host} queued: skipped"

    def _skip_scope(self, e: Skipped) -> str:
        return f"{_short(e.url)} is outside the crawl's scope ({self.options.scope}, allow/deny): skipped"

    def _skip_other(self, e: Skipped) -> str:
        what = {"malformed": "is not a URL that parses", "scheme": "is not http(s)"}.get(e.reason, e.reason)
        return f"{e.href or e.url} {what}: skipped"

    # -- fetches ---------------------------------------------------------------

    @_SAY.handles(FetchStarted)
    def _started(self, e: FetchStarted) -> str:
        host = self._host(e.host)
        host.in_flight += 1
        self.in_flight += 1
        self.waiting.touch(host)
        if e.kind == "robots":
            return f"{e.host} is new: its robots.txt goes first, on worker {e.slot + 1}; its pages wait for it"
        self.waiting.unqueue(host, e.url)
        self.waiting.unretry(host, e.url)
        what = f"{_where(e.url, e.host)} starts on worker {e.slot + 1}"  # w1..wN, as every view numbers them
        if e.attempt > 1:
            what += f" (try {e.attempt})"
        if e.duplicate:
            what += f", though it is {_short(e.page)} under another spelling: a duplicate fetch, wasted"
        what += f" ({e.host}: {self._flight_text(host)}"
        what += f"; all {self.options.workers} workers busy)" if self.in_flight >= self.options.workers else ")"
        waiting = self._waiting(e.t, host)
        return f"{what}; {waiting}" if waiting else what

    def _waiting(self, t: float, started: _Host) -> str:
        """Why the other hosts with queued URLs did not start: busy, or
        waiting for a gap, Crawl-delay, Retry-After or their robots.txt."""
        held = self.waiting.first_held(MAX_NAMED_WAITING, but=started)
        if not held:
            return ""
        reasons = [f"{host.name} {self._held_by(t, host)}" for host in held]
        count = self.waiting.held_count(but=started)
        more = f" (+{count - MAX_NAMED_WAITING} more)" if count > MAX_NAMED_WAITING else ""
        return ", ".join(reasons) + more + ": their queues wait"

    def _held_by(self, t: float, host: _Host) -> str:
        if self.limit and host.in_flight >= self.limit:
            return f"is busy ({self._flight_text(host)})"
        if host.until > t:
            return f"waits ({host.reason}) until t={seconds(host.until)}"
        if self.options.robots and not host.robots_loaded:
            return "waits for its robots.txt"
        return ""

    def _ended(self, e: FetchFinished | FetchFailed) -> _Host:
        host = self._host(e.host)
        host.in_flight -= 1
        self.in_flight -= 1
        self.waiting.touch(host)
        return host

    @_SAY.handles(FetchFinished)
    def _finished(self, e: FetchFinished) -> str:
        host = self._ended(e)
        if e.kind == "robots":
            return f"{e.host}'s robots.txt answered {e.status} ({self._flight_text(host)} now)"
        where = _where(e.url, e.host)
        if e.duplicate_of:
            return f"{where} answered {e.status}, the same text as {_short(e.duplicate_of)}: its links are not followed"
        if e.status >= 400:
            return f"{where} answered {e.status}: recorded as failed, no links"
        return (
            f"{where} answered {e.status}: {counted(e.links, 'link')}, {e.new_links:,} new "
            f"(frontier {self._frontier_size()}, {self.in_flight} in flight)"
        )

    @_SAY.handles(FetchFailed)
    def _failed(self, e: FetchFailed) -> str:
        self._ended(e)
        what = f"{e.host}'s robots.txt" if e.kind == "robots" else _where(e.url, e.host)
        if not e.final:
            return f"{what} failed ({e.reason}), tries remain: a retry follows"
        if e.kind == "robots":
            return f"{what} failed for good ({e.reason}): the host counts as disallowing everything"
        return f"{what} failed for good ({e.reason}): recorded as failed"

    @_SAY.handles(RetryScheduled)
    def _retry(self, e: RetryScheduled) -> str:
        self.waiting.retry(self._host(e.host), e.url, e.at)
        return (
            f"{_where(e.url, e.host)} waits {seconds(e.at - e.t)} s ({e.reason}): try {e.attempt} at t={seconds(e.at)}"
        )

    @_SAY.handles(HostDeferred)
    def _deferred(self, e: HostDeferred) -> str:
        host = self._host(e.host)
        self.waiting.hold(host, e.until, e.reason)
        wait = f"no fetch from {e.host} before t={seconds(e.until)} ({seconds(e.until - e.t)} s"
        says = SAYS.get(e.reason)  # the politeness part words its own rules
        if says is None:  # a trace from a crawler with a rule this one does not know
            return f"{wait}, {e.reason})"
        return says.format(host=e.host, wait=wait)

    @_SAY.handles(RobotsLoaded)
    def _robots(self, e: RobotsLoaded) -> str:
        host = self._host(e.host)
        host.robots_loaded = True
        self.waiting.touch(host)
        got = f"HTTP {e.status}" if e.status else "unreachable"
        delay = f", Crawl-delay {seconds(e.crawl_delay)} s" if e.crawl_delay else ""
        rule = (
            "it disallows everything"
            if e.disallow_all
            else f"its {counted(len(host.queued), 'queued URL')} {'is' if len(host.queued) == 1 else 'are'} checked against it"
        )
        return f"{e.host}'s robots.txt is known ({got}{delay}): {rule}"

    @_SAY.handles(Done)
    def _done(self, e: Done) -> str:
        return (
            f"the frontier is empty, nothing is in flight and no retry is pending: "
            f"the crawl is done ({counted(e.pages, 'URL')} queued, {counted(e.fetches, 'fetch')})"
        )


_SKIP_SAY = {
    "seen": Narrator._skip_seen,
    "robots": Narrator._skip_robots,
    "depth": Narrator._skip_depth,
    "cap": Narrator._skip_cap,
    "scope": Narrator._skip_scope,
}
"""Skip reason -> its sentence (malformed and scheme share ``_skip_other``)."""


def _short(url: str | None) -> str:
    """``a.com/x`` for ``http://a.com/x``."""
    if not url:
        return "?"
    return _where(url, host_of_url(url))


def _where(url: str, host: str) -> str:
    """:func:`~crawlsim.views.replay.host_and_path`, but a URL spelled with its
    default port (``http://a.com:80/``) keeps its host: ``a.com:80/``."""
    text = host_and_path(url, host)
    return url.split("://", 1)[-1] if text.startswith(":") else text


def narrate_trace(events: Iterable[Event], options: CrawlOptions) -> Iterator[tuple[Event, str]]:
    """Each event of a trace (in order) with its sentence."""
    narrator = Narrator(options)
    for e in events:
        yield e, narrator.narrate(e)


def narration_line(e: Event, sentence: str) -> str:
    """``t=3.25 s  sentence``: one line of ``crawlsim run --narrate``."""
    return f"t={seconds(e.t)} s  {sentence}"


__all__ = ["Narrator", "narrate_trace", "narration_line", "seconds"]
