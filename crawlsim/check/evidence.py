"""Facts measured from one run, as data: the judge picks its hints from
these instead of guessing a cause.

* parallelism: peak and time-weighted mean of fetches in flight, against
  ``max_workers``;
* threads that quit while the crawl went on (an idle timeout on a queue);
* threads still running the user's code after the crawl returned (they keep
  a program from exiting).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawlsim.check.runner import CaseRun, ThreadInfo


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
    for at exit (forever, if they are blocked)."""
    return [t for t in run.threads if t.blocks_exit]
