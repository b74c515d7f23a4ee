"""Race cases: one timed run, plus controlled interleavings when available.

A race case (``Case.race``) always gets the normal timed run (its verdict,
timing and trace come from it).  On top of that, the user's crawl is handed
to the interleaving explorer ``crawlsim.check.interleave.explore`` -- which
runs a callable with one thread at a time, switching only at line events of
the user's file and at blocking operations, one schedule per seed -- and the
first seed whose schedule fetched a page twice is kept with its switch log,
so the report can say "caught with seed N" and ``--seed N`` replays it.

Until that module exists this file only raises the odds of the timed run
(a short GIL switch interval while a race case runs); ``explore_race``
returns ``None``.  Wiring the explorer in touches only ``explore_race``.

Why real threads are not enough: on CPython 3.11 the interpreter only
switches threads at a few points (function entry, backward jumps, after
calls), and ``if link not in seen: seen.add(link)`` has none between the
check and the add, so that exact race is practically never seen on real
threads -- though it is a bug by the language's rules and on free-threaded
builds.  Switching at line events, as the explorer does, shows it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from typing import Any

from crawlsim.check.cases import Case
from crawlsim.check.loader import Target
from crawlsim.check.runner import CaseRun, run_case
from crawlsim.check.services import SimService

DEFAULT_SEEDS = tuple(range(1, 33))
"""Seeds explored when ``--seed`` is not given."""
RACE_SWITCH_INTERVAL = 1e-5
"""GIL switch interval (seconds) while a race case runs on real threads:
threads trade the interpreter far more often than the default 5 ms, so an
unlocked check-then-add is much more likely to interleave."""


def run_case_or_race(target: Target, case: Case, timeout: float, seeds: list[int] | None = None) -> CaseRun:
    """``run_case``, plus the explorer's finding for a race case."""
    if not case.race:
        return run_case(target, case, timeout)
    previous = sys.getswitchinterval()
    sys.setswitchinterval(RACE_SWITCH_INTERVAL)
    try:
        run = run_case(target, case, timeout)
    finally:
        sys.setswitchinterval(previous)
    run.race = explore_race(target, case, list(seeds) if seeds else list(DEFAULT_SEEDS))
    return run


def _untimed(case: Case) -> Case:
    """The case with no latency and no rendezvous: under a controlled
    scheduler, time plays no part in who runs next."""
    return dataclasses.replace(case, latency={}, default_latency=0.0, groups=())


def explore_race(target: Target, case: Case, seeds: list[int]) -> dict[str, Any] | None:
    """The first seed whose schedule fetched a page twice, as
    ``{"seed", "pages", "switches": [[thread, file, line, text], ...],
    "schedules", "seconds"}``; ``None`` when the explorer is not installed,
    the crawler is ``async def`` (not explored yet) or no schedule raced."""
    try:
        from crawlsim.check import interleave  # type: ignore[attr-defined]
    except ImportError:
        return None
    explore = getattr(interleave, "explore", None)
    if explore is None or target.is_async or not target.source_file:
        return None
    untimed = _untimed(case)

    def attempt() -> list[str]:
        service = SimService(untimed, rendezvous_timeout=0.0)
        service.start_clock()
        try:
            target.function(untimed.start, service.get_urls, untimed.max_workers)
        except Exception:  # noqa: BLE001, S110 - a crash is judged by the timed run; here only duplicates count
            pass
        counts = Counter(r.page for r in service.records())
        return sorted(page for page, n in counts.items() if n > 1)

    result = explore(attempt, seeds=seeds, files=[target.source_file], preemption_bound=2)
    schedules = list(getattr(result, "schedules", result) or [])
    for schedule in schedules:
        pages = getattr(schedule, "outcome", None)
        if isinstance(pages, list) and pages:
            return {
                "seed": getattr(schedule, "seed", None),
                "pages": pages,
                "switches": [list(step) for step in getattr(schedule, "switches", [])],
                "schedules": len(schedules),
                "seconds": getattr(result, "seconds", None),
            }
    return None
