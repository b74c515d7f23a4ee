"""The ``retries`` follow-up round:
``crawl(start_url, get_urls, max_workers, max_retries, backoff)``.

Two cases (max_retries=3, backoff=0.1 s), so that each fault shows on a
case where it shows alone:

* ``retries``: three pages whose every call raises ``ConnectionError``, one
  that fails twice and then works (its link is only found if it is
  retried), 24 ordinary pages, and a chain of ``CHAIN`` pages each found
  only when the one before returns;
* ``retries-permanent``: one page that raises ``ValueError`` (permanent:
  never to be retried) among ordinary ones -- a crawl that dies or hangs
  on it hangs here, and its waits are still measured on ``retries``.

Everything is measured from the service's recorded call times: how often
each page was called, the wait before each retry (from one call's end to
the next call's start), whether the waits exist, grow and vary, and how
much of the time pages spent waiting for a retry had no call at all in
flight.  Each is its own check (``retries``, ``retry-backoff``,
``retry-jitter``, ``retry-coordinator``, ``retry-permanent``): a crawl with
growing waits but no jitter is told so even when it also retries a
``ValueError``.  A retry is never a duplicate fetch
(``problems.duplicate_fetches``).

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

import dataclasses

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
JITTER = 0.06
"""Jittered waits before one retry spread across the pages by at least this
share of their mean, on average over the retries: with factors drawn from
0.5 to 1.5 the average falls under 0.06 about once in 80,000 runs (by
simulation); waits in lockstep spread by the clock's noise only (0.01 or
less, measured)."""
CHAIN = tuple(f"{A}/c{i}" for i in range(40))
CHAIN_LATENCY = 0.04
"""40 hops of 40 ms: 1.6 s, longer than the three backoffs of a page at the
largest jitter (1.05 s), so a good crawl always has a chain call in flight."""
NO_WAIT = 0.25
"""Mean wait before retry 1 under this share of ``backoff``: retried at once, no backoff."""
IDLE_SHARE = 0.5
"""A crawl that had no call in flight for more than this share of the time
pages waited for a retry slept through the backoffs.  A good crawl idles
only between chain hops (a few per cent; under a quarter on a loaded
machine); one that sleeps in the coordinator idles 75 to 100 per cent."""
Spans = list[tuple[float, float]]


def retries_case() -> Case:
    paths = {
        "/": [*(d[len(A) :] for d in DEAD), "/flaky", *(f"/p{i}" for i in range(24))],
        "/flaky": ["/found-after-retry"],
        **{c[len(A) :]: [n[len(A) :]] for c, n in itertools.pairwise(CHAIN)},
    }
    paths["/"].append(CHAIN[0][len(A) :])
    return Case(
        name="retries",
        title="max_retries=3, backoff=0.1: transient errors retried with growing, jittered waits",
        lesson="Retry ConnectionError and TimeoutError up to max_retries times, waiting about backoff * 2**(n-1).",
        start=A + "/",
        links=_site(A, paths),
        max_workers=8,
        level="L6",
        latency=dict.fromkeys(CHAIN, CHAIN_LATENCY),
        default_latency=0.03,
        failing=frozenset(DEAD),
        transient={FLAKY: 2},
        args=(3, 0.1),
        extra_time=5.0,  # three pages' backoffs (0.7 s each, jittered up to 1.5x), even one after another
        timed=True,  # the waits' growth and spread are the verdict
    )


def permanent_case() -> Case:
    paths = {"/": ["/bad", *(f"/q{i}" for i in range(6))], "/bad": ["/never-seen"]}
    return Case(
        name="retries-permanent",
        title="get_urls raises ValueError for /bad: a permanent error, never retried; the crawl goes on",
        lesson=(
            "Only ConnectionError and TimeoutError are transient: catch any other exception too, keep the page "
            "with no links, do not retry it, and keep crawling."
        ),
        start=A + "/",
        links=_site(A, paths),
        max_workers=4,
        level="L6",
        default_latency=0.01,
        failing=frozenset({BAD}),
        permanent=frozenset({BAD}),
        args=(3, 0.1),
        extra_time=2.0,  # a crawl that wrongly retries /bad waits its backoffs (1.05 s at most)
    )


def RETRIES_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [retries_case(), permanent_case()]


Found = tuple[str, str] | None
"""A fault found: (cause, sentence); ``None`` when there is none."""


def judge_retries(runs: dict[str, CaseRun]) -> list[CheckResult]:
    """One check per fault, each on the case where it shows alone."""
    out: list[CheckResult] = []
    if "retries" in runs:
        out.extend(_judge_transient(runs["retries"]))
    if "retries-permanent" in runs:
        out.append(_judge_permanent(runs["retries-permanent"]))
    return out


def _check(name: str, case: Case, found: Found, passed: str) -> CheckResult:
    title = {
        "retries": case.title,
        "retry-backoff": "the wait before retry n grows as backoff * 2**(n-1)",
        "retry-jitter": "the waits vary from page to page (jitter)",
        "retry-coordinator": "other fetches go on while pages wait for a retry",
    }.get(name, case.title)
    if found is None:
        return CheckResult(name, True, passed, {"case": case.name}, "correctness", case.level, title)
    cause, text = found
    return CheckResult(name, False, text, {"case": case.name}, "correctness", case.level, title, cause=cause)


def _hung_or_raised(run: CaseRun, name: str) -> CheckResult | None:
    """The base judge's verdict of a run that did not return a list (a hang,
    an exception), as this round's check: no rule set of the base question asks for retries."""
    if run.error or run.timed_out or run.result is None:
        return dataclasses.replace(judge.judge_case(run), name=name, rules=None)
    return None


