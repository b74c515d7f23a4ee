"""Reruns made once: the advisor's counterfactual crawls, kept for a while.

Whoever advises many settings of one scenario at once (the see-it page's
builder advises all 1,440 its keys reach) asks for the same reruns again
and again: 2 workers' "twice the workers" rerun is the 4-worker setting,
which the page simulates and advises in its own right.  A simulation is a
function of its input (the same web, seeds, latency seed and options give
the same trace), so inside :func:`keeping_reruns` a crawl already run is
answered from memory instead of simulated again.

A kept crawl is found by the *identity* of the objects the simulation
reads besides the options (the web, the latency table, per-page
latencies: a scenario's ``with_options`` copy shares them) and by the
options themselves: a different object is a different crawl, so nothing
is ever answered for the wrong input, only sometimes simulated twice.
Outside the block nothing is kept (the default: a view advising one
setting at a time keeps no memory it would not reuse).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

from crawlsim.core.options import CrawlOptions
from crawlsim.sim.coverage import Coverage, coverage_of
from crawlsim.sim.driver import SimRun, simulate
from crawlsim.sim.inputs import SimInput


@dataclass(frozen=True, slots=True)
class Rerun:
    """What the advisor quotes of a rerun: its finish time, and its coverage
    (for the duplicate-fetch knobs, which count pages lost)."""

    finish_time: float
    coverage: Coverage | None


@dataclass(slots=True)
class _Kept:
    inputs: tuple[Any, ...]  # the objects whose ids are in the key: alive, so no id is reused
    finish_time: float
    coverage: Coverage | None


_KEPT: ContextVar[dict[tuple[Any, ...], _Kept] | None] = ContextVar("crawlsim_kept_reruns", default=None)


@contextmanager
def keeping_reruns() -> Iterator[None]:
    """Inside the block, a crawl simulated once (by :func:`rerun` or noted
    with :func:`keep`) is not simulated again."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def _inputs(sim: SimInput) -> tuple[Any, ...]:
    return (sim.web, getattr(sim, "latency", sim), getattr(sim, "page_latency", None))


_OPTION_FIELDS = tuple(f.name for f in fields(CrawlOptions) if f.compare and f.name != "record_events")
"""What two options compare (and hash) by, but for recording events, which
changes no figure: read directly, which costs a tenth of a validated copy."""


def _key(sim: SimInput, options: CrawlOptions) -> tuple[Any, ...]:
    ids = tuple(id(x) for x in _inputs(sim))
    cost = getattr(sim, "client_cost", 0.0)
    return (*ids, cost, tuple(sim.seeds), sim.seed, *(getattr(options, name) for name in _OPTION_FIELDS))


def keep(sim: SimInput, run: SimRun, coverage: Coverage | None = None) -> None:
    """Note ``run`` (a crawl of ``sim`` with ``run.options``), with its
    coverage when it has one, for the reruns that ask for the same crawl."""
    kept = _KEPT.get()
    if kept is not None:
        kept[_key(sim, run.options)] = _Kept(_inputs(sim), run.finish_time, coverage)


def rerun(sim: SimInput, options: CrawlOptions, *, coverage: bool = False) -> Rerun:
    """``sim`` crawled with ``options`` (events recorded only when its
    ``coverage`` is asked for), or the same crawl kept from before."""
    kept = _KEPT.get()
    key = _key(sim, options)
    found = kept.get(key) if kept is not None else None
    if found is not None and (found.coverage is not None or not coverage):
        return Rerun(found.finish_time, found.coverage)
    run = simulate(sim, options, trace=coverage, series=False)
    got = Rerun(run.finish_time, coverage_of(sim, run) if coverage else None)
    if kept is not None:
        kept[key] = _Kept(_inputs(sim), got.finish_time, got.coverage)
    return got


__all__ = ["Rerun", "keep", "keeping_reruns", "rerun"]
