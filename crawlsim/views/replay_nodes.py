"""Replay a cluster's trace: what each crawler node is doing at time ``t``.

A cluster's trace (:mod:`crawlsim.trace.cluster`) is one stream of the
core's events plus the cluster's own (messages, node failures), with the
node of each event beside it.  :class:`~crawlsim.views.replay.Replay` replays the
pages and lanes as for one crawl; this module adds what only a cluster
has: each node's frontier, fetches in flight, messages sent and received,
whether it is up, the messages in transit between nodes, and which hosts
each node crawls (the partition).  Like the rest of replay it only counts
events -- no crawl rule is repeated here.

Worker lanes are grouped by node: node ``k`` owns slots
``k*workers .. (k+1)*workers-1`` (the trace numbered them so).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from crawlsim.trace.cluster import node_label
from crawlsim.trace.events import (
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    MessageDelivered,
    MessageSent,
    NodeFailed,
    NodeRecovered,
)


@dataclass(slots=True)
class NodeStatus:
    """One node at time t."""

    index: int
    alive: bool = True
    frontier: int = 0
    """Pages this node has queued (its share of the frontier)."""
    in_flight: int = 0
    fetched: int = 0
    """Page fetches this node has had answered."""
    sent: int = 0
    received: int = 0
    lost: int = 0
    """Messages to this node that arrived while it was down."""
    failures: int = 0

    @property
    def label(self) -> str:
        """``n0``..``n{N-1}``: the number a scenario's ``fail = [{node = 2}]``
        and ``crawlsim run``'s node table use."""
        return node_label(self.index)


@dataclass
class NodeReplay:
    """Per-node state of a cluster trace at the replay's time."""

    count: int
    workers: int
    """Worker slots per node."""
    nodes: Sequence[int]
    """The node of each event of the (time-sorted) trace."""
    hosts: list[list[str]] = field(default_factory=list)
    """Hosts each node fetched from, over the whole trace, in order of first
    fetch: the partition as it was used (a host on two nodes is split, as
    url-hash does, or moved, after a failure)."""
    status: list[NodeStatus] = field(default_factory=list)
    in_transit: int = 0
    """Messages sent and not yet delivered."""
    links_in_transit: int = 0
    flows: Counter[tuple[int, int]] = field(default_factory=Counter)
    """(src, dst) -> messages in transit between them."""

    @classmethod
    def build(cls, events: Sequence[Event], nodes: Sequence[int], count: int, workers: int) -> NodeReplay:
        replay = cls(count, max(1, workers), nodes)
        seen: list[dict[str, None]] = [{} for _ in range(count)]
        for e, node in zip(events, nodes):
            if e.__class__ is FetchStarted:
                seen[node].setdefault(e.host, None)  # type: ignore[attr-defined]
        replay.hosts = [list(hosts) for hosts in seen]
        replay.reset()
        return replay

    def reset(self) -> None:
        self.status = [NodeStatus(i) for i in range(self.count)]
        self.in_transit = self.links_in_transit = 0
        self.flows = Counter()

    def node_of_slot(self, slot: int) -> int:
        return min(self.count - 1, slot // self.workers)

    def slots_of(self, node: int) -> range:
        """The worker lanes of ``node``."""
        return range(node * self.workers, (node + 1) * self.workers)

    def split_hosts(self) -> list[str]:
        """Hosts fetched by more than one node (url-hash's politeness risk)."""
        owners: Counter[str] = Counter(h for hosts in self.hosts for h in hosts)
        return [h for h, n in owners.items() if n > 1]

    # -- applying events (Replay.seek calls these with each event's node) --------

    def frontier_moved(self, node: int, delta: int) -> None:
        self.status[node].frontier += delta

    def apply(self, e: Event, node: int) -> None:
        cls = e.__class__
        status = self.status[node]
        if cls is FetchStarted:
            status.in_flight += 1
        elif cls is FetchFinished or cls is FetchFailed:
            if status.in_flight > 0:
                status.in_flight -= 1
            if cls is FetchFinished and e.kind == "page":  # type: ignore[attr-defined]
                status.fetched += 1
        elif cls is MessageSent:
            status.sent += 1
            self.in_transit += 1
            self.links_in_transit += e.links  # type: ignore[attr-defined]
            self.flows[(e.src, e.dst)] += 1  # type: ignore[attr-defined]
        elif cls is MessageDelivered:
            self._delivered(e, status)  # type: ignore[arg-type]
        elif cls is NodeFailed:
            status.alive = False
            status.failures += 1
            status.in_flight = 0
        elif cls is NodeRecovered:
            status.alive = True

    def _delivered(self, e: MessageDelivered, status: NodeStatus) -> None:
        self.in_transit -= 1
        self.links_in_transit -= e.links
        self.flows[(e.src, e.dst)] -= 1
        if self.flows[(e.src, e.dst)] <= 0:
            del self.flows[(e.src, e.dst)]
        if e.lost:
            status.lost += 1
        else:
            status.received += 1


__all__ = ["NodeReplay", "NodeStatus"]
