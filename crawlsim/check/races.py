"""Race cases: one timed run, plus controlled interleavings when available.

A race case (``Case.race``) always gets the normal timed run (its verdict,
timing and trace come from it).  On top of that, the user's crawl is handed
to the interleaving explorer ``crawlsim.check.interleave`` -- which runs the
crawl with one thread at a time, switching only at line events of the
user's file and at blocking operations, one schedule per seed -- through its
``find_duplicate_fetches`` (or, failing that, the general ``explore``), and
the first seed whose schedule fetched a page twice is kept with the two
interleaved lines, so the report says "caught with seed N" (and what the
exploration cost) and ``--seed N`` replays it.  The child imports the user's
file inside the explorer's ``install_for_import`` so module-level locks are
under its control too.

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

import contextlib
import dataclasses
import io
import logging
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

from crawlsim.check.cases import Case
from crawlsim.check.loader import Target
from crawlsim.check.runner import CaseRun, run_case
from crawlsim.check.services import SimService

DEFAULT_SEEDS = tuple(range(1, 33))
"""Seeds explored when ``--seed`` is not given."""
EXPLORE_BUDGET = 15.0
"""Real seconds within which the explorer's schedules of one race case may
start; with :data:`SCHEDULE_TIMEOUT` for the last one, the answer comes well
inside the sandbox's allowance (``sandbox.EXPLORE_ALLOWANCE``), so the
checker's own search never looks like a crawler that stopped answering."""
SCHEDULE_TIMEOUT = 10.0
"""Real seconds one explored schedule may take (its safety net)."""
RACE_SWITCH_INTERVAL = 1e-5
"""GIL switch interval (seconds) while a race case runs on real threads:
threads trade the interpreter far more often than the default 5 ms, so an
unlocked check-then-add is much more likely to interleave."""


def run_case_or_race(
    target: Target, case: Case, timeout: float, seeds: list[int] | None = None, stall_after: float | None = None
) -> CaseRun:
    """``run_case``, plus the explorer's finding for a race case."""
    if not case.race:
        return run_case(target, case, timeout, stall_after)
    previous = sys.getswitchinterval()
    sys.setswitchinterval(RACE_SWITCH_INTERVAL)
    try:
        run = run_case(target, case, timeout, stall_after)
    finally:
        sys.setswitchinterval(previous)
    run.race = explore_race(target, case, list(seeds) if seeds else None)
    return run


def _untimed(case: Case) -> Case:
    """The case with no latency and no rendezvous: under a controlled
    scheduler, time plays no part in who runs next."""
    return dataclasses.replace(case, latency={}, default_latency=0.0, groups=())


def explore_race(target: Target, case: Case, seeds: list[int] | None) -> dict[str, Any] | None:
    """The first schedule that fetched a page twice, as plain data
    (``{"seed", "pages", "text", "switches", "schedules", "seconds"}``);
    ``{"limit", "schedules", "seconds"}`` when none did but the explorer
    could not run every schedule under its control (its limit, said on the
    passing check, never the crawler's fault); or ``None`` when the explorer
    is not installed, the crawler's file is unknown, or no schedule raced.
    ``seeds=None`` lets the explorer choose (every preemptible point, three
    times); ``--seed N`` gives ``[N]``."""
    try:
        from crawlsim.check import interleave  # type: ignore[attr-defined]
    except ImportError:
        return None
    if not target.source_file:
        return None
    find = getattr(interleave, "find_duplicate_fetches", None)
    if find is not None:
        untimed = _untimed(case)
        with quiet():
            report = find(
                target.function,
                web={page: list(links) for page, links in untimed.links.items()},
                start_url=untimed.start,
                files=[target.source_file],
                max_workers=untimed.max_workers,
                seeds=seeds,
                budget=EXPLORE_BUDGET,
                schedule_timeout=SCHEDULE_TIMEOUT,
            )
        first = report.first
        if first is None:
            if report.limit is None:
                return None
            return {"limit": report.limit, "schedules": report.schedules, "seconds": round(report.seconds, 2)}
        return {
            "seed": first.seed,
            "pages": [first.url],
            # the verdict names the seed once ("Caught with seed N"): not again in every clause
            "text": str(first).replace(f" (seed {first.seed})", ""),
            "switches": [],
            "schedules": report.schedules,
            "seconds": round(report.seconds, 2),
            "replayed": seeds is not None,
        }
    found = _explore_generic(interleave, target, case, seeds or list(DEFAULT_SEEDS))
    return found if found is None else {**found, "replayed": seeds is not None}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """While schedules run, the explorer stops threads a crawl left behind
    (workers blocked on a queue) by raising in them; a thread pool logs
    each as "Exception in worker".  Those are the explorer's doing, not the
    user's: keep them off the user's terminal."""
    logger = logging.getLogger("concurrent.futures")
    was = logger.disabled
    logger.disabled = True
    previous_hook = threading.excepthook
    threading.excepthook = lambda args: None
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        logger.disabled = was
        threading.excepthook = previous_hook


def _explore_generic(interleave: Any, target: Target, case: Case, seeds: list[int]) -> dict[str, Any] | None:
    """Fallback on the explorer's general ``explore(target, seeds, files)``."""
    explore = getattr(interleave, "explore", None)
    if explore is None or target.is_async or not target.source_file:
        return None
    untimed = _untimed(case)

    def attempt() -> list[str]:
        service = SimService(untimed, rendezvous_timeout=0.0)
        service.start_clock()
        try:
            target.function(untimed.start, service.get_urls, untimed.max_workers, *untimed.args)
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