def _judge_transient(run: CaseRun) -> list[CheckResult]:
    """``retries`` (how often, and the result), then the waits: they exist
    and grow, they vary, and the crawl goes on meanwhile -- measured whenever
    every always-failing page was called 1 + max_retries times."""
    case = run.case
    retries = int(case.args[0])
    calls = _calls(run)
    counted = _counts(calls, retries)
    base = _hung_or_raised(run, "retries") or _check(
        "retries", case, counted or _missing(run), f"Transient errors retried {retries} times; every page returned."
    )
    if counted is not None and counted[0] != "retry-forever":
        why = f"Not measured: the pages that always fail were not retried {retries} times (see retries)."
        return [base, *(_check(n, case, (counted[0], why), "") for n in WAIT_CHECKS)]
    return [base, *_judge_waits(run, calls)]


def _judge_waits(run: CaseRun, calls: dict[str, list[FetchRecord]]) -> list[CheckResult]:
    """The waits before the always-failing pages' retries: they exist and
    grow, they vary, and other calls go on meanwhile."""
    case = run.case
    retries, backoff = int(case.args[0]), case.args[1]
    spans = {page: _waits(calls[page], retries) for page in DEAD}
    waits = {page: [b - a for a, b in page_spans] for page, page_spans in spans.items()}
    means = [statistics.mean(w[n] for w in waits.values()) for n in range(retries)]
    shown = ", ".join(f"{m:.2f} s" for m in means)
    growth = _growth(means, shown, retries, backoff)
    jitter = _jitter(waits, shown, retries, backoff)
    if growth is not None and growth[0] == "retry-no-wait":
        jitter = growth[0], "Not measured: there is no wait to vary (see retry-backoff)."
    flat = sorted(s for page_spans in spans.values() for s in page_spans)
    waiting, idle = _idle(flat, run.records)
    return [
        _check("retry-backoff", case, growth, f"Measured waits before retries 1 to {retries}: {shown}: they grow."),
        _check("retry-jitter", case, jitter, f"Measured waits before retries 1 to {retries}: {shown}, jittered."),
        _check(
            "retry-coordinator",
            case,
            _blocked(waiting, idle),
            f"A call was in flight for {1 - idle / waiting if waiting else 1:.0%} of the backoff waits.",
        ),
    ]


WAIT_CHECKS = ("retry-backoff", "retry-jitter", "retry-coordinator")
"""The checks measured from the waits before retries."""


def _calls(run: CaseRun) -> dict[str, list[FetchRecord]]:
    """Each page's calls, in the order they started."""
    calls: dict[str, list[FetchRecord]] = defaultdict(list)
    for record in sorted(run.records, key=lambda r: r.start):
        calls[record.page].append(record)
    return calls


