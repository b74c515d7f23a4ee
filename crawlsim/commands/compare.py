"""``crawlsim compare SCENARIO --a k=v --b k=v``: two configurations of one
scenario side by side, the differences highlighted.

``--a KEY=VALUE`` sets an option of side A only, ``--b KEY=VALUE`` of side
B; each is one option and may be repeated (``--b workers=4 --b
per_host=2``).  A side with none is the scenario as it is.  Crawler flags
such as ``--workers 4``, and ``--set KEY=VALUE`` as on every command, apply
to both sides.

When the scenario has a ``[cluster]`` table with more than one node, or
``--nodes N`` says so, both sides run on that cluster
(:func:`crawlsim.commands.run_cluster.cluster_summary`, the figures ``run``
prints): the table then shows the cluster's rows -- node bound, busiest
node, messages, politeness violations, termination -- in place of the
single process's bounds, and each side's per-node table follows.  A side
may set its own cluster, ``--b nodes=4 --b workers=16`` against ``--a
workers=64``: then both sides run as clusters, the other with one node.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from crawlsim.cli_options import (
    add_cluster_flags,
    add_crawler_flags,
    overrides_from_args,
    parse_assignment,
    split_assignments,
)
from crawlsim.core.options import with_implied_order
from crawlsim.commands.common import (
    ArgumentParser,
    add_advise_argument,
    add_scenario_argument,
    add_seed_argument,
    load,
    progress_console,
    simulate_with_bounds,
    stdout_console,
)
from crawlsim.views.summary import BOUND_LABELS, margin_line, percent, seconds, summary_dict
from crawlsim.words import bounds_heading, busiest_host_note, signed_percent
from crawlsim.errors import UsageError
from crawlsim.sim.coverage import coverage_of

if TYPE_CHECKING:
    from crawlsim.cluster.config import ClusterConfig
    from crawlsim.scenario import Scenario

def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim compare",
        description=(
            "Simulate two configurations of a scenario and show them side by side, differences highlighted. "
            "Give each side's options as --a KEY=VALUE and --b KEY=VALUE (repeatable); a side with none is the "
            "scenario as it is, and crawler flags and --set apply to both. "
            "Example: crawlsim compare see-it --a workers=2 --b workers=4"
        ),
    )
    add_scenario_argument(parser)
    parser.add_argument("--json", action="store_true", help='print {"a": summary, "b": summary} as JSON')
    add_seed_argument(parser)
    add_advise_argument(parser)
    add_crawler_flags(parser)
    add_cluster_flags(parser)
    for side in SIDES:
        parser.add_argument(
            f"--{side}", dest=f"side_{side}", action="append", default=[], metavar="KEY=VALUE",
            help=f"one option of side {side.upper()} only (repeatable; none: the scenario as it is)",
        )
    return parser


CLUSTER_KEYS = ("nodes", "partition")
"""``--set`` keys that are not crawler options but the side's cluster: kept as
text here, checked as ``--nodes``/``--partition`` are (:func:`side_cluster`)."""


SIDES = ("a", "b")


def parse_side(side: str, items: list[str]) -> dict[str, Any]:
    """``["workers=4", "per_host=2"]`` given as ``--b`` -> ``{"workers": 4, "per_host": 2}``
    (``nodes=4`` and ``partition=url-hash`` stay text for the cluster)."""
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for item in items:
        name, _, raw = item.partition("=")
        if name.strip().replace("-", "_") in CLUSTER_KEYS and "," not in raw:
            key, value = name.strip(), raw.strip()
        else:
            key, value = parse_assignment(item, flag=f"--{side}")
        if key in out and out[key] != value:  # as --set refuses it: never one of them dropped unsaid
            raise UsageError(f"{key} given twice, as --{side} {given[key]} and --{side} {item.strip()}: give it once")
        out[key], given[key] = value, item.strip()
    return out


def _no_sides(sets: list[str]) -> UsageError:
    """compare given no ``--a``/``--b``: its sides were once ``--set`` and
    ``--set``, which now sets an option of both; say the spelling that works."""
    if not sets:
        return UsageError("compare needs --a KEY=VALUE or --b KEY=VALUE, e.g. crawlsim compare see-it --a workers=2 "
                          "--b workers=4")
    sides = ("b",) if len(sets) == 1 else SIDES
    meant = " ".join(f"--{side} {part}" for side, text in zip(sides, sets) for part in split_assignments(text))
    return UsageError(f"compare's two sides are --a KEY=VALUE and --b KEY=VALUE (--set sets both); "
                      f"did you mean {meant}?")


def _refuse_shared_set_on_both_sides(shared: dict[str, Any], configs: list[dict[str, Any]]) -> None:
    """A flag for both sides (``--workers 8``) that ``--a`` and ``--b`` each set
    again would change neither: refused rather than quietly dropped."""
    for key in shared:
        if all(key in config for config in configs):
            sides = " and ".join(f"--{side} {key}={_show(config[key])}" for side, config in zip(SIDES, configs))
            raise UsageError(f"{key}={_show(shared[key])} for both sides is overridden by {sides}: "
                             "drop one of them")


def describe(config: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_show(v)}" for k, v in config.items()) or "as the scenario has it"


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return "[" + ",".join(map(str, value)) + "]"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.side_a and not args.side_b:
        raise _no_sides(args.set)
    shared = overrides_from_args(args)
    configs = [parse_side(side, getattr(args, f"side_{side}")) for side in SIDES]
    _refuse_shared_set_on_both_sides(shared, configs)
    labels = [f"A: {describe(configs[0])}", f"B: {describe(configs[1])}"]
    progress = progress_console(quiet=args.json)
    options = [{k: v for k, v in config.items() if k not in CLUSTER_KEYS} for config in configs]
    scenarios = [load(args.scenario, with_implied_order({**shared, **o}), args.seed) for o in options]
    clusters = [side_cluster(s, args, c, side) for s, c, side in zip(scenarios, configs, SIDES, strict=True)]
    on_cluster = any(cluster.nodes > 1 for cluster in clusters)
    a, b = (summarise(s, c if on_cluster else None, args, progress) for s, c in zip(scenarios, clusters, strict=True))
    if args.json:
        json.dump({"a": a, "b": b, "labels": labels}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    stdout_console().print(render_comparison(a, b, labels))
    return 0


def side_cluster(scenario: Scenario, args: argparse.Namespace, config: dict[str, Any], side: str) -> ClusterConfig:
    """One side's cluster: the scenario's ``[cluster]`` table, then
    ``--nodes``/``--partition``, then the side's own ``--a nodes=...``."""
    from crawlsim.cluster.config import ClusterConfigError, apply_flags
    from crawlsim.commands.run_cluster import cluster_config

    try:
        return apply_flags(cluster_config(scenario, args), config.get("nodes"), config.get("partition"))
    except ClusterConfigError as err:  # "--a nodes: expected ...": the words the user typed
        raise UsageError(f"{err.key.replace('--', f'--{side} ', 1)}: {err.message}") from None


