"""The ``timeout`` follow-up round: ``crawl(start_url, get_urls, max_workers, timeout)``.

A call that has not returned after ``timeout`` seconds is given up (the page
counts as found, with no links) and the crawl finishes without waiting for
it.  One case, ``timeout`` (timeout=0.6 s, 4 workers): the start links to a
page whose call never returns (it is released, raising, when the checker is
done with the run, so its thread ends there), to twelve pages of 0.2 s and
one of 0.3 s, each with a link of its own.  Thirteen slow pages on at most
four workers wait in a queue whatever the order they are submitted in: the
last ones return at least 0.8 s after they were submitted, so a timeout
counted from submission (or one deadline for a whole batch) gives up calls
that took 0.2 s.  Every finding is measured from the service's recorded
call times: when the hung call started, how long each given-up call had run,
when the crawl returned.
"""

from __future__ import annotations

from dataclasses import dataclass

from crawlsim.check import judge
from crawlsim.check.cases import A, Case, _site, defrag, expected_pages
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.check.words import named
from crawlsim.words import counted

TIMEOUT = 0.6
HUNG = f"{A}/hung"
SLOW = f"{A}/slow"
QUEUED = tuple(f"{A}/q{i}" for i in range(12))
QUEUED_LATENCY = 0.2
SLOW_LATENCY = 0.3
"""Half the limit: a call this slow must be waited for, even on a loaded machine."""
INSIDE = 0.9
"""A call given up after less than this share of ``timeout`` was given up too soon."""
LATE = 1.0
"""Seconds past both the hung call's timeout and the last other call's end
after which a crawl that did return is said to have waited for the hung call."""


def timeout_case() -> Case:
    paths: dict[str, list[str]] = {
        "/": ["/hung", *(q[len(A) :] for q in QUEUED), "/slow"],
        "/hung": ["/behind-hung"],
        "/slow": ["/slow/leaf"],
        **{q[len(A) :]: [f"{q[len(A) :]}/leaf"] for q in QUEUED},
    }
    return Case(
        name="timeout",
        title="timeout=0.6: a call that never returns is given up; calls of 0.2 s and 0.3 s are waited for",
        lesson=(
            "Count each call's timeout from when the call starts, give up a call past it (the page counts as found), "
            "and return without waiting for its thread: shutdown(wait=False, cancel_futures=True), not a with block."
        ),
        start=A + "/",
        links=_site(A, paths),
        max_workers=4,
        level="L6",
        latency={**dict.fromkeys(QUEUED, QUEUED_LATENCY), SLOW: SLOW_LATENCY},
        default_latency=0.01,
        hung=frozenset({HUNG}),
        args=(TIMEOUT,),
        deadline=4.0,
    )


def TIMEOUT_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [timeout_case()]


def judge_timeout(runs: dict[str, CaseRun]) -> list[CheckResult]:
    return [_judge(runs["timeout"])] if "timeout" in runs else []


@dataclass(frozen=True)
class _Facts:
    """What the run shows about its timeouts."""

    run: CaseRun
    hung_start: float | None
    """When the hung call started (``None``: it was never called)."""
    returned: set[str]

    @property
    def timeout(self) -> float:
        return float(self.run.case.args[0])


def _judge(run: CaseRun) -> CheckResult:
    case = run.case
    hung = next((r for r in run.records if r.page == HUNG), None)
    facts = _Facts(run, hung.start if hung else None, {defrag(u) for u in run.result or ()})
    waited = _waiting_at_end(run)
    if not waited and (run.error or run.timed_out or run.result is None):
        return judge.judge_case(run)
    found = _waits(facts) if waited else _finding(facts)
    if isinstance(found, str):
        return CheckResult(case.name, True, found, {}, "correctness", case.level, case.title)
    cause, text = found
    details = {"timeout": facts.timeout}
    return CheckResult(case.name, False, text, details, "correctness", case.level, case.title, cause=cause)


def _waiting_at_end(run: CaseRun) -> bool:
    """The crawl was still running at its deadline with the hung call in flight."""
    return run.timed_out and run.error is None and any(r.page == HUNG for r in run.in_flight_at_return)


def _finding(facts: _Facts) -> tuple[str, str] | str:
    """A returned crawl's first mistake, or the words of its pass."""
    return _too_soon(facts) or _late(facts) or _result(facts)


def _waits(facts: _Facts) -> tuple[str, str]:
    return "timeout-waits", (
        f"Still running at the {facts.run.wall:.1f} s deadline: the call of {HUNG}, started at "
        f"{facts.hung_start:.2f} s, never returned, and the crawl waited for it though its timeout was "
        f"{facts.timeout:g} s. Give the call up after timeout seconds (future.result(timeout=...) or "
        "wait(..., timeout=...); asyncio.wait_for) and return without waiting for its thread: a with "
        "ThreadPoolExecutor block waits for every thread at its end; call shutdown(wait=False, cancel_futures=True)."
    )


