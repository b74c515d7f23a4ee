"""Follow-up rounds: ``crawlsim check FILE.py:crawl --follow-up NAME``.

The interview goes on after the first working crawler ("now add a max
depth", ...).  A round calls the user's function with the follow-up's extra
argument(s) after ``max_workers``, on cases built to expose that
follow-up's classic mistakes, and judges them with the round's own words.
The base cases still run first (given a value that sets no limit, so a
round's function is graded on the base question too).

Each round is data (:class:`Round`): its contract (shown in the report's
header, ``--help`` and docs/reference/check.md), the rubric items it makes observable, its
cases and its judge.  The cases are plain :class:`~crawlsim.check.cases.Case`
objects, so the services, the sandbox and the runner serve them unchanged;
the sandboxed child rebuilds them by name with :func:`case_named`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from crawlsim.check import cases as base
from crawlsim.check.cases import Case
from crawlsim.check.depth_round import DEPTH_CASES, judge_depth
from crawlsim.check.pages_round import PAGES_CASES, judge_pages
from crawlsim.check.politeness_round import POLITENESS_CASES, judge_politeness
from crawlsim.check.rate_round import RATE_CASES, judge_rate
from crawlsim.check.report import CheckResult
from crawlsim.check.retries_round import RETRIES_CASES, judge_retries
from crawlsim.check.runner import CaseRun
from crawlsim.check.timeout_round import TIMEOUT_CASES, judge_timeout

NO_LIMIT = 10**9
"""The extra argument the base cases get: a limit no case comes near."""
NO_TIMEOUT = 3600.0
"""The ``timeout`` the base cases get: no base case's call comes near an hour."""


@dataclass(frozen=True)
class Round:
    """One follow-up round of the interview."""

    name: str
    params: tuple[str, ...]
    """The extra parameters, in the order they are passed after ``max_workers``."""
    contract: str
    rubric: str
    """The interview rubric items the round makes observable."""
    neutral: tuple[float, ...]
    """The extra arguments the base cases are called with (no limit)."""
    cases: Callable[[], list[Case]]
    judge: Callable[[dict[str, CaseRun]], list[CheckResult]]
    base_skipped: tuple[str, ...] = ()
    """Base cases not run under this round: the ones whose rule it changes."""

    @property
    def signature(self) -> str:
        return f"crawl(start_url, get_urls, max_workers, {', '.join(self.params)})"


ROUNDS: dict[str, Round] = {
    "depth": Round(
        name="depth",
        params=("max_depth",),
        contract=(
            "the start is depth 0; a page's depth is its shortest link distance from the start within scope; "
            "every page of depth <= max_depth is fetched exactly once and returned, links found on pages at "
            "max_depth are not followed, nothing deeper is returned"
        ),
        rubric="the follow-up 'max depth or max pages'; L6's memory limits on the frontier (a bounded crawl)",
        neutral=(NO_LIMIT,),
        cases=lambda: list(DEPTH_CASES()),
        judge=judge_depth,
    ),
    "pages": Round(
        name="pages",
        params=("max_pages",),
        contract=(
            "at most max_pages pages are fetched and returned, the start included; the crawl stops submitting at "
            "the cap and drains what is in flight (which pages make the cut is the crawl's choice)"
        ),
        rubric="the follow-up 'max depth or max pages'; L6's memory limits on the frontier (a bounded crawl)",
        neutral=(NO_LIMIT,),
        cases=lambda: list(PAGES_CASES()),
        judge=judge_pages,
    ),
    "retries": Round(
        name="retries",
        params=("max_retries", "backoff"),
        contract=(
            "a call raising ConnectionError or TimeoutError is transient: retried at most max_retries times, retry "
            "n waiting about backoff * 2**(n-1) with random jitter; any other exception is permanent: the page "
            "counts as found, with no links, never retried; other fetches go on while a page waits for its retry"
        ),
        rubric="L6's retries with backoff (the follow-up 'retries and timeouts')",
        neutral=(0, 0.0),
        cases=lambda: list(RETRIES_CASES()),
        judge=judge_retries,
    ),
    "timeout": Round(
        name="timeout",
        params=("timeout",),
        contract=(
            "a call that has not returned after timeout seconds (counted from when the call starts) is given up: "
            "the page counts as found, with no links, and the crawl finishes without waiting for it; calls slower "
            "than usual but inside the limit are waited for"
        ),
        rubric="the follow-up 'retries and timeouts' (a hung call does not hang the crawl)",
        neutral=(NO_TIMEOUT,),
        cases=lambda: list(TIMEOUT_CASES()),
        judge=judge_timeout,
    ),
    "rate": Round(
        name="rate",
        params=("max_rate",),
        contract=(
            "max_rate is get_urls calls per second across all workers: in any window of T seconds at most "
            "max_rate * T + max_rate calls start (a token bucket of burst max_rate, or smoother), and the crawl "
            "uses the rate it is given (over half of max_rate when enough calls can be in flight)"
        ),
        rubric="L6's politeness and rate limits (one limit shared by all workers)",
        neutral=(float(NO_LIMIT),),
        cases=lambda: list(RATE_CASES()),
        judge=judge_rate,
    ),
    "politeness": Round(
        name="politeness",
        params=("per_host", "gap"),
        contract=(
            "the scope is the start's hostname and its subdomains (from http://a.com/, http://h1.a.com/ is in "
            "scope and http://xa.com/ is not; the base case host-scope, whose rule this widens, does not run); at "
            "most per_host calls are in flight to one host (a URL's hostname), consecutive calls to one host start "
            "at least gap seconds apart, counted from start to start, and hosts wait for nothing else: the crawl "
            "finishes near the busiest-host bound ((pages on the busiest host - 1) * gap, plus a call)"
        ),
        rubric="L6's politeness: a per-host concurrency cap and a per-host crawl delay",
        neutral=(NO_LIMIT, 0.0),
        cases=lambda: list(POLITENESS_CASES()),
        judge=judge_politeness,
        base_skipped=("host-scope",),
    ),
}
ROUND_NAMES: tuple[str, ...] = tuple(ROUNDS)


def round_cases() -> list[Case]:
    """Every case of every round."""
    return [case for round_ in ROUNDS.values() for case in round_.cases()]


def case_named(name: str, quick: bool = False, termination_slow: float | None = None) -> Case:
    """A base case or a round's case by name (the sandboxed child's way back to a case)."""
    for case in round_cases():
        if case.name == name:
            return case
    return base.case_named(name, quick, termination_slow)


def help_epilog(width: int = 79) -> str:
    """Each round's signature, contract and rubric items, a paragraph each, for ``--help``."""
    lines = ["follow-up rounds (--follow-up NAME; the extra arguments come after max_workers):"]
    column = max(len(name) for name in ROUNDS) + 2
    indent = " " * (2 + column)
    for r in ROUNDS.values():
        lines.append(f"  {r.name:<{column}}{r.signature}")
        cases = ", ".join(case.name for case in r.cases())
        for paragraph in (r.contract, f"makes observable: {r.rubric}", f"cases: {cases}"):
            lines.extend(textwrap.wrap(paragraph, width, initial_indent=indent, subsequent_indent=indent))
    return "\n".join(lines)
