"""A scenario (or a recorded trace) -> the page's data: every run, once.

:func:`scenario_data` simulates every setting the page offers
(:mod:`crawlsim.page.grid`) with :func:`~crawlsim.views.session.run_session`,
exactly as the terminal app does for a key press, and writes each run's
frames (:mod:`crawlsim.page.frames`); runs that replay identically (more
workers than a polite crawl can use, say) share their frames and keep
their own finish time, bounds and advisor's sentence.  :func:`trace_data`
does the same for one recorded trace, with the what-if keys off.
"""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crawlsim.page.frames import RunExport, Strings, Urls
from crawlsim.page.grid import Grid, Offer, build_grid, knobs_text, smaller_offers
from crawlsim.page.layout import Layout, Place
from crawlsim.page.look import look_data
from crawlsim.views.replay_steps import crawl_steps
from crawlsim.views.summary import model_margin_line
from crawlsim.words import SEEN_REST, bounds_heading, busiest_host_note
from crawlsim.views.session import (
    SPEED_LADDER,
    Knobs,
    Result,
    advise_result,
    default_speed,
    interactive_cap,
    run_session,
    trace_result,
)
from crawlsim.trace.jsonl import RecordedTrace
from crawlsim.sim.reruns import keep, keeping_reruns

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario

BUDGET_SECONDS = 120.0
"""CPU seconds of simulation a page may cost by default (``--budget``)."""
SIZE_BUDGET = 2_000_000
"""Compressed bytes of run data a page may hold (each run counted as if it
compressed alone, which overestimates): the file stays under 3 MB."""
HELD_EVENTS = 150_000
"""Recorded events of simulated, not yet advised settings held at once
(see :func:`_advised_runs`): about 30 MB; all of see-it's 1,440 runs (121,000)."""
STEP_TABLE_URLS = 40
"""Webs of at most this many URLs get the step-by-step table."""
KEY_WORDS = {
    " ": "play/pause", ".": "step", "f": "faster", "s": "slower", "r": "restart", "n": "normalize",
    "+": "workers +", "-": "workers -", "p": "polite", "[": "gap -", "]": "gap +", "o": "order",
    "ArrowLeft": "seek back", "ArrowRight": "seek forward",
}
"""The terminal app's keys (``crawlsim tui``), with the same meanings.  The page
sits below the app in the layers and cannot read its ``BINDINGS``; tests/test_page.py
checks that the two agree."""


@dataclass
class Tables:
    """What every run of one page shares."""

    urls: Urls
    strings: Strings
    blocks: list[dict[str, Any]]
    block_of: dict[str, int]
    layouts: dict[tuple[Place, ...], Layout] = field(default_factory=dict)
    """Each distinct layout once (at most one per run)."""

    @classmethod
    def empty(cls) -> Tables:
        return cls(Urls(), Strings(), [], {})

    def add_run(self, result: Result) -> dict[str, Any]:
        """``result``'s frames (shared with an identical run's) and its own figures."""
        per_host = result.options.per_host if result.options is not None else None
        frames = RunExport(result.replay, self.urls, self.strings, per_host, self.layouts).data()
        if len(self.urls.items) <= STEP_TABLE_URLS:
            frames["steps"] = self._steps(result)
        key = json.dumps(frames, sort_keys=True)
        block = self.block_of.get(key)
        if block is None:
            block = self.block_of[key] = len(self.blocks)
            self.blocks.append(frames)
        return {"block": block, **figures(result, self.strings)}

    def _steps(self, result: Result) -> list[list[Any]]:
        """The step table: per page fetched, its time, URL, links added and
        discarded, then the frontier and the visited set after it."""
        index = self.urls.index
        rows = []
        for step in crawl_steps(result.replay.events):
            rows.append([
                step.t, index[step.url], [index[u] for u in step.added if u in index],
                [index[u] for u in step.discarded if u in index],
                [index[u] for u in step.frontier if u in index], [index[u] for u in step.visited if u in index],
            ])
        return rows


def figures(result: Result, strings: Strings) -> dict[str, Any]:
    """A run's finish time, bounds and the advisor's sentence."""
    out: dict[str, Any] = {"finish": result.finish, "note": result.note, "lanes": len(result.replay.lanes)}
    bounds = result.bounds
    if bounds is not None:
        out["bounds"] = {
            "depth": bounds.depth, "busiest_host": bounds.busiest_host, "work": bounds.work,
            "binding": bounds.binding, "efficiency": bounds.efficiency,
            "busiestHostNote": busiest_host_note(
                bounds.busiest_host_name, bounds.busiest_host_pages, bounds.busiest_host_robots
            ) if bounds.busiest_host_name else "",
        }
        out["explanation"] = strings(bounds.explanation)
    return out


def choose_offer(start: Knobs, seconds: float, size: int, budget: float) -> tuple[Offer, Grid]:
    """The largest offer whose crawls fit ``budget`` CPU seconds and the
    size budget, at ``seconds`` and ``size`` bytes per run; the smallest
    offer (the scenario's own setting) when none does."""
    offers = smaller_offers(start)
    for offer in offers:
        grid = build_grid(start, offer)
        runs = len(grid.runs())
        if runs * seconds <= budget and runs * size <= SIZE_BUDGET:
            return offer, grid
    return offers[-1], build_grid(start, offers[-1])


