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
``(priority, seq)`` tuples; robots.txt fetches use the frontier's
``robots_key`` -- ``ROBOTS_KEY`` for tuple keys, ``ROBOTS_NUMBER`` for integer
keys -- which sorts before everything.  Integer keys matter at scale: a
queued URL costs 48 bytes less than with a one-element tuple, and heap
comparisons of ints are several times cheaper than of tuples.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import Any

Key = Any
"""An ``int`` (bfs, dfs), a ``(priority, seq)`` tuple (best-first) or a robots key."""
Entry = tuple[Key, str, int]
ROBOTS_KEY: tuple[float, ...] = (float("-inf"),)
ROBOTS_NUMBER: float = float("-inf")


_COMPACT_AT = 1024
"""A host's in-order run drops its consumed prefix once that is this long
and at least half the list (amortised O(1) per entry)."""


@dataclass(slots=True, eq=False)
class HostState:
    """Everything the scheduler tracks per host."""

    name: str
    queue: list[Entry] = field(default_factory=list)
    """Waiting entries that arrived out of key order (a heap): retries, DFS
    and best-first keys.  See ``run`` for the rest; :meth:`queued` lists both."""
    run: list[Entry | None] = field(default_factory=list)
    """Waiting entries that arrived in increasing key order (BFS discovery
    order, the common case), consumed from ``run_head`` on: taking the next
    one is O(1) where a heap pop is O(log n) -- a host with 100,000 queued
    pages would otherwise pay 17 levels of comparisons per fetch."""
    run_head: int = 0
    in_flight: int = 0
    ready_at: float = 0.0
    """No request may start before this time (gap, Crawl-delay, Retry-After)."""
    pages: int = 0
    """Pages accepted into the frontier for this host (for max_pages_per_host)."""
    robots: Any = None
    """None: not needed or not yet asked; "pending": robots.txt in flight; else a RobotsPolicy."""
    robots_fetches: int = 0
    crawl_delay: float = 0.0
    # frontier bookkeeping: where this host currently sits, with which key
    slot: str = ""
    slot_key: Any = None

    def blocked_on_robots(self) -> bool:
        return self.robots == "pending"

    def queued(self) -> list[Entry]:
        """The host's waiting entries, best first (for views; not the hot path)."""
        return sorted([*self.queue, *self.run[self.run_head :]])  # type: ignore[list-item]


