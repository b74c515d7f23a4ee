"""``crawlsim trace SCENARIO -o FILE``: a simulated crawl's events, to replay
or to inspect.

``.jsonl`` (or ``-`` for stdout) writes the core's own trace format, one
``event_to_dict`` per line -- what ``crawlsim tui --trace`` replays.
``.json`` writes the Chrome trace-event format, which Perfetto
(ui.perfetto.dev) and ``chrome://tracing`` open: one track per worker slot
with a span per fetch (name = URL, category = host), counters for the
frontier and the fetches in flight, and instant events for skipped links,
politeness deferrals, retries and robots.txt.

A cluster's crawl (``--nodes N``, or the scenario's ``[cluster]`` table)
writes the cluster's one trace (:mod:`crawlsim.cluster.trace`): each JSONL
line carries its ``"node"``; the Chrome trace has one process per node
("node n0", ...) with a track per worker, the messages, failures and
recoveries as instant events, and the messages in transit as a counter.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import IO, Any

from crawlsim.cli_options import add_cluster_flags, add_crawler_flags, overrides_from_args
from crawlsim.commands.common import ArgumentParser, add_scenario_argument, add_seed_argument, load
from crawlsim.core.events import (
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
from crawlsim.errors import UsageError
from crawlsim.outfile import written
from crawlsim.replay_nodes import node_label
from crawlsim.session import write_trace_lines
from crawlsim.sim.coverage import Coverage, coverage_of

FORMATS = {".jsonl": "jsonl", ".json": "chrome"}
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


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim trace",
        description=(
            "Simulate a scenario and write every event the crawler emitted: FILE.jsonl is crawlsim's own trace "
            "(one JSON object per line; `crawlsim tui --trace FILE` replays it), FILE.json is Chrome trace-event "
            "JSON that opens in Perfetto (ui.perfetto.dev): one track per worker, a span per fetch. With --nodes N "
            "(or the scenario's [cluster] table) the cluster's trace: each JSONL line carries its \"node\", and the "
            "Chrome trace has a process per node."
        ),
    )
    add_scenario_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="where to write: .jsonl, .json (Chrome/Perfetto), or - for JSONL on stdout",
    )
    parser.add_argument(
        "--format", choices=("jsonl", "chrome"), default=None, help="override the format the file name implies"
    )
    add_seed_argument(parser)
    add_crawler_flags(parser)
    add_cluster_flags(parser)
    return parser


def output_format(path: str, given: str | None) -> str:
    if given:
        return given
    if path == "-":
        return "jsonl"
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise UsageError(f"{path}: expected a .jsonl or .json file (or --format jsonl|chrome)")
    return fmt


write_jsonl = write_trace_lines
"""The JSONL writer is the session's (:func:`crawlsim.session.write_trace_lines`), beside its reader."""


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


def coverage_line(stats: Any, coverage: Coverage) -> str:
    """Pages reachable, fetched and lost (with their reasons), and the fetches
    that were duplicates or failed: the trace's words, as in ``run``."""
    return (
        f"{coverage.summary()}; {stats.fetches:,} fetches ({stats.duplicate_fetches:,} duplicate, "
        f"{stats.failed:,} failed)"
    )


@dataclass(frozen=True)
class Traced:
    """A crawl simulated for its trace: one process, or a cluster (``layout``)."""

    run: Any
    """The ``SimRun`` or ``ClusterRun`` (stats, finish time, options)."""
    events: Sequence[Event]
    series: Sequence[tuple[float, int, int]] = ()
    layout: NodeLayout | None = None

    def write(self, fmt: str, out: IO[str], **chrome: Any) -> int:
        """Write the trace in ``fmt``; the number of events written."""
        if fmt == "jsonl":
            layout = self.layout
            return write_jsonl(self.events, out, layout and layout.nodes, layout and layout.workers)
        write_chrome(self.events, self.series, out, layout=self.layout, **chrome)
        return len(self.events)


def simulate_for_trace(scenario: Any, args: Any) -> Traced:
    """The crawl ``args`` ask for: the cluster when ``--nodes`` or the
    scenario's ``[cluster]`` table says more than one node."""
    from crawlsim.commands.run_cluster import cluster_config

    config = cluster_config(scenario, args)
    if config.nodes > 1:
        from crawlsim.cluster.sim import simulate_cluster

        run = simulate_cluster(scenario, config, trace=True)
        cluster = run.cluster_trace()
        return Traced(run, cluster.events, (), NodeLayout(cluster.nodes, cluster.workers, cluster.node_count))
    from crawlsim.sim.driver import simulate

    run = simulate(scenario, trace=True, series=True)
    return Traced(run, run.trace, run.series)


def main(argv: list[str] | None = None) -> int:
    from crawlsim.commands.summary import options_dict

    args = build_parser().parse_args(argv)
    fmt = output_format(args.output, args.format)
    scenario = load(args.scenario, overrides_from_args(args), args.seed)
    traced = simulate_for_trace(scenario, args)
    run = traced.run
    if args.output == "-":
        traced.write(fmt, sys.stdout)
        if fmt == "chrome":
            sys.stdout.write("\n")
        return 0
    path = Path(args.output)
    meta = {
        "scenario": scenario.name,
        "title": scenario.title,
        "options": options_dict(run.options),
        "finish_time": run.finish_time,
        "clock": "simulated seconds (shown as microseconds x 1e6)",
    }
    if traced.layout is not None:
        meta["cluster"] = {"nodes": run.config.nodes, "partition": run.config.partition, "detected_at": run.detected_at}
    # -o out/see-it.json in a fresh checkout makes out/, as sweep -o out/ does; a
    # full disk is one line, and no half-written file is left looking complete
    with written(path) as out:
        count = traced.write(fmt, out, metadata=meta, separators=(",", ":"))
    where = "; open it at https://ui.perfetto.dev" if fmt == "chrome" else ""
    nodes = "" if traced.layout is None else f", {run.config.nodes} nodes {run.config.partition}"
    print(f"wrote {count:,} events ({run.stats.fetches:,} fetches, finish {run.finish_time:.1f} s{nodes}) to {path}{where}")
    print(coverage_line(run.stats, coverage_of(scenario, run)))
    return 0


__all__ = [
    "NodeLayout",
    "Traced",
    "build_parser",
    "chrome_events",
    "chrome_trace",
    "main",
    "output_format",
    "simulate_for_trace",
    "write_chrome",
    "write_jsonl",
]