def _too_soon(facts: _Facts) -> tuple[str, str] | None:
    """Calls inside the limit that the crawl gave up, or pages it gave up before their call started."""
    early, unused, never = _given_up(facts)
    if not (early or unused or never):
        return None
    parts = []
    if early:
        longest = max(_ran(r, facts.run.wall) for r in early)
        parts.append(f"{named(sorted({r.page for r in early}))} given up after at most {longest:.2f} s")
    if unused:
        took = max(_ran(r) for r in unused)
        parts.append(
            f"the links of {named(sorted({r.page for r in unused}))} dropped though those calls returned "
            f"within {took:.2f} s"
        )
    if never:
        parts.append(f"{named(never)} returned without ever being fetched")
    return "timeout-too-soon", (
        f"With timeout {facts.timeout:g} s: {'; '.join(parts)}. Those calls were slow, not hung: they waited in the "
        "queue for a free worker first. Count the timeout from when each call starts, not from when the page was "
        "submitted or from one deadline for a whole batch."
    )


def _given_up(facts: _Facts) -> tuple[list[FetchRecord], list[FetchRecord], list[str]]:
    """(calls given up inside the limit, calls whose links were dropped, pages returned but never called)."""
    run = facts.run
    others = [r for r in run.records if r.page != HUNG]
    early = [r for r in run.in_flight_at_return if r.page != HUNG]
    early += [r for r in others if r.outcome == "cancelled" and _ran(r) < INSIDE * facts.timeout]
    unused = [r for r in others if r.outcome == "ok" and not set(r.links) <= facts.returned]
    called = {r.page for r in run.records}
    never = sorted(p for p in facts.returned - called if p in _slow_pages())
    return early, unused, never


def _late(facts: _Facts) -> tuple[str, str] | None:
    """A crawl that returned, but long after the hung call's timeout and every other call's end."""
    run = facts.run
    if facts.hung_start is None:
        return None
    ends = [r.end for r in run.records if r.page != HUNG and r.end is not None and r.end <= run.wall]
    due = max([facts.hung_start + facts.timeout, *ends])
    if run.wall <= due + LATE:
        return None
    return "timeout-late", (
        f"Returned at {run.wall:.2f} s: the call of {HUNG} started at {facts.hung_start:.2f} s and every other call "
        f"had ended by {max(ends, default=0.0):.2f} s, so with timeout {facts.timeout:g} s the crawl could have "
        f"returned at {due:.2f} s. Give a call up once it has run for timeout seconds."
    )


def _result(facts: _Facts) -> tuple[str, str] | str:
    run = facts.run
    twice = sorted({r.page for r in run.records if sum(x.page == r.page for x in run.records) > 1})
    if twice:
        return "dup-fetch", f"Fetched {named(twice)} more than once."
    missing = sorted(set(expected_pages(run.case)) - {HUNG_LINK} - facts.returned)
    if HUNG in missing:
        return "timeout-drops-page", (
            f"{HUNG} missing from the result: a page whose call was given up still counts as found (with no links)."
        )
    if missing:
        return "missing", f"{named(missing)} missing from the result."
    slowest = max((_ran(r) for r in run.records if r.page != HUNG and r.outcome == "ok"), default=0.0)
    after = f", {run.wall - facts.hung_start:.2f} s after the hung call started" if facts.hung_start is not None else ""
    return (
        f"The call of {HUNG}, which never returns, was given up ({_how(run)}) and the crawl returned at "
        f"{run.wall:.2f} s{after} (timeout {facts.timeout:g} s); every slower call inside the limit was waited for "
        f"(the slowest took {slowest:.2f} s); {counted(len(facts.returned), 'page')} returned."
    )


def _how(run: CaseRun) -> str:
    """The crawl's choice of how to give a call up."""
    hung = [r for r in run.records if r.page == HUNG]
    if any(r.outcome == "cancelled" and r.end is not None and r.end <= run.wall for r in hung):
        return f"cancelled after {max(_ran(r) for r in hung):.2f} s"
    return "left running in its thread, released when the check was done with the run"


HUNG_LINK = f"{A}/behind-hung"
"""The hung page's link: never seen, since its call never returns."""


def _slow_pages() -> set[str]:
    return {*QUEUED, SLOW, *(f"{q}/leaf" for q in (*QUEUED, SLOW))}


def _ran(record: FetchRecord, now: float | None = None) -> float:
    """How long a call ran (until ``now`` when it had not ended)."""
    end = record.end if record.end is not None else now
    return max(0.0, (end if end is not None else record.start) - record.start)
