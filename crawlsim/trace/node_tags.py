"""A cluster trace file's node keys, checked as it is read.

Every line of a cluster's trace carries its node (``"node"``,
:data:`crawlsim.trace.cluster.NODE_KEY`) and the Done line the worker lanes
per node (``"workers"``); :func:`check_node_tags` checks them against the
events (a slot in its node's lanes, a message's sender or receiver its
node), so whatever :func:`crawlsim.trace.jsonl.read_trace` returns replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crawlsim.trace.cluster import MAX_NODES
from crawlsim.trace.events import Event, FetchStarted, MessageDelivered, MessageSent

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
    fixed = None if workers is None else checked_workers(workers)
    lanes = _Lanes(fixed or 1, fixed)
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


def checked_workers(workers: object, key: str = f'"{WORKERS_KEY}"') -> int:
    """A trace's worker lanes (per node), as its Done line says them under ``key``:
    a whole number a view can draw, else a ``ValueError`` naming the key."""
    if workers.__class__ is not int or not 1 <= workers <= MAX_TRACE_LANES:  # type: ignore[operator]
        raise ValueError(f"{key} is {workers!r}; expected a whole number 1-{MAX_TRACE_LANES:,}")
    return int(workers)  # type: ignore[call-overload]


def _node_of(tag: object, line: int) -> int:
    """A line's node key, checked."""
    if tag is None:
        raise ValueError(f'line {line}: no "node" key (the other lines have one: a cluster trace tags every event)')
    if tag.__class__ is not int or not 0 <= tag < MAX_NODES:  # type: ignore[operator]
        raise ValueError(f'line {line}: "node" is {tag!r}; expected a whole number 0-{MAX_NODES - 1}')
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
        if value.__class__ is not int or not 0 <= value < MAX_NODES:
            raise ValueError(f"line {line}: message node {value!r}; expected a whole number 0-{MAX_NODES - 1}")
    if (src if cls is MessageSent else dst) != node:
        raise ValueError(f"line {line}: a message {'sent by' if cls is MessageSent else 'to'} node "
                         f"{src if cls is MessageSent else dst} tagged with node {node}")
    return (src + 1, dst + 1)


__all__ = ["MAX_TRACE_LANES", "WORKERS_KEY", "check_node_tags"]
