"""Replay a cluster's trace: what each crawler node is doing at time ``t``.

A cluster's trace (:mod:`crawlsim.cluster.trace`) is one stream of the
core's events plus the cluster's own (messages, node failures), with the
node of each event beside it.  :class:`~crawlsim.replay.Replay` replays the
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

from crawlsim.cluster.config import MAX_NODES as MAX_TRACE_NODES
from crawlsim.core.events import (
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


def node_label(index: int) -> str:
    """How every view names node ``index``: ``n2`` is the ``node = 2`` of a
    scenario's ``fail`` list and the ``node 2`` row of ``crawlsim run``."""
    return f"n{index}"


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


MAX_TRACE_LANES = 100_000
"""The most worker lanes a trace may imply (nodes x lanes per node)."""


WORKERS_KEY = "workers"
"""The key of a cluster trace's Done line that says the worker lanes per node."""


def check_node_tags(
    events: Sequence[Event], tags: Sequence[object], lines: Sequence[int], workers: object = None
) -> tuple[list[int], int, int]:
    """A trace file's node keys, checked: (the node of each event, worker
    lanes per node, node count).  ``lines[i]`` is the file line of event i,
    for the message of the ``ValueError`` a bad tag raises.

    The lanes per node are ``workers`` (the Done line's ``"workers"``), or
    without it the fewest that put every fetch's slot in its node's group
    (node ``k`` owns slots ``k*W .. (k+1)*W-1``); a slot outside its node's
    group is a tampered trace, as is a message whose sender or receiver is
    not the node it is tagged with."""
    nodes: list[int] = []
    if workers is not None and (workers.__class__ is not int or not 1 <= workers <= MAX_TRACE_LANES):  # type: ignore[operator]
        raise ValueError(f'"workers" is {workers!r}; expected a whole number 1-{MAX_TRACE_LANES:,}')
    lanes = _Lanes(1, None) if workers is None else _Lanes(workers, workers)  # type: ignore[arg-type]
    count = 1
    for e, tag, line in zip(events, tags, lines):
        node = _node_of(tag, line)
        count = max(count, node + 1, *_peers(e, node, line))
        if e.__class__ is FetchStarted:
            lanes.fit(e.slot, node, line)  # type: ignore[attr-defined]
        nodes.append(node)
    if lanes.low * count > MAX_TRACE_LANES:
        raise ValueError(f"{count} nodes of {lanes.low} worker lanes each: more than {MAX_TRACE_LANES:,} lanes to draw")
    return nodes, lanes.low, count


def _node_of(tag: object, line: int) -> int:
    """A line's node key, checked."""
    if tag is None:
        raise ValueError(f'line {line}: no "node" key (the other lines have one: a cluster trace tags every event)')
    if tag.__class__ is not int or not 0 <= tag < MAX_TRACE_NODES:  # type: ignore[operator]
        raise ValueError(f'line {line}: "node" is {tag!r}; expected a whole number 0-{MAX_TRACE_NODES - 1}')
    return int(tag)  # type: ignore[call-overload]


@dataclass
class _Lanes:
    """The lanes per node ``W`` a trace's slots allow: ``low <= W <= high``."""

    low: int
    high: int | None

    def fit(self, slot: object, node: int, line: int) -> None:
        """Narrow the range to put ``slot`` in node ``node``'s group (``node*W .. node*W+W-1``)."""
        if slot.__class__ is not int or slot < 0:  # type: ignore[operator]
            raise ValueError(f"line {line}: slot {slot!r} is not a worker slot")
        at = int(slot)  # type: ignore[call-overload]
        self.low = max(self.low, at // (node + 1) + 1)
        if node > 0:
            self.high = at // node if self.high is None else min(self.high, at // node)
        if self.high is not None and self.low > self.high:
            raise ValueError(f"line {line}: slot {at} does not fit node {node}'s worker lanes (node k owns the k-th group)")


def _peers(e: Event, node: int, line: int) -> tuple[int, ...]:
    """The nodes a cluster event names besides its own (checked)."""
    cls = e.__class__
    if cls is not MessageSent and cls is not MessageDelivered:
        return ()
    src, dst = e.src, e.dst  # type: ignore[attr-defined]
    for value in (src, dst):
        if value.__class__ is not int or not 0 <= value < MAX_TRACE_NODES:
            raise ValueError(f"line {line}: message node {value!r}; expected a whole number 0-{MAX_TRACE_NODES - 1}")
    if (src if cls is MessageSent else dst) != node:
        raise ValueError(f"line {line}: a message {'sent by' if cls is MessageSent else 'to'} node "
                         f"{src if cls is MessageSent else dst} tagged with node {node}")
    return (src + 1, dst + 1)


__all__ = ["MAX_TRACE_NODES", "WORKERS_KEY", "NodeReplay", "NodeStatus", "check_node_tags", "node_label"]
