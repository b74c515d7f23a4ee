"""The frontier: URLs waiting to be fetched, and which one may start next.

Two shapes, one interface:

:class:`PerHostFrontier`
    Mercator's design: one queue per host, plus two heaps over hosts -- hosts
    that could start now, keyed by their best entry, and hosts waiting for a
    politeness time, keyed by that time.  A busy or waiting host never blocks
    another: no head-of-line blocking, and picking the next fetch costs
    O(log hosts).  A host's queue is two parts: entries that arrived in key
    order (BFS's case) in a list taken from the front in O(1), and the rest
    (retries, DFS, best-first) in a heap; its head is the better of the two.
:class:`SingleQueueFrontier`
    one queue for everything; when its head's host may not start, nothing
    starts.  It exists to *show* head-of-line blocking.

An entry is ``(key, url, depth)``.  BFS (discovery order) and DFS (latest
page first, its links in page order) use plain integer keys, best-first uses
``(priority, seq)`` tuples.  A robots.txt fetch's entry is a
:class:`~crawlsim.core.states.RobotsEntry` (its type says its kind) whose key
is ``ROBOTS_NUMBER`` (integer keys) or ``ROBOTS_KEY`` (tuple keys): both sort
before every page key.  Integer keys matter at scale: a queued URL costs 48
bytes less than with a one-element tuple, and heap comparisons of ints are
several times cheaper than of tuples.

A host's place in the per-host frontier is a :class:`~crawlsim.core.states.Filing`;
whether it waits for its robots.txt, a :class:`~crawlsim.core.states.RobotsStatus`.
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from heapq import heappop, heappush

from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.states import Filing, RobotsEntry, RobotsStatus

if TYPE_CHECKING:
    from crawlsim.trace.events import FetchKind

Key = int | float | tuple[float, ...]
"""An ``int`` (bfs, dfs), a ``(priority, seq)`` tuple (best-first), or a
robots.txt entry's ``ROBOTS_NUMBER`` / ``ROBOTS_KEY``."""
Entry = tuple[Key, str, int]
"""``(key, url, depth)``; a :class:`RobotsEntry` for a robots.txt fetch."""
Taken = tuple["HostState", Key, str, int, "FetchKind"]
"""What :meth:`PerHostFrontier.take` hands out: ``(host, key, url, depth, kind)``
-- an entry spread out, with its kind, so the fetch's start needs no entry
tuple (a fifo entry is stored as columns, not as a tuple)."""
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
    page order within it; best-first keys are ``(priority, seq)``.  A batch
    is the seeds, or one page's links; the scheduler counts them (once per
    page: a plain increment, not a call).
    """

    __slots__ = ("_order", "_priority", "_seq")

    def __init__(self, order: str, priority: Callable[[str, int], float] | None) -> None:
        if order == "best" and priority is None:
            raise ValueError("order 'best' needs a priority function")
        self._order = order
        self._priority = priority
        self._seq = 0

    def counter(self) -> Callable[[], int] | None:
        """For BFS, a call that returns the next key (the keys :meth:`key`
        would give, without its arguments: one call per queued URL); None
        for the other orders.  Use one or the other for a crawl, not both."""
        return itertools.count(1).__next__ if self._order == "bfs" else None

    def key(self, url: str, depth: int, batch: int) -> Key:
        """The key of ``url`` (found at ``depth``, in batch number ``batch``), queued now."""
        self._seq += 1
        order = self._order
        if order == "bfs":
            return self._seq
        if order == "dfs":
            return -(batch << _DFS_SHIFT) + self._seq
        return (self._priority(url, depth), self._seq)  # type: ignore[misc]


_COMPACT_AT = 1024
"""A host's in-order run drops its consumed prefix once that is this long
and at least half the list (amortised O(1) per entry)."""


@dataclass(eq=False)
class HostState:
    """Everything the scheduler tracks per host.

    Not ``slots=True``: the compiled build makes it a C struct of these
    fields (``frontier.pxd``), which Cython's dataclasses spell without
    that argument; a plain instance dictionary costs the pure build about
    100 bytes per host, not per page."""

    name: str
    """Its host key (:func:`crawlsim.core.urls.host_key`)."""
    heap: list[Entry] = field(default_factory=list)
    """Waiting entries that arrived out of key order (a heap): retries, DFS
    and best-first keys, robots.txt entries.  See the fifo for the rest;
    :meth:`queued` lists both."""
    fifo_urls: list[str | None] = field(default_factory=list)
    """Waiting page entries that arrived in increasing integer key order (BFS
    discovery order, the common case): a first-in first-out queue consumed
    from ``fifo_head`` on, stored as three columns -- URLs here, keys in
    ``fifo_keys``, depths in ``fifo_depths``.  Taking the next one is O(1)
    where a heap pop is O(log n) (a host with 100,000 queued pages would
    otherwise pay 17 levels of comparisons per fetch), and a queued URL
    costs 24 bytes where an ``(key, url, depth)`` tuple and its key cost
    about 100 (a million-page crawl queues 370,000 at its peak)."""
    fifo_keys: array[int] = field(default_factory=lambda: array("q"))
    fifo_depths: array[int] = field(default_factory=lambda: array("q"))
    fifo_head: int = 0
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
        i = self.fifo_head
        fifo = zip(self.fifo_keys[i:], self.fifo_urls[i:], self.fifo_depths[i:], strict=True)
        return sorted([*self.heap, *fifo])  # type: ignore[list-item]


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
        host was re-filed since are stale and skipped).  Read-only outside:
        the scheduler only asks whether it is empty, to skip a pop()."""
        self.waiting: list[tuple[float, str, HostState]] = []
        """Hosts waiting for a politeness time, by that time (a heap, same
        rules)."""
        self.size = 0
        """Entries queued (read per page by the scheduler: an attribute, not a ``len()`` call)."""

    def __len__(self) -> int:
        return self.size

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        """Queue ``entry`` (a page's ``(key, url, depth)``, or a robots.txt entry)."""
        if type(entry) is tuple:
            self.push_page(host, *entry, now)
            return
        heappush(host.heap, entry)
        self.size += 1
        if host.in_flight < self.per_host:
            self._refile_after_push(host, entry[0], now)

    def push_page(self, host: HostState, key: Key, url: str, depth: int, now: float) -> None:
        """Queue a page: :meth:`push` of ``(key, url, depth)`` without the tuple
        (the scheduler's per-new-link path)."""
        keys = host.fifo_keys
        if type(key) is int and (not keys or keys[-1] < key):  # type: ignore[operator]
            try:
                keys.append(key)  # type: ignore[arg-type]
            except OverflowError:  # beyond a 64-bit column (a DFS crawl of billions)
                heappush(host.heap, (key, url, depth))
            else:
                host.fifo_urls.append(url)
                host.fifo_depths.append(depth)
        else:
            heappush(host.heap, (key, url, depth))
        self.size += 1
        if host.in_flight < self.per_host:
            self._refile_after_push(host, key, now)

    def _refile_after_push(self, host: HostState, key: Key, now: float) -> None:
        """Re-file a host below its limit after a push, only if that can change
        anything: a filed host keeps its place unless the new entry beats its
        head (never, in BFS order).  A host filed as waiting whose time has
        come is re-filed by take() before anything is picked."""
        filed = host.filed
        if filed is _UNFILED or (filed is _READY and key < host.filed_key):  # type: ignore[operator]
            self.reconsider(host, now)

    def reconsider(self, host: HostState, now: float) -> None:
        """Re-file ``host`` after its queue, in-flight count or ready time changed."""
        heap = host.heap
        if host.fifo_keys:
            key = host.fifo_keys[host.fifo_head]
            head: Entry | None = heap[0] if heap and heap[0][0] < key else None  # type: ignore[operator]
        elif heap:
            head = heap[0]
        else:
            host.filed = _UNFILED
            return
        if head is not None:
            key = head[0]  # type: ignore[assignment]
        # (the fifo holds pages only: a robots.txt entry is always in the heap)
        if host.in_flight >= self.per_host or (host.robots_status is _PENDING and type(head) is not RobotsEntry):
            host.filed = _UNFILED
            return
        if host.ready_at > now:
            if host.filed is not _WAITING or host.filed_key != host.ready_at:
                host.filed, host.filed_key = _WAITING, host.ready_at
                heappush(self.waiting, (host.ready_at, host.name, host))
            return
        if host.filed is not _READY or host.filed_key != key:
            host.filed, host.filed_key = _READY, key
            heappush(self.ready, (key, host.name, host))

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        """Remove and return ``host``'s entries for which ``drop`` is true."""
        entries = host.queued()
        dropped = [e for e in entries if drop(e)]
        if dropped:
            host.heap = [e for e in entries if not drop(e)]  # sorted, so already a heap
            host.fifo_urls.clear()
            del host.fifo_keys[:]
            del host.fifo_depths[:]
            host.fifo_head = 0
            self.size -= len(dropped)
            host.filed = _UNFILED
            self.reconsider(host, now)
        return dropped

    def pop(self, now: float) -> tuple[HostState, Entry] | None:
        """The best entry that may start at ``now``, removed from its queue."""
        taken = self.take(now)
        if taken is None:
            return None
        host, key, url, depth, kind = taken
        return host, (RobotsEntry((key, url, depth)) if kind == "robots" else (key, url, depth))

    def take(self, now: float) -> Taken | None:
        """:meth:`pop`, the entry spread out as ``(host, key, url, depth, kind)``
        (the scheduler's once-per-fetch path: no entry tuple is built)."""
        waiting = self.waiting
        while waiting and waiting[0][0] <= now:
            at, _, host = heappop(waiting)
            if host.filed is _WAITING and host.filed_key == at:
                host.filed = _UNFILED
                self.reconsider(host, now)
        ready = self.ready
        while ready:
            key, _, host = heappop(ready)
            if host.filed is not _READY or host.filed_key != key:
                continue  # stale: the host was re-filed since
            host.filed = _UNFILED
            self.size -= 1
            keys = host.fifo_keys
            heap = host.heap
            i = host.fifo_head
            if keys and (not heap or keys[i] < heap[0][0]):  # the fifo's head, unless the heap's is better
                urls = host.fifo_urls
                url = urls[i]
                depth = host.fifo_depths[i]
                i += 1
                if i == len(urls):
                    urls.clear()
                    del keys[:]
                    del host.fifo_depths[:]
                    i = 0
                elif i >= _COMPACT_AT and 2 * i >= len(urls):
                    del urls[:i]
                    del keys[:i]
                    del host.fifo_depths[:i]
                    i = 0
                else:
                    urls[i - 1] = None  # let the URL go (a hash or bloom seen set holds no copy)
                host.fifo_head = i
                return host, key, url, depth, "page"  # type: ignore[return-value]
            entry = heappop(heap)
            return host, entry[0], entry[1], entry[2], "robots" if type(entry) is RobotsEntry else "page"
        return None

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
        heapq.heappush(self._heap, (entry, host))

    def push_page(self, host: HostState, key: Key, url: str, depth: int, now: float) -> None:
        heapq.heappush(self._heap, ((key, url, depth), host))

    def reconsider(self, host: HostState, now: float) -> None:
        """Nothing to re-file: only the head is ever looked at."""

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        dropped = [e for e, h in self._heap if h is host and drop(e)]
        if dropped:
            self._heap = [item for item in self._heap if not (item[1] is host and drop(item[0]))]
            heapq.heapify(self._heap)
        return dropped

    def _head_blocked(self, now: float) -> HostState | None:
        entry, host = self._heap[0]
        if host.in_flight >= self.per_host or host.ready_at > now:
            return host
        if host.robots_status is _PENDING and type(entry) is not RobotsEntry:
            return host
        return None

    def pop(self, now: float) -> tuple[HostState, Entry] | None:
        if not self._heap or self._head_blocked(now) is not None:
            return None
        entry, host = heapq.heappop(self._heap)
        return host, entry

    def take(self, now: float) -> Taken | None:
        """:meth:`pop`, spread out as :meth:`PerHostFrontier.take` hands it out."""
        picked = self.pop(now)
        if picked is None:
            return None
        host, (key, url, depth) = picked
        return host, key, url, depth, "robots" if type(picked[1]) is RobotsEntry else "page"

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
