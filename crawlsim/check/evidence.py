"""Facts measured from one run, as data: the judge picks its hints from
these instead of guessing a cause.

* parallelism: peak and time-weighted mean of fetches in flight, against
  ``max_workers``;
* threads that quit while the crawl went on (an idle timeout on a queue);
* threads still running the user's code after the crawl returned (they keep
  a program from exiting);
* how the call ended (:func:`ending`): what every sentence about a run
  presupposes ("after the crawl returned" is only said of a crawl that did).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from crawlsim.check.runner import CaseRun, ThreadInfo

Ending = Literal["returned", "raised", "did not return"]
"""How one call of the crawl ended."""
ANY_ENDING: frozenset[Ending] = frozenset({"returned", "raised", "did not return"})
CAME_BACK: frozenset[Ending] = frozenset({"returned", "raised"})
"""The call ended, with a value or an exception: the moment "after the crawl returned" exists."""
NOT_RETURNED: frozenset[Ending] = frozenset({"did not return"})
RETURNED: frozenset[Ending] = frozenset({"returned"})
RAISED: frozenset[Ending] = frozenset({"raised"})


def ending(run: CaseRun) -> Ending:
    """How the call ended: returned a value, raised, or did not return by
    its deadline (stuck, too slow, or its process died)."""
    if run.timed_out:
        return "did not return"
    return "raised" if run.error is not None else "returned"


@dataclass(frozen=True)
class Parallelism:
    """Fetches in flight over the crawl: the most at once and the
    time-weighted mean from the first fetch starting to the last ending."""

    peak: int
    mean: float
    max_workers: int


def parallelism(run: CaseRun) -> Parallelism:
    moments: list[tuple[float, int]] = []
    for r in run.records:
        moments.append((r.start, 1))
        moments.append((r.end if r.end is not None else max(run.wall, r.start), -1))
    if not moments:
        return Parallelism(0, 0.0, run.case.max_workers)
    moments.sort(key=lambda m: (m[0], m[1]))  # an end before a start at the same instant
    area = 0.0
    level = 0
    previous = moments[0][0]
    for at, step in moments:
        area += level * (at - previous)
        level += step
        previous = at
    span = moments[-1][0] - moments[0][0]
    mean = area / span if span > 0 else float(run.peak)
    return Parallelism(run.peak, round(mean, 2), run.case.max_workers)


@dataclass(frozen=True)
class EarlyExits:
    """Threads the crawl started that ended while it was still fetching."""

    quit: list[ThreadInfo]
    started: int
    last_fetch_start: float


def early_exits(run: CaseRun) -> EarlyExits:
    """Threads that ended before the crawl's last fetch started: they quit
    while there was still work to come."""
    starts = [r.start for r in run.records]
    last = max(starts) if starts else 0.0
    quit_ = [t for t in run.threads if t.ended is not None and t.ended < last]
    return EarlyExits(quit_, len(run.threads), last)


def left_running(run: CaseRun) -> list[ThreadInfo]:
    """Threads still running after the crawl returned that Python would wait
    for at exit (forever, if they are blocked).  None for a crawl that did
    not return: its threads were still at work, not left behind."""
    if ending(run) not in CAME_BACK:
        return []
    return [t for t in run.threads if t.blocks_exit]
