"""crawlsim in Jupyter: watch a crawl, turn a knob, compare, export.

    from crawlsim.notebook import CrawlWidget, show, snapshot, sweep_plot, animate

    w = show("see-it")                       # Play, a time slider, the what-if controls
    snapshot("see-it", t=9.0, normalize="off")   # one picture at t = 9 s
    sweep_plot("see-it", workers=[1, 2, 3, 4])    # finish time against workers, with the bounds
    animate("see-it", "crawl.gif")          # the same picture, animated, for slides
    still_frames("see-it", "start,end", "slides/see-it.svg")  # stills at named moments
    page("see-it")                          # the offline web page (crawlsim html), inline

The pieces: :mod:`~crawlsim.notebook.runs` (a run = the terminal app's
``run_session``), :mod:`~crawlsim.notebook.layout` (page positions),
:mod:`~crawlsim.notebook.draw` (one matplotlib figure, mutated per frame),
:mod:`~crawlsim.notebook.nodes` (a cluster's nodes on that figure),
:mod:`~crawlsim.notebook.widget` (ipywidgets), :mod:`~crawlsim.notebook.sweeps`,
:mod:`~crawlsim.notebook.steps` (the BFS-by-hand table),
:mod:`~crawlsim.notebook.tables` and :mod:`~crawlsim.notebook.movie` (the
same figure written frame by frame to a GIF or MP4: ``crawlsim animate``).
Names load on first use, so ``crawlsim animate`` (matplotlib only) never
imports ipywidgets.  The movie module is not called ``animate``: importing a
submodule of that name would set ``crawlsim.notebook.animate`` to the module
and hide the :func:`animate` function this package exports.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawlsim.notebook.inline import page
    from crawlsim.notebook.movie import animate, still_frames
    from crawlsim.notebook.draw import CrawlFigure
    from crawlsim.notebook.runs import run, snapshot
    from crawlsim.notebook.steps import Step, crawl_steps, fetch_order
    from crawlsim.notebook.sweeps import Sweep, SweepPoint, sweep, sweep_plot
    from crawlsim.notebook.tables import Table, short
    from crawlsim.notebook.widget import CrawlWidget, show

_WHERE = {
    "CrawlWidget": "crawlsim.notebook.widget",
    "show": "crawlsim.notebook.widget",
    "CrawlFigure": "crawlsim.notebook.draw",
    "run": "crawlsim.notebook.runs",
    "snapshot": "crawlsim.notebook.runs",
    "Sweep": "crawlsim.notebook.sweeps",
    "SweepPoint": "crawlsim.notebook.sweeps",
    "sweep": "crawlsim.notebook.sweeps",
    "sweep_plot": "crawlsim.notebook.sweeps",
    "Step": "crawlsim.notebook.steps",
    "crawl_steps": "crawlsim.notebook.steps",
    "fetch_order": "crawlsim.notebook.steps",
    "Table": "crawlsim.notebook.tables",
    "short": "crawlsim.notebook.tables",
    "animate": "crawlsim.notebook.movie",
    "still_frames": "crawlsim.notebook.movie",
    "page": "crawlsim.notebook.inline",
}

__all__ = [
    "CrawlFigure",
    "CrawlWidget",
    "Step",
    "Sweep",
    "SweepPoint",
    "Table",
    "animate",
    "crawl_steps",
    "fetch_order",
    "page",
    "run",
    "short",
    "show",
    "snapshot",
    "sweep",
    "still_frames",
    "sweep_plot",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'crawlsim.notebook' has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
