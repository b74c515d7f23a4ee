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

A case that stopped making progress is run once more with ``PATIENCE``
seconds of quiet allowed (and as much more time): a short case watches for
a stall for only a quarter of its deadline, so a crawl that decides it is
done after an idle timeout (``queue.get(timeout=2)``) looks stuck on it.
If the patient run returns, the crawl is slow to finish, not hung, and the
case is judged on what it returned -- a scope bug on that case is named,
not masked by a hang -- while ``prompt-return`` names the slow finish.
"""

from __future__ import annotations

import dataclasses
import difflib
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from crawlsim.check import judge
from crawlsim.check.cases import CASE_NAMES, RULE_SETS, RULE_TEXT, TERMINATION_SLOW, Case, all_cases, termination
from crawlsim.check.loader import CheckInputError, load_target
from crawlsim.check.races import run_case_or_race
from crawlsim.check.replay import page_to_shrink, shrunk_failure
from crawlsim.check.rounds import ROUND_NAMES, ROUNDS, Round
from crawlsim.check.report import CheckReport, CheckResult
from crawlsim.check.runner import CaseRun, case_timeout
from crawlsim.check.sandbox import Sandbox

MAX_TERMINATION_SLOW = 3.0
STOP_RERUNS = 2
"""Runs again of a timed case whose run the machine stopped (see ``_measured``)."""
PATIENCE = 4.0
"""Seconds of no progress the second run of a stuck case waits before it,
too, counts as stuck: a crawl quiet that long before returning is hung for
any caller; one that returns sooner only finishes slowly."""
SPEEDUP_RETRIES = 2


class RunOne(Protocol):
    """Run one case with a deadline (in the sandbox, or in this process),
    and optionally how long a pause may last before it is a stall."""

    def __call__(self, case: Case, deadline: float, stall_after: float | None = None) -> CaseRun: ...


def run_check(
    target: str | Callable[..., Any],
    *,
    quick: bool = False,
    only: Iterable[str] | None = None,
    case_timeout_s: float | None = None,
    rules: str = "interview",
    seed: int | None = None,
    sandbox: bool | None = None,
    follow_up: str | None = None,
) -> CheckReport:
    """Grade ``target`` ("FILE.py:FUNCTION" or a callable shaped like
    ``crawl(start_url, get_urls, max_workers)``, sync or ``async def``).

    A file is imported and run in a child process (``sandbox.py``): nothing
    it does can hang the checker or change the verdict.  A callable (from a
    notebook or a test) runs in this process -- pass a file to get the
    sandbox.  ``quick`` shrinks the big webs (the race cases keep their
    shape); ``only`` runs just the named cases; ``case_timeout_s`` overrides
    each case's own deadline; ``rules`` is ``leetcode``, ``interview`` or
    ``strict`` (see ``cases.RULE_SETS``); ``seed`` makes the race cases
    explore that one schedule; ``follow_up`` names a round of
    ``rounds.ROUNDS``: its cases run after the base cases (only its cases
    with ``quick``), the function called with the round's extra arguments.  Raises :class:`CheckInputError` for a target
    that cannot be loaded or called that way.
    """
    began = time.perf_counter()
    if rules not in RULE_SETS:
        raise CheckInputError(f"unknown rule set {rules!r}; rule sets are: {', '.join(RULE_SETS)}")
    round_ = _round(follow_up)
    cases, round_cases = _plan(round_, quick, only)
    seeds = [seed] if seed is not None else None
    crawler = _crawler(target, isinstance(target, str) if sandbox is None else sandbox, quick, seeds, round_)
    try:
        runs, speedup_runs = _run_cases(cases + round_cases, crawler.run_one, case_timeout_s)
        if seed is None:
            _shrink_failures(runs, crawler)
    finally:
        crawler.close()
    base_runs = {c.name: runs[c.name] for c in cases}
    checks: list[CheckResult] = [judge.judge_case(runs[c.name]) for c in cases]
    checks.extend(_derived_checks(base_runs, checks, speedup_runs, rules))
    if round_:
        checks.extend(round_.judge({c.name: runs[c.name] for c in round_cases}))
    checks = count_causes_once(apply_rules(checks, rules))
    return CheckReport(
        target=crawler.label,
        mode="asyncio" if crawler.is_async else "threads",
        quick=quick,
        checks=checks,
        elapsed=time.perf_counter() - began,
        partial=only is not None,
        runs=runs,
        rules=rules,
        seed=seed,
        follow_up=round_.name if round_ else None,
        contract=f"{round_.signature}: {round_.contract}" if round_ else None,
        rubric=round_.rubric if round_ else None,
    )


def _shrink_failures(runs: dict[str, CaseRun], crawler: _SandboxedCrawler | _InProcessCrawler) -> None:
    """Each run that fetched a page twice, shrunk to its smallest failing web (``replay.shrunk_failure``)."""
    for run in runs.values():
        page = page_to_shrink(run)
        if page is not None:
            run.shrunk = crawler.shrink(run.case, page)


def _plan(round_: Round | None, quick: bool, only: Iterable[str] | None) -> tuple[list[Case], list[Case]]:
    """The base cases (none for a round with ``quick``; given the round's
    no-limit arguments under a round) and the round's own cases.

    Under a round, ``only`` may name the round's own cases too: then just
    those of them run (and only the base cases it names); naming none of
    them keeps all of the round's cases."""
    if round_ is None:
        return _select(all_cases(quick), only), []
    own = round_.cases()
    if only is None:
        base_only = None
        picked = own
    else:
        wanted = list(only)
        own_names = [case.name for case in own]
        _check_names(wanted, round_)
        base_only = [name for name in wanted if name not in own_names]
        _refuse_skipped(base_only, round_)
        picked = [case for case in own if case.name in wanted] or own
    cases = [] if quick else _select(all_cases(quick), base_only)
    cases = [case for case in cases if case.name not in round_.base_skipped]
    return [dataclasses.replace(case, args=round_.neutral) for case in cases], picked


