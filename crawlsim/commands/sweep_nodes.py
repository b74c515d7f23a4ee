"""The nodes axis of ``crawlsim sweep``: ``--nodes 1,2,4,8`` (with
``--partition host-hash,url-hash`` if wanted), or a scenario whose
``[cluster]`` table asks for more than one node, makes every point of the
grid a simulated cluster crawl (:func:`crawlsim.cluster.sim.simulate_cluster`).

Each value is checked by the cluster's own rules
(:func:`crawlsim.cluster.config.apply_flags`: 1 to ``MAX_NODES`` nodes, a
known partition, a ``fail`` list that fits the cluster), so ``--nodes 0``
says what ``run --nodes 0`` says.  A cluster point's row is the result ``run
--nodes --json`` writes (one schema: docs/reference/result.schema.json): the
cluster's figures instead of the single process's three bounds -- the finish
time, when the termination detector saw it, messages, politeness
violations, the per-node list and the node bound (no crawl on that partition
can finish sooner: :mod:`crawlsim.cluster.report`) -- its node count under
``cluster`` as there, so ``nodes`` means the per-node list everywhere.  A point is
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
CLUSTER_CSV_KEYS = (
    "cluster_nodes",
    "cluster_partition",
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
    "busiest_node_host",
)
"""sweep.csv's columns after the option axes for cluster points
(:func:`csv_cells`): the ``cluster`` object's node count and partition, then
the flat figures, the busiest node as its index (as a one-process row's
``busiest_host`` column is its host's name)."""


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
    """Simulate one cluster point: the result ``run --nodes --json`` writes
    (:func:`crawlsim.commands.run_cluster.cluster_summary`, one shape:
    docs/reference/result.schema.json), its node count and partition under
    ``cluster``, the per-node list under ``nodes``, the cluster's advice
    under ``cluster_advice`` (measured by ``run``'s rule for ``advise``)."""
    from crawlsim.commands.run_cluster import cluster_summary

    config = _checked(scenario_cluster(scenario), cluster)
    return cluster_summary(scenario, config, top=5, advise=advise)  # top: run's default, as a one-process row


def axis_value(row: dict[str, Any], axis: str) -> Any:
    """A row's value on a grid axis: a cluster axis is under ``cluster``
    (``nodes`` there is the per-node list), an option at the top."""
    return row["cluster"][axis] if axis in CLUSTER_AXES else row[axis]


def busiest_node_share(row: dict[str, Any]) -> float:
    """The busiest node's share of the cluster's busy time (0 when idle)."""
    busy = sum(node["busy_time"] for node in row["nodes"])
    return round(row["nodes"][row["busiest_node"]["node"]]["busy_time"] / busy, 6) if busy > 0 else 0.0


def csv_cells(row: dict[str, Any]) -> dict[str, Any]:
    """A cluster row as sweep.csv's flat cells (:data:`CLUSTER_CSV_KEYS`)."""
    cells = {**row, "cluster_nodes": row["cluster"]["nodes"], "cluster_partition": row["cluster"]["partition"]}
    if "error" in row:
        return cells
    busiest = row["busiest_node"]
    return {**cells, "busiest_node": busiest["node"], "busiest_node_share": busiest_node_share(row),
            "busiest_node_host": busiest["host"]}


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
    for name in (*axes, "finish", "detected", "msgs", "impolite", "node bound", "held by", "busiest node"):
        table.add_column(name, justify="left" if name == "held by" else "right", no_wrap=True)
    for row in rows:
        cells = ["none" if axis_value(row, k) is None else str(axis_value(row, k)) for k in axes]
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
            row["busiest_node"]["host"] or "-",
            f"{row['busiest_node']['node']} ({percent(busiest_node_share(row))})",
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
            groups.setdefault(tuple(axis_value(row, k) for k in varied), []).append(row)
    series = []
    for key, points in groups.items():
        points = sorted(points, key=lambda r: axis_value(r, axis))
        label = options_text(dict(zip(varied, key, strict=True))) if varied else "finish time"
        worst = max(r["politeness_violations"] for r in points)
        series.append(CountSeries(
            label=label + (f" (up to {worst:,} politeness violations)" if worst else ""),
            x=[int(axis_value(r, axis)) for r in points],
            finish=[float(r["finish_time"]) for r in points],
            bound=[float(r["node_bound"]) for r in points],
        ))
    others = f"one line per {' x '.join(varied)}" if varied else ""
    draw_count_sweep(ax, series, x_label=axis, bound_label="node bound", title=f"finish time against {axis}"
                     + (f"; {others}" if others else ""))


__all__ = [
    "CLUSTER_AXES",
    "CLUSTER_CSV_KEYS",
    "add_cluster_axes",
    "axis_value",
    "busiest_node_share",
    "check_point",
    "cluster_figure",
    "cluster_values",
    "csv_cells",
    "is_cluster_grid",
    "results_table",
    "run_cluster_point",
    "split_point",
    "with_cluster_axes",
]
