"""The frontier: URLs waiting to be fetched, and which one may start next.

Two shapes, one interface:

:class:`PerHostFrontier`
    Mercator's design: one queue per host, plus two heaps over hosts -- hosts
    that could start now, keyed by their best entry, and hosts waiting for a
    politeness time, keyed by that time.  A busy or waiting host never blocks
    another: no head-of-line blocking, and picking the next fetch costs
    O(log hosts).
:class:`SingleQueueFrontier`
    one queue for everything; when its head's host may not start, nothing
    starts.  It exists to *show* head-of-line blocking.

An entry is ``(key, url, depth)``.  Keys are tuples so BFS (discovery
order), DFS (latest page first, its links in page order) and best-first
(priority) all sort the same way; robots.txt fetches use ``ROBOTS_KEY`` and
go first.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Entry = tuple[tuple[float, ...], str, int]
ROBOTS_KEY: tuple[float, ...] = (float("-inf"),)


@dataclass(slots=True, eq=False)
class HostState:
    """Everything the scheduler tracks per host."""

    name: str
    queue: list[Entry] = field(default_factory=list)
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


class PerHostFrontier:
    """Per-host queues with a ready heap and a waiting (time) heap."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self._ready: list[tuple[Any, str, HostState]] = []
        self._waiting: list[tuple[float, str, HostState]] = []
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        heapq.heappush(host.queue, entry)
        self._size += 1
        self.reconsider(host, now)

    def reconsider(self, host: HostState, now: float) -> None:
        """Re-file ``host`` after its queue, in-flight count or ready time changed."""
        if not host.queue or host.in_flight >= self.per_host or (
            host.blocked_on_robots() and host.queue[0][0] != ROBOTS_KEY
        ):
            host.slot = ""
            return
        if host.ready_at > now:
            if host.slot != "waiting" or host.slot_key != host.ready_at:
                host.slot, host.slot_key = "waiting", host.ready_at
                heapq.heappush(self._waiting, (host.ready_at, host.name, host))
            return
        key = host.queue[0][0]
        if host.slot != "ready" or host.slot_key != key:
            host.slot, host.slot_key = "ready", key
            heapq.heappush(self._ready, (key, host.name, host))

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        """Remove and return ``host``'s entries for which ``drop`` is true."""
        dropped = [e for e in host.queue if drop(e)]
        if dropped:
            host.queue = [e for e in host.queue if not drop(e)]
            heapq.heapify(host.queue)
            self._size -= len(dropped)
            host.slot = ""
            self.reconsider(host, now)
        return dropped

    def pop(self, now: float) -> tuple[HostState, Entry] | None:
        """The best entry that may start at ``now``, removed from its queue."""
        waiting = self._waiting
        while waiting and waiting[0][0] <= now:
            at, _, host = heapq.heappop(waiting)
            if host.slot == "waiting" and host.slot_key == at:
                host.slot = ""
                self.reconsider(host, now)
        ready = self._ready
        while ready:
            key, _, host = heapq.heappop(ready)
            if host.slot != "ready" or host.slot_key != key:
                continue  # stale: the host was re-filed since
            host.slot = ""
            entry = heapq.heappop(host.queue)
            self._size -= 1
            return host, entry
        return None

    def next_time(self) -> float | None:
        """When the earliest waiting host becomes ready (stale entries dropped)."""
        waiting = self._waiting
        while waiting:
            at, _, host = waiting[0]
            if host.slot == "waiting" and host.slot_key == at:
                return at
            heapq.heappop(waiting)
        return None

    def has_ready(self) -> bool:
        return any(h.slot == "ready" and h.slot_key == k for k, _, h in self._ready)


class SingleQueueFrontier:
    """One queue for all hosts: a blocked head blocks everyone (for teaching)."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
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
        if host.blocked_on_robots() and key != ROBOTS_KEY:
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
