"""``crawlsim run SCENARIO --nodes N``: the crawl on N simulated crawler
nodes (:mod:`crawlsim.cluster`), summarised like one crawl plus the
cluster's own figures -- per node, politeness violations, messages, the
termination detector's cost and the node bound."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from crawlsim.cluster.config import ClusterConfig, ClusterConfigError, apply_flags
from crawlsim.cluster.failure import MIN_CHECKPOINT
from crawlsim.views.summary import render_summary, seconds, summary_dict
from crawlsim.errors import UsageError
from crawlsim.words import counted

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario


def cluster_config(scenario: Scenario, args: argparse.Namespace) -> ClusterConfig:
    """The scenario's ``[cluster]`` table with ``--nodes``/``--partition`` applied."""
    try:
        return apply_flags(scenario.cluster, getattr(args, "nodes", None), getattr(args, "partition", None))
    except ClusterConfigError as err:
        raise UsageError(f"{err.key}: {err.message}") from None


def run_cluster(scenario: Scenario, config: ClusterConfig, args: argparse.Namespace) -> int:
    """Simulate the cluster and print its summary (or ``--json``)."""
    if config.checkpoint is not None and config.checkpoint < MIN_CHECKPOINT:
        print(
            f"crawlsim: warning: cluster.checkpoint = {config.checkpoint:g} s: saving every {MIN_CHECKPOINT:g} s "
            "instead (saves closer together repeat the same state; the work stays bounded)",
            file=sys.stderr,
        )
    data = cluster_summary(scenario, config, top=args.top, advise=args.advise)
    note = data.get("checkpoint", {}).get("note")
    if note:
        print(f"crawlsim: warning: {note}", file=sys.stderr)
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from crawlsim.commands.common import stdout_console

        stdout_console().print(Group(render_summary(data), *render_cluster(data)))
    return 0


def cluster_summary(scenario: Scenario, config: ClusterConfig, *, top: int, advise: str) -> dict[str, Any]:
    """One cluster crawl's summary: :func:`summary_dict`'s keys (no
    single-process bounds) plus the cluster's own (:func:`cluster_fields`),
    the advice, and -- when nodes fail -- what the failures cost, measured
    against the same cluster without them.  ``run`` and ``compare`` both
    print this, so they agree on every figure."""
    from crawlsim.cluster.advice import cluster_advice
    from crawlsim.cluster.report import cluster_fields, failure_cost
    from crawlsim.cluster.sim import simulate_cluster
    from crawlsim.sim.advisor import MEASURE_LIMIT
    from crawlsim.sim.coverage import coverage_of

    run = simulate_cluster(scenario, config)
    coverage = coverage_of(scenario, run) if run.trace else None  # type: ignore[arg-type]
    note = "a cluster's bounds are per node (the node bound below)"
    data = summary_dict(run, None, scenario=scenario, top=top, coverage=coverage, bounds_note=note)
    data.update(cluster_fields(run))
    measure = advise == "measure" or (advise == "auto" and run.stats.fetches <= MEASURE_LIMIT)
    data["cluster_advice"] = cluster_advice(scenario, config, run, measure=measure).as_dict()
    if config.fail:  # measured: the same cluster without the failures
        data["failure_cost"] = failure_cost(run, simulate_cluster(scenario, config.with_(fail=[]), trace=False))
    return data


def node_table(data: Mapping[str, Any]) -> Table:
    """One row per node (fetches, busy time, messages, bytes, peak frontier,
    its bound), the busiest node in bold."""
    table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold")
    for name in ("node", "fetches", "busy", "messages", "bytes", "peak frontier", "bound"):
        table.add_column(name, justify="right" if name != "node" else "left")
    top = data["busiest_node"]["node"]
    for row in data["nodes"]:
        style = "bold" if row["node"] == top else ""
        bound = seconds(row["bound"]) + (f" ({row['bound_host']})" if row["bound_host"] else "")
        table.add_row(
            f"node {row['node']}", f"{row['fetches']:,}", seconds(row["busy_time"]), f"{row['messages']:,}",
            f"{row['bytes']:,}", f"{row['peak_frontier']:,}", bound, style=style,
        )
    return table


def render_cluster(data: Mapping[str, Any]) -> list[Any]:
    """The per-node table and the cluster's lines, for the readable summary."""
    cluster = data["cluster"]
    top = data["busiest_node"]["node"]
    violations = data["politeness_violations"]
    lines = [
        Text(""),
        Text(f"{cluster['nodes']} nodes, {cluster['partition']}", style="bold").append(
            f"  (utilisation {data['cluster_utilisation']:.0%} of {cluster['nodes']} x {data['options']['workers']} workers)",
            style="dim",
        ),
        node_table(data),
        Text(
            f"node bound {seconds(data['node_bound'])} (node {top}: no crawl on this partition can finish sooner)",
            style="dim",
        ),
        Text(f"messages {data['messages']:,} ({data['message_bytes']:,} bytes)"),
        Text(
            f"politeness violations {violations:,}" + (" (a host's limits held across the cluster)" if not violations else ""),
            style="bold red" if violations else "",
        ),
        Text(
            f"termination detected {seconds(data['detection_delay'])} after the true end, "
            f"{data['control_messages']:,} control messages ({data['termination_rounds']} round{'' if data['termination_rounds'] == 1 else 's'} of Safra's token)",
            style="dim",
        ),
    ]
    for line in data.get("cluster_advice", {}).get("lines", []):
        lines.append(Text(line, style="italic"))
    cost = data.get("failure_cost")
    if cost is not None:
        for record in data["failures_seen"]:
            back = f", back at {seconds(record['recovered_at'])}" if record["recovered_at"] is not None else ", never back"
            saved = f" from its save at {seconds(record['restored_from'])}" if record["restored_from"] is not None else ""
            lines.append(Text(f"node {record['node']} failed at {seconds(record['at'])}{back}{saved}: "
                              f"{counted(record['urls_lost'], 'URL')} lost with it", style="yellow"))
        lines.append(Text(failure_cost_line(cost), style="yellow"))
    return lines


def failure_cost_line(cost: Mapping[str, Any]) -> str:
    """What the failures cost, in words: the finish ``later`` than without them,
    or ``sooner`` -- a crawl that lost pages may end early because it never
    fetched them, and a cost read as a negative delay would hide that."""
    delta = cost["finish_cost"]
    lost = counted(cost["pages_lost"], "page")
    again = f"{cost['pages_refetched']:,} fetched again"
    without = seconds(cost["finish_time_without_failures"])
    if delta < 0 and cost["pages_lost"]:
        return (f"failure cost: finish {seconds(-delta)} sooner than without it ({without}): "
                f"{lost} lost, never fetched; {again}")
    when = f"{seconds(-delta)} sooner" if delta < 0 else f"{seconds(delta)} later"
    return f"failure cost: finish {when} than without it ({without}), {lost} lost, {again}"


__all__ = ["cluster_config", "cluster_summary", "failure_cost_line", "node_table", "render_cluster", "run_cluster"]
