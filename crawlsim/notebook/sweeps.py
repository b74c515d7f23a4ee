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

from crawlsim.notebook.draw import BOUND_COLOURS
from crawlsim.notebook.runs import as_scenario
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
        figure = Figure(figsize=(7.5, 4.2), dpi=100)
        FigureCanvasAgg(figure)
        ax = figure.add_subplot()
    else:
        figure = ax.figure  # type: ignore[assignment]
    xs = [p.workers for p in points]
    ax.plot(xs, [p.finish for p in points], marker="o", linewidth=2, color="#212529" if label is None else None,
            label=label or "finish time", zorder=4)
    if bounds:
        host = next((p.busiest_host_name for p in points if p.busiest_host_name), "busiest host")
        ax.plot(xs, [p.depth for p in points], linestyle=":", color=BOUND_COLOURS["depth"], label="depth bound")
        ax.plot(xs, [p.busiest_host for p in points], linestyle="--", color=BOUND_COLOURS["busiest_host"],
                label=f"{host} bound")
        ax.plot(xs, [p.work for p in points], linestyle="-.", color=BOUND_COLOURS["work"], label="work bound")
        ax.fill_between(xs, 0, [p.floor for p in points], color="#adb5bd", alpha=0.18, linewidth=0,
                        label="below every bound: impossible")
    if max(xs) / max(min(xs), 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.set_xlabel("workers")
    ax.set_ylabel("finish time (simulated s)")
    ax.set_ylim(bottom=0)
    ax.set_title(scen.title, fontsize=11, loc="left")
    ax.grid(alpha=0.25)
    ax.legend(fontsize=8)
    figure.tight_layout()
    return Sweep(scen.title, points, figure)


__all__ = ["Sweep", "SweepPoint", "sweep", "sweep_plot"]
