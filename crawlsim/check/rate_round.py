"""The ``rate`` follow-up round: ``crawl(start_url, get_urls, max_workers, max_rate)``.

``max_rate`` is calls per second across all workers: the starts of
``get_urls`` calls never exceed ``max_rate * T + max_rate`` in any window of
``T`` seconds (a token bucket of burst ``max_rate``, or anything smoother),
and the crawl uses the rate it is given.  Two cases, both measured from the
service's recorded call starts:

* ``rate-limit`` -- max_rate=20, 8 workers, the start links to 48 pages of
  5 ms: no limit at all starts them all within a few hundredths of a
  second; a delay of ``1/max_rate`` in each worker lets 8 workers run about
  7 times too fast (six waves of 8, 55 ms apart).  Either puts about twice
  the allowed starts in a window, and the fastest rate tells them apart (at
  most ``max_workers * max_rate`` for a per-worker delay, ten times that
  without a limit).  A good crawl takes about 1.5 s (2.5 s without a burst).
* ``rate-use`` -- max_rate=10, 8 workers, the start links to 8 pages of
  0.4 s: a crawl that holds its lock across the call makes one call at a
  time, 2.5 calls per second, a quarter of the rate; a good one needs four
  calls in flight to use it.

The bound gets ``SLACK``: the service records a start a moment after the
crawl decided it, and on a loaded machine a thread may wait a while in
between, which can bunch starts the crawl had spread out.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from crawlsim.check import evidence, judge
from crawlsim.check.cases import A, Case, _site, defrag, expected_pages
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.words import named
from crawlsim.words import counted

SLACK = 0.15
"""Starts allowed over the bound: this share of max_rate, plus one."""
USE_SHARE = 0.5
"""A crawl must start its pages at more than this share of max_rate."""
BURST_WINDOW = 0.1
"""Starts this close together, more than a quarter of max_rate of them, are a burst."""
PER_WORKER = 1.5
"""A crawl over the bound whose fastest rate stays within this many times
max_workers * max_rate spaced each worker's calls, not the crawl's."""


def _case(name: str, title: str, rate: float, workers: int, pages: int, latency: float, deadline: float) -> Case:
    return Case(
        name=name,
        title=title,
        lesson=(
            "Share one limiter between all workers (a token bucket of burst max_rate behind a lock), take a token "
            "before each call, and release the lock before calling get_urls."
        ),
        start=A + "/",
        links=_site(A, {"/": [f"/p{i}" for i in range(pages)], **{f"/p{i}": [] for i in range(pages)}}),
        max_workers=workers,
        level="L6",
        default_latency=latency,
        args=(rate,),
        deadline=deadline,
    )


def RATE_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [
        _case(
            "rate-limit",
            "max_rate=20 on 48 pages of 5 ms at 8 workers: never more than 20 * T + 20 starts in T s",
            20.0,
            8,
            48,
            0.005,
            6.0,
        ),
        _case(
            "rate-use",
            "max_rate=10 on 8 pages of 0.4 s: the crawl uses over half the rate (4 calls in flight)",
            10.0,
            8,
            8,
            0.4,
            3.5,
        ),
    ]


def judge_rate(runs: dict[str, CaseRun]) -> list[CheckResult]:
    return [_judge(runs[name]) for name in ("rate-limit", "rate-use") if name in runs]


@dataclass(frozen=True)
class Window:
    """The window of call starts fullest against the bound."""

    starts: int
    seconds: float
    rate: float

    @property
    def allowed(self) -> float:
        return self.rate * self.seconds + self.rate

    @property
    def excess(self) -> float:
        return self.starts - self.allowed


def fullest(starts: list[float], rate: float) -> Window:
    """The window ``[starts[i], starts[j]]`` with the most starts over ``rate * T + rate``."""
    starts = sorted(starts)
    best = Window(0, 0.0, rate)
    for i, first in enumerate(starts):
        for j in range(i, len(starts)):
            window = Window(j - i + 1, starts[j] - first, rate)
            if window.excess > best.excess:
                best = window
    return best


def _judge(run: CaseRun) -> CheckResult:
    case = run.case
    slow = run.timed_out and not run.error and not run.crash and not run.stalled
    if not slow and (run.error or run.timed_out or run.result is None):
        return judge.judge_case(run)
    found: tuple[str, str] | str | None = _over(run) or _underused(run)
    if found is None and slow:  # too slow to finish, and its starts so far do not say why
        return judge.judge_case(run)
    found = found or _result(run)
    if isinstance(found, str):
        return CheckResult(case.name, True, found, {}, "correctness", case.level, case.title)
    cause, text = found
    details = {"max_rate": case.args[0], "starts": sorted(round(r.start, 4) for r in run.records)}
    return CheckResult(case.name, False, text, details, "correctness", case.level, case.title, cause=cause)


def _over(run: CaseRun) -> tuple[str, str] | None:
    """More starts in some window than the bound (and its slack) allows."""
    rate = float(run.case.args[0])
    window = fullest([r.start for r in run.records], rate)
    if window.excess <= SLACK * rate + 1:
        return None
    measured = (
        f"{window.starts} starts in {window.seconds:.2f} s with max_rate {rate:g} (the bound max_rate * T + max_rate "
        f"allows {window.allowed:.0f})"
    )
    if _per_worker(run, window):
        return "rate-per-worker", (
            f"{measured}: about max_workers = {run.case.max_workers} times the rate, as if each worker waited "
            "1/max_rate between its own calls. The limit is for the whole crawl: share one limiter between the workers."
        )
    return "rate-no-limit", (
        f"{measured}: calls started as fast as the workers could make them. Take a token from one shared limiter "
        "before every call."
    )


def _per_worker(run: CaseRun, window: Window) -> bool:
    """Whether each worker waited between its own calls: from the gap between
    a thread's call ending and its next call starting when threads made the
    calls (an asyncio crawl makes them all from one), else from the fastest rate."""
    by_thread = evidence.grouped(run.records, lambda r: r.thread)
    gaps = [wait for calls in by_thread.values() for wait in evidence.waits_after_return(calls)]
    rate = float(run.case.args[0])
    if len(by_thread) > 1 and len(gaps) >= 3:
        return statistics.median(gaps) >= 0.5 / rate
    speed = (window.starts - 1) / window.seconds if window.seconds > 0 else float("inf")
    return speed <= PER_WORKER * rate * run.case.max_workers


def used_rate(starts: list[float]) -> float:
    """Calls per second over the starts after the first call (the start page's)."""
    later = sorted(starts)[1:]
    if len(later) < 2:
        return float("inf")
    span = later[-1] - later[0]
    return (len(later) - 1) / span if span > 0 else float("inf")


def _underused(run: CaseRun) -> tuple[str, str] | None:
    """Starts well under the rate the crawl was given."""
    rate = float(run.case.args[0])
    used = used_rate([r.start for r in run.records])
    if used > USE_SHARE * rate:
        return None
    measured = f"{len(run.records)} starts at {used:.1f} per second with max_rate {rate:g}"
    if run.peak <= 1:
        return "rate-one-at-a-time", (
            f"{measured}, never more than one call in flight: the lock that spaces the calls is held across "
            "get_urls, so each call waits for the one before to return. Hold the lock only to take a token."
        )
    return "rate-underused", (
        f"{measured}, at most {run.peak} calls in flight: the crawl uses under half the rate it was given. "
        "Space the starts, not the calls' ends, and keep enough calls in flight."
    )


def _result(run: CaseRun) -> tuple[str, str] | str:
    missing = sorted(set(expected_pages(run.case)) - {defrag(u) for u in run.result or ()})
    fetched = [r.page for r in run.records]
    twice = sorted({p for p in fetched if fetched.count(p) > 1})
    if twice:
        return "dup-fetch", f"Fetched {named(twice)} more than once."
    if missing:
        return "missing", f"{named(missing)} missing from the result."
    rate = float(run.case.args[0])
    window = fullest([r.start for r in run.records], rate)
    later = sorted(r.start for r in run.records)[1:]
    span = later[-1] - later[0] if later else 0.0
    pace = f"{used_rate([r.start for r in run.records]):.1f} per second" if span >= 0.5 else "within the burst"
    return (
        f"{len(fetched)} starts with max_rate {rate:g}: the fullest window held {counted(window.starts, 'start')} in "
        f"{window.seconds:.2f} s ({window.allowed:.0f} allowed); after the start page, {len(later)} starts in "
        f"{span:.2f} s ({pace}); {_shape(later, rate, evidence.links_known(run))}."
    )


def _shape(starts: list[float], rate: float, links_known: float) -> str:
    """The crawl's choice of limiter: a burst then the rate, or evenly spaced starts.

    A token bucket's burst comes first, so only the starts in the first
    :data:`BURST_WINDOW` after the start page returned (``links_known``: no
    other page can be due before it) are counted.  A loaded machine only
    ever makes a start later than the crawl scheduled it, so it can move
    starts out of that window but never into it: evenly spaced starts it
    bunched together (sleepers it woke at once) do not read as a burst."""
    burst = sum(1 for t in starts if t - links_known <= BURST_WINDOW)
    if burst >= 0.25 * rate + 1:
        return f"this crawl chose a burst ({burst} starts within {BURST_WINDOW:g} s), as a token bucket allows"
    return f"this crawl chose evenly spaced starts (at most {burst} within {BURST_WINDOW:g} s)"
