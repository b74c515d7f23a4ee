"""``crawlsim sweep SCENARIO --workers 1,2,4,8 [--gap 0,1 ...] [-o DIR]``: a
grid of crawler options, simulated in parallel.

Every crawler flag takes a comma-separated list here; the grid is their
product, at most :data:`MAX_POINTS` points (counted before any is built).
Each point is one simulation with its bounds, run in a local
process pool (``--jobs``), or on a Dask cluster with ``--dask ADDRESS``.
A ``rich`` progress bar counts points on stderr; the table of results goes to
stdout, and DIR gets ``sweep.csv``, ``sweep.json`` and ``sweep.png`` (finish
time against workers, one line per combination of the other values, the
three bounds drawn thin).

``--nodes 1,2,4,8`` (and ``--partition``), or a scenario whose ``[cluster]``
table has more than one node, makes every point a simulated cluster crawl
(:mod:`crawlsim.commands.sweep_nodes`): finish time against nodes, beside
workers when ``--workers`` lists several.

A point is described by plain data -- the scenario's name or absolute path
and a dict of options -- so it travels to another process or machine as is,
and every worker loads the scenario itself (once per process).
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import itertools
import json
import math
import os
import re
import signal
import textwrap
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawlsim.cli_options import FLAGS, metavar, parse_assignment
from crawlsim.commands.common import (
    ArgumentParser,
    add_advise_argument,
    add_scenario_argument,
    add_seed_argument,
    load,
    portable_ref,
    progress_console,
    simulate_with_bounds,
    stdout_console,
)
from crawlsim.commands.sweep_nodes import (
    CLUSTER_AXES,
    CLUSTER_CSV_KEYS,
    add_cluster_axes,
    check_point,
    cluster_figure,
    cluster_values,
    is_cluster_grid,
    run_cluster_point,
    split_point,
    with_cluster_axes,
)
from crawlsim.commands.sweep_nodes import csv_cells as cluster_cells
from crawlsim.commands.sweep_nodes import results_table as cluster_table
from crawlsim.core.options import OptionError, did_you_mean, option_names
from crawlsim.core.priorities import NamedPriority
from crawlsim.errors import UsageError, signal_handled
from crawlsim.extras import needs
from crawlsim.outfile import make_folder, replaced, written
from crawlsim.processes import process_context
from crawlsim.words import counted

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from rich.console import Console

    from crawlsim.scenario import Scenario

DEFAULT_WORKERS = (1, 2, 4, 8, 16)
MAX_POINTS = 10_000
"""Most points a sweep may have (the product of its axes' lengths), refused
before any is built: each is a full simulation."""
DASK_CONNECT_SECONDS = 10.0
"""How long ``--dask ADDRESS`` may take to answer before the sweep says so."""
RESULT_KEYS = (
    "finish_time",
    "pages_fetched",
    "fetches",
    "duplicate_fetches",
    "failed",
    "retries",
    "utilisation",
    "depth_bound",
    "busiest_host_bound",
    "busiest_host",
    "work_bound",
    "binding_bound",
    "efficiency",
    "explanation",
)
_TOP_COMMA = re.compile(r",(?![^\[\(]*[\]\)])")
"""A comma outside brackets: ``1,2`` splits, ``[429,503],[503]`` into two lists."""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim sweep",
        description=(
            "Simulate a grid of crawler options in parallel and write the results as CSV, JSON and a plot of "
            "finish time against workers with the three lower bounds. Every crawler flag takes a comma-separated "
            "list; the grid is their product (at most 10,000 points). Example: crawlsim sweep busiest-host "
            "--workers 1,2,4,8,16 "
            "--per-host 1,4. With --nodes 1,2,4,8 (or a scenario whose [cluster] table has several nodes) every "
            "point is a simulated cluster crawl, plotted against nodes."
        ),
    )
    add_scenario_argument(parser)
    _add_output_arguments(parser)
    add_seed_argument(parser)
    add_advise_argument(parser)
    _add_grid_arguments(parser)
    add_cluster_axes(parser)
    return parser


def _add_output_arguments(parser: ArgumentParser) -> None:
    """Where the points run and where their results go."""
    parser.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default=None,
        help="folder for sweep.csv, sweep.json and sweep.png (default: ./sweep-SCENARIO)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="local processes (default: one per CPU; 1 runs in this process)",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help='run the points on this Dask scheduler (e.g. tcp://127.0.0.1:8786) instead (the "dask" extra); '
        "one that does not answer within 10 s is an error",
    )
    parser.add_argument("--no-plot", action="store_true", help="skip sweep.png (and matplotlib)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")


def _add_grid_arguments(parser: ArgumentParser) -> None:
    """The crawler flags of ``crawlsim run``, each taking a list of values
    as text (:func:`grid_from_args` parses them): the grid's axes."""
    group = parser.add_argument_group("grid (comma-separated values; crawler options override the scenario's)")
    for name, kind, help_text in FLAGS:
        one = metavar(name, kind)
        group.add_argument("--" + name.replace("_", "-"), dest=name, default=None, metavar=f"{one},{one},...",
                           help=help_text)
    group.add_argument(
        "--robots",
        dest="robots",
        default=None,
        metavar="BOOL,...",
        help="true, false or true,false: fetch and obey robots.txt",
    )
    group.add_argument(
        "--randomize-gap",
        dest="randomize_gap",
        default=None,
        metavar="BOOL,...",
        help="true, false or true,false: vary each gap by 0.5-1.5x",
    )
    group.add_argument(
        "--vary",
        dest="vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="any crawler option as an axis of one or more values (repeatable)",
    )
    group.add_argument(
        "--set",
        dest="set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any crawler option at one value, as in every command (repeatable)",
    )


def _values(name: str, text: str) -> list[Any]:
    """``"1,2,4"`` -> ``[1, 2, 4]`` for option ``name``: each value read by
    the same parser as ``--set name=value`` (so ``--per-host none,1`` works
    and ``--normalize agressive`` suggests ``aggressive``).  Named priorities
    stay names, so the grid prints and pickles as it was written."""
    parts = [p.strip() for p in _TOP_COMMA.split(text)]
    if not all(parts):
        raise UsageError(f"--{name.replace('_', '-')}: expected one or more comma-separated values, none empty; "
                         f"got {text!r}")
    out = []
    for part in parts:
        value = parse_assignment(f"{name}={part}")[1]
        out.append(value.name if isinstance(value, NamedPriority) else value)
    return list(dict.fromkeys(out))  # keep order, drop repeats


def grid_from_args(args: Any) -> dict[str, list[Any]]:
    """Option name -> its values, in flag order (``workers`` first), then
    the cluster axes (:mod:`crawlsim.commands.sweep_nodes`)."""
    grid = _option_axes(args)
    if "priority" in grid and "order" not in grid:
        grid["order"] = ["best"]  # as --priority alone means for run (cli_options.with_implied_order)
    for name in CLUSTER_AXES:
        text = getattr(args, name, None)
        if text is not None:
            grid[name] = cluster_values(name, text)
    if "workers" not in grid and "nodes" not in grid:  # a nodes sweep keeps the crawl's workers (sweep_nodes)
        grid = {"workers": list(DEFAULT_WORKERS), **grid}
    return grid


def _option_axes(args: Any) -> dict[str, list[Any]]:
    """The crawler options' axes: the flags, then each ``--set``."""
    grid: dict[str, list[Any]] = {}
    for name, _, _ in FLAGS:
        text = getattr(args, name, None)
        if text is not None:
            grid[name] = _values(name, text)
    for name in ("robots", "randomize_gap"):
        text = getattr(args, name, None)
        if text is not None:
            values = _values(name, text)
            if not all(isinstance(v, bool) for v in values):
                raise UsageError(f"--{name.replace('_', '-')}: expected true, false or true,false; got {text!r}")
            grid[name] = values
    for item in args.set or []:
        key, value = _fixed(item)
        grid[key] = [value]
    for item in args.vary or []:
        key, _, raw = item.partition("=")
        if not _:
            raise UsageError(f"--vary {item!r}: expected KEY=V1,V2,..., e.g. --vary max_crawl_delay=1,5")
        key = key.strip().replace("-", "_")
        if key not in option_names():
            raise OptionError(key, f"unknown crawler option{did_you_mean(key, option_names())}")
        grid[key] = _values(key, raw)
    return grid


def _fixed(item: str) -> tuple[str, Any]:
    """``--set KEY=VALUE``: one value, read as every command reads it; a
    list of values (the old ``--set per_host=1,2``) names ``--vary``."""
    try:
        key, value = parse_assignment(item)
    except OptionError:
        if "," in item.partition("=")[2]:
            raise UsageError(f"--set {item!r}: one value per --set; an axis of values is --vary: "
                             f"did you mean --vary {item}?") from None
        raise
    return key, value.name if isinstance(value, NamedPriority) else value


def points(grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the axes' values; ``UsageError`` when there would
    be more than :data:`MAX_POINTS` (counted before any is built)."""
    count = math.prod(len(values) for values in grid.values())
    if count > MAX_POINTS:
        sizes = " x ".join(f"{len(values):,} {name}" for name, values in grid.items())
        raise UsageError(f"the grid has {count:,} points ({sizes}); a sweep may have at most {MAX_POINTS:,}: "
                         "give fewer values")
    keys = list(grid)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]


# -- one point (runs in a worker process or on a Dask worker) -------------------


@lru_cache(maxsize=8)
def _scenario(ref: str, seed: int | None) -> Scenario:
    return load(ref, None, seed)


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Simulate one grid point: ``{"index", "scenario", "seed", "options"}``
    (and optionally ``"advise"``) -> its index and grid values, then the
    result as ``run --json`` writes it (docs/reference/result.schema.json).  A bad value in the grid comes back as the
    row's ``error`` instead of killing the sweep."""
    from crawlsim.core.options import OptionError
    from crawlsim.scenario import ScenarioError

    row: dict[str, Any] = {"index": task["index"], **task["options"]}
    if "cluster" in task:  # its nodes and partition where run --nodes --json has them
        row["cluster"] = task["cluster"]
    try:
        scenario = _scenario(task["scenario"], task["seed"]).with_options(**task["options"])
        if "cluster" in task:
            return {**row, **run_cluster_point(scenario, task["cluster"], task.get("advise", "auto"))}
        run, bounds = simulate_with_bounds(scenario, task.get("advise", "auto"))
    except (OptionError, ScenarioError, UsageError) as err:
        row["error"] = str(err)
        return row
    from crawlsim.sim.coverage import coverage_of
    from crawlsim.views.summary import summary_dict

    row.update(summary_dict(run, bounds, scenario=scenario, coverage=coverage_of(scenario, run)))
    return row


def csv_cells(row: dict[str, Any]) -> dict[str, Any]:
    """A result row as sweep.csv's flat cells (:data:`RESULT_KEYS`): each
    bound its own column, the busiest host its name."""
    if "bounds" not in row:  # a point that failed: its error
        return row
    bounds, busiest = row["bounds"], row["busiest_host"] or {}
    return {
        **row,
        **{f"{key}_bound": value for key, value in bounds.items()},
        "busiest_host": busiest.get("host"),
    }


# -- executors -----------------------------------------------------------------


def run_local(tasks: Sequence[dict[str, Any]], jobs: int) -> Iterator[dict[str, Any]]:
    """Rows as they finish, from a process pool (or this process if jobs == 1)."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from map(run_point, tasks)
        return
    with _ctrl_c_held():  # a Ctrl-C while the pool starts is raised once it has started
        pool = process_context().Pool(min(jobs, len(tasks)), initializer=_leave_signals_to_the_parent)
    with pool:
        yield from pool.imap_unordered(run_point, tasks)


def _leave_signals_to_the_parent() -> None:
    """A pool worker ignores Ctrl-C (a terminal sends it to every process of
    its group) and ends on SIGTERM (``Pool.terminate``): the sweep stops the
    pool, and no worker prints a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C during the block is raised when it ends (a worker forked in it
    inherits the holding, not a handler that raises)."""
    pressed: list[int] = []
    with signal_handled(signal.SIGINT, lambda signum, frame: pressed.append(signum)):
        yield
    if pressed:
        raise KeyboardInterrupt


def run_dask(tasks: Sequence[dict[str, Any]], address: str) -> Iterator[dict[str, Any]]:
    """Rows as they finish, from the Dask scheduler at ``address``."""
    with needs("dask", "crawlsim sweep --dask"):
        from dask.distributed import Client, as_completed
    _reach(address)
    try:
        client = Client(address, timeout=f"{DASK_CONNECT_SECONDS:g}s", set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise UsageError(f"--dask {address}: cannot reach the scheduler: {err}") from None
    try:
        futures = client.map(run_point, list(tasks), pure=False)
        for future in as_completed(futures, loop=client.loop):
            yield future.result()
    finally:
        client.close()


def _reach(address: str) -> None:
    """``UsageError`` within :data:`DASK_CONNECT_SECONDS` unless a Dask
    scheduler at ``address`` completes Dask's handshake: a bad address or
    an unknown scheme is refused before a ``Client`` is made (a half-made one
    prints a traceback when collected), and a peer that accepts and never
    answers is given up on (``Client``'s own timeout does not cover the
    handshake)."""
    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=DASK_CONNECT_SECONDS), DASK_CONNECT_SECONDS)
        await comm.close()

    try:
        asyncio.run(handshake())
    except TimeoutError:
        raise UsageError(f"--dask {address}: no Dask scheduler answered within {DASK_CONNECT_SECONDS:g} s") from None
    except (OSError, ValueError, TypeError) as err:
        raise UsageError(f"--dask {address}: cannot reach the scheduler: {err}") from None


def with_progress(
    rows: Iterator[dict[str, Any]], total: int, label: str, console: Console | None = None
) -> list[dict[str, Any]]:
    """The rows, sorted by index, counting them on a bar on ``console`` (a
    terminal's stderr, :func:`~crawlsim.commands.common.progress_console`);
    with None, nothing is drawn."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    out: list[dict[str, Any]] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False, disable=console is None) as progress:
        task = progress.add_task(label, total=total)
        for row in rows:
            out.append(row)
            progress.advance(task)
    return sorted(out, key=lambda r: r["index"])


# -- output --------------------------------------------------------------------


def write_csv(rows: Sequence[dict[str, Any]], keys: Sequence[str], path: Path) -> None:
    """The table at ``path``, whole or not at all (:func:`crawlsim.outfile.written`)."""
    with written(path, newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(keys), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in keys})


def _cell(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return "|".join(map(str, value))
    return value


def plot(
    rows: Sequence[dict[str, Any]],
    grid: dict[str, list[Any]],
    title: str,
    path: Path,
    base: dict[str, Any] | None = None,
) -> None:
    """Write :func:`sweep_figure` (for cluster points
    :func:`~crawlsim.commands.sweep_nodes.cluster_figure`) to ``path`` (sweep.png)."""
    figure = (cluster_figure if is_cluster_grid(grid) else sweep_figure)(rows, grid, title, base)
    with replaced(path) as temp:  # a full disk: no half-drawn sweep.png beside the tables
        figure.savefig(temp)


MARGIN_WRAP = 110
"""Characters per line of a model's margin line under sweep.png's title (it fits the figure's width)."""


def plot_title(scenario: Scenario) -> str:
    """sweep.png's title: the scenario, and for a model of a real crawl the margin line
    ``run`` prints with its bounds (wrapped to the figure), once for all the points."""
    from crawlsim.views.summary import model_margin_line

    margin = model_margin_line(scenario)
    return "\n".join([f"{scenario.name}: {scenario.title}", *textwrap.wrap(margin or "", MARGIN_WRAP)])


def sweep_figure(
    rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]], title: str, base: dict[str, Any] | None = None
) -> Figure:
    """Finish time against workers: one line per combination of the other grid
    values, each bound in its own colour and style (:mod:`crawlsim.views.plots`,
    the notebook's ``sweep_plot`` look), the impossible region shaded.
    ``title`` names the scenario; the options under it are ``base`` (the
    scenario's own values) overridden by the grid's single values."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from crawlsim.views.plots import draw_sweep, options_text, series_from

    others = [k for k in grid if k != "workers"]
    varied = [k for k in others if len(grid[k]) > 1]
    fixed = {k: v for k, v in (base or {}).items() if k not in grid} | {k: grid[k][0] for k in others if k not in varied}
    series = [
        series_from(points_, options_text({k: v for k, v in zip(others, key, strict=True) if k in varied}) if varied
                    else "finish time")
        for key, points_ in _series(rows, others).items()
    ]
    subtitle = "; ".join([options_text(fixed)] * bool(fixed) + [f"one line per {' x '.join(varied)}"] * bool(varied))
    figure = Figure(figsize=(8, 5), dpi=110)
    FigureCanvasAgg(figure)  # its own canvas: no pyplot, no global state
    draw_sweep(figure.add_subplot(), series, title=f"{title}\n{subtitle}" if subtitle else title)
    figure.tight_layout()
    return figure


def _bounds_point(row: dict[str, Any]) -> dict[str, Any]:
    """A result row as the point :func:`~crawlsim.views.plots.series_from` draws."""
    return {
        "workers": row["workers"],
        "finish_time": row["finish_time"],
        **row["bounds"],
        "busiest_host_name": (row["busiest_host"] or {}).get("host"),
    }


def _series(rows: Sequence[dict[str, Any]], others: Sequence[str]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The rows that ran, grouped by their values of the grid's other axes
    (every axis but workers): one line of the plot each, as the points it draws."""
    series: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if "error" not in row:
            series.setdefault(tuple(_cell(row[k]) for k in others), []).append(_bounds_point(row))
    return series


def results_table(rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]]) -> Any:
    from rich.table import Table

    from crawlsim.views.summary import BOUND_LABELS, percent, seconds

    table = Table(box=None, padding=(0, 2), header_style="bold", show_edge=False)
    for key in grid:
        table.add_column(key, justify="right")
    for name in ("finish", "pages", "dup", "util", "binding", "eff"):
        table.add_column(name, justify="right")
    for row in rows:
        cells = ["none" if row[k] is None else str(_cell(row[k])) for k in grid]
        if "error" in row:
            table.add_row(*cells, f"[red]{row['error']}[/]", "", "", "", "", "")
            continue
        table.add_row(
            *cells,
            seconds(row["finish_time"]),
            f"{row['pages_fetched']:,}",
            f"{row['duplicate_fetches']:,}",
            percent(row["utilisation"]),
            BOUND_LABELS[row["binding_bound"]],
            percent(row["efficiency"]),
        )
    return table


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    grid = grid_from_args(args)
    scenario = load(args.scenario, None, args.seed)  # fail fast on a bad name or file
    grid = with_cluster_axes(grid, scenario)
    tasks = _tasks(args, grid, scenario)
    rows_iter, where = _executor(args, tasks)
    label = f"{scenario.name}: {counted(len(tasks), 'run')} {where}"
    rows = with_progress(rows_iter, len(tasks), label, progress_console(quiet=args.json))
    out_dir = Path(args.output or f"sweep-{scenario.name}")
    written = _write_results(rows, grid, scenario, args, out_dir)
    if args.json:
        print(json.dumps(rows, indent=2, default=_cell))
    else:
        from rich.text import Text

        from crawlsim.views.summary import model_margin_line

        console = stdout_console()
        console.print((cluster_table if is_cluster_grid(grid) else results_table)(rows, grid))
        margin = model_margin_line(scenario)
        if margin:  # every row's bounds are the model's, within one margin: said once, as run says it
            console.print(Text(margin, style="yellow"))
        console.print(f"wrote {', '.join(str(out_dir / w) for w in written)}")
    return 0


