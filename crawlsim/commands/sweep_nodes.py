"""The nodes axis of ``crawlsim sweep``: ``--nodes 1,2,4,8`` (with
``--partition host-hash,url-hash`` if wanted), or a scenario whose
``[cluster]`` table asks for more than one node, makes every point of the
grid a simulated cluster crawl (:func:`crawlsim.cluster.sim.simulate_cluster`).

Each value is checked by the cluster's own rules
(:func:`crawlsim.cluster.config.apply_flags`: 1 to ``MAX_NODES`` nodes, a
known partition, a ``fail`` list that fits the cluster), so ``--nodes 0``
says what ``run --nodes 0`` says.  A cluster point's row has the cluster's
figures instead of the single process's three bounds: the finish time, when
the termination detector saw it, messages, politeness violations, the
busiest node's share of the work and the node bound (no crawl on that
partition can finish sooner: :mod:`crawlsim.cluster.report`).  A point is
still plain data -- ``{"nodes": 4, "partition": "host-hash"}`` -- so it
runs in the process pool or on Dask as any other.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from crawlsim.errors import UsageError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from crawlsim.cluster.config import ClusterConfig
    from crawlsim.scenario import Scenario

CLUSTER_AXES = ("nodes", "partition")
"""The grid's cluster axes; every other axis is a crawler option."""
X_AXES = ("workers", "nodes")
"""What a panel of the figure can put on its x-axis (counts)."""
CLUSTER_RESULT_KEYS = (
    "finish_time",
    "detected_at",
    "detection_delay",
    "pages_fetched",
    "fetches",
    "duplicate_fetches",
    "failed",
    "retries",
    "messages",
    "message_bytes",
    "control_messages",
    "politeness_violations",
    "cluster_utilisation",
    "busiest_node",
    "busiest_node_share",
    "node_bound",
    "node_bound_host",
)


def add_cluster_axes(parser: argparse.ArgumentParser) -> None:
    """``--nodes N,N,...`` and ``--partition P,P,...``: the sweep's list forms
    of ``run``'s cluster flags."""
    from crawlsim.cluster.config import PARTITIONS

    group = parser.add_argument_group("cluster (comma-separated values; override the scenario's [cluster] table)")
    group.add_argument("--nodes", dest="nodes", default=None, metavar="N,N,...",
                       help="crawler nodes, e.g. 1,2,4,8: every point becomes a simulated cluster crawl")
    group.add_argument("--partition", dest="partition", default=None, metavar="P,P,...",
                       help=f"how URLs are split between nodes: {' | '.join(PARTITIONS)}")


def cluster_values(name: str, text: str) -> list[Any]:
    """``"1,2,4"`` -> ``[1, 2, 4]`` for ``--nodes`` (or partitions for
    ``--partition``), each checked as ``run --nodes`` checks it; repeats
    dropped, order kept."""
    from crawlsim.cluster.config import ClusterConfig

    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError(f"--{name}: expected one or more comma-separated values")
    config = ClusterConfig()
    values = [getattr(_checked(config, {name: part}), name) for part in parts]
    return list(dict.fromkeys(values))


def _checked(config: ClusterConfig, point: dict[str, Any]) -> ClusterConfig:
    """``config`` with a point's ``nodes``/``partition``; a mistake is one line."""
    from crawlsim.cluster.config import ClusterConfigError, apply_flags

    try:
        return apply_flags(config, point.get("nodes"), point.get("partition"))
    except ClusterConfigError as err:
        raise UsageError(f"{err.key}: {err.message}") from None


def scenario_cluster(scenario: Scenario) -> ClusterConfig:
    """The scenario's own ``[cluster]`` table (one node when it has none)."""
    from crawlsim.cluster.config import cluster_from_table

    return cluster_from_table(scenario.data.get("cluster"))


def with_cluster_axes(grid: dict[str, list[Any]], scenario: Scenario) -> dict[str, list[Any]]:
    """``grid`` with its cluster axes completed when any point is a cluster
    crawl (``--nodes``/``--partition`` given, or the scenario's ``[cluster]``
    has more than one node): a missing axis takes the scenario's value, and
    so does ``workers`` when ``--nodes`` alone was given (a nodes sweep at
    the crawl's own workers; ``--workers 1,2,4`` adds the workers panel).
    Any other grid comes back as it was: one process per point, as before."""
    base = scenario_cluster(scenario)
    if not any(k in grid for k in CLUSTER_AXES) and base.nodes <= 1:
        return grid
    out = dict(grid)
    out.setdefault("workers", [scenario.options.workers])
    out.setdefault("nodes", [base.nodes])
    out.setdefault("partition", [base.partition])
    order = ["workers", *(k for k in out if k not in ("workers", *CLUSTER_AXES)), *CLUSTER_AXES]
    return {k: out[k] for k in order}


def is_cluster_grid(grid: dict[str, list[Any]]) -> bool:
    return "nodes" in grid