class PerHostFrontier:
    """Per-host queues with a ready heap and a waiting (time) heap."""

    def __init__(self, per_host: int, robots_key: Key = ROBOTS_KEY) -> None:
        self.per_host = per_host
        self.robots_key = robots_key
        self.ready: list[tuple[Any, str, HostState]] = []
        """Hosts that may start now, by their head key (a heap; entries whose
        host was re-filed since are stale and skipped).  Read-only outside:
        the scheduler only asks whether it is empty, to skip a pop()."""
        self.waiting: list[tuple[float, str, HostState]] = []
        """Hosts waiting for a politeness time, by that time (a heap, same
        rules)."""
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        run = host.run
        if not run or run[-1][0] < entry[0]:  # type: ignore[index]
            run.append(entry)
        else:
            heappush(host.queue, entry)
        self._size += 1
        # Re-file only if that can change anything: a host at its limit stays
        # unfiled, and a filed host keeps its place unless the new entry beats
        # its head (never, in BFS order).  A host filed as waiting whose time
        # has come is re-filed by pop() before anything is picked.
        if host.in_flight < self.per_host:
            slot = host.slot
            if not slot or (slot == "ready" and entry[0] < host.slot_key):
                self.reconsider(host, now)

    def reconsider(self, host: HostState, now: float) -> None:
        """Re-file ``host`` after its queue, in-flight count or ready time changed."""
        run = host.run
        heap = host.queue
        if run:
            key = run[host.run_head][0]  # type: ignore[index]
            if heap and heap[0][0] < key:
                key = heap[0][0]
        elif heap:
            key = heap[0][0]
        else:
            host.slot = ""
            return
        if host.in_flight >= self.per_host or (host.robots == "pending" and key != self.robots_key):
            host.slot = ""
            return
        if host.ready_at > now:
            if host.slot != "waiting" or host.slot_key != host.ready_at:
                host.slot, host.slot_key = "waiting", host.ready_at
                heappush(self.waiting, (host.ready_at, host.name, host))
            return
        if host.slot != "ready" or host.slot_key != key:
            host.slot, host.slot_key = "ready", key
            heappush(self.ready, (key, host.name, host))

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        """Remove and return ``host``'s entries for which ``drop`` is true."""
        entries = host.queued()
        dropped = [e for e in entries if drop(e)]
        if dropped:
            host.queue = [e for e in entries if not drop(e)]  # sorted, so already a heap
            host.run = []
            host.run_head = 0
            self._size -= len(dropped)
            host.slot = ""
            self.reconsider(host, now)
        return dropped

    def pop(self, now: float) -> tuple[HostState, Entry] | None:
        """The best entry that may start at ``now``, removed from its queue."""
        waiting = self.waiting
        while waiting and waiting[0][0] <= now:
            at, _, host = heappop(waiting)
            if host.slot == "waiting" and host.slot_key == at:
                host.slot = ""
                self.reconsider(host, now)
        ready = self.ready
        while ready:
            key, _, host = heappop(ready)
            if host.slot != "ready" or host.slot_key != key:
                continue  # stale: the host was re-filed since
            host.slot = ""
            self._size -= 1
            run = host.run
            heap = host.queue
            if run:
                i = host.run_head
                entry = run[i]
                if not heap or entry[0] < heap[0][0]:  # type: ignore[index]
                    i += 1
                    if i == len(run):
                        run.clear()
                        i = 0
                    else:
                        run[i - 1] = None  # let the entry go
                        if i >= _COMPACT_AT and 2 * i >= len(run):
                            del run[:i]
                            i = 0
                    host.run_head = i
                    return host, entry  # type: ignore[return-value]
            return host, heappop(heap)
        return None

    def next_time(self) -> float | None:
        """When the earliest waiting host becomes ready (stale entries dropped)."""
        waiting = self.waiting
        while waiting:
            at, _, host = waiting[0]
            if host.slot == "waiting" and host.slot_key == at:
                return at
            heappop(waiting)
        return None

    def has_ready(self) -> bool:
        return any(h.slot == "ready" and h.slot_key == k for k, _, h in self.ready)

    def entries(self, hosts: list[HostState]) -> list[Entry]:
        """Every waiting entry of ``hosts`` (for views and tests, not the hot path)."""
        return [e for host in hosts for e in host.queued()]


class SingleQueueFrontier:
    """One queue for all hosts: a blocked head blocks everyone (for teaching)."""

    def __init__(self, per_host: int, robots_key: Key = ROBOTS_KEY) -> None:
        self.per_host = per_host
        self.robots_key = robots_key
        self._heap: list[tuple[Any, str, int, HostState]] = []

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        key, url, depth = entry
        heapq.heappush(self._heap, (key, url, depth, host))

    def reconsider(self, host: HostState, now: float) -> None:
        """Nothing to re-file: only the head is ever looked at."""

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        dropped = [(k, u, d) for k, u, d, h in self._heap if h is host and drop((k, u, d))]
        if dropped:
            self._heap = [item for item in self._heap if not (item[3] is host and drop(item[:3]))]
            heapq.heapify(self._heap)
        return dropped

    def _head_blocked(self, now: float) -> HostState | None:
        key, _, _, host = self._heap[0]
        if host.in_flight >= self.per_host or host.ready_at > now:
            return host
        if host.blocked_on_robots() and key != self.robots_key:
            return host
        return None

    def pop(self, now: float) -> tuple[HostState, Entry] | None:
        if not self._heap or self._head_blocked(now) is not None:
            return None
        key, url, depth, host = heapq.heappop(self._heap)
        return host, (key, url, depth)

    def next_time(self) -> float | None:
        if not self._heap:
            return None
        host = self._head_blocked(float("-inf"))
        if host is not None and host.in_flight < self.per_host and not host.blocked_on_robots():
            return host.ready_at
        return None

    def has_ready(self) -> bool:
        return False

    def entries(self, hosts: list[HostState]) -> list[Entry]:
        """Every waiting entry (``hosts`` is unused: one queue holds them all)."""
        return [(k, u, d) for k, u, d, _ in self._heap]