def summarise(
    scenario: Scenario, cluster: ClusterConfig | None, args: argparse.Namespace, progress: Console | None
) -> dict[str, Any]:
    """One side's summary: on ``cluster`` when given -- both sides are, when
    either asks for more than one node (a one-node cluster is the single
    process, crawl for crawl) -- else one process with its bounds."""
    from crawlsim.commands.run_cluster import cluster_summary

    if cluster is not None:
        return cluster_summary(scenario, cluster, top=3, advise=args.advise)
    run, bounds = simulate_with_bounds(scenario, args.advise, progress=progress)
    return summary_dict(run, bounds, scenario=scenario, top=3, coverage=coverage_of(scenario, run))


def headline(a: dict[str, Any], b: dict[str, Any]) -> str:
    """``finish 41.0 s -> 31.0 s (-24%)``."""
    before, after = a["finish_time"], b["finish_time"]
    change = f" ({signed_percent((after - before) / before)})" if before else ""
    return f"finish {seconds(before)} -> {seconds(after)}{change}"


def _count(value: int | None) -> str:
    return "not counted" if value is None else f"{value:,}"


def _lost(items: list[dict[str, str]] | None) -> str:
    """``1 (normalization)``: how many pages were lost, and why."""
    if items is None:
        return "not counted"
    reasons: dict[str, int] = {}
    for item in items:
        reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
    why = ", ".join(f"{n:,} {r}" if n > 1 else r for r, n in reasons.items())
    return f"{len(items):,}" + (f" ({why})" if why else "")


