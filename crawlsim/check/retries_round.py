"""The ``retries`` follow-up round:
``crawl(start_url, get_urls, max_workers, max_retries, backoff)``.

One case, ``retries`` (max_retries=3, backoff=0.1 s): three pages whose
every call raises ``ConnectionError``, one that fails twice and then works
(its link is only found if it is retried), one that raises ``ValueError``
(permanent: never to be retried), 24 ordinary pages, and a chain of
``CHAIN`` pages each found only when the one before returns.  Everything is
measured from the service's recorded call times: how often each page was
called, the wait before each retry (from one call's end to the next call's
start), whether the waits grow and vary, and how much of the time pages
spent waiting for a retry had no call at all in flight.

The chain is what catches a coordinator that sleeps through each backoff:
the calls it already submitted keep the workers busy for a moment, but the
chain's next page is only submitted when it wakes, so the chain stalls for
nearly every backoff.  A crawl that waits in the worker (or schedules the
retry) keeps a chain call in flight the whole time: the chain outlasts the
longest possible backoffs, and ``max_workers`` leaves workers free while
every failing page sleeps in one.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict

from crawlsim.check import judge
from crawlsim.check.cases import A, Case, _site, defrag, expected_pages
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.check.words import named

DEAD = tuple(f"{A}/dead{i}" for i in range(3))
FLAKY = f"{A}/flaky"
BAD = f"{A}/bad"
GROWTH = 1.6
"""Mean wait before retry 3 over mean wait before retry 1 (nominally 4) at least this.
With jitter from 0.5 to 1.5 the ratio of two means of three falls under 1.6
about once in 50,000 runs (under 2.0: once in 500, by simulation); a fixed delay gives 1.0."""
JITTER = 0.15
"""The waits' ratios to backoff * 2**(n-1) spread at least this much when jittered."""
CHAIN = tuple(f"{A}/c{i}" for i in range(40))
CHAIN_LATENCY = 0.04
"""40 hops of 40 ms: 1.6 s, longer than the three backoffs of a page at the
largest jitter (1.05 s), so a good crawl always has a chain call in flight."""
IDLE_SHARE = 0.5
"""A crawl that had no call in flight for more than this share of the time
pages waited for a retry slept through the backoffs.  A good crawl idles
only between chain hops (a few per cent; under a quarter on a loaded
machine); one that sleeps in the coordinator idles 75 to 100 per cent."""
Spans = list[tuple[float, float]]


def retries_case() -> Case:
    paths = {
        "/": [*(d[len(A) :] for d in DEAD), "/flaky", "/bad", *(f"/p{i}" for i in range(24))],
        "/flaky": ["/found-after-retry"],
        **{c[len(A) :]: [n[len(A) :]] for c, n in itertools.pairwise(CHAIN)},
    }
    paths["/"].append(CHAIN[0][len(A) :])
    return Case(
        name="retries",
        title="max_retries=3, backoff=0.1: transient errors retried with growing, jittered waits; ValueError never",
        lesson="Retry ConnectionError and TimeoutError up to max_retries times, waiting about backoff * 2**(n-1).",
        start=A + "/",
        links=_site(A, paths),
        max_workers=8,
        level="L6",
        latency=dict.fromkeys(CHAIN, CHAIN_LATENCY),
        default_latency=0.03,
        failing=frozenset({*DEAD, BAD}),
        transient={FLAKY: 2},
        permanent=frozenset({BAD}),
        args=(3, 0.1),
        extra_time=5.0,  # three pages' backoffs (0.7 s each, jittered up to 1.5x), even one after another
        timed=True,  # the waits' growth and spread are the verdict
    )


def RETRIES_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [retries_case()]


def judge_retries(runs: dict[str, CaseRun]) -> list[CheckResult]:
    return [_judge(runs["retries"])] if "retries" in runs else []


def _judge(run: CaseRun) -> CheckResult:
    case = run.case
    if run.error or run.timed_out or run.result is None:
        return judge.judge_case(run)
    calls: dict[str, list[FetchRecord]] = defaultdict(list)
    for record in sorted(run.records, key=lambda r: r.start):
        calls[record.page].append(record)
    found = _counts(calls, int(case.args[0])) or _timing(calls, run.records, case.args) or _result(run, calls)
    if isinstance(found, str):
        return CheckResult(case.name, True, found, {}, "correctness", case.level, case.title)
    cause, text = found
    return CheckResult(case.name, False, text, {}, "correctness", case.level, case.title, cause=cause)


def _counts(calls: dict[str, list[FetchRecord]], retries: int) -> tuple[str, str] | None:
    """How often each failing page was called."""
    if len(calls[BAD]) > 1:
        return "retry-permanent", (
            f"{BAD} raised ValueError and was called {len(calls[BAD])} times: only ConnectionError and "
            "TimeoutError are transient; any other exception is permanent (the page counts as found, no links)."
        )
    dead = {page: len(calls[page]) for page in DEAD}
    if max(dead.values()) > retries + 1:
        return "retry-forever", (
            f"Pages that always fail were called up to {max(dead.values())} times with max_retries={retries}: "
            f"stop after 1 + max_retries = {retries + 1} calls."
        )
    if max(dead.values()) == 1:
        return "retry-none", (
            f"Pages raising ConnectionError ({named(DEAD)}) were called once each: nothing was retried "
            f"(and {FLAKY}, which works on its third call, lost its link)."
        )
    if min(dead.values()) < retries + 1:
        return "retry-too-few", (
            f"Pages that always fail were called {min(dead.values())} times: with max_retries={retries} that "
            f"is {retries + 1} calls (one, then {retries} retries)."
        )
    return None


