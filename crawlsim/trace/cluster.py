"""One trace for a whole cluster: every node's events on one clock, each
tagged with its node, numbered so that views can replay them as one crawl.

Each node's scheduler numbers its own fetches from 1 and its own worker
slots from 0, so two nodes both start "fetch 1 in slot 0".  The merged
trace renumbers them: fetch ids in the order fetches started across the
cluster (a scheduler restarted after a failure starts again from 1: the
renumbering follows the latest start of each id), and slots as
``node * workers + slot``, so node ``k``'s lanes are the ``k``-th group of
``workers``.  With one node and no failure both are the identity, which is
why a one-node cluster's trace is the single process's trace.

The node of each event is kept beside the events (``nodes[i]`` is the node
of ``events[i]``) rather than in them: the core's events stay the core's,
and a trace file carries it as one more key, ``"node"``, which readers
that do not know clusters ignore.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from crawlsim.trace.events import (
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    NodeFailed,
    event_to_dict,
)

NODE_KEY = "node"
"""The key a trace line carries its node under."""

MAX_NODES = 1024
"""A cluster's size: each node is a scheduler and a SimPy lane set; a trace's
node keys are below it (``crawlsim.cluster.config`` allows no more)."""


@dataclass(frozen=True)
class ClusterTrace:
    """The merged events and the node of each (same length, same order)."""

    events: list[Event]
    nodes: list[int]
    workers: int
    """Worker slots per node: node ``k`` owns slots ``k*workers .. (k+1)*workers-1``."""
    node_count: int

    def node_of_slot(self, slot: int) -> int:
        return slot // self.workers if self.workers > 0 else 0

    def dicts(self) -> Iterator[dict[str, Any]]:
        """Each event as its trace line: ``event_to_dict`` plus the node key."""
        for event, node in zip(self.events, self.nodes):
            data = event_to_dict(event)
            data[NODE_KEY] = node
            yield data


def merge_node_traces(log: Sequence[tuple[Event, int]], count: int, workers: int, end: Done | None = None) -> ClusterTrace:
    """The cluster's trace from its log -- (event, node) pairs in the order
    the simulation produced them, which is causal order (a message is sent
    before it is delivered, even with no link latency) -- with fetch ids and
    slots renumbered.

    Each node's scheduler says Done when *it* runs dry, which in a cluster
    is not the end (a message may bring it more work), so the trace drops
    those and adds ``end`` at its time, the cluster's one Done (tagged with
    node 0, where the termination detector's ring starts)."""
    if count == 1 and not any(e.__class__ is NodeFailed for e, _ in log):
        events = [e for e, _ in log]
        return ClusterTrace(events, [0] * len(events), workers, 1)
    pairs = [pair for pair in log if pair[0].__class__ is not Done]
    if end is not None:  # after everything at its time (a failure after the end stays after it)
        at = bisect_right([e.t for e, _ in pairs], end.t)
        pairs.insert(at, (end, 0))
    nodes = [k for _, k in pairs]
    return ClusterTrace(_renumbered([e for e, _ in pairs], nodes, workers), nodes, workers, count)


def _renumbered(events: list[Event], nodes: list[int], workers: int) -> list[Event]:
    """Fetch ids unique across the cluster, slots grouped by node."""
    current: dict[tuple[int, int], int] = {}
    """(node, the node's fetch id) -> the cluster's id of its latest start."""
    next_id = orphans = 0
    out: list[Event] = []
    for event, node in zip(events, nodes):
        cls = event.__class__
        if cls is FetchStarted:
            next_id += 1
            current[(node, event.fetch_id)] = next_id  # type: ignore[attr-defined]
            event = replace(event, fetch_id=next_id, slot=node * workers + event.slot)  # type: ignore[attr-defined]
        elif cls is FetchFinished or cls is FetchFailed:
            known = current.get((node, event.fetch_id))  # type: ignore[attr-defined]
            if known is None:  # no start of this id on this node: keep it apart from every start
                orphans += 1
                known = -orphans
            event = replace(event, fetch_id=known)  # type: ignore[attr-defined]
        out.append(event)
    return out


def node_label(index: int) -> str:
    """How every view names node ``index``: ``n2`` is the ``node = 2`` of a
    scenario's ``fail`` list and the ``node 2`` row of ``crawlsim run``."""
    return f"n{index}"


__all__ = ["MAX_NODES", "NODE_KEY", "ClusterTrace", "merge_node_traces", "node_label"]
