"""One simulated run, ready to draw: the shared entry of the notebook API.

Every picture in the notebooks starts here, and here a run is
:func:`crawlsim.views.session.run_session` -- the same function the terminal
app calls -- so a notebook, the terminal app and ``crawlsim animate`` show
the same crawl for the same scenario and options.
"""

from __future__ import annotations

from typing import Any

from crawlsim.notebook.draw import CrawlFigure
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.views.session import Knobs, Result, interactive_cap, run_session


def as_scenario(scenario: Scenario | str, overrides: dict[str, Any] | None = None) -> Scenario:
    """A loaded scenario (by name, path or object) with option overrides."""
    loaded = load_scenario(scenario) if isinstance(scenario, str) else scenario
    return loaded.with_options(**overrides) if overrides else loaded


def run(scenario: Scenario | str, **overrides: Any) -> Result:
    """Simulate ``scenario`` with its own options plus ``overrides``; the
    result holds the replay, the finish time, the SimRun and the bounds
    (a scenario with a ``[cluster]`` table of several nodes: the cluster's
    run, drawn with its nodes).  A web too large to draw is capped
    (``max_pages``), as in the terminal app."""
    scen = as_scenario(scenario, overrides)
    return run_session(scen, Knobs.for_scenario(scen), cap=interactive_cap(scen))




def snapshot(
    scenario: Scenario | str,
    t: float | None = None,
    *,
    layout: str = "host",
    previous: Result | float | None = None,
    figsize: tuple[float, float] = (10.0, 7.2),
    dpi: float = 80,
    bounds: bool = True,
    **overrides: Any,
) -> CrawlFigure:
    """Run ``scenario`` and draw it at time ``t`` (default: the end).

    The returned :class:`CrawlFigure` shows itself as a PNG when it is the
    last expression of a cell, keeps the run in ``.result`` for asserts, and
    can be moved in time with ``.update(t)``.  ``previous`` (a result or a
    finish time) is drawn as the dashed "previous run" line.  ``bounds=False``
    leaves the lower-bound lines out (a hand trace that is not about them).
    """
    result = run(scenario, **overrides)
    scen = as_scenario(scenario, overrides)
    before = previous.finish if isinstance(previous, Result) else previous
    figure = CrawlFigure(figsize=figsize, dpi=dpi)
    figure.show_run(
        result.replay, title=scen.title, layout=layout, finish=result.finish,
        bounds=result.bounds if bounds else None, previous_finish=before,
    )
    figure.result = result
    if t is not None:
        figure.update(t)
    return figure


__all__ = ["as_scenario", "run", "snapshot"]
