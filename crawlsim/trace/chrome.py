"""A crawl's events as Chrome trace-event JSON, which Perfetto
(ui.perfetto.dev) and ``chrome://tracing`` open: one track per worker slot
with a span per fetch (name = URL, category = host), counters for the
frontier and the fetches in flight, and instant events for skipped links,
politeness deferrals, retries and robots.txt.

A cluster's trace (:mod:`crawlsim.trace.cluster`) has one process per node
("node n0", ...) with a track per worker, the messages, failures and
recoveries as instant events, and the messages in transit as a counter.
Events in, JSON out: standard library only, so any layer may export.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import IO, Any

from crawlsim.trace.cluster import node_label
from crawlsim.trace.events import (
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    MessageDelivered,
    MessageSent,
    NodeFailed,
    NodeRecovered,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)

WORKERS_PID, HOSTS_PID = 1, 2
LINKS_TID = 0
"""Skipped links go on their own track, before the worker slots (tid = slot + 1)."""


@dataclass(frozen=True)
class NodeLayout:
    """A cluster's trace, for the Chrome format: the node of each event,
    worker lanes per node and the node count.  Node ``k`` is process
    ``k + 1`` (its worker ``w`` is thread ``w + 1``), the hosts process the
    one after the last node."""

    nodes: Sequence[int]
    workers: int
    count: int


def _us(t: float) -> float:
    """Seconds of simulated time to trace microseconds (3 decimals: nanoseconds)."""
    return round(t * 1_000_000, 3)


def chrome_trace(
    events: Sequence[Event],
    series: Sequence[tuple[float, int, int]] = (),
    *,
    metadata: dict[str, Any] | None = None,
    layout: NodeLayout | None = None,
) -> dict[str, Any]:
    """The Chrome trace-event JSON object for a crawl's events.

    Spans ("X") run from FetchStarted to the FetchFinished or FetchFailed of
    the same fetch id, on the track of the fetch's worker slot; a fetch with
    no end (a trace cut short) is left out.  ``series`` (time, frontier, in
    flight) become counter ("C") events.  Each event type has its builder in
    :data:`_TRACK_BUILDERS`; a type with none (``Discovered``) adds nothing.
    :func:`write_chrome` writes the same JSON without holding it.
    """
    data: dict[str, Any] = {"traceEvents": list(chrome_events(events, series, layout)), "displayTimeUnit": "ms"}
    if metadata:
        data["otherData"] = metadata
    return data


def chrome_events(
    events: Iterable[Event], series: Iterable[tuple[float, int, int]] = (), layout: NodeLayout | None = None
) -> Iterator[dict[str, Any]]:
    """:func:`chrome_trace`'s ``traceEvents``, one at a time: a 100,000-page
    crawl makes some 800,000 of them, too many to hold as dicts."""
    trace = _ChromeTrace(layout)
    out = trace.out
    for event, node in zip(events, repeat(0) if layout is None else layout.nodes):
        build = _builder_for(type(event))
        if build is not None:
            trace.node = node
            build(trace, event)
            if out:
                yield from out
                out.clear()
    yield from out
    yield from _counters(series)


def write_chrome(
    events: Iterable[Event],
    series: Iterable[tuple[float, int, int]],
    out: IO[str],
    *,
    metadata: dict[str, Any] | None = None,
    separators: tuple[str, str] = (", ", ": "),
    layout: NodeLayout | None = None,
) -> None:
    """Write ``json.dump(chrome_trace(events, series, metadata=metadata), out,
    separators=separators)``, byte for byte, one trace event at a time."""
    comma, colon = separators
    out.write('{"traceEvents"' + colon + "[")
    first = True
    for item in chrome_events(events, series, layout):
        if not first:
            out.write(comma)
        first = False
        out.write(json.dumps(item, separators=separators))
    out.write("]" + comma + '"displayTimeUnit"' + colon + '"ms"')
    if metadata:
        out.write(comma + '"otherData"' + colon + json.dumps(metadata, separators=separators))
    out.write("}")


class _ChromeTrace:
    """A Chrome trace being built, in event order.

    ``out`` is the trace events so far: it starts with the two processes'
    names (the crawler's worker tracks, the hosts' tracks) and names each
    track just before its first event, as Perfetto reads them.  ``started``
    holds each fetch in flight until its end makes it a span.
    """

    def __init__(self, layout: NodeLayout | None = None) -> None:
        self.layout = layout
        self.node = 0
        """The node of the event being built (a cluster's trace; else 0)."""
        processes = [("crawler", "links")] if layout is None else [
            (f"node {node_label(k)}", "links, messages") for k in range(layout.count)
        ]
        self.out: list[dict[str, Any]] = []
        for index, (name, links) in enumerate(processes):
            pid = WORKERS_PID + index
            self.out += [
                {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": name}},
                {"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": index}},
                {"name": "thread_name", "ph": "M", "pid": pid, "tid": LINKS_TID, "args": {"name": links}},
            ]
        self.hosts_pid = HOSTS_PID if layout is None else WORKERS_PID + layout.count
        self.out += [
            {"name": "process_name", "ph": "M", "pid": self.hosts_pid, "tid": 0, "args": {"name": "hosts"}},
            {"name": "process_sort_index", "ph": "M", "pid": self.hosts_pid, "tid": 0, "args": {"sort_index": len(processes)}},
        ]
        self.started: dict[int, FetchStarted] = {}
        self.slots: set[int] = set()
        self.host_tid: dict[str, int] = {}
        self.outgoing: dict[int, int] = {}
        """A cluster's messages in transit, by sender."""

    # -- tracks ---------------------------------------------------------------

    def lane(self, slot: int) -> tuple[int, int]:
        """The process and track of worker ``slot``: one process, or in a
        cluster's trace the slot's node (``w1`` is its first worker)."""
        layout = self.layout
        if layout is None:
            return WORKERS_PID, slot + 1
        node = slot // layout.workers if layout.workers > 0 else 0
        return WORKERS_PID + node, slot - node * layout.workers + 1

    def worker_track(self, slot: int) -> int:
        """The track of worker ``slot`` (after the links track), named on first use."""
        pid, tid = self.lane(slot)
        if slot not in self.slots:
            self.slots.add(slot)
            name = {"name": f"worker {slot}" if self.layout is None else f"worker w{tid}"}
            self.out.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": name})
        return tid

    def host_track(self, host: str) -> int:
        """The track of ``host``, numbered in order of first appearance."""
        tid = self.host_tid.get(host)
        if tid is None:
            tid = self.host_tid[host] = len(self.host_tid) + 1
            self.out.append({"name": "thread_name", "ph": "M", "pid": self.hosts_pid, "tid": tid, "args": {"name": host}})
        return tid

    def instant(self, name: str, event: Event, pid: int, tid: int, args: dict[str, Any], scope: str = "t") -> None:
        self.out.append({"name": name, "ph": "i", "s": scope, "ts": _us(event.t), "pid": pid, "tid": tid, "args": args})

    # -- one builder per event type ---------------------------------------------

    def fetch_started(self, event: FetchStarted) -> None:
        self.started[event.fetch_id] = event
        self.worker_track(event.slot)

    def fetch_ended(self, event: FetchFinished | FetchFailed) -> None:
        """The fetch's span, from its start to this end, on its worker's track."""
        start = self.started.pop(event.fetch_id, None)
        if start is None:
            return
        pid, tid = self.lane(start.slot)
        self.out.append(
            {
                "name": _span_name(start, event),
                "cat": start.host,
                "ph": "X",
                "ts": _us(start.t),
                "dur": max(0.0, _us(event.t) - _us(start.t)),
                "pid": pid,
                "tid": tid,
                "args": _span_args(start, event),
            }
        )

    def skipped(self, event: Skipped) -> None:
        args = {"url": event.url, "parent": event.parent, "href": event.href}
        self.instant(f"skipped ({event.reason})", event, WORKERS_PID + self.node, LINKS_TID, args)

    def deferred(self, event: HostDeferred) -> None:
        args = {"host": event.host, "until": event.until, "for_s": round(event.until - event.t, 6)}
        self.instant(f"deferred ({event.reason})", event, self.hosts_pid, self.host_track(event.host), args)

    def retry(self, event: RetryScheduled) -> None:
        args = {"url": event.url, "at": event.at, "reason": event.reason}
        self.instant(f"retry {event.attempt} scheduled", event, self.hosts_pid, self.host_track(event.host), args)

    def robots(self, event: RobotsLoaded) -> None:
        args = {"status": event.status, "crawl_delay": event.crawl_delay, "disallow_all": event.disallow_all}
        self.instant("robots.txt loaded", event, self.hosts_pid, self.host_track(event.host), args)

    def done(self, event: Done) -> None:
        self.instant("done", event, WORKERS_PID, LINKS_TID, {"pages": event.pages, "fetches": event.fetches}, "g")

    # -- a cluster's own events: on the links track of the node they happen on --------

    def message_sent(self, event: MessageSent) -> None:
        args = {"links": event.links, "bytes": event.size}
        self.instant(f"message → {node_label(event.dst)}", event, WORKERS_PID + event.src, LINKS_TID, args)
        self.in_transit(event, event.src, 1)

    def message_delivered(self, event: MessageDelivered) -> None:
        name = f"message from {node_label(event.src)}" + (" lost (node down)" if event.lost else "")
        self.instant(name, event, WORKERS_PID + event.dst, LINKS_TID, {"links": event.links, "lost": event.lost})
        self.in_transit(event, event.src, -1)

    def in_transit(self, event: Event, src: int, delta: int) -> None:
        """The sender's messages still travelling, as a counter of its process."""
        count = self.outgoing[src] = max(0, self.outgoing.get(src, 0) + delta)
        ts = _us(event.t)
        self.out.append({"name": "messages out", "ph": "C", "ts": ts, "pid": WORKERS_PID + src, "tid": 0,
                         "args": {"in transit": count}})

    def node_failed(self, event: NodeFailed) -> None:
        self.instant("node failed", event, WORKERS_PID + event.node, LINKS_TID, {"urls_lost": event.lost}, "p")

    def node_recovered(self, event: NodeRecovered) -> None:
        args = {"restored_from": event.restored_from}
        self.instant("node recovered", event, WORKERS_PID + event.node, LINKS_TID, args, "p")


def _counters(series: Iterable[tuple[float, int, int]]) -> Iterator[dict[str, Any]]:
    """The frontier and the fetches in flight over time, as counters."""
    for t, frontier, in_flight in series:
        ts = _us(t)
        yield {"name": "frontier", "ph": "C", "ts": ts, "pid": WORKERS_PID, "tid": 0, "args": {"queued": frontier}}
        yield {"name": "in flight", "ph": "C", "ts": ts, "pid": WORKERS_PID, "tid": 0, "args": {"fetches": in_flight}}


def _span_name(start: FetchStarted, end: FetchFinished | FetchFailed) -> str:
    """The URL, marked when the fetch was a duplicate and, if it failed, why."""
    name = start.url + (" (duplicate)" if start.duplicate else "")
    if isinstance(end, FetchFailed):
        name += f" [{end.reason}]"
    return name


def _span_args(start: FetchStarted, end: FetchFinished | FetchFailed) -> dict[str, Any]:
    """What Perfetto shows for a selected span: the fetch, then its outcome."""
    args: dict[str, Any] = {
        "fetch_id": end.fetch_id,
        "kind": start.kind,
        "depth": start.depth,
        "attempt": start.attempt,
        "page": start.page,
        "duplicate": start.duplicate,
    }
    if isinstance(end, FetchFinished):
        args.update(status=end.status, links=end.links, new_links=end.new_links)
        if end.duplicate_of:
            args["duplicate_of"] = end.duplicate_of
    else:
        args.update(error=end.reason, final=end.final)
    return args


_TRACK_BUILDERS: dict[type[Event], Callable[[_ChromeTrace, Any], None]] = {
    FetchStarted: _ChromeTrace.fetch_started,
    FetchFinished: _ChromeTrace.fetch_ended,
    FetchFailed: _ChromeTrace.fetch_ended,
    Skipped: _ChromeTrace.skipped,
    HostDeferred: _ChromeTrace.deferred,
    RetryScheduled: _ChromeTrace.retry,
    RobotsLoaded: _ChromeTrace.robots,
    Done: _ChromeTrace.done,
    MessageSent: _ChromeTrace.message_sent,
    MessageDelivered: _ChromeTrace.message_delivered,
    NodeFailed: _ChromeTrace.node_failed,
    NodeRecovered: _ChromeTrace.node_recovered,
}
"""Event type -> what it adds to the trace.  ``Discovered`` has no entry:
there is one per page, and the frontier counter already shows it growing."""


def _builder_for(kind: type[Event]) -> Callable[[_ChromeTrace, Any], None] | None:
    """The builder of ``kind`` or of its nearest base class that has one."""
    for cls in kind.__mro__:
        build = _TRACK_BUILDERS.get(cls)
        if build is not None:
            return build
    return None


__all__ = ["HOSTS_PID", "LINKS_TID", "WORKERS_PID", "NodeLayout", "chrome_events", "chrome_trace", "write_chrome"]
