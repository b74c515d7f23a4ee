"""Facts measured from one run, as data: the judge picks its hints from
these instead of guessing a cause.

* parallelism: peak and time-weighted mean of fetches in flight, against
  ``max_workers``;
* threads that quit while the crawl went on (an idle timeout on a queue);
* threads still running the user's code after the crawl returned (they keep
  a program from exiting);
* the calls grouped (by thread, by host) and the wait before each call since
  its group's last return, which the ``rate`` and ``politeness`` rounds read.
* how the call ended (:func:`ending`): what every sentence about a run
  presupposes ("after the crawl returned" is only said of a crawl that did).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from crawlsim.check.runner import CaseRun, ThreadInfo
from crawlsim.check.services import FetchRecord

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


def moments(records: Iterable[FetchRecord], wall: float) -> list[tuple[float, int]]:
    """Each call's start (+1) and end (-1) in time order, an end before a start
    at the same instant; a call still running ends at ``wall``."""
    out: list[tuple[float, int]] = []
    for r in records:
        out.append((r.start, 1))
        out.append((r.end if r.end is not None else max(wall, r.start), -1))
    return sorted(out)


def peak_in_flight(records: Iterable[FetchRecord], wall: float) -> tuple[int, float]:
    """The most of ``records`` in flight at once, and when that was first reached."""
    level, peak, when = 0, 0, 0.0
    for at, step in moments(records, wall):
        level += step
        if level > peak:
            peak, when = level, at
    return peak, when


def parallelism(run: CaseRun) -> Parallelism:
    steps = moments(run.records, run.wall)
    if not steps:
        return Parallelism(0, 0.0, run.case.max_workers)
    area = 0.0
    level = 0
    previous = steps[0][0]
    for at, step in steps:
        area += level * (at - previous)
        level += step
        previous = at
    span = steps[-1][0] - steps[0][0]
    mean = area / span if span > 0 else float(run.peak)
    return Parallelism(run.peak, round(mean, 2), run.case.max_workers)


def grouped(records: Iterable[FetchRecord], key: Callable[[FetchRecord], str]) -> dict[str, list[FetchRecord]]:
    """The calls by ``key`` (a thread's name, a host), each group in start order."""
    out: dict[str, list[FetchRecord]] = {}
    for record in sorted(records, key=lambda r: r.start):
        out.setdefault(key(record), []).append(record)
    return out


def waits_after_return(calls: list[FetchRecord]) -> list[float]:
    """For each call (in start order) after an earlier one of ``calls`` had
    returned: the seconds from the latest such return to its start.  A
    thread's calls follow one another, so for them this is the pause between
    its calls; for a host's it is how long each call waited after the host
    last answered."""
    waits = []
    for i, call in enumerate(calls):
        returned = [c.end for c in calls[:i] if c.end is not None and c.end <= call.start]
        if returned:
            waits.append(call.start - max(returned))
    return waits


def links_known(run: CaseRun) -> float:
    """When the start page's call returned (its start, if it never did): no
    other page can be due before its links are known."""
    first = min(run.records, key=lambda r: r.start)
    return first.end if first.end is not None else first.start


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
