"""The frontier: URLs waiting to be fetched, and which one may start next.

Two shapes, one interface (``push``, ``pop``, ``reconsider``, ``next_time``):

:class:`PerHostFrontier`
    Mercator's design: one queue per host, plus two heaps over hosts -- hosts
    that could start now, keyed by their best entry, and hosts waiting for a
    politeness time, keyed by that time.  A busy or waiting host never blocks
    another: no head-of-line blocking, and picking the next fetch costs
    O(log hosts) plus O(log n) in the host's own queue.
:class:`SingleQueueFrontier`
    one queue for everything; when its head's host may not start, nothing
    starts.  It exists to *show* head-of-line blocking.
:class:`~crawlsim.core.download_slots.DownloadSlots`
    Scrapy's scheduler and downloader: a URL taken from its queue holds a
    worker while it waits in its host's download slot.

An entry is ``(key, url, depth)``, and a queue gives out the smallest key
first.  BFS (discovery order), DFS (latest page first, its links in page
order) and LIFO (latest URL first) use plain integer keys, best-first uses
``(priority, seq)`` tuples.
A robots.txt fetch's entry is a :class:`~crawlsim.core.states.RobotsEntry`
(its type says its kind) whose key is ``ROBOTS_NUMBER`` (integer keys) or
``ROBOTS_KEY`` (tuple keys): both sort before every page key.

A host's place in the per-host frontier is a :class:`~crawlsim.core.states.Filing`;
whether it waits for its robots.txt, a :class:`~crawlsim.core.states.RobotsStatus`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from typing import Any

from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.states import Filing, RobotsEntry, RobotsStatus

Key = int | float | tuple[float, ...]
"""An ``int`` (bfs, dfs), a ``(priority, seq)`` tuple (best-first), or a
robots.txt entry's ``ROBOTS_NUMBER`` / ``ROBOTS_KEY``."""
Entry = tuple[Key, str, int]
"""``(key, url, depth)``; a :class:`RobotsEntry` for a robots.txt fetch."""
ROBOTS_KEY: tuple[float, ...] = (float("-inf"),)
"""A robots.txt entry's key among ``(priority, seq)`` keys: sorts first."""
ROBOTS_NUMBER: float = float("-inf")
"""A robots.txt entry's key among integer keys: sorts first."""

_UNFILED, _READY, _WAITING = Filing.UNFILED, Filing.READY, Filing.WAITING
_PENDING = RobotsStatus.PENDING


_DFS_SHIFT = 40
"""DFS keys are ``-(batch << 40) + seq``: one int ordering like ``(-batch, seq)``
for any crawl of fewer than 2**40 links."""


class CrawlOrder:
    """The keys that put the frontier in the crawl's order.

    Invariant: every key is new and larger (in the order's sense) than the
    keys of earlier URLs of the same batch: BFS keys count up (discovery
    order); DFS keys put a later batch (a later page's links) first and keep
    page order within it; LIFO keys count down (the URL queued last goes
    first, a page's last link before its first, as a stack of requests);
    best-first keys are ``(priority, seq)``.  A batch
    is the seeds, or one page's links; the scheduler counts them.
    """

    __slots__ = ("_order", "_priority", "_seq")

    def __init__(self, order: str, priority: Callable[[str, int], float] | None) -> None:
        if order == "best" and priority is None:
            raise ValueError("order 'best' needs a priority function")
        self._order = order
        self._priority = priority
        self._seq = 0

    def key(self, url: str, depth: int, batch: int) -> Key:
        """The key of ``url`` (found at ``depth``, in batch number ``batch``), queued now."""
        self._seq += 1
        order = self._order
        if order == "bfs":
            return self._seq
        if order == "dfs":
            return -(batch << _DFS_SHIFT) + self._seq
        if order == "lifo":
            return -self._seq
        return (self._priority(url, depth), self._seq)  # type: ignore[misc]


