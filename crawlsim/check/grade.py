"""``run_check``: run every case on a crawler and judge the runs.

Order matters in two places, both for determinism:

* the termination case runs last, with its slow pages stretched past the
  crawler's own habit: if the crawler takes a while to return after its last
  fetch (a timeout on an empty queue), the slow pages are made slower than
  twice that, so a crawl that decides "done" on an empty queue is caught
  whatever timeout it uses (up to a cap);
* the speed-up run is repeated (at most twice) only when it shows real but
  below-par overlap, so a loaded machine does not cost a good crawler its
  level, while a sequential crawler is not run again for nothing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from crawlsim.check import judge
from crawlsim.check.cases import CASE_NAMES, TERMINATION_SLOW, Case, all_cases, termination
from crawlsim.check.loader import CheckInputError, Target, load_target
from crawlsim.check.report import CheckReport, CheckResult
from crawlsim.check.runner import CaseRun, case_timeout, run_case

MAX_TERMINATION_SLOW = 3.0
SPEEDUP_RETRIES = 2
HUNG_BEFORE_TIMEOUT = 2.0
"""Deadline for the remaining cases once a crawl has hung on one."""


def run_check(
    target: str | Callable[..., Any],
    *,
    quick: bool = False,
    only: Iterable[str] | None = None,
    case_timeout_s: float | None = None,
) -> CheckReport:
    """Grade ``target`` ("FILE.py:FUNCTION" or a callable shaped like
    ``crawl(start_url, get_urls, max_workers)``, sync or ``async def``).

    ``quick`` shrinks the big webs (the race cases keep their shape);
    ``only`` runs just the named cases; ``case_timeout_s`` overrides the
    per-case deadline.  Raises :class:`CheckInputError` for a target that
    cannot be loaded or called that way.
    """
    began = time.perf_counter()
    loaded = load_target(target)
    cases = _select(all_cases(quick), only)
    runs: dict[str, CaseRun] = {}
    termination = next((c for c in cases if c.name == "termination"), None)

    def timeout_for(case: Case) -> float:
        if case_timeout_s is not None:
            return case_timeout_s
        deadline = case_timeout(case, quick)
        if any(run.timed_out for run in runs.values()):
            deadline = min(deadline, HUNG_BEFORE_TIMEOUT)  # it hung once: do not wait as long for each case
        return deadline

    for case in cases:
        if case is not termination:
            runs[case.name] = run_case(loaded, case, timeout_for(case))
    speedup_runs = _retry_speedup(loaded, runs, timeout_for)
    if termination is not None:
        termination = _stretch_termination(termination, runs)
        runs["termination"] = run_case(loaded, termination, timeout_for(termination))

    checks: list[CheckResult] = [judge.judge_case(runs[c.name]) for c in cases]
    checks.extend(_derived_checks(runs, checks, speedup_runs))
    return CheckReport(
        target=loaded.label,
        mode="asyncio" if loaded.is_async else "threads",
        quick=quick,
        checks=checks,
        elapsed=time.perf_counter() - began,
        partial=only is not None,
        runs=runs,
    )


def _select(cases: list[Case], only: Iterable[str] | None) -> list[Case]:
    if only is None:
        return cases
    wanted = list(only)
    unknown = [name for name in wanted if name not in CASE_NAMES]
    if unknown:
        raise CheckInputError(f"unknown case {', '.join(unknown)}; cases are: {', '.join(CASE_NAMES)}")
    return [case for case in cases if case.name in wanted]


def _retry_speedup(loaded: Target, runs: dict[str, CaseRun], timeout_for: Callable[[Case], float]) -> list[CaseRun]:
    """The slow-service runs, best first.  The first run alone decides
    correctness; repeats only ever improve the timing verdict."""
    first = runs.get("slow-service")
    if first is None:
        return []
    attempts = [first]
    for _ in range(SPEEDUP_RETRIES):
        best = max(attempts, key=lambda r: judge.speedup_of(r)[0])
        achieved, possible = judge.speedup_of(best)
        if achieved >= judge.SPEEDUP_SHARE * possible or achieved < 1.5 or best.error or best.timed_out:
            break
        attempts.append(run_case(loaded, first.case, timeout_for(first.case)))
    return sorted(attempts, key=lambda r: -judge.speedup_of(r)[0])


def _stretch_termination(case: Case, runs: dict[str, CaseRun]) -> Case:
    tails = [r.tail for r in runs.values() if r.tail is not None]
    if not tails:
        return case
    habit = statistics.median(tails)
    wanted = min(MAX_TERMINATION_SLOW, 2 * habit + 0.2)
    if wanted <= case.latency_of(TERMINATION_SLOW[0]):
        return case
    return termination(round(wanted, 2))


def _derived_checks(
    runs: dict[str, CaseRun], checks: list[CheckResult], speedup_runs: list[CaseRun]
) -> list[CheckResult]:
    derived: list[CheckResult] = []
    correctness_runs = {name: run for name, run in runs.items() if run.case.kind == "correctness"}
    if correctness_runs:
        derived.append(judge.judge_max_workers(correctness_runs))
    if speedup_runs:
        first = runs["slow-service"]
        derived.append(judge.judge_concurrency(max(speedup_runs, key=lambda r: r.peak)))
        slow_ok = next(c.passed for c in checks if c.name == "slow-service")
        derived.append(judge.judge_speedup(speedup_runs[0], slow_ok and first.error is None, len(speedup_runs)))
    if correctness_runs:
        derived.append(judge.judge_prompt_return(correctness_runs))
    return derived
