"""``crawlsim trace SCENARIO -o FILE``: a simulated crawl's events, to replay
or to inspect.

``.jsonl`` (or ``-`` for stdout) writes the core's own trace format, one
``event_to_dict`` per line -- what ``crawlsim tui --trace`` replays.
``.json`` writes the Chrome trace-event format, which Perfetto
(ui.perfetto.dev) and ``chrome://tracing`` open: one track per worker slot
with a span per fetch (name = URL, category = host), counters for the
frontier and the fetches in flight, and instant events for skipped links,
politeness deferrals, retries and robots.txt.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from crawlsim.errors import UsageError
from crawlsim.cli_options import add_crawler_flags, overrides_from_args, warn_cluster_ignored
from crawlsim.commands.common import ArgumentParser, add_scenario_argument, add_seed_argument, load
from crawlsim.core.events import (
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
    event_to_dict,
)
from crawlsim.sim.coverage import Coverage, coverage_of

FORMATS = {".jsonl": "jsonl", ".json": "chrome"}
WORKERS_PID, HOSTS_PID = 1, 2
LINKS_TID = 0
"""Skipped links go on their own track, before the worker slots (tid = slot + 1)."""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim trace",
        description=(
            "Simulate a scenario and write every event the crawler emitted: FILE.jsonl is crawlsim's own trace "
            "(one JSON object per line; `crawlsim tui --trace FILE` replays it), FILE.json is Chrome trace-event "
            "JSON that opens in Perfetto (ui.perfetto.dev): one track per worker, a span per fetch."
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


def write_jsonl(events: Iterable[Event], out: IO[str]) -> int:
    count = 0
    for event in events:
        out.write(json.dumps(event_to_dict(event), separators=(",", ":")) + "\n")
        count += 1
    return count


def _us(t: float) -> float:
    """Seconds of simulated time to trace microseconds (3 decimals: nanoseconds)."""
    return round(t * 1_000_000, 3)


def chrome_trace(
    events: Sequence[Event],
    series: Sequence[tuple[float, int, int]] = (),
    *,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The Chrome trace-event JSON object for a crawl's events.

    Spans ("X") run from FetchStarted to the FetchFinished or FetchFailed of
    the same fetch id, on the track of the fetch's worker slot; a fetch with
    no end (a trace cut short) is left out.  ``series`` (time, frontier, in
    flight) become counter ("C") events.  Each event type has its builder in
    :data:`_TRACK_BUILDERS`; a type with none (``Discovered``) adds nothing.
    :func:`write_chrome` writes the same JSON without holding it.
    """
    data: dict[str, Any] = {"traceEvents": list(chrome_events(events, series)), "displayTimeUnit": "ms"}
    if metadata:
        data["otherData"] = metadata
    return data


