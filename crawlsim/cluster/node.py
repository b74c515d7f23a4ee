"""One crawler node of a simulated cluster: a core Scheduler, its workers
(SimPy timeouts, one per fetch) and its
outboxes of links owned by other nodes.

The node adds no crawl rule: its scheduler admits, deduplicates and
politely schedules the URLs the node owns; links owned elsewhere leave
through the scheduler's ``route`` hook (called only for a response whose
links the core follows) and arrive at their owner's
:meth:`~crawlsim.core.scheduler.Scheduler.add_links`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from crawlsim.trace.events import Event, MessageDelivered, MessageSent
from crawlsim.core.options import CrawlOptions
from crawlsim.core.fetch import CrawlStats
from crawlsim.core.scheduler import Scheduler
from crawlsim.sim.driver import page_of_for, report_page, report_robots

if TYPE_CHECKING:
    import simpy

    from crawlsim.cluster.config import ClusterConfig
    from crawlsim.cluster.politeness import PolitenessWatch
    from crawlsim.sim.inputs import SimInput
    from crawlsim.sim.web import Web

_INF = float("inf")

Item = tuple[str, str, int]
"""A link in a message: (canonical URL, the page it was found on, that page's depth)."""


class ClusterSide(Protocol):
    """The cluster as a node sees it: the one clock, the web, the links to
    other nodes and the cluster-wide measurements.  Defined here, below the
    driver that satisfies it (:mod:`crawlsim.cluster.sim`), so a node never
    imports the module that builds it."""

    sim: SimInput
    web: Web
    config: ClusterConfig
    env: simpy.Environment
    """The clock every node shares (``env.now``, ``env.timeout``)."""
    tracing: bool
    dedup_content: bool
    watch: PolitenessWatch | None
    fetched: Counter[str] | None
    log: list[tuple[Event, int]]
    """Every node's events, in the order they happened across nodes."""

    def sample(self, host: str) -> float:
        """One fetch latency on ``host``, from the generator the nodes share."""

    def activity(self, now: float) -> None:
        """Something happened at ``now`` (the crawl's true end is the last)."""

    def after(self, node: Node, now: float) -> None:
        """After any activity on ``node`` (the termination ring may move on)."""

    def split(
        self, me: int, base: str, links: Sequence[object], depth: int, outbox: dict[int, list[Item]]
    ) -> tuple[list[object], dict[int, int]]:
        """The links node ``me`` owns; the others queued in ``outbox`` per owner."""

    def send(self, src: int, dst: int, items: list[Item], size: int, now: float) -> None:
        """One message of links from node ``src`` to node ``dst``."""


class Node:
    """One node's scheduler, figures and outboxes (see the module docstring)."""

    def __init__(self, index: int, cluster: ClusterSide, opts: CrawlOptions, *, route: bool) -> None:
        self.index = index
        self.cluster = cluster
        self.sched = Scheduler(opts, page_of=page_of_for(cluster.sim, opts), route=self.route if route else None)
        self.alive = True
        self.epoch = 0
        """Bumped when the node fails: fetches and timers of an older epoch are void."""
        self.flying: set[int] | None = set() if cluster.config.checkpoint is not None else None
        """Fetch ids in flight, kept when checkpoints are on (a restored
        scheduler's in-flight fetches never answer: they are retried)."""
        self.retired: list[CrawlStats] = []
        """Counters of schedulers this node lost (a failure), still part of its figures."""
        self.events: list[Event] = []
        self.wake_at = _INF
        self.busy = 0.0
        self.wasted = 0.0
        self.host_busy: dict[str, float] = {}
        self.host_fetches: dict[str, int] = {}
        self.host_robots_fetches: dict[str, int] = {}
        self.sent = self.received = self.bytes_sent = self.bytes_received = 0
        self.outbox: dict[int, list[Item]] = {}
        self.pending = 0
        """Links waiting in outboxes (a node with any is not idle)."""
        self.flush_armed: dict[int, int] = {}
        """Peer -> generation of the flush timer armed for its outbox."""
        self.generation = 0

    # -- work ------------------------------------------------------------------

    def dispatch(self, now: float) -> None:
        """Start what the scheduler allows at ``now`` (one timeout per fetch),
        then set the next wake-up -- the order of :mod:`crawlsim.sim.driver`."""
        cl = self.cluster
        sample = cl.sample
        for fetch in self.sched.poll(now):
            took = sample(fetch.host)
            if fetch.duplicate:
                self.wasted += took
            if cl.watch is not None:
                cl.watch.started(self.sched, fetch, now)
            if self.flying is not None:
                self.flying.add(fetch.id)
            cl.env.timeout(took, (fetch, now, took, self.epoch)).callbacks.append(self.on_done)
        if cl.tracing:
            self.drain()
        wake = self.sched.next_wakeup()
        if wake is not None and wake < self.wake_at:
            self.wake_at = wake
            cl.env.timeout(max(0.0, wake - now)).callbacks.append(self.on_wake)
        cl.after(self, now)

    def on_done(self, event: simpy.Event) -> None:
        fetch, started, took, epoch = event.value  # type: ignore[misc]
        now = started + took
        cl = self.cluster
        if epoch != self.epoch:  # the node failed while this fetch was in flight: its answer is lost
            if cl.watch is not None:
                cl.watch.finished(fetch)
            return
        cl.activity(now)
        if self.flying is not None:
            self.flying.discard(fetch.id)
        if cl.fetched is not None and fetch.kind == "page":
            cl.fetched[fetch.url] += 1
        self.busy += took
        self.host_busy[fetch.host] = self.host_busy.get(fetch.host, 0.0) + took
        self.host_fetches[fetch.host] = self.host_fetches.get(fetch.host, 0) + 1
        if fetch.kind == "robots":
            self.host_robots_fetches[fetch.host] = self.host_robots_fetches.get(fetch.host, 0) + 1
        if cl.watch is not None:
            cl.watch.finished(fetch)
        if fetch.kind == "robots":
            report_robots(self.sched, cl.web.robots_txt(fetch.host), fetch, now)
        else:
            report_page(self.sched, cl.web.response(fetch.url, fetch.attempt, now), fetch, now, cl.dedup_content)
        self.dispatch(now)

    def on_wake(self, _: simpy.Event) -> None:
        if not self.alive:
            return
        self.wake_at = _INF
        self.dispatch(self.cluster.env.now)

    @property
    def idle(self) -> bool:
        """Nothing queued, in flight, pending retry or waiting in an outbox
        (a failed node is idle: it does nothing)."""
        return not self.alive or (self.pending == 0 and self.sched.done)

    def stats(self) -> list[CrawlStats]:
        """Every scheduler's counters this node has had (the live one last)."""
        return [*self.retired, self.sched.stats]

    # -- messages --------------------------------------------------------------

    def route(self, base: str, links: Sequence[object], depth: int, now: float) -> list[object]:
        """The scheduler's ``route`` hook: keep the links this node owns (as
        written), queue the others for their owners, send full batches."""
        cl = self.cluster
        local, touched = cl.split(self.index, base, links, depth, self.outbox)
        for dst, count in touched.items():
            self.pending += count
            self._ship(dst, now)
        return local

    def _ship(self, dst: int, now: float) -> None:
        """Send ``dst``'s full batches now; the rest now too when ``flush`` is 0,
        else when the flush timer armed for it fires."""
        cl = self.cluster
        box = self.outbox[dst]
        batch = cl.config.batch
        while len(box) >= batch:
            self._send(dst, box[:batch], now)
            del box[:batch]
        if not box:
            self.flush_armed.pop(dst, None)
            return
        if cl.config.flush == 0:
            self._send(dst, list(box), now)
            box.clear()
            self.flush_armed.pop(dst, None)
        elif dst not in self.flush_armed:
            self.generation += 1
            self.flush_armed[dst] = self.generation
            cl.env.timeout(cl.config.flush, (dst, self.generation)).callbacks.append(self.on_flush)

    def on_flush(self, event: simpy.Event) -> None:
        dst, generation = event.value  # type: ignore[misc]
        if self.flush_armed.get(dst) != generation:
            return
        del self.flush_armed[dst]
        now = self.cluster.env.now
        box = self.outbox[dst]
        batch = self.cluster.config.batch
        while box:
            self._send(dst, box[:batch], now)
            del box[:batch]
        self.cluster.after(self, now)

    def _send(self, dst: int, items: list[Item], now: float) -> None:
        size = sum(len(url) + 1 for url, _, _ in items)
        self.pending -= len(items)
        self.sent += 1
        self.bytes_sent += size
        if self.cluster.tracing:
            self.record(MessageSent(now, self.index, dst, len(items), size))
        self.cluster.send(self.index, dst, items, size, now)

    def drain(self) -> None:
        """Move what the scheduler has said into this node's trace and the
        cluster's log (the log keeps the order things happened across nodes)."""
        said = self.sched.drain_events()
        if said:
            self.events.extend(said)
            self.cluster.log.extend([(e, self.index) for e in said])

    def record(self, event: Event) -> None:
        """Add a cluster event to this node's trace, after what its scheduler
        has said so far (so a message follows the fetch whose links it carries)."""
        self.drain()
        self.events.append(event)
        self.cluster.log.append((event, self.index))

    def receive(self, src: int, items: list[Item], size: int, now: float) -> None:
        """A message arrived: its links are admitted by this node's scheduler,
        grouped by the page they were found on."""
        self.received += 1
        self.bytes_received += size
        if self.cluster.tracing:
            self.record(MessageDelivered(now, src, self.index, len(items), False))
        start = 0
        sched = self.sched
        while start < len(items):
            _, base, depth = items[start]
            end = start + 1
            while end < len(items) and items[end][1] == base:
                end += 1
            sched.add_links(base, [url for url, _, _ in items[start:end]], depth, now)
            start = end
        self.dispatch(now)

    def figures(self) -> dict[str, Any]:
        """This node's figures for the report."""
        stats = self.stats()
        return {
            "node": self.index,
            "fetches": sum(s.fetches for s in stats),
            "robots_fetches": sum(s.robots_fetches for s in stats),
            "pages_fetched": sum(s.pages_fetched for s in stats),
            "busy_time": self.busy,
            "messages_sent": self.sent,
            "messages_received": self.received,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "peak_frontier": max(s.peak_frontier for s in stats),
            "hosts": len(self.host_fetches),
        }


__all__ = ["ClusterSide", "Item", "Node"]