@dataclass(eq=False)
class HostState:
    """Everything the scheduler tracks per host.

    ``eq=False``: two hosts are never equal unless they are the same host
    (the frontier's heaps and the views compare them by identity).  Not
    ``slots=True``: the compiled build makes it a C struct of these fields
    (``frontier.pxd``), which Cython's dataclasses spell without that
    argument; the pure build pays an instance dictionary per host, not per page."""

    name: str
    """Its host key (:func:`crawlsim.core.urls.host_key`)."""
    queue: list[Entry] = field(default_factory=list)
    """Its waiting entries, a heap (``heapq``) by key: the head is the next to
    start.  A push or a pop costs O(log n) comparisons in the n entries
    queued (a push in increasing key order, BFS's, costs O(1): the new entry
    stays at the bottom); :meth:`queued` lists them in order."""
    in_flight: int = 0
    ready_at: float = 0.0
    """No request may start before this time (gap, Crawl-delay, Retry-After)."""
    pages: int = 0
    """Pages accepted into the frontier for this host (for max_pages_per_host)."""
    robots_status: RobotsStatus = RobotsStatus.NOT_ASKED
    policy: RobotsPolicy | None = None
    """The host's robots.txt rules once ``robots_status`` is ``LOADED``, else None."""
    crawl_delay: float = 0.0
    """The robots.txt Crawl-delay honoured (capped; 0: none)."""
    polite: bool = False
    """A politeness rule may hold this host after a start (a gap, a bucket, a
    Crawl-delay): set by :class:`~crawlsim.core.politeness.Politeness`."""
    filed: Filing = Filing.UNFILED
    """Where the per-host frontier has this host (see :class:`Filing`) ..."""
    filed_key: Key | None = None
    """... under which key (its head entry's key, or its ``ready_at``)."""

    @property
    def robots(self) -> RobotsPolicy | None:
        """The loaded policy, or None (the name drivers and views read)."""
        return self.policy

    def queued(self) -> list[Entry]:
        """The host's waiting entries, best first (for views; not the hot path)."""
        return sorted(self.queue)


class PerHostFrontier:
    """Per-host queues with a ready heap and a waiting (time) heap.

    Invariant: a host with queued entries that may start now (below its
    ``per_host`` limit, not before its ``ready_at``, not waiting for its
    robots.txt unless that is its head) is filed ``READY`` under its head
    entry's key; one that only waits for its ``ready_at`` is filed
    ``WAITING`` under that time; every other host is ``UNFILED``.  (A host
    filed ``WAITING`` whose time has come is moved by :meth:`pop`.)
    """

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self.ready: list[tuple[Key, str, HostState]] = []
        """Hosts that may start now, by their head key (a heap; entries whose
        host was re-filed since are stale and skipped)."""
        self.waiting: list[tuple[float, str, HostState]] = []
        """Hosts waiting for a politeness time, by that time (a heap, same
        rules)."""
        self.size = 0
        """Entries queued."""

    def __len__(self) -> int:
        return self.size

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        """Queue ``entry`` (a page's ``(key, url, depth)``, or a robots.txt
        entry).  A filed host keeps its place unless the entry is its new head
        (never, in BFS order); one filed ``WAITING`` keeps waiting (:meth:`pop`
        wakes it)."""
        heappush(host.queue, entry)
        self.size += 1
        if host.filed is _UNFILED or (host.filed is _READY and entry[0] < host.filed_key):  # type: ignore[operator]
            self.reconsider(host, now)

    def reconsider(self, host: HostState, now: float) -> None:
        """Re-file ``host`` after its queue, in-flight count or ready time
        changed (a host already filed where it belongs keeps its place)."""
        if not host.queue:
            host.filed = _UNFILED
            return
        head = host.queue[0]
        if host.in_flight >= self.per_host or (host.robots_status is _PENDING and not isinstance(head, RobotsEntry)):
            host.filed = _UNFILED
            return
        if host.ready_at > now:
            self._file(host, _WAITING, host.ready_at, self.waiting)
        else:
            self._file(host, _READY, head[0], self.ready)

    @staticmethod
    def _file(host: HostState, filing: Filing, key: Key, heap: list[tuple[Any, str, HostState]]) -> None:
        """File ``host`` in ``heap`` under ``key``, unless it is filed so already."""
        if host.filed is not filing or host.filed_key != key:
            host.filed, host.filed_key = filing, key
            heappush(heap, (key, host.name, host))

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        """Remove and return ``host``'s entries for which ``drop`` is true."""
        entries = host.queued()
        dropped = [e for e in entries if drop(e)]
        if dropped:
            host.queue = [e for e in entries if not drop(e)]  # sorted, so already a heap
            self.size -= len(dropped)
            host.filed = _UNFILED
            self.reconsider(host, now)
        return dropped

    def freed(self, free: int) -> None:
        """Nothing to do as a worker is freed: entries leave only as they start
        (:class:`~crawlsim.core.download_slots.DownloadSlots` takes them earlier)."""

    def pop(self, now: float, free: int = 1) -> tuple[HostState, Entry] | None:
        """The best entry that may start at ``now``, removed from its host's
        queue (which is left ``UNFILED``: the caller re-files it once it has
        counted the start).  ``free`` (the workers not fetching) matters only
        to :class:`~crawlsim.core.download_slots.DownloadSlots`."""
        self._wake(now)
        ready = self.ready
        while ready:
            key, _, host = heappop(ready)
            if host.filed is _READY and host.filed_key == key:  # else stale: the host was re-filed since
                host.filed = _UNFILED
                self.size -= 1
                return host, heappop(host.queue)
        return None

    def _wake(self, now: float) -> None:
        """Re-file the hosts filed ``WAITING`` whose time has come."""
        waiting = self.waiting
        while waiting and waiting[0][0] <= now:
            at, _, host = heappop(waiting)
            if host.filed is _WAITING and host.filed_key == at:
                host.filed = _UNFILED
                self.reconsider(host, now)

    def next_time(self) -> float | None:
        """When the earliest waiting host becomes ready (stale entries dropped)."""
        waiting = self.waiting
        while waiting:
            at, _, host = waiting[0]
            if host.filed is _WAITING and host.filed_key == at:
                return at
            heappop(waiting)
        return None

    def entries(self, hosts: list[HostState]) -> list[Entry]:
        """Every waiting entry of ``hosts`` (for views and tests, not the hot path)."""
        return [e for host in hosts for e in host.queued()]


