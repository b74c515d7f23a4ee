"""The ``retries`` follow-up round:
``crawl(start_url, get_urls, max_workers, max_retries, backoff)``.

One case, ``retries`` (max_retries=3, backoff=0.1 s): three pages whose
every call raises ``ConnectionError``, one that fails twice and then works
(its link is only found if it is retried), one that raises ``ValueError``
(permanent: never to be retried), and 24 ordinary pages.  Everything is
measured from the service's recorded call times: how often each page was
called, the wait before each retry (from one call's end to the next call's
start), whether the waits grow and vary, and whether the backoff waits of
different pages overlapped (a coordinator that sleeps through each backoff
makes them strictly one after another).
"""

from __future__ import annotations

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
GROWTH = 2.0
"""Mean wait before retry 3 over mean wait before retry 1 (nominally 4) at least this."""
JITTER = 0.15
"""The waits' ratios to backoff * 2**(n-1) spread at least this much when jittered."""


def retries_case() -> Case:
    paths = {
        "/": [*(d[len(A) :] for d in DEAD), "/flaky", "/bad", *(f"/p{i}" for i in range(24))],
        "/flaky": ["/found-after-retry"],
    }
    return Case(
        name="retries",
        title="max_retries=3, backoff=0.1: transient errors retried with growing, jittered waits; ValueError never",
        lesson="Retry ConnectionError and TimeoutError up to max_retries times, waiting about backoff * 2**(n-1).",
        start=A + "/",
        links=_site(A, paths),
        max_workers=4,
        level="L6",
        default_latency=0.03,
        failing=frozenset({*DEAD, BAD}),
        transient={FLAKY: 2},
        permanent=frozenset({BAD}),
        args=(3, 0.1),
        extra_time=5.0,  # three pages' backoffs (0.7 s each, jittered up to 1.5x), even one after another
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
    found = _counts(calls, int(case.args[0])) or _timing(calls, case.args) or _result(run)
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


def _timing(calls: dict[str, list[FetchRecord]], args: tuple[float, ...]) -> tuple[str, str] | None:
    """The waits before each retry, measured from the call times."""
    retries, backoff = int(args[0]), args[1]
    spans = {page: _waits(calls[page], retries) for page in DEAD}
    waits = {page: [b - a for a, b in page_spans] for page, page_spans in spans.items()}
    means = [statistics.mean(w[n] for w in waits.values()) for n in range(retries)]
    shown = ", ".join(f"{m:.2f} s" for m in means)
    return _blocked(sorted(s for page_spans in spans.values() for s in page_spans)) or _shape(
        waits, means, shown, retries, backoff
    )


def _waits(calls: list[FetchRecord], retries: int) -> list[tuple[float, float]]:
    """(end of call n-1, start of call n) for each retry n of one page."""
    return [(calls[n - 1].end or calls[n - 1].start, calls[n].start) for n in range(1, retries + 1)]


def _blocked(spans: list[tuple[float, float]]) -> tuple[str, str] | None:
    """Backoff waits that never overlap: the crawl stopped for each one."""
    if _overlap(spans) < 0.1 * sum(b - a for a, b in spans):
        return "retry-blocks", (
            f"The backoff waits of {named(DEAD)} never overlapped ({sum(b - a for a, b in spans):.2f} s of "
            "waiting, one after another): the crawl slept through each backoff and started nothing else "
            "meanwhile. Wait in the worker, or schedule the retry, and keep the coordinator running."
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


def _overlap(spans: list[tuple[float, float]]) -> float:
    """Total length of the spans minus the length of their union."""
    union, end = 0.0, float("-inf")
    for a, b in spans:
        if b > end:
            union += b - max(a, end)
            end = b
    return sum(b - a for a, b in spans) - union


def _result(run: CaseRun) -> tuple[str, str] | str:
    """The pages returned, once the retries look right."""
    missing = sorted(set(expected_pages(run.case)) - {defrag(u) for u in run.result or ()})
    if missing:
        return "missing", f"{named(missing)} missing from the result (a page that keeps failing still counts as found)."
    return (
        f"Transient errors retried {int(run.case.args[0])} times with growing, jittered waits; ValueError not "
        "retried; every page returned."
    )
