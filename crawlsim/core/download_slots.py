"""Scrapy's scheduler and downloader as a frontier: a URL taken from the
queue holds a worker while it waits in its host's download slot.

A model of a Scrapy crawl must run Scrapy's two stages, not crawlsim's one
(the functions named are Scrapy 2.19.0's; ``docs/how-to/own-crawl.md`` links
their lines):

1. The engine takes requests from the scheduler while fewer than
   ``CONCURRENT_REQUESTS`` are in the downloader -- those waiting in a
   download slot count as well as those transferring
   (``scrapy/core/engine.py`` ``_start_scheduled_requests``,
   ``scrapy/core/downloader/__init__.py`` ``Downloader.needs_backout``).
   Scrapy's default queue (``scrapy/pqueues.py``
   ``DownloaderAwarePriorityQueue.pop``) gives the next request of the slot
   with the fewest requests in the downloader, equal slots taking turns in
   name order (``_next_slot``); ``ScrapyPriorityQueue`` gives the best of
   all, whatever its slot.
2. A request waits in its slot's queue, first in first out
   (``Downloader._enqueue_request``).  ``_process_queue`` starts queued
   requests while ``len(slot.transferring) < slot.concurrency``, but a
   request joins ``transferring`` only when its download task runs, on the
   event loop's next turn (``_schedule_coro``, then ``_download``): every
   request queued at that moment starts, so a host may run more than its
   per-domain limit.  As a download ends, its slot starts what waits in it
   first (``_download``'s ``finally``); the request the engine then takes
   for the freed place reaches the slot on a later turn, when those are
   transferring, and waits for them all.  With ``DOWNLOAD_DELAY`` one starts per call and the
   next waits for the delay (the scheduler's ``gap``: the host's
   ``ready_at``).  Scrapy's robots.txt request skips the scheduler
   (``RobotsTxtMiddleware.robot_parser`` asks the engine directly) but
   waits in the slot like any other; the requests of a host whose
   robots.txt is unanswered wait for it in the middleware, in the
   downloader but not yet in its slot.

Here :meth:`DownloadSlots.freed` takes URLs from the queue into their
hosts' slots while fewer than ``free`` wait in slots (``free``: the workers
not fetching) -- as a fetch ends, before its page's links are queued, and
again in :meth:`~DownloadSlots.pop`, which then gives out the first waiting
URL, slots in the order they were filled, whose host may start it.  A URL
in a slot records the instant it came there (:class:`_Waiting`), which says
on which turn of the event loop Scrapy looks at it
(:meth:`DownloadSlots._turn`); a fetch started at the current instant counts
as transferring only for a URL looked at on a later turn.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from heapq import heappop, heappush

from crawlsim.core.frontier import Entry, HostState, PerHostFrontier, SingleQueueFrontier
from crawlsim.core.states import RobotsEntry, RobotsStatus

_PENDING = RobotsStatus.PENDING


@dataclass(slots=True)
class _Waiting:
    """An entry in its host's slot, and the instant it came there."""

    entry: Entry
    came: float = float("inf")
    """When it came into the slot.  One taken from the queue comes at the instant of the
    next :meth:`DownloadSlots.pop`, which sets it (``inf`` till then): as a fetch ends, the
    scheduler has it taken (:meth:`DownloadSlots.freed`), then pops at that instant."""