def chrome_events(events: Iterable[Event], series: Iterable[tuple[float, int, int]] = ()) -> Iterator[dict[str, Any]]:
    """:func:`chrome_trace`'s ``traceEvents``, one at a time: a 100,000-page
    crawl makes some 800,000 of them, too many to hold as dicts."""
    trace = _ChromeTrace()
    out = trace.out
    for event in events:
        build = _builder_for(type(event))
        if build is not None:
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
) -> None:
    """Write ``json.dump(chrome_trace(events, series, metadata=metadata), out,
    separators=separators)``, byte for byte, one trace event at a time."""
    comma, colon = separators
    out.write('{"traceEvents"' + colon + "[")
    first = True
    for item in chrome_events(events, series):
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

    def __init__(self) -> None:
        self.out: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": WORKERS_PID, "tid": 0, "args": {"name": "crawler"}},
            {"name": "process_sort_index", "ph": "M", "pid": WORKERS_PID, "tid": 0, "args": {"sort_index": 0}},
            {"name": "thread_name", "ph": "M", "pid": WORKERS_PID, "tid": LINKS_TID, "args": {"name": "links"}},
            {"name": "process_name", "ph": "M", "pid": HOSTS_PID, "tid": 0, "args": {"name": "hosts"}},
            {"name": "process_sort_index", "ph": "M", "pid": HOSTS_PID, "tid": 0, "args": {"sort_index": 1}},
        ]
        self.started: dict[int, FetchStarted] = {}
        self.slots: set[int] = set()
        self.host_tid: dict[str, int] = {}

    # -- tracks ---------------------------------------------------------------

    def worker_track(self, slot: int) -> int:
        """The track of worker ``slot`` (after the links track), named on first use."""
        if slot not in self.slots:
            self.slots.add(slot)
            name = {"name": f"worker {slot}"}
            self.out.append({"name": "thread_name", "ph": "M", "pid": WORKERS_PID, "tid": slot + 1, "args": name})
        return slot + 1

    def host_track(self, host: str) -> int:
        """The track of ``host``, numbered in order of first appearance."""
        tid = self.host_tid.get(host)
        if tid is None:
            tid = self.host_tid[host] = len(self.host_tid) + 1
            self.out.append({"name": "thread_name", "ph": "M", "pid": HOSTS_PID, "tid": tid, "args": {"name": host}})
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
        self.out.append(
            {
                "name": _span_name(start, event),
                "cat": start.host,
                "ph": "X",
                "ts": _us(start.t),
                "dur": max(0.0, _us(event.t) - _us(start.t)),
                "pid": WORKERS_PID,
                "tid": start.slot + 1,
                "args": _span_args(start, event),
            }
        )

    def skipped(self, event: Skipped) -> None:
        args = {"url": event.url, "parent": event.parent, "href": event.href}
        self.instant(f"skipped ({event.reason})", event, WORKERS_PID, LINKS_TID, args)

    def deferred(self, event: HostDeferred) -> None:
        args = {"host": event.host, "until": event.until, "for_s": round(event.until - event.t, 6)}
        self.instant(f"deferred ({event.reason})", event, HOSTS_PID, self.host_track(event.host), args)

    def retry(self, event: RetryScheduled) -> None:
        args = {"url": event.url, "at": event.at, "reason": event.reason}
        self.instant(f"retry {event.attempt} scheduled", event, HOSTS_PID, self.host_track(event.host), args)

    def robots(self, event: RobotsLoaded) -> None:
        args = {"status": event.status, "crawl_delay": event.crawl_delay, "disallow_all": event.disallow_all}
        self.instant("robots.txt loaded", event, HOSTS_PID, self.host_track(event.host), args)

    def done(self, event: Done) -> None:
        self.instant("done", event, WORKERS_PID, LINKS_TID, {"pages": event.pages, "fetches": event.fetches}, "g")


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


def main(argv: list[str] | None = None) -> int:
    from crawlsim.commands.summary import options_dict
    from crawlsim.sim.driver import simulate

    args = build_parser().parse_args(argv)
    fmt = output_format(args.output, args.format)
    scenario = load(args.scenario, overrides_from_args(args), args.seed)
    warn_cluster_ignored(scenario, "trace", "tracing one process")
    run = simulate(scenario, trace=True, series=True)
    if args.output == "-":
        if fmt == "chrome":
            write_chrome(run.trace, run.series, sys.stdout)
            sys.stdout.write("\n")
        else:
            write_jsonl(run.trace, sys.stdout)
        return 0
    path = Path(args.output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # -o out/see-it.json in a fresh checkout, as sweep -o out/
        with path.open("w", encoding="utf-8") as out:
            if fmt == "jsonl":
                count = write_jsonl(run.trace, out)
            else:
                meta = {
                    "scenario": scenario.name,
                    "title": scenario.title,
                    "options": options_dict(run.options),
                    "finish_time": run.finish_time,
                    "clock": "simulated seconds (shown as microseconds x 1e6)",
                }
                write_chrome(run.trace, run.series, out, metadata=meta, separators=(",", ":"))
                count = len(run.trace)
    except OSError as err:
        raise UsageError(f"{args.output}: cannot write: {err.strerror or err}") from None
    where = "; open it at https://ui.perfetto.dev" if fmt == "chrome" else ""
    print(f"wrote {count:,} events ({run.stats.fetches:,} fetches, finish {run.finish_time:.1f} s) to {path}{where}")
    print(coverage_line(run.stats, coverage_of(scenario, run)))
    return 0


__all__ = ["build_parser", "chrome_events", "chrome_trace", "main", "output_format", "write_chrome", "write_jsonl"]