def _refuse_skipped(names: list[str], round_: Round) -> None:
    """A one-line error for a base case the round does not run."""
    skipped = [name for name in names if name in round_.base_skipped]
    if skipped:
        raise CheckInputError(f"case {skipped[0]} does not run under round {round_.name}: the round changes its rule")


def _crawler(
    target: str | Callable[..., Any], use_sandbox: bool, quick: bool, seeds: list[int] | None, round_: Round | None
) -> _SandboxedCrawler | _InProcessCrawler:
    """Where the crawl runs: a child process for a file, this process for a callable."""
    params, name = (round_.params, round_.name) if round_ else ((), None)
    if use_sandbox:
        return _SandboxedCrawler(target, quick, seeds, params, name)
    return _InProcessCrawler(target, seeds, params, name)


def _round(name: str | None) -> Round | None:
    """The follow-up round named, or a one-line error naming the nearest one."""
    if name is None:
        return None
    if name not in ROUNDS:
        close = difflib.get_close_matches(name, ROUND_NAMES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise CheckInputError(f"unknown follow-up round {name!r}{hint} (rounds: {', '.join(ROUND_NAMES)})")
    return ROUNDS[name]


class _SandboxedCrawler:
    """A FILE.py:FUNCTION target, imported and run in a child process."""

    def __init__(
        self,
        target: str | Callable[..., Any],
        quick: bool,
        seeds: list[int] | None,
        params: tuple[str, ...] = (),
        round_name: str | None = None,
    ) -> None:
        if not isinstance(target, str):
            raise CheckInputError("the sandbox needs a FILE.py:FUNCTION target, not a Python object")
        self.box = Sandbox(target, params=params, round_name=round_name)
        info = self.box.load()
        self.label, self.is_async = info.label, info.is_async
        self.quick, self.seeds = quick, seeds

    def run_one(self, case: Case, deadline: float, stall_after: float | None = None) -> CaseRun:
        # the child rebuilds a case from its name: pass the termination case's (stretched) slow latency
        slow = case.latency_of(TERMINATION_SLOW[0]) if case.name == "termination" else None
        return self.box.run(case, deadline, self.quick, slow, self.seeds, stall_after)

    def shrink(self, case: Case, page: str) -> dict[str, Any] | None:
        return self.box.shrink(case, page, self.quick)

    def close(self) -> None:
        self.box.close()


class _InProcessCrawler:
    """A callable (from a notebook or a test), run in this process."""

    def __init__(
        self,
        target: str | Callable[..., Any],
        seeds: list[int] | None,
        params: tuple[str, ...] = (),
        round_name: str | None = None,
    ) -> None:
        self.loaded = load_target(target, params, round_name)
        self.label, self.is_async = self.loaded.label, self.loaded.is_async
        self.seeds = seeds

    def run_one(self, case: Case, deadline: float, stall_after: float | None = None) -> CaseRun:
        return run_case_or_race(self.loaded, case, deadline, self.seeds, stall_after)

    def shrink(self, case: Case, page: str) -> dict[str, Any] | None:
        return shrunk_failure(self.loaded, case, page)

    def close(self) -> None:
        """Nothing to release: the crawl ran in this process."""


def _run_cases(
    cases: list[Case], run_one: RunOne, case_timeout_s: float | None
) -> tuple[dict[str, CaseRun], list[CaseRun]]:
    """Run every case once (termination last, stretched to the crawler's
    habit), and the slow-service case again when its timing is borderline.
    Each deadline depends on its own case only.  Returns the run of each
    case, and the slow-service runs best first (for the speed-up check)."""

    def deadline(case: Case) -> float:
        return case_timeout_s if case_timeout_s is not None else case_timeout(case)

    runs: dict[str, CaseRun] = {}
    last = next((c for c in cases if c.name == "termination"), None)
    for case in cases:
        if case is not last:
            runs[case.name] = _measured(case, run_one, deadline(case))
    speedup_runs = _retry_speedup(runs, run_one, deadline)
    if last is not None:
        last = _stretch_termination(last, runs)
        runs["termination"] = _measured(last, run_one, deadline(last))
    return runs, speedup_runs


def _measured(case: Case, run_one: RunOne, deadline: float) -> CaseRun:
    """A run of ``case``; a timed case (``Case.timed``) that the machine
    stopped the process during (``CaseRun.stops``) is run again, up to
    ``STOP_RERUNS`` times: a stop stretches whichever waits it ends, so
    that run's seconds are the machine's, not the crawl's.  A run that
    stopped making progress is run again with ``PATIENCE`` (a slow finish
    or a hang: the module docstring); a case built to hang a call
    (``Case.hung``) is not, no wait would end its call."""
    run = run_one(case, deadline)
    for _ in range(STOP_RERUNS if case.timed else 0):
        if not run.stops:
            break
        run = run_one(case, deadline)
    if run.stalled and not run.crash and not case.hung:
        run = run_one(case, deadline + PATIENCE, PATIENCE)
    return run


def apply_rules(checks: list[CheckResult], rules: str) -> list[CheckResult]:
    """The checks graded by one rule set: a check required only by a later
    rule set becomes a note (shown, not counted); every graded failure says
    which rule set requires it."""
    return [_graded(check, rules) for check in checks]


def _graded(check: CheckResult, rules: str) -> CheckResult:
    """One check under ``rules``: itself, a note, or a failure naming its rule set."""
    if check.rules is None:
        return check
    active = RULE_SETS.index(rules)  # type: ignore[arg-type]
    needed = RULE_SETS.index(check.rules)  # type: ignore[arg-type]
    required_by = RULE_TEXT[check.rules]  # type: ignore[index]
    if needed > active:
        if check.kind != "correctness":
            return check
        verdict = "would pass" if check.passed else "would fail"
        explanation = f"Not graded under --rules {rules}: {required_by} requires it (it {verdict}). " + check.explanation
        return dataclasses.replace(check, kind="note", explanation=explanation)
    if not check.passed and check.kind == "correctness":
        return dataclasses.replace(check, explanation=check.explanation + f" [Required by {required_by}.]")
    return check


def count_causes_once(checks: list[CheckResult]) -> list[CheckResult]:
    """The checks, each failed correctness check whose cause an earlier failed
    check already showed marked as such, so the summary counts the cause once."""
    first: dict[str, str] = {}
    out: list[CheckResult] = []
    for check in checks:
        if check.kind == "correctness" and not check.passed and check.cause:
            if check.cause in first:
                earlier = first[check.cause]
                # the fix was said with the first check of this cause: not again in each
                text = check.explanation.replace(f" {check.hint}", "") if check.hint else check.explanation
                check = dataclasses.replace(
                    check, same_cause_as=earlier, explanation=text + f" (Same cause as {earlier}: the fix is there.)"
                )
            else:
                first[check.cause] = check.name
        out.append(check)
    return out


def _select(cases: list[Case], only: Iterable[str] | None) -> list[Case]:
    if only is None:
        return cases
    wanted = list(only)
    _check_names(wanted, None)
    return [case for case in cases if case.name in wanted]


def _check_names(wanted: list[str], round_: Round | None) -> None:
    """Raise a one-line error for a name that is no case of this run,
    listing the names that are (and which round another round's case is of)."""
    own = [case.name for case in round_.cases()] if round_ else []
    unknown = [name for name in wanted if name not in CASE_NAMES and name not in own]
    if not unknown:
        return
    listed = f"cases are: {', '.join(CASE_NAMES)}"
    if round_ is not None:
        listed += f"; round {round_.name}'s own cases are: {', '.join(own)}"
    owner = next((r.name for r in ROUNDS.values() for c in r.cases() if c.name == unknown[0]), None)
    if owner is not None and round_ is not None:
        raise CheckInputError(
            f"case {unknown[0]} belongs to round {owner}, not {round_.name}: use --follow-up {owner}"
        )
    if owner is not None:
        raise CheckInputError(f"case {unknown[0]} is a case of the follow-up round {owner}: add --follow-up {owner}")
    raise CheckInputError(f"unknown case {', '.join(unknown)}; {listed}")


def _retry_speedup(runs: dict[str, CaseRun], run_one: RunOne, deadline: Callable[[Case], float]) -> list[CaseRun]:
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
        attempts.append(run_one(first.case, deadline(first.case)))
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
    runs: dict[str, CaseRun], checks: list[CheckResult], speedup_runs: list[CaseRun], rules: str = "interview"
) -> list[CheckResult]:
    """The checks measured across cases.  Each draws its evidence only from
    the cases ``rules`` grades: a case another rule set adds (a raising
    ``get_urls`` under ``leetcode``) can at most make a note."""
    derived: list[CheckResult] = []
    correctness = {name: run for name, run in runs.items() if run.case.kind == "correctness"}
    graded = {name: run for name, run in correctness.items() if graded_by(run.case.rules, rules)}
    ungraded = {name: run for name, run in correctness.items() if name not in graded}
    if graded:
        derived.append(judge.judge_max_workers(graded))
        derived.append(judge.judge_threads_exit(graded, ungraded, rules))
    if speedup_runs:
        first = runs["slow-service"]
        widest = max(speedup_runs, key=lambda r: r.peak)
        derived.append(judge.judge_concurrency(widest))
        derived.append(judge.judge_workers_stay(widest))
        slow_ok = next(c.passed for c in checks if c.name == "slow-service")
        derived.append(judge.judge_speedup(speedup_runs[0], slow_ok and first.error is None, len(speedup_runs)))
    if graded:
        derived.append(judge.judge_prompt_return(graded))
    return derived


def graded_by(case_rules: str, rules: str) -> bool:
    """Whether rule set ``rules`` grades a case that ``case_rules`` requires."""
    return RULE_SETS.index(case_rules) <= RULE_SETS.index(rules)  # type: ignore[arg-type]
