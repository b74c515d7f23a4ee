"""The checker's question: did any schedule fetch a page twice, and which interleaving let it?

``find_duplicate_fetches`` wraps a crawl function as a target with a counting
``get_urls`` and reads the counts off every schedule ``explore`` ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from .results import Race, Schedule
from .search import default_seeds, explore, note


@dataclass(frozen=True)
class DuplicateFetch:
    """One schedule in which a page was fetched more than once."""

    seed: int | None
    url: str
    fetches: int
    race: Race | None
    """The interleaving that let it happen, when the switch log shows one."""
    schedule: Schedule[Any]

    def __str__(self) -> str:
        text = f"{self.url} was fetched {self.fetches} times (seed {self.seed})"
        return f"{text}: {self.race}" if self.race else text


@dataclass
class RaceReport:
    """What ``find_duplicate_fetches`` found, and what it cost."""

    duplicates: list[DuplicateFetch]
    """One per failing schedule (its first duplicated URL), in seed order."""
    schedules: int
    """Schedules run, the calibration (if any) included."""
    steps: int
    seconds: float
    problems: list[str]
    """``seed N: deadlock: ...``, ``seed N: the crawl raised ...``, stalls
    (``nondeterministic: ...``): every schedule's problems, prefixed."""
    limit: str | None = None
    """Why the search fell short of its own standard, when it did: a
    schedule stopped by its real-time safety net or its step limit, a thread
    blocked where the explorer cannot see (so that schedule ran partly on
    real threads), or the time budget spent before every seed ran.  The explorer's limit, not
    a fault of the crawl: finding no duplicate then proves less."""

    @property
    def first(self) -> DuplicateFetch | None:
        return self.duplicates[0] if self.duplicates else None


def find_duplicate_fetches(
    crawl: Callable[..., Any],
    *,
    web: dict[str, list[str]],
    start_url: str,
    files: Collection[str],
    max_workers: int = 3,
    seeds: Iterable[int] | None = None,
    preemption_bound: int = 2,
    max_steps: int = 200_000,
    record_lines: bool = False,
    budget: float | None = None,
    schedule_timeout: float = 60.0,
) -> RaceReport:
    """Explore ``crawl(start_url, get_urls, max_workers)`` on ``web`` (URL ->
    links; unknown URLs have none) and report every schedule that fetched a
    page twice, with the interleaving that caused it.

    ``get_urls`` is synchronous, or ``async`` when ``crawl`` is a coroutine
    function (run with ``asyncio.run``; its fetch takes 50 virtual ms).  Each
    call is a :func:`note` ``get_urls URL`` in the schedule's log.  ``record_lines``: see :func:`explore`.
    ``budget`` and ``schedule_timeout`` are real seconds, as ``explore``
    takes them; what they cut short is the report's ``limit``.
    """
    is_async = asyncio.iscoroutinefunction(crawl)

    def target() -> tuple[Any, dict[str, int]]:
        calls: dict[str, int] = {}

        def record(url: str) -> list[str]:
            calls[url] = calls.get(url, 0) + 1
            note(f"get_urls {url}")
            return list(web.get(url, ()))

        if is_async:
            async def get_urls_async(url: str) -> list[str]:
                links = record(url)
                await asyncio.sleep(0.05)
                return links

            return asyncio.run(crawl(start_url, get_urls_async, max_workers)), calls
        return crawl(start_url, record, max_workers), calls

    chosen = None if seeds is None else list(seeds)
    result = explore(target, seeds=chosen, files=files, preemption_bound=preemption_bound, max_steps=max_steps,
                     budget=budget, schedule_timeout=schedule_timeout, record_lines=record_lines)
    ran = [*([result.calibration] if result.calibration else []), *result.schedules]
    duplicates, problems = _read(ran)
    wanted = len(chosen) if chosen is not None else len(default_seeds(result.horizon))
    return RaceReport(duplicates, len(ran), sum(s.steps for s in ran), result.seconds, problems,
                      _limit(ran, len(result.schedules), wanted))


def _read(ran: list[Schedule[Any]]) -> tuple[list[DuplicateFetch], list[str]]:
    """Each schedule's first duplicated fetch (the calibration's aside: it
    has no seed to replay) and every schedule's problems, prefixed."""
    duplicates = []
    problems = []
    for schedule in ran:
        name = "calibration" if schedule.seed is None else f"seed {schedule.seed}"
        problems.extend(f"{name}: {problem}" for problem in schedule.problems)
        if schedule.outcome == "raised":
            problems.append(f"{name}: the crawl raised {schedule.error!r}")
        calls = schedule.value[1] if schedule.value is not None else {}
        twice = [url for url, n in calls.items() if n > 1]
        if twice and schedule.seed is not None:
            # name the URL whose interleaving the log can show, if any
            url = next((u for u in twice if schedule.race_on(u)), twice[0])
            duplicates.append(DuplicateFetch(schedule.seed, url, calls[url], schedule.race_on(url), schedule))
    return duplicates, problems


def _limit(ran: list[Schedule[Any]], explored: int, wanted: int) -> str | None:
    """What kept the search from running every schedule under control, in words (``RaceReport.limit``)."""
    reasons = []
    stopped = sum(s.outcome == "timeout" for s in ran)
    if stopped:
        reasons.append(f"{stopped} schedule(s) ran out of real time: a thread kept running or stayed blocked "
                       "where the explorer cannot switch it")
    looped = sum(s.outcome == "step-limit" for s in ran)
    if looped:
        reasons.append(f"{looped} schedule(s) stopped at the step limit: a thread ran on without blocking "
                       "and the others could not end it")
    stalled = sum(s.nondeterministic for s in ran)
    if stalled:
        reasons.append(f"in {stalled} schedule(s) a thread blocked outside the explorer's control, so those ran "
                       "partly on real threads")
    if explored < wanted:
        reasons.append(f"its time budget ran out after {explored} of {wanted} schedules")
    return "; ".join(reasons) or None
