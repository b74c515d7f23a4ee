"""Node failure, recovery and checkpoints.

At ``fail.at`` a node stops: its in-flight fetches never answer, its
frontier, seen set, pending retries and unsent outboxes are gone, and
messages still travelling to it are dropped.  The failure is noticed at
once (a real cluster's heartbeat timeout would add to the delay) and the
partition is recomputed over the live nodes: consistent hashing moves only
the failed node's hosts, ``host-hash`` (``mod N - 1``) and ``round-robin``
move most of them.  The new owners have never seen the moved hosts' URLs,
so a link to a page the failed node already fetched fetches it again
(*refetched*), and a page only the failed node knew of is lost unless some
later page links to it.

At ``fail.recover`` the node comes back and takes its share back: with
``checkpoint = S`` from its last save (its scheduler as it was, at most
``S`` seconds old: what it fetched since is fetched again, what it queued
before is not lost), otherwise empty.  The termination detector is told
(:meth:`~crawlsim.cluster.termination.SafraRing.recovered`).  A failed
node counts as idle, so when the live nodes run out of work before it is
back, the detector declares the end and the recovery comes too late (its
``recovered_at`` stays None): the lost URLs are lost.

A save pickles the node's scheduler (the web, the node and the options
are written as references): exact, and its size in bytes is what a real
crawler would write -- though a real one writes its frontier and seen set
incrementally rather than whole.  (``copy.deepcopy`` would not do: it
keeps bound methods of builtins such as a set's ``add`` pointing at the
original.)

The work of saving is bounded whatever ``checkpoint`` says (it may be any
positive number of seconds, ``1e-300`` included): saves are at least
:data:`MIN_CHECKPOINT` apart (a simulated millisecond; a smaller interval
would also stop the clock, ``now + 1e-300 == now``), and after
:data:`MAX_SAVE_ROUNDS` rounds each next interval is twice the last, so a
long crawl adds only a few dozen more.  Either change is in the run's
result (``checkpoint_every``: the interval the last save used) and the
report says so: nothing is stretched silently.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

from crawlsim.cluster.node import ClusterSide, Node
from crawlsim.core.fetch import CrawlStats
from crawlsim.core.options import CrawlOptions
from crawlsim.core.scheduler import Scheduler
from crawlsim.trace.events import NodeFailed, NodeRecovered

if TYPE_CHECKING:
    import simpy

    from crawlsim.cluster.partition import Partition
    from crawlsim.cluster.termination import SafraRing


@dataclass
class FailureRecord:
    """What one node's failure cost, as measured during the run."""

    node: int
    at: float
    recovered_at: float | None = None
    urls_lost: int = 0
    """URLs queued, in flight, waiting for a retry or in an outbox when it failed."""
    messages_dropped: int = 0
    """Messages that reached it while it was down (their links are lost)."""
    restored_from: float | None = None
    """The time of the checkpoint it resumed from (None: it restarted empty)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "at": self.at,
            "recovered_at": self.recovered_at,
            "urls_lost": self.urls_lost,
            "messages_dropped": self.messages_dropped,
            "restored_from": self.restored_from,
        }


MIN_CHECKPOINT = 0.001
"""Simulated seconds between two save rounds, at the least."""
MAX_SAVE_ROUNDS = 1_000
"""Save rounds at the configured interval; each later one waits twice as long."""


def checkpoint_notes(configured: float | None, used: float | None) -> list[str]:
    """What a run's report says when the saves were not ``configured``
    seconds apart (``used``: the interval of its last round)."""
    if configured is None or used is None or used == configured:
        return []
    floor = max(configured, MIN_CHECKPOINT)
    parts = [f"cluster.checkpoint = {configured:g} s:"]
    if floor != configured:
        parts.append(f"saves were at least {MIN_CHECKPOINT:g} s apart")
    if used != floor:
        parts.append(f"{'and ' if floor != configured else ''}after {MAX_SAVE_ROUNDS:,} rounds each next save waited "
                     f"twice as long (the last {used:g} s)")
    return [" ".join(parts) + ", so the work of saving stays bounded; a recovering node resumes from its latest save"]


class ClusterState(ClusterSide, Protocol):
    """The cluster as its failures see it: what a node sees, and the parts a
    failure changes -- the nodes, the termination ring, the partition.
    Defined here, below the driver that satisfies it
    (:mod:`crawlsim.cluster.sim`)."""

    opts: CrawlOptions
    nodes: list[Node]
    ring: SafraRing
    partition: Partition

    def new_scheduler(self, node: Node) -> Scheduler:
        """An empty scheduler for ``node`` (a restart without a checkpoint)."""


class Failures:
    """Schedules the configured failures, recoveries and checkpoints of one run."""

    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        self.records: dict[int, FailureRecord] = {}
        self.saved: dict[int, tuple[float, bytes, frozenset[int]]] = {}
        self.saves = 0
        self.saved_bytes = 0
        """Bytes written by all saves (a pickled scheduler each)."""
        self.rounds = 0
        """Save rounds so far (each saves every live node)."""
        every = cluster.config.checkpoint
        self.every = None if every is None else max(every, MIN_CHECKPOINT)
        """Seconds until the next round: ``checkpoint``, at least MIN_CHECKPOINT,
        doubled each round after MAX_SAVE_ROUNDS."""

    def start(self) -> None:
        cl = self.cluster
        for failure in cl.config.fail:
            cl.env.timeout(failure.at, failure.node).callbacks.append(self._fail)
            if failure.recover is not None:
                cl.env.timeout(failure.recover, failure.node).callbacks.append(self._recover)
        if self.every is not None:
            cl.env.timeout(self.every).callbacks.append(self._save)

    def _shared(self, node: Node) -> list[object]:
        """What a saved scheduler refers to but does not own: the web (its
        ``page_of``), the node (its ``route`` hook) and the options."""
        return [self.cluster.web, node, self.cluster.opts]

    def _dump(self, node: Node) -> bytes:
        buffer = io.BytesIO()
        _Saver(buffer, self._shared(node)).dump(node.sched)
        return buffer.getvalue()

    def _load(self, node: Node, data: bytes) -> Scheduler:
        sched: Scheduler = _Loader(io.BytesIO(data), self._shared(node)).load()
        return sched

    def _save(self, event: simpy.Event) -> None:
        cl = self.cluster
        if cl.ring.detected_at is not None:
            return
        now = cl.env.now
        for node in cl.nodes:
            if node.alive:
                data = self._dump(node)
                self.saves += 1
                self.saved_bytes += len(data)
                self.saved[node.index] = (now, data, frozenset(node.flying or ()))
        self.rounds += 1
        assert self.every is not None
        if self.rounds >= MAX_SAVE_ROUNDS:
            self.every = min(self.every * 2, 1e300)
        cl.env.timeout(self.every).callbacks.append(self._save)

    def _fail(self, event: simpy.Event) -> None:
        cl = self.cluster
        node = cl.nodes[event.value]  # type: ignore[index]
        if cl.ring.detected_at is not None or not node.alive:
            return
        sched = node.sched
        record = self.records[node.index] = FailureRecord(node.index, cl.env.now)
        record.urls_lost = sched.frontier_size + sched.in_flight + sched.pending_retries + node.pending
        if cl.tracing:
            node.record(NodeFailed(cl.env.now, node.index, record.urls_lost))
        node.alive = False
        node.epoch += 1
        if node.flying is not None:
            node.flying.clear()
        node.outbox.clear()
        node.flush_armed.clear()
        node.pending = 0
        cl.partition = cl.partition.without(node.index)
        cl.ring.failed(node.index)
        cl.after(node, cl.env.now)

    def dropped(self, node: int) -> None:
        self.records[node].messages_dropped += 1

    def _recover(self, event: simpy.Event) -> None:
        cl = self.cluster
        node = cl.nodes[event.value]  # type: ignore[index]
        record = self.records.get(node.index)
        if record is None or node.alive or cl.ring.detected_at is not None:
            return  # it never failed, or it comes back after the crawl was declared over: too late
        now = record.recovered_at = cl.env.now
        saved = self.saved.get(node.index)
        if cl.tracing:
            node.record(NodeRecovered(now, node.index, saved[0] if saved is not None else None))
        if saved is not None:
            at, data, flying = saved
            record.restored_from = at
            restored = self._load(node, data)
            node.retired.append(_minus(node.sched.stats, restored.stats))
            node.sched = restored
            restored.drain_events()  # what it had said before the save is in the trace already
            for fetch_id in sorted(flying):  # in flight when saved: their answers died with the node
                node.sched.on_error(fetch_id, now, "lost in a node failure", transient=True)
            node.flying = set()
        else:
            node.retired.append(node.sched.stats)
            node.sched = cl.new_scheduler(node)
        node.alive = True
        node.wake_at = float("inf")
        cl.partition = cl.partition.with_alive([*cl.partition.alive, node.index])
        cl.ring.recovered(node.index)
        node.dispatch(now)


class _Saver(pickle.Pickler):
    """Pickles a scheduler, writing the shared objects as references (not copies)."""

    def __init__(self, file: io.BytesIO, shared: list[object]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ids = {id(obj): i for i, obj in enumerate(shared)}

    def persistent_id(self, obj: object) -> int | None:  # pickle's hook
        return self._ids.get(id(obj))


class _Loader(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: list[object]) -> None:
        super().__init__(file)
        self._shared = shared

    def persistent_load(self, pid: Any) -> object:  # pickle's hook
        return self._shared[pid]


def _minus(after: CrawlStats, before: CrawlStats) -> CrawlStats:
    """The counts made between two snapshots of one scheduler's counters
    (the peaks are kept: they were reached)."""
    out = CrawlStats()
    for f in fields(CrawlStats):
        if f.name == "skipped":
            out.skipped = after.skipped - before.skipped
        elif f.name.startswith("peak_"):
            setattr(out, f.name, getattr(after, f.name))
        else:
            setattr(out, f.name, getattr(after, f.name) - getattr(before, f.name))
    return out


__all__ = ["ClusterState", "FailureRecord", "Failures"]
