"""How fast a knob answers: ``+``, ``p``, ``n`` and ``[`` on every shipped scenario.

A what-if key in the app (and a control in the notebook widget) reruns the
crawl through :func:`crawlsim.views.session.run_session`.  This times each such
change in two ways, on every shipped scenario whose interactive crawl has at
most 5,000 pages (``million`` is crawled capped at 5,000 pages, as the app
does; its row is marked ``capped``):

1. **run_session**, split in the three parts the app shows one after the
   other: *finish time and bounds* (``run_session(..., advice=False)``, with
   ``replay=False`` for a large run as the app asks: the crawl with event
   recording off), *replay* (:func:`crawlsim.views.session.replay_result`: the
   same crawl with its events recorded, its coverage and the
   :class:`~crawlsim.views.replay.Replay`; nothing for a small run, replayed in the
   first part) and *advice* (the advisor's counterfactual reruns, including
   the duplicate-fetch reruns of :mod:`crawlsim.sim.dedup_advice`).  Median
   and p90 (nearest rank) over every change.
2. **key-to-frame** in the app itself, driven headless by Textual's Pilot at
   160x48: from pressing the key until the first frame painted with the
   new run (its finish time on the status line), then until the first frame
   painted with its replay (key-to-replay), then with its advice
   (key-to-advice).

The keys are pressed in turn, ``+ p n [``, ``--repeat`` rounds, each on the
knobs the one before left (as a user presses them); a key that would change
nothing (``[`` at gap 0 with polite mode on) is replaced by its opposite
(``]``), as the app would otherwise not rerun at all.  Both parts see the same
sequence of settings.

Run from a checkout made before the advice was split off (no ``advice=`` on
``run_session``), the first part times the same pieces by hand -- simulate,
bounds, coverage, replay; then the advisor -- and the app's key-to-frame
time includes the advice, as that app computed it before drawing.  From a
checkout made before the replay was split off (no ``replay=``), the replay
part is counted in the first and reported as 0.

    python benchmarks/knobs.py [--repeat 5] [--scenarios busiest-host,variants] [--no-pilot] [--json]

Wall-clock figures on a shared machine also count the time the process waited
for a core: ``cpu`` figures (``time.process_time``, every thread of the
process) are printed beside them, and the load average when the run ended.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.views.session import Knobs, interactive_cap, run_session, web_size

MOST_PAGES = 5_000
KEYS: tuple[tuple[str, str, Callable[[Knobs], Knobs], str, Callable[[Knobs], Knobs]], ...] = (
    ("+", "plus", Knobs.more_workers, "minus", Knobs.fewer_workers),
    ("p", "p", Knobs.toggle_polite, "p", Knobs.toggle_polite),
    ("n", "n", Knobs.cycle_normalize, "n", Knobs.cycle_normalize),
    ("[", "left_square_bracket", Knobs.gap_down, "right_square_bracket", Knobs.gap_up),
)
"""(label, Textual key, the app's knob method, the opposite key, its method)."""
SPLIT = "advice" in inspect.signature(run_session).parameters
"""True when run_session can leave the advice for later (this checkout)."""
REPLAY_SPLIT = "replay" in inspect.signature(run_session).parameters
"""True when run_session can leave the replay for later (this checkout)."""
PARTS = ("bounds", "replay", "advice")


def presses(start: Knobs, rounds: int) -> Iterator[tuple[str, str, Knobs]]:
    """(label, Textual key, knobs after it) for ``rounds`` rounds of ``+ p n [``."""
    knobs = start
    for _ in range(rounds):
        for label, key, turn, opposite, back in KEYS:
            turned = turn(knobs)
            if turned == knobs:
                label, key, turned = f"{label} (as {opposite})", opposite, back(knobs)
            if turned != knobs:
                knobs = turned
                yield label, key, knobs


def crawled_pages(scenario: Scenario) -> int | None:
    """Pages the app's crawl of ``scenario`` may fetch at most (None: unbounded)."""
    limits = [v for v in (web_size(scenario), scenario.options.max_pages, interactive_cap(scenario)) if v]
    return min(limits) if limits else None


def in_scope() -> list[str]:
    """Shipped scenarios whose interactive crawl has at most MOST_PAGES pages, one process."""
    names = []
    for name in list_scenarios():
        scenario = load_scenario(name)
        pages = crawled_pages(scenario)
        if pages is not None and pages <= MOST_PAGES and Knobs.for_scenario(scenario).nodes == 1:
            names.append(name)
    return names


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(began: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clocks()
    return (wall - began[0]) * 1000, (cpu - began[1]) * 1000


def timed_change(scenario: Scenario, knobs: Knobs, cap: int | None) -> dict[str, tuple[float, float]]:
    """One knob change through the session, as the app asks for it: (wall ms, cpu ms) of each part."""
    if not SPLIT:
        return _timed_by_hand(scenario, knobs, cap) | {"replay": (0.0, 0.0)}
    from crawlsim.views.session import advise_result

    if not REPLAY_SPLIT:
        began = _clocks()
        result = run_session(scenario, knobs, cap=cap, advice=False)
        bounds = _since(began)
        began = _clocks()
        advise_result(result)
        return {"bounds": bounds, "replay": (0.0, 0.0), "advice": _since(began)}
    from crawlsim.views.session import large_run, replay_result

    began = _clocks()
    result = run_session(scenario, knobs, cap=cap, advice=False, replay=not large_run(scenario, cap))
    bounds = _since(began)
    began = _clocks()
    result = replay_result(result)
    replay = _since(began)
    began = _clocks()
    advise_result(result)
    return {"bounds": bounds, "replay": replay, "advice": _since(began)}


def _timed_by_hand(scenario: Scenario, knobs: Knobs, cap: int | None) -> dict[str, tuple[float, float]]:
    """The same two parts on a checkout whose run_session always advises:
    its own steps, timed one by one."""
    from crawlsim.views.replay import Replay
    from crawlsim.views.session import _known_pages
    from crawlsim.sim.advisor import advise
    from crawlsim.sim.bounds import compute_bounds
    from crawlsim.sim.coverage import coverage_of
    from crawlsim.sim.driver import simulate

    overrides = knobs.overrides() | ({"max_pages": cap} if cap else {})
    scen = scenario.with_options(**overrides, record_events=True)
    began = _clocks()
    run = simulate(scen, scen.options)
    bounds = compute_bounds(scen, run)
    coverage = coverage_of(scen, run)
    Replay(run.trace, known_pages=_known_pages(scen, coverage), workers=scen.options.workers, coverage=coverage)
    first = _since(began)
    began = _clocks()
    advise(scen, run, bounds)
    return {"bounds": first, "advice": _since(began)}


def session_figures(name: str, rounds: int) -> dict[str, Any]:
    scenario = load_scenario(name)
    cap = interactive_cap(scenario)
    run_session(scenario, Knobs.for_scenario(scenario), cap=cap)  # warm: imports, the web's own caches
    samples: dict[str, list[tuple[float, float]]] = {part: [] for part in PARTS}
    for _, _, knobs in presses(Knobs.for_scenario(scenario), rounds):
        for part, value in timed_change(scenario, knobs, cap).items():
            samples[part].append(value)
    total = [(sum(s[0] for s in parts), sum(s[1] for s in parts)) for parts in zip(*samples.values(), strict=True)]
    return {
        "scenario": name,
        "pages": crawled_pages(scenario),
        "capped": cap is not None,
        "changes": len(total),
        **{f"{part}_{k}": v for part, s in (*samples.items(), ("total", total)) for k, v in summary(s).items()},
    }


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    """Median and p90 (nearest rank) of wall and cpu milliseconds."""
    out = {}
    for index, clock in ((0, "wall"), (1, "cpu")):
        ordered = sorted(s[index] for s in samples)
        out[f"{clock}_p50"] = round(_rank(ordered, 0.5), 1)
        out[f"{clock}_p90"] = round(_rank(ordered, 0.9), 1)
    return out


def _rank(ordered: list[float], q: float) -> float:
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else math.nan


# -- the app itself --------------------------------------------------------------------


async def pilot_figures(name: str, rounds: int) -> dict[str, Any]:
    """Key-to-frame, key-to-replay and key-to-advice times of the app on ``name``.

    The moment a frame is painted is taken where the app hands the screen's
    update to the terminal (``App._display``, as benchmarks/tui_frame_time.py
    does), not when ``pilot.press`` returns: Pilot also waits for the process
    to go idle, which a thread still building the replay would add."""
    from crawlsim.tui.app import CrawlApp

    scenario = load_scenario(name)
    app = CrawlApp(scenario, paused=True, animate=False)
    painted: list[tuple[float, float, Any]] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        painted.append((*_clocks(), app.result))

    app._display = display  # type: ignore[method-assign]
    marks: dict[str, list[tuple[float, float]]] = {"frame_": [], "replay_app_": [], "advice_app_": []}
    async with app.run_test(size=(160, 48)) as pilot:
        await _settle(app, pilot)
        for _, key, knobs in presses(Knobs.for_scenario(scenario), rounds):
            previous = app.result
            painted.clear()
            began = _clocks()
            await pilot.press(key)
            while not _shows_new_finish(app, previous, knobs) or _pending(app.result, "advice_pending"):
                await pilot.pause()
            await _settle(app, pilot)
            shown = [p for p in painted if p[2] is not previous and p[2] is not None and p[2].knobs == knobs]
            marks["frame_"].append(_between(began, shown[0]))
            marks["replay_app_"].append(_between(began, next(p for p in shown if not _pending(p[2], "replay_pending"))))
            marks["advice_app_"].append(_between(began, next(p for p in shown if not _pending(p[2], "advice_pending"))))
    return {prefix + k: v for prefix, samples in marks.items() for k, v in summary(samples).items()}


def _pending(result: Any, part: str) -> bool:
    """The result's ``advice_pending`` or ``replay_pending`` (False on a checkout without it)."""
    return bool(getattr(result, part, False))


def _between(began: tuple[float, float], mark: tuple[float, float, Any]) -> tuple[float, float]:
    return (mark[0] - began[0]) * 1000, (mark[1] - began[1]) * 1000


def _shows_new_finish(app: Any, previous: Any, knobs: Knobs) -> bool:
    """The app installed the run for ``knobs`` and its status line shows that run's finish."""
    from crawlsim.tui.base import seconds
    from crawlsim.tui.widgets import StatusBar

    result = app.result
    if result is None or result is previous or result.knobs != knobs or app.simulating:
        return False
    return f"{seconds(result.replay.end)}" in app.query_one(StatusBar).plain()


async def _settle(app: Any, pilot: Any) -> None:
    """Wait until no worker of the app is left running (simulation, advice)."""
    from textual.worker import WorkerState

    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    while any(w.state in busy for w in app.workers):
        await app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.pause()


# -- report ------------------------------------------------------------------------------


COLUMNS = (
    ("finish+bounds", "bounds_"),
    ("replay", "replay_"),
    ("advice", "advice_"),
    ("key-to-frame", "frame_"),
    ("key-to-replay", "replay_app_"),
    ("key-to-advice", "advice_app_"),
)
"""(heading, row prefix) of each printed column; the app's three only with Pilot."""


def report(rows: list[dict[str, Any]]) -> None:
    print(f"knob changes (+ p n [): median / p90 ms, wall (cpu); load average {os.getloadavg()[0]:.1f}")
    print(f"{'scenario':22} {'changes':>7}  " + "  ".join(f"{heading:>20}" for heading, _ in COLUMNS))
    for row in rows:
        name = row["scenario"] + (" (capped)" if row["capped"] else "")
        cells = [_cell(row, prefix) for _, prefix in COLUMNS if prefix + "wall_p50" in row]
        print(f"{name:22} {row['changes']:>7}  " + "  ".join(f"{c:>20}" for c in cells))


def _cell(row: dict[str, Any], prefix: str) -> str:
    return (
        f"{row[prefix + 'wall_p50']:.0f}/{row[prefix + 'wall_p90']:.0f} "
        f"({row[prefix + 'cpu_p50']:.0f}/{row[prefix + 'cpu_p90']:.0f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds of + p n [ (default 5)")
    parser.add_argument("--scenarios", default="", help="comma-separated names (default: every one in scope)")
    parser.add_argument("--no-pilot", action="store_true", help="skip the app's key-to-frame time")
    parser.add_argument("--json", action="store_true", help="also print the rows as one JSON line")
    args = parser.parse_args()
    names = [n for n in args.scenarios.split(",") if n] or in_scope()
    rows = []
    for name in names:
        row = session_figures(name, args.repeat)
        if not args.no_pilot:
            row |= asyncio.run(pilot_figures(name, args.repeat))
        rows.append(row)
    report(rows)
    if args.json:
        load = round(os.getloadavg()[0], 2)
        print(json.dumps({"split": SPLIT, "replay_split": REPLAY_SPLIT, "loadavg_1m": load, "rows": rows}))


if __name__ == "__main__":
    main()