def _judge_permanent(run: CaseRun) -> CheckResult:
    """``retries-permanent``: /bad called once, kept, and the crawl returned."""
    name = "retry-permanent"
    calls = _calls(run)
    if len(calls[BAD]) > 1:
        found: Found = "retry-permanent", (
            f"{BAD} raised ValueError and was called {len(calls[BAD])} times: only ConnectionError and "
            "TimeoutError are transient; any other exception is permanent (the page counts as found, no links)."
        )
        return _check(name, run.case, found, "")
    hung = _hung_or_raised(run, name)
    if hung is not None and run.timed_out and calls[BAD] and calls[BAD][0].end is not None:
        raised = f" {BAD} raised ValueError at {calls[BAD][0].end:.2f} s: a permanent error must be caught too."
        return dataclasses.replace(hung, explanation=hung.explanation + raised)
    if hung is not None:
        return hung
    passed = f"{BAD} raised ValueError and was called once; the crawl went on and returned every page."
    return _check(name, run.case, _missing(run), passed)


def _counts(calls: dict[str, list[FetchRecord]], retries: int) -> Found:
    """How often each always-failing page was called."""
    dead = {page: len(calls[page]) for page in DEAD}
    if max(dead.values()) > retries + 1:
        return "retry-forever", (
            f"Pages that always fail were called up to {max(dead.values())} times with max_retries={retries}: "
            f"stop after 1 + max_retries = {retries + 1} calls."
        )
    if max(dead.values()) <= 1:
        return "retry-none", (
            f"Pages raising ConnectionError ({named(DEAD)}) were called at most once each: nothing was retried "
            f"(and {FLAKY}, which works on its third call, lost its link)."
        )
    if min(dead.values()) < retries + 1:
        return "retry-too-few", (
            f"Pages that always fail were called {min(dead.values())} times: with max_retries={retries} that "
            f"is {retries + 1} calls (one, then {retries} retries)."
        )
    return None


def _waits(calls: list[FetchRecord], retries: int) -> list[tuple[float, float]]:
    """(end of call n-1, start of call n) for each retry n of one page."""
    return [(calls[n - 1].end or calls[n - 1].start, calls[n].start) for n in range(1, retries + 1)]


def _blocked(waiting: float, idle: float) -> Found:
    """Backoff waits during which nothing was fetched: the crawl stopped for each one."""
    if waiting > 0 and idle > IDLE_SHARE * waiting:
        return "retry-blocks", (
            f"While pages waited for a retry ({waiting:.2f} s in all), no call was in flight for "
            f"{idle:.2f} s of it ({idle / waiting:.0%}): the crawl slept through the backoffs, and "
            f"the chain {CHAIN[0]} -> ... -> {CHAIN[-1]}, each page found only when the one before returns, "
            "stalled meanwhile. Wait in the worker, or schedule the retry, and keep the coordinator running."
        )
    return None


def _growth(means: list[float], shown: str, retries: int, backoff: float) -> Found:
    """Waits that are missing, or that do not grow."""
    if means[0] < NO_WAIT * backoff:
        return "retry-no-wait", (
            f"Measured waits before retries 1 to {retries}: {shown} (mean of {len(DEAD)} pages) with backoff "
            f"{backoff:g}: retried at once, with no backoff, so a struggling server is hit again straight away. "
            "Wait about backoff * 2**(n-1) before retry n."
        )
    if means[-1] < GROWTH * means[0]:
        return "retry-no-growth", (
            f"Measured waits before retries 1 to {retries}: {shown} (mean of {len(DEAD)} pages) with backoff "
            f"{backoff:g}: they do not grow. Wait about backoff * 2**(n-1) before retry n."
        )
    return None


def _jitter(waits: dict[str, list[float]], shown: str, retries: int, backoff: float) -> Found:
    """Waits that are the same on every page: for each retry n, how far the
    pages' waits spread around their mean, averaged over the retries."""
    spreads = []
    for n in range(retries):
        nth = [w[n] for w in waits.values()]
        spreads.append((max(nth) - min(nth)) / max(statistics.mean(nth), 1e-9))
    if statistics.mean(spreads) < JITTER:
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


def _missing(run: CaseRun) -> Found:
    """Pages missing from what the crawl returned."""
    missing = sorted(set(expected_pages(run.case)) - {defrag(u) for u in run.result or ()})
    if missing:
        return "missing", f"{named(missing)} missing from the result (a page that keeps failing still counts as found)."
    return None
