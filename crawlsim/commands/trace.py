"""``crawlsim trace SCENARIO -o FILE``: a simulated crawl's events, to replay
or to inspect.

``.jsonl`` (or ``-`` for stdout) writes the core's own trace format, one
``event_to_dict`` per line -- what ``crawlsim tui --trace`` replays
(:mod:`crawlsim.trace.jsonl`).  ``.json`` writes the Chrome trace-event
format, which Perfetto (ui.perfetto.dev) and ``chrome://tracing`` open
(:mod:`crawlsim.trace.chrome`).

A cluster's crawl (``--nodes N``, or the scenario's ``[cluster]`` table)
writes the cluster's one trace (:mod:`crawlsim.trace.cluster`): each JSONL
line carries its ``"node"``; the Chrome trace has one process per node.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from crawlsim.cli_options import add_cluster_flags, add_crawler_flags, overrides_from_args
from crawlsim.commands.common import ArgumentParser, add_scenario_argument, add_seed_argument, load
from crawlsim.errors import UsageError
from crawlsim.outfile import written
from crawlsim.sim.coverage import Coverage, coverage_of
from crawlsim.trace.chrome import NodeLayout, write_chrome
from crawlsim.trace.events import Event
from crawlsim.trace.jsonl import write_trace_lines

FORMATS = {".jsonl": "jsonl", ".json": "chrome"}


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
            return write_trace_lines(self.events, out, layout and layout.nodes, layout and layout.workers)
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
    from crawlsim.views.summary import options_dict

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


__all__ = ["Traced", "build_parser", "coverage_line", "main", "output_format", "simulate_for_trace"]
