"""Finish time against the number of workers, with the bounds that explain it.

"How much faster with ten workers?" has a short answer once the three lower
bounds are on the same chart: the finish time falls along the work bound
(total fetch time / workers) until it meets the larger of the depth bound
and the busiest-host bound, and then stays there however many workers are
added.  :func:`sweep` runs the simulations and returns numbers a notebook can
assert on; :func:`sweep_plot` draws them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from crawlsim.notebook.runs import as_scenario
from crawlsim.views.plots import chart_title, draw_sweep, series_from
from crawlsim.scenario import Scenario
from crawlsim.sim.bounds import compute_bounds
from crawlsim.sim.driver import simulate


@dataclass(frozen=True)
class SweepPoint:
    """One simulated run of the sweep and its bounds."""

    workers: int
    finish: float
    depth: float
    busiest_host: float
    busiest_host_name: str | None
    work: float
    binding: str
    efficiency: float
    duplicate_fetches: int

    @property
    def floor(self) -> float:
        """The largest bound: no crawl with these settings can finish sooner."""
        return max(self.depth, self.busiest_host, self.work)


@dataclass
class Sweep:
    """The points of a sweep and the figure drawing them."""

    title: str
    points: list[SweepPoint]
    figure: Figure

    def finish(self, workers: int) -> float:
        """Finish time of the run with ``workers`` workers."""
        return next(p.finish for p in self.points if p.workers == workers)

    def point(self, workers: int) -> SweepPoint:
        return next(p for p in self.points if p.workers == workers)

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png")
        return buffer.getvalue()


def sweep(scenario: Scenario | str, workers: Iterable[int] = (1, 2, 4, 8, 16), **overrides: Any) -> list[SweepPoint]:
    """Simulate ``scenario`` once per worker count (other options from the
    scenario and ``overrides``) and compute each run's bounds."""
    scen = as_scenario(scenario, overrides)
    points = []
    for count in workers:
        options = scen.options.with_(workers=int(count))
        # traced when the scenario records events (as `crawlsim sweep` does):
        # the depth bound reads the links each page revealed from the trace
        run = simulate(scen, options, trace=options.record_events, series=False)
        b = compute_bounds(scen, run)
        points.append(
            SweepPoint(
                workers=int(count),
                finish=run.finish_time,
                depth=b.depth,
                busiest_host=b.busiest_host,
                busiest_host_name=b.busiest_host_name,
                work=b.work,
                binding=b.binding,
                efficiency=b.efficiency,
                duplicate_fetches=run.stats.duplicate_fetches,
            )
        )
    return points


def sweep_plot(
    scenario: Scenario | str,
    workers: Iterable[int] = (1, 2, 3, 4, 6, 8),
    *,
    ax: Axes | None = None,
    label: str | None = None,
    bounds: bool = True,
    **overrides: Any,
) -> Sweep:
    """Draw finish time against workers, with the three bounds.

    Pass ``ax`` (and a ``label``) to draw several sweeps on one chart, e.g.
    polite and not; ``bounds=False`` leaves the bound lines to the first.
    """
    scen = as_scenario(scenario, overrides)
    points = sweep(scen, workers)
    if ax is None:
        figure = Figure(figsize=(7.5, 4.4), dpi=100)
        FigureCanvasAgg(figure)
        ax = figure.add_subplot()
    else:
        figure = ax.figure  # type: ignore[assignment]
    series = series_from((vars(p) for p in points), label or "finish time")
    title = chart_title(scen.name, scen.title, _shown_options(scen, overrides))
    draw_sweep(ax, [series], title=title if not ax.get_title(loc="left") else "", bounds=bounds)
    figure.tight_layout()
    return Sweep(scen.title, points, figure)


def _shown_options(scen: Scenario, overrides: dict[str, Any]) -> dict[str, Any]:
    """The options a sweep's title names: the ones that shape the curve
    (per-host limit, gap) and any the caller changed."""
    shown = {"per_host": scen.options.per_host, "gap": scen.options.gap}
    shown.update((k, v) for k, v in overrides.items() if k != "workers")
    return shown


__all__ = ["Sweep", "SweepPoint", "sweep", "sweep_plot"]