def offer_line(scenario: Scenario, offer: Offer, runs: int, seconds: float, cap: int | None) -> str:
    """One line: what the page offers, and what it does not and why."""
    line = f"This page offers {offer.describe()}: {runs:,} crawls simulated when it was written."
    if offer.left_out:
        line += (
            f" It does not offer {', '.join(offer.left_out)}: one crawl of {scenario.name} takes "
            f"{seconds:.2f} s to simulate (raise --budget for more)."
        )
    if cap is not None:
        line += f" Each crawl is capped at its first {cap:,} pages (max_pages), as the terminal app does."
    return line


def scenario_data(
    scenario: Scenario, *, budget: float = BUDGET_SECONDS, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """The page's data for ``scenario``: every setting its keys offer, simulated."""
    tables = Tables.empty()
    start = Knobs.for_scenario(scenario)
    cap = interactive_cap(scenario)
    _warm_up()
    with keeping_reruns():  # the settings' advice reruns are often other settings
        began = time.process_time()
        first = run_session(scenario, start, cap=cap)
        first_data = tables.add_run(first)
        seconds = max(time.process_time() - began, 1e-4)  # a run costs its simulation and its frames
        _keep(first)
        size = len(gzip.compress(json.dumps(tables.blocks[0]).encode()))
        offer, grid = choose_offer(start, seconds, size, budget)
        groups = grid.runs()
        runs = [first_data if result is None else tables.add_run(result)
                for _, result in _advised_runs(scenario, grid, cap, progress)]
    run_of = {i: at for at, members in enumerate(groups.values()) for i in members}
    states = [
        {"run": run_of[i], "knobs": knobs_text(knobs), "moves": grid.moves[i]} for i, knobs in enumerate(grid.states)
    ]
    data = _common(tables, scenario.name, scenario.title, runs, states, first.finish)
    margin = model_margin_line(scenario)  # as run heads its bounds with it (None: no model)
    data.update(
        description=" ".join(scenario.description.split()),
        tries=list(scenario.tips),
        offer=offer_line(scenario, offer, len(groups), seconds, cap),
        stepsFirst=start.workers == 1,  # a trace by hand: the table is the lesson
        margin=margin,
        boundsTitle=bounds_heading(model=margin is not None),
    )
    return data


def _advised_runs(
    scenario: Scenario, grid: Grid, cap: int | None, progress: Callable[[int, int], None] | None
) -> Iterator[tuple[list[int], Result | None]]:
    """Each setting's members and its advised run (None for the first, run
    already), in the grid's order, inside :func:`keeping_reruns`.

    The settings are simulated a window at a time before any of them is
    advised, so a setting's advice reruns that are settings of the same
    window (or an earlier one) are answered by that setting's own run
    instead of simulated again.  A window holds at most
    :data:`HELD_EVENTS` recorded events (at least one run): the memory a
    big web's page takes stays bounded, at the cost of a rerun for a
    counterfactual that is a setting of a later window."""
    groups = list(grid.runs().values())
    done = 0
    while done < len(groups):
        window: list[tuple[list[int], Result | None]] = []
        held = 0
        while done + len(window) < len(groups) and (not window or held < HELD_EVENTS):
            members = groups[done + len(window)]
            result = None
            if members[0] != 0:
                result = run_session(scenario, grid.states[members[0]], cap=cap, advice=False)
                _keep(result)
                held += len(result.run.trace) if result.run is not None else 0
            window.append((members, result))
        for members, result in window:
            yield members, advise_result(result) if result is not None else None
            done += 1
            if progress is not None:
                progress(done, len(groups))


def _keep(result: Result) -> None:
    """Note ``result``'s crawl (inside :func:`keeping_reruns`) for the other
    settings' advice reruns."""
    if result.simulated is not None and result.run is not None:
        keep(result.simulated, result.run, result.coverage)


def _warm_up() -> None:
    """Import what a run needs before the first run is timed (the estimate
    of the others is that run's time)."""
    import crawlsim.sim.advisor
    import crawlsim.sim.coverage
    import crawlsim.sim.driver  # noqa: F401


def trace_data(trace: RecordedTrace, name: str) -> dict[str, Any]:
    """The page's data for a recorded trace: one run, no what-if keys."""
    tables = Tables.empty()
    result = trace_result(trace)
    runs = [tables.add_run(result)]
    states: list[dict[str, Any]] = [{"run": 0, "knobs": None, "moves": {}}]
    data = _common(tables, name, f"a recorded crawl: {name}", runs, states, result.finish)
    data.update(
        description="",
        tries=[],
        offer="A recorded trace: the what-if keys are off (there is no scenario to rerun), and so are the bounds.",
        boundsTitle=bounds_heading(),
    )
    return data


def _common(
    tables: Tables, name: str, title: str, runs: list[dict[str, Any]], states: list[dict[str, Any]], finish: float
) -> dict[str, Any]:
    items = tables.urls.items
    hosts = list(dict.fromkeys(u.host for u in items))
    host_index = {host: i for i, host in enumerate(hosts)}
    return {
        "name": name,
        "title": title,
        "look": look_data(),
        "strings": tables.strings.items,
        "urls": [[u.label, host_index[u.host], u.url] for u in items],
        "hosts": hosts,
        "blocks": tables.blocks,
        "runs": runs,
        "states": states,
        "speeds": list(SPEED_LADDER),
        "speed": default_speed(finish),
        "keys": KEY_WORDS,
        "seenRest": SEEN_REST,
    }


__all__ = ["BUDGET_SECONDS", "choose_offer", "offer_line", "scenario_data", "trace_data"]
