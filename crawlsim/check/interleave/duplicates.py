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
from .search import explore, note


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
) -> RaceReport:
    """Explore ``crawl(start_url, get_urls, max_workers)`` on ``web`` (URL ->
    links; unknown URLs have none) and report every schedule that fetched a
    page twice, with the interleaving that caused it.

    ``get_urls`` is synchronous, or ``async`` when ``crawl`` is a coroutine
    function (run with ``asyncio.run``; its fetch takes 50 virtual ms).  Each
    call is a :func:`note` ``get_urls URL`` in the schedule's log.  ``record_lines``: see :func:`explore`.
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

    result = explore(target, seeds=seeds, files=files, preemption_bound=preemption_bound, max_steps=max_steps,
                     record_lines=record_lines)
    duplicates = []
    problems = []
    for schedule in [*([result.calibration] if result.calibration else []), *result.schedules]:
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
    ran = [*([result.calibration] if result.calibration else []), *result.schedules]
    return RaceReport(duplicates, len(ran), sum(s.steps for s in ran), result.seconds, problems)
