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

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from crawlsim.core.events import Event, FetchFailed, FetchFinished, FetchStarted, NodeFailed, event_to_dict

NODE_KEY = "node"
"""The key a trace line carries its node under."""


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


def merge_node_traces(per_node: Sequence[Sequence[Event]], workers: int) -> ClusterTrace:
    """Merge the nodes' event lists (``per_node[k]`` is node ``k``'s, in its
    own order) by time -- ties keep node order, then each node's order --
    and renumber fetch ids and slots."""
    count = len(per_node)
    if count == 1 and not any(e.__class__ is NodeFailed for e in per_node[0]):
        events = list(per_node[0])
        return ClusterTrace(events, [0] * len(events), workers, 1)
    tagged = [[(e, k) for e in events] for k, events in enumerate(per_node)]
    merged = list(heapq.merge(*tagged, key=lambda pair: pair[0].t))
    nodes = [k for _, k in merged]
    return ClusterTrace(_renumbered([e for e, _ in merged], nodes, workers), nodes, workers, count)


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


__all__ = ["NODE_KEY", "ClusterTrace", "merge_node_traces"]