def split_point(point: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A grid point as (crawler options, cluster values)."""
    options = {k: v for k, v in point.items() if k not in CLUSTER_AXES}
    return options, {k: point[k] for k in CLUSTER_AXES if k in point}


def check_point(scenario: Scenario, cluster: dict[str, Any]) -> None:
    """Fail before any work when a point's cluster cannot be built (a
    ``fail`` entry naming node 3 of a 2-node point, say)."""
    _checked(scenario_cluster(scenario), cluster)


def run_cluster_point(scenario: Scenario, cluster: dict[str, Any], advise: str = "auto") -> dict[str, Any]:
    """Simulate one cluster point: its row of results (the keys of
    :data:`CLUSTER_RESULT_KEYS`), the figures ``run --nodes`` reports, and
    ``advice`` (:func:`crawlsim.cluster.advice.cluster_advice`, measured by
    ``run``'s rule for ``advise``: sweep.json and ``--json`` only)."""
    from crawlsim.cluster.advice import cluster_advice
    from crawlsim.cluster.report import busiest_node, node_bounds
    from crawlsim.cluster.sim import simulate_cluster
    from crawlsim.sim.advisor import MEASURE_LIMIT

    config = _checked(scenario_cluster(scenario), cluster)
    run = simulate_cluster(scenario, config)
    measure = advise == "measure" or (advise == "auto" and run.stats.fetches <= MEASURE_LIMIT)
    bounds = node_bounds(run)
    top = busiest_node(run)
    busy = sum(node["busy_time"] for node in run.nodes)
    return {
        "finish_time": round(run.finish_time, 6),
        "detected_at": round(run.detected_at, 6),
        "detection_delay": round(run.detection_delay, 6),
        "pages_fetched": run.stats.pages_fetched,
        "fetches": run.stats.fetches,
        "duplicate_fetches": run.stats.duplicate_fetches,
        "failed": run.stats.failed,
        "retries": run.stats.retries,
        "messages": run.messages,
        "message_bytes": run.message_bytes,
        "control_messages": run.control_messages,
        "politeness_violations": run.politeness_violations,
        "cluster_utilisation": round(run.cluster_utilisation, 6),
        "busiest_node": top,
        "busiest_node_share": round(run.nodes[top]["busy_time"] / busy, 6) if busy > 0 else 0.0,
        "node_bound": round(bounds[top][0], 6),
        "node_bound_host": bounds[top][1],
        "advice": cluster_advice(scenario, config, run, measure=measure).as_dict(),
    }


def results_table(rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]]) -> Any:
    """The table ``sweep`` prints for cluster points: a column per axis
    that varies (the values every point shares on a line above it), then
    the cluster's figures: finish, detection delay, messages, politeness
    violations ("impolite"), the node bound, the host that sets it, and the
    busiest node with its share of the work."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from crawlsim.views.summary import percent, seconds
    from crawlsim.views.plots import options_text

    axes = [k for k in grid if len(grid[k]) > 1] or ["nodes"]
    table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
    for name in (*axes, "finish", "detected", "msgs", "impolite", "node bound", "held by", "busiest"):
        table.add_column(name, justify="left" if name == "held by" else "right", no_wrap=True)
    for row in rows:
        cells = ["none" if row[k] is None else str(row[k]) for k in axes]
        if "error" in row:
            table.add_row(*cells, f"[red]{row['error']}[/]", *[""] * 6)
            continue
        violations = row["politeness_violations"]
        table.add_row(
            *cells,
            seconds(row["finish_time"]),
            f"+{seconds(row['detection_delay'])}",
            f"{row['messages']:,}",
            f"[bold red]{violations:,}[/]" if violations else "0",
            seconds(row["node_bound"]),
            row["node_bound_host"] or "-",
            f"{row['busiest_node']} ({percent(row['busiest_node_share'])})",
        )
    shared = {k: grid[k][0] for k in grid if k not in axes}
    return Group(Text(f"every point: {options_text(shared)}", style="dim"), table) if shared else table


def cluster_figure(
    rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]], title: str, base: dict[str, Any] | None = None
) -> Figure:
    """Finish time against nodes (and, when ``--workers`` has several values,
    against workers in a panel beside it): one line per combination of the
    other varied axes, each with its node bound, the region below it shaded
    (:func:`crawlsim.views.plots.draw_count_sweep`).  The title names the scenario
    and the options every point shares."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from crawlsim.views.plots import options_text

    panels = [k for k in X_AXES if len(grid[k]) > 1] or ["nodes"]
    varied = [k for k in grid if len(grid[k]) > 1]
    fixed = {k: v for k, v in (base or {}).items() if k not in grid} | {k: grid[k][0] for k in grid if k not in varied}
    figure = Figure(figsize=(7.5 * len(panels), 5), dpi=110)
    FigureCanvasAgg(figure)  # its own canvas: no pyplot, no global state
    figure.suptitle(f"{title}\n{options_text(fixed)}" if fixed else title, fontsize=10, x=0.01, ha="left")
    for ax, axis in zip(figure.subplots(1, len(panels), squeeze=False)[0], panels, strict=True):
        _panel(ax, rows, grid, axis, [k for k in varied if k != axis])
    figure.tight_layout()
    return figure


def _panel(ax: Any, rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]], axis: str, varied: list[str]) -> None:
    """One panel: finish time against ``axis``, one line per ``varied`` combination."""
    from crawlsim.views.plots import CountSeries, draw_count_sweep, options_text

    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if "error" not in row:
            groups.setdefault(tuple(row[k] for k in varied), []).append(row)
    series = []
    for key, points in groups.items():
        points = sorted(points, key=lambda r: r[axis])
        label = options_text(dict(zip(varied, key, strict=True))) if varied else "finish time"
        worst = max(r["politeness_violations"] for r in points)
        series.append(CountSeries(
            label=label + (f" (up to {worst:,} politeness violations)" if worst else ""),
            x=[int(r[axis]) for r in points],
            finish=[float(r["finish_time"]) for r in points],
            bound=[float(r["node_bound"]) for r in points],
        ))
    others = f"one line per {' x '.join(varied)}" if varied else ""
    draw_count_sweep(ax, series, x_label=axis, bound_label="node bound", title=f"finish time against {axis}"
                     + (f"; {others}" if others else ""))


__all__ = [
    "CLUSTER_AXES",
    "CLUSTER_RESULT_KEYS",
    "add_cluster_axes",
    "check_point",
    "cluster_figure",
    "cluster_values",
    "is_cluster_grid",
    "results_table",
    "run_cluster_point",
    "split_point",
    "with_cluster_axes",
]