class SingleQueueFrontier:
    """One queue for all hosts: a blocked head blocks everyone (for teaching).

    Invariant: only the best entry of all is ever looked at; when its host
    may not start, :meth:`pop` returns None even if another host could.
    """

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self._heap: list[tuple[Entry, HostState]] = []
        """``(entry, host)``: ordered by the entry (key, then url, then depth)."""

    @property
    def size(self) -> int:
        """Entries queued (as :attr:`PerHostFrontier.size`)."""
        return len(self._heap)

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        heappush(self._heap, (entry, host))

    def reconsider(self, host: HostState, now: float) -> None:
        """Nothing to re-file: only the head is ever looked at."""

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        dropped = [e for e, h in self._heap if h is host and drop(e)]
        if dropped:
            self._heap = [item for item in self._heap if not (item[1] is host and drop(item[0]))]
            heapify(self._heap)
        return dropped

    def _head_blocked(self, now: float) -> HostState | None:
        entry, host = self._heap[0]
        if host.in_flight >= self.per_host or host.ready_at > now:
            return host
        if host.robots_status is _PENDING and not isinstance(entry, RobotsEntry):
            return host
        return None

    def freed(self, free: int) -> None:
        """Nothing to do as a worker is freed (see :meth:`PerHostFrontier.freed`)."""

    def pop(self, now: float, free: int = 1) -> tuple[HostState, Entry] | None:
        if not self._heap or self._head_blocked(now) is not None:
            return None
        entry, host = heappop(self._heap)
        return host, entry

    def next_time(self) -> float | None:
        if not self._heap:
            return None
        host = self._head_blocked(float("-inf"))
        if host is not None and host.in_flight < self.per_host and host.robots_status is not _PENDING:
            return host.ready_at
        return None

    def entries(self, hosts: list[HostState]) -> list[Entry]:
        """Every waiting entry (``hosts`` is unused: one queue holds them all)."""
        return [e for e, _ in self._heap]