def _timing(
    calls: dict[str, list[FetchRecord]], records: list[FetchRecord], args: tuple[float, ...]
) -> tuple[str, str] | None:
    """The waits before each retry, measured from the call times."""
    retries, backoff = int(args[0]), args[1]
    spans = {page: _waits(calls[page], retries) for page in DEAD}
    waits = {page: [b - a for a, b in page_spans] for page, page_spans in spans.items()}
    means = [statistics.mean(w[n] for w in waits.values()) for n in range(retries)]
    shown = ", ".join(f"{m:.2f} s" for m in means)
    return _blocked(sorted(s for page_spans in spans.values() for s in page_spans), records) or _shape(
        waits, means, shown, retries, backoff
    )


def _waits(calls: list[FetchRecord], retries: int) -> list[tuple[float, float]]:
    """(end of call n-1, start of call n) for each retry n of one page."""
    return [(calls[n - 1].end or calls[n - 1].start, calls[n].start) for n in range(1, retries + 1)]


def _blocked(spans: list[tuple[float, float]], records: list[FetchRecord]) -> tuple[str, str] | None:
    """Backoff waits during which nothing was fetched: the crawl stopped for each one."""
    waiting, idle = _idle(spans, records)
    if waiting > 0 and idle > IDLE_SHARE * waiting:
        return "retry-blocks", (
            f"While pages waited for a retry ({waiting:.2f} s in all), no call was in flight for "
            f"{idle:.2f} s of it ({idle / waiting:.0%}): the crawl slept through the backoffs, and "
            f"the chain {CHAIN[0]} -> ... -> {CHAIN[-1]}, each page found only when the one before returns, "
            "stalled meanwhile. Wait in the worker, or schedule the retry, and keep the coordinator running."
        )
    return None


def _shape(
    waits: dict[str, list[float]], means: list[float], shown: str, retries: int, backoff: float
) -> tuple[str, str] | None:
    """Waits that do not grow, or that are the same on every page."""
    if means[-1] < GROWTH * means[0]:
        return "retry-no-growth", (
            f"Measured waits before retries 1 to {retries}: {shown} (mean of {len(DEAD)} pages) with backoff "
            f"{backoff:g}: they do not grow. Wait about backoff * 2**(n-1) before retry n."
        )
    ratios = [w[n] / (backoff * 2**n) for w in waits.values() for n in range(retries)]
    if max(ratios) - min(ratios) < JITTER:
        return "retry-no-jitter", (
            f"Measured waits before retries 1 to {retries}: {shown}, the same on every page: no jitter, so "
            "failing clients retry in lockstep. Multiply each wait by a random factor (say 0.5 to 1.5)."
        )
    return None


def _idle(spans: Spans, records: list[FetchRecord]) -> tuple[float, float]:
    """(seconds some page waited for a retry, seconds of those with no call in flight)."""
    waiting = _union(spans)
    busy = _union([(r.start, r.end if r.end is not None else r.start) for r in records])
    return _length(waiting), _length(waiting) - _length(_intersection(waiting, busy))


def _union(spans: Spans) -> Spans:
    """Sorted ``spans`` merged into disjoint ones."""
    out: Spans = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _intersection(left: Spans, right: Spans) -> Spans:
    """Where two sets of disjoint sorted spans overlap."""
    out: Spans = []
    i = j = 0
    while i < len(left) and j < len(right):
        a, b = max(left[i][0], right[j][0]), min(left[i][1], right[j][1])
        if a < b:
            out.append((a, b))
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return out


def _length(spans: Spans) -> float:
    return sum(b - a for a, b in spans)


def _result(run: CaseRun, calls: dict[str, list[FetchRecord]]) -> tuple[str, str] | str:
    """The pages returned, once the retries look right; a pass says what was measured."""
    missing = sorted(set(expected_pages(run.case)) - {defrag(u) for u in run.result or ()})
    if missing:
        return "missing", f"{named(missing)} missing from the result (a page that keeps failing still counts as found)."
    retries = int(run.case.args[0])
    spans = [s for page in DEAD for s in _waits(calls[page], retries)]
    waiting, idle = _idle(spans, run.records)
    means = ", ".join(
        f"{statistics.mean(b - a for a, b in (_waits(calls[p], retries)[n] for p in DEAD)):.2f} s"
        for n in range(retries)
    )
    return (
        f"Transient errors retried {retries} times, mean waits {means}, jittered; ValueError not retried; a call "
        f"was in flight for {1 - idle / waiting if waiting else 1:.0%} of the backoff waits; every page returned."
    )