def _tasks(args: Any, grid: dict[str, list[Any]], scenario: Scenario) -> list[dict[str, Any]]:
    """One task per grid point, as plain data for another process.  Each
    point's options are applied once here, so a bad value fails before any
    work starts."""
    ref = portable_ref(args.scenario)
    tasks = []
    for i, point in enumerate(points(grid)):
        options, cluster = split_point(point)
        task = {"index": i, "scenario": ref, "seed": args.seed, "options": options, "advise": args.advise}
        scenario.with_options(**options)
        if is_cluster_grid(grid):
            check_point(scenario, cluster)
            task["cluster"] = cluster
        tasks.append(task)
    return tasks


def _executor(args: Any, tasks: Sequence[dict[str, Any]]) -> tuple[Iterator[dict[str, Any]], str]:
    """The rows as they finish, from Dask (``--dask``) or a local pool, and
    where they run, for the progress bar."""
    if args.dask:
        return run_dask(tasks, args.dask), f"on {args.dask}"
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"--jobs: expected a whole number >= 1, got {jobs}")
    processes = min(jobs, len(tasks))
    return run_local(tasks, jobs), f"in {counted(processes, 'process')}"


def _write_results(
    rows: Sequence[dict[str, Any]], grid: dict[str, list[Any]], scenario: Scenario, args: Any, out_dir: Path
) -> list[str]:
    """sweep.csv, sweep.json and (unless ``--no-plot``) sweep.png in
    ``out_dir``; returns the names written.  A folder that cannot be written
    is the user's mistake: one line, exit 2."""
    try:
        make_folder(out_dir)
        if is_cluster_grid(grid):
            options = [k for k in grid if k not in CLUSTER_AXES]
            cells, keys = [cluster_cells(row) for row in rows], ["index", *options, *CLUSTER_CSV_KEYS]
        else:
            cells, keys = [csv_cells(row) for row in rows], ["index", *grid, *RESULT_KEYS]
        write_csv(cells, [*keys, "error"], out_dir / "sweep.csv")
        document = {
            "scenario": scenario.name,
            "title": scenario.title,
            "seed": args.seed if args.seed is not None else scenario.seed,
            "grid": grid,
            "rows": rows,
        }
        with written(out_dir / "sweep.json") as out:
            out.write(json.dumps(document, indent=2, default=_cell) + "\n")
        if not args.no_plot:
            base = {"per_host": scenario.options.per_host, "gap": scenario.options.gap}
            plot(rows, grid, plot_title(scenario), out_dir / "sweep.png", base)
    except OSError as err:
        raise UsageError(f"{out_dir}: cannot write: {err.strerror or err}") from None
    return ["sweep.csv", "sweep.json"] + ([] if args.no_plot else ["sweep.png"])


__all__: list[str] = [
    "build_parser",
    "grid_from_args",
    "main",
    "plot",
    "plot_title",
    "points",
    "run_dask",
    "run_local",
    "run_point",
    "sweep_figure",
]