def _rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        ("finish time", seconds(data["finish_time"])),
        ("pages reachable", _count(data.get("pages_reachable"))),
        ("pages fetched", f"{data['pages_fetched']:,}"),
        ("pages lost", _lost(data.get("pages_lost"))),
        ("fetches", f"{data['fetches']:,}"),
        ("duplicate fetches", f"{data['duplicate_fetches']:,}"),
        ("wasted worker time", seconds(data.get("wasted_time"))),
        ("failed fetches / retries", f"{data['failed']:,} / {data['retries']:,}"),
    ]
    if "cluster" in data:
        return rows + _cluster_rows(data)
    rows.append(("utilisation", percent(data.get("utilisation"))))
    rows.append((bounds_heading(model="model_margin" in data), ""))  # as run heads them
    for key, label in BOUND_LABELS.items():
        rows.append((f"{label} bound", seconds(data["bounds"][key])))
    busiest = data.get("busiest_host") or {}
    rows.append(("busiest host", _busiest_host(busiest)))
    rows.append(("binding bound", BOUND_LABELS.get(data["binding_bound"], data["binding_bound"])))
    rows.append(("efficiency", percent(data.get("efficiency"))))
    return rows


def _busiest_host(busiest: dict[str, Any]) -> str:
    """``b.com, 6 fetches`` as ``run`` writes it beside the bound, ``-`` when no host fetched."""
    if not busiest.get("host"):
        return "-"
    return busiest_host_note(busiest["host"], busiest.get("fetches"), busiest.get("robots_fetches", 0))


def _cluster_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The cluster's figures (:func:`crawlsim.cluster.report.cluster_fields`)
    as rows: what ``run`` prints under its per-node table, side by side."""
    cluster, top = data["cluster"], data["busiest_node"]
    holder = f"node {top['node']}" + (f", {top['host']}" if top["host"] else "")
    busiest = (data.get("top_hosts") or [{}])[0]
    return [
        ("nodes", f"{cluster['nodes']}, {cluster['partition']}"),
        ("cluster utilisation", percent(data["cluster_utilisation"])),
        ("node bound", f"{seconds(data['node_bound'])} ({holder})"),
        ("busiest host", _busiest_host(busiest)),
        ("messages", f"{data['messages']:,} ({data['message_bytes']:,} bytes)"),
        ("politeness violations", f"{data['politeness_violations']:,}"),
        ("termination detected", f"{seconds(data['detection_delay'])} after the end"),
        ("control messages", f"{data['control_messages']:,}"),
    ]


def _explanation(data: dict[str, Any]) -> str:
    """One process: the bounds' explanation; a cluster: its advice's sentences."""
    if "cluster" in data:
        return "; ".join(data["cluster_advice"]["lines"]) or "no advice"
    return str(data["explanation"])


def render_comparison(a: dict[str, Any], b: dict[str, Any], labels: list[str]) -> Group:
    table = Table(box=None, padding=(0, 2), header_style="bold", show_edge=False)
    table.add_column("")
    table.add_column(labels[0], justify="right")
    table.add_column(labels[1], justify="right")
    for (name, left), (_, right) in zip(_rows(a), _rows(b), strict=True):
        changed = left != right
        style = "bold yellow" if changed else ""
        table.add_row(Text(name, style="cyan"), Text(left, style=style), Text(right, style=style))
    keys = dict.fromkeys([*a["options"], *b["options"]])  # "priority" is there only for best-first
    options = [
        (k, a["options"].get(k), b["options"].get(k))
        for k in keys
        if a["options"].get(k) != b["options"].get(k) and k != "seed"
    ]
    parts: list[Any] = [Text(f"{a.get('scenario')}: {a.get('title')}", style="bold")]
    if options:
        parts.append(Text("options: " + "; ".join(f"{k} {_show(x)} -> {_show(y)}" for k, x, y in options), style="dim"))
    parts += [
        Text(""),
        Text(headline(a, b), style="bold"),
        Text(""),
        table,
        Text(""),
        *([Text(margin_line(a["model_margin"]), style="yellow")] if a.get("model_margin") else []),
        Text("A: " + _explanation(a), style="italic"),
        Text("B: " + _explanation(b), style="italic"),
    ]
    if "cluster" in a:
        from crawlsim.commands.run_cluster import node_table

        for label, data in zip(labels, (a, b), strict=True):
            parts += [Text(""), Text(f"{label}, per node", style="bold"), node_table(data)]
    return Group(*parts)


__all__ = ["build_parser", "describe", "headline", "main", "parse_config", "render_comparison"]