class DownloadSlots:
    """Scrapy's queue (per host, or one for all) and its download slots.

    Invariant: an entry is in exactly one place -- its queue, or its host's
    slot (entries there hold a worker each: the caller gives :meth:`pop`
    no more ``free`` workers than it has); a slot's entries start in the
    order they came, and only when the host's robots.txt is answered (the
    robots.txt itself excepted), its ``ready_at`` has passed and fewer than
    ``per_host`` of its fetches that started before this instant are in flight.
    """

    def __init__(self, per_host: int, one_queue: bool = False) -> None:
        self.per_host = per_host
        self._one_queue: list[tuple[Entry, HostState]] | None = [] if one_queue else None
        """``ScrapyPriorityQueue``: every host's entries in one heap; None: a heap per
        host (``HostState.queue``), the host chosen by :meth:`_least_busy`."""
        self._queued: dict[str, HostState] = {}
        """Hosts with entries in their own queue (a heap per host)."""
        self._slots: dict[str, tuple[HostState, deque[_Waiting]]] = {}
        """Hosts with entries waiting in their slot, in the order the slots were filled."""
        self._arriving: list[_Waiting] = []
        """Entries taken into slots since the last :meth:`pop`: they come at its instant."""
        self._in_queues = 0
        self._in_slots = 0
        self._last: str | None = None
        """The host whose queue gave the last entry (equal hosts take turns after it)."""
        self._instant = float("-inf")
        self._started_now: dict[str, list[int]] = {}
        """Host -> the loop turn (:meth:`_turn`) of each of its fetches started at ``_instant``."""

    @property
    def size(self) -> int:
        """Entries waiting, in a queue or a slot (as :attr:`PerHostFrontier.size`)."""
        return self._in_queues + self._in_slots

    def __len__(self) -> int:
        return self.size

    def push(self, host: HostState, entry: Entry, now: float) -> None:
        """Queue ``entry``; a robots.txt entry goes straight to its host's slot."""
        if isinstance(entry, RobotsEntry):
            self._wait(host, _Waiting(entry, came=now))
        elif self._one_queue is not None:
            heappush(self._one_queue, (entry, host))
            self._in_queues += 1
        else:
            heappush(host.queue, entry)
            self._queued[host.name] = host
            self._in_queues += 1

    def reconsider(self, host: HostState, now: float) -> None:
        """Nothing to re-file: a slot is looked at when a worker is free."""

    def pop(self, now: float, free: int = 1) -> tuple[HostState, Entry] | None:
        """The first entry waiting in a slot whose host may start it at ``now``,
        after filling the slots up to ``free`` entries from the queue."""
        if now > self._instant:
            self._instant, self._started_now = now, {}
        self.freed(free)
        for waiting in self._arriving:  # taken since the last pop: they come now
            waiting.came = now
        self._arriving.clear()
        for host, line in self._slots.values():
            first = line[0]
            if self._may_start(host, first, now):
                self._in_slots -= 1
                line.popleft()
                if not line:
                    del self._slots[host.name]
                self._started_now.setdefault(host.name, []).append(self._turn(first, now))
                return host, first.entry
        return None

    def freed(self, free: int) -> None:
        """Workers are free (``free`` of them): fill the slots from the queue up to that
        many.  The scheduler says so as a fetch ends, before its page's links are
        queued: Scrapy's engine takes its next request as a download leaves the
        downloader, while the spider's callback has yet to yield the page's links
        (``ExecutionEngine._start_scheduled_request``: ``_remove_request``, then
        ``nextcall.schedule()``)."""
        while self._in_slots < free and self._in_queues:
            self._take()

    def _may_start(self, host: HostState, first: _Waiting, now: float) -> bool:
        """Scrapy's ``_process_queue`` test for ``first``, the first entry of ``host``'s
        slot: fewer than ``per_host`` transferring, where a fetch started at this instant
        is transferring only if it started on an earlier loop turn than ``first`` is
        looked at on (to Scrapy a request transfers from the turn after its start)."""
        if self._held_by_robots(host, first):
            return False
        turn = self._turn(first, now)
        not_yet = sum(1 for started in self._started_now.get(host.name, ()) if started >= turn)
        return host.ready_at <= now and host.in_flight - not_yet < self.per_host

    @staticmethod
    def _turn(waiting: _Waiting, now: float) -> int:
        """The loop turn of this instant on which Scrapy looks at ``waiting``: 0 if it
        waited in its slot before (as a download ends, the slot starts those first, in
        one pass), 1 if it came at this instant (the engine's request reaches the slot
        a turn later, when that pass's starts are transferring, but not each other's)."""
        return 0 if waiting.came < now else 1

    @staticmethod
    def _held_by_robots(host: HostState, first: _Waiting) -> bool:
        """Whether ``first`` waits for its host's robots.txt (unless it is the robots.txt)."""
        return host.robots_status is _PENDING and not isinstance(first.entry, RobotsEntry)

    def _take(self) -> None:
        """Move the queue's next entry into its host's slot."""
        if self._one_queue is not None:
            entry, host = heappop(self._one_queue)
        else:
            host = self._least_busy()
            entry = heappop(host.queue)
            if not host.queue:
                del self._queued[host.name]
        self._in_queues -= 1
        waiting = _Waiting(entry)
        self._arriving.append(waiting)
        self._wait(host, waiting)

    def _wait(self, host: HostState, waiting: _Waiting) -> None:
        """``waiting`` waits in its host's slot: last, or first if it is the robots.txt
        (a retried one too), which the host's other entries wait for: in Scrapy they
        wait in the robots.txt middleware, not yet in the slot."""
        slot = self._slots.get(host.name)
        if slot is None:
            slot = self._slots[host.name] = (host, deque())
        if isinstance(waiting.entry, RobotsEntry):
            slot[1].appendleft(waiting)
        else:
            slot[1].append(waiting)
        self._in_slots += 1

    def _least_busy(self) -> HostState:
        """The queued host with the fewest fetches in flight or waiting in its
        slot past its robots.txt; among equals, the first name after the last
        host taken, else the first name (``DownloaderAwarePriorityQueue._next_slot``)."""
        busy = {name: host.in_flight + self._past_robots(host) for name, host in self._queued.items()}
        least = min(busy.values())
        names = sorted(name for name, count in busy.items() if count == least)
        last = self._last
        self._last = name = next((n for n in names if last is not None and n > last), names[0])
        return self._queued[name]

    def _past_robots(self, host: HostState) -> int:
        """Entries in ``host``'s slot, unless they wait for its robots.txt (then not in Scrapy's slot yet)."""
        slot = self._slots.get(host.name)
        return 0 if slot is None or host.robots_status is _PENDING else len(slot[1])

    def next_time(self) -> float | None:
        """When the earliest slot held only by its host's ``ready_at`` may start."""
        times = [
            host.ready_at
            for host, line in self._slots.values()
            if host.in_flight < self.per_host and not self._held_by_robots(host, line[0])
        ]
        return min(times, default=None)

    def purge(self, host: HostState, drop: Callable[[Entry], bool], now: float) -> list[Entry]:
        """Remove and return ``host``'s entries, queued or in its slot, for which ``drop`` is true."""
        return self._purge_queue(host, drop) + self._purge_slot(host, drop)

    def _purge_queue(self, host: HostState, drop: Callable[[Entry], bool]) -> list[Entry]:
        if self._one_queue is not None:
            mine = [(e, h) for e, h in self._one_queue if h is host and drop(e)]
            self._one_queue[:] = sorted(item for item in self._one_queue if item not in mine)
            dropped = [e for e, _ in mine]
        else:
            dropped = [e for e in host.queue if drop(e)]
            host.queue = sorted(e for e in host.queue if not drop(e))  # sorted, so a heap
            if not host.queue:
                self._queued.pop(host.name, None)
        self._in_queues -= len(dropped)
        return dropped

    def _purge_slot(self, host: HostState, drop: Callable[[Entry], bool]) -> list[Entry]:
        slot = self._slots.get(host.name)
        if slot is None:
            return []
        dropped = [w.entry for w in slot[1] if drop(w.entry)]
        kept = deque(w for w in slot[1] if not drop(w.entry))
        if kept:
            self._slots[host.name] = (host, kept)  # (keeps its place in the order)
        else:
            del self._slots[host.name]
        self._in_slots -= len(dropped)
        return dropped

    def entries(self, hosts: list[HostState]) -> list[Entry]:
        """Every waiting entry, queued or in a slot (for views and tests, not the hot path)."""
        queued = [e for e, _ in self._one_queue] if self._one_queue is not None else [
            e for host in hosts for e in host.queue
        ]
        return queued + [w.entry for _, line in self._slots.values() for w in line]


Frontier = PerHostFrontier | SingleQueueFrontier | DownloadSlots
"""Every shape of frontier the scheduler may own (``CrawlOptions.frontier``)."""

__all__ = ["DownloadSlots", "Frontier"]
