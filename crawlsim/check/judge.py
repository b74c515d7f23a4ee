"""Turn what the service observed into checks with plain explanations.

A case's check is built in two steps: ``problems.py`` finds its problems
as data (a wrong result, a page fetched twice, a fetch on another host, a
return while fetches were in flight...), then ``words.py`` names the URLs
involved and adds the fix for each kind of problem once.  When the problem
is the one the case was built to expose, the fix is the case's own lesson.
Timing checks (concurrency, speed-up, prompt return) are derived from the
runs afterwards.
"""

from __future__ import annotations

import heapq
import statistics

from crawlsim.check import evidence, findings, problems, words
from crawlsim.check.cases import Case, defrag, depths, expected_pages
from crawlsim.check.problems import duplicate_fetches
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.words import HINTS, named

__all__ = ["HINTS", "duplicate_fetches", "judge_case", "speedup_of", "SPEEDUP_SHARE"]

SPEEDUP_SHARE = 0.6
"""Share of the best possible speed-up that counts as near-ideal."""
PROMPT_RETURN = 0.05
"""Seconds after the last fetch within which a crawl counts as returning promptly."""


def judge_case(run: CaseRun) -> CheckResult:
    """The check of one case: right pages, each fetched once, nothing off-host,
    no return while fetches were in flight, no exception, no hang.

    The problems are found first, as data (``problems.observe``); the words
    come after (``words``), so the JSON details and the sentence are two views
    of one set of findings."""
    case = run.case
    if case.kind == "note":
        return _judge_note(run)
    seen = problems.observe(run)
    details = problems.details_dict(seen.details)
    if seen.problems:
        return CheckResult(
            case.name,
            False,
            words.explain_failure(case.name, case.lesson, seen.problems),
            details,
            "correctness",
            case.level,
            case.title,
            rules=case.rules,
            cause=findings.main_cause(seen.problems),
            hint=" ".join(words.hints(case.name, case.lesson, seen.problems)),
        )
    clean, died = problems.clean_run(run), problems.thread_died(run)
    remark = died is not None or not all(met for _, met in clean.groups) or clean.explorer_limit is not None
    return CheckResult(
        case.name, True, words.passed(clean, died), details, "correctness", case.level, case.title,
        rules=case.rules, remark=remark,
    )


def _judge_note(run: CaseRun) -> CheckResult:
    """host-case: whether ``http://A.COM/caps`` was followed.  Either answer is
    defensible, so it only informs."""
    target = "http://a.com/caps"
    followed = any(r.page == target for r in run.records)
    details = {"followed": followed, "fetches": [r.url for r in run.records]}
    if run.error or run.timed_out:
        return CheckResult(
            run.case.name, False, "Not observed: the crawl failed on this case.", details, "note", None, run.case.title
        )
    if followed:
        text = "Followed http://A.COM/caps: host names are compared case-insensitively (as urlsplit().hostname does)."
    else:
        text = (
            "Did not follow http://A.COM/caps. Host names are case-insensitive (RFC 3986), so it is on a.com; "
            "comparing urlsplit(url).hostname, which lowercases, would follow it."
        )
    return CheckResult(run.case.name, followed, text, details, "note", None, run.case.title)


# ---------------------------------------------------------------- derived checks


def judge_max_workers(runs: dict[str, CaseRun]) -> CheckResult:
    """Peak fetches in flight never above ``max_workers``, in any case.

    An interview rule: LeetCode 1242's ``crawl(startUrl, htmlParser)`` has no
    ``max_workers`` and sets no limit on threads, so under ``--rules
    leetcode`` this check is a note, whatever the crawl's pool (``apply_rules``)."""
    over = [r for r in runs.values() if r.peak > r.case.max_workers]
    widest = max(runs.values(), key=lambda r: r.peak / r.case.max_workers)
    details = {name: {"peak": r.peak, "max_workers": r.case.max_workers} for name, r in runs.items()}
    title = "peak fetches in flight <= max_workers"
    if over:
        worst = max(over, key=lambda r: r.peak - r.case.max_workers)
        text = (
            f"Up to {worst.peak} fetches were in flight at once in {worst.case.name} with max_workers="
            f"{worst.case.max_workers} (over the limit in {named(r.case.name for r in over)}). {HINTS['workers']}"
        )
        return CheckResult(
            "max-workers", False, text, details, "correctness", "L4", title, rules="interview", cause="workers"
        )
    text = (
        f"Never more than max_workers fetches in flight (busiest: {widest.peak} of {widest.case.max_workers} "
        f"in {widest.case.name})."
    )
    return CheckResult("max-workers", True, text, details, "correctness", "L4", title, rules="interview")


def idle_cause(run: CaseRun) -> str | None:
    """Why fewer workers ran than allowed, in words, from the measured
    finding (``findings.idle_workers``); ``None`` when nothing was seen."""
    found = findings.idle_workers(run)
    return words.say(found) if found is not None else None


def judge_concurrency(run: CaseRun) -> CheckResult:
    """Some overlap on a wide, slow web when ``max_workers > 1``."""
    case = run.case
    shape = evidence.parallelism(run)
    details = {"case": case.name, "peak": run.peak, "mean_in_flight": shape.mean, "max_workers": case.max_workers}
    title = f"more than one fetch in flight on {case.name}"
    if run.peak > 1:
        text = (
            f"Up to {run.peak} of max_workers={case.max_workers} fetches were in flight at once on {case.name} "
            f"({shape.mean:.1f} on average)."
        )
        return CheckResult("concurrency", True, text, details, "performance", "L4", title)
    cause = idle_cause(run)
    text = (
        f"No concurrency observed: at most one fetch was in flight at a time on {case.name} "
        f"({len(expected_pages(case))} pages, max_workers={case.max_workers})."
    )
    if cause:
        text += f" {cause}"
        details["threads_quit_early"] = len(evidence.early_exits(run).quit)
    else:
        text += (
            " The crawl is correct but sequential; run fetches in a thread pool (or asyncio) to overlap their waiting."
        )
    return CheckResult("concurrency", False, text, details, "performance", "L4", title)


SERIAL_MEAN = 1.5
"""Mean fetches in flight below which a crawl allowed several is mostly serial."""


def judge_workers_stay(run: CaseRun) -> CheckResult:
    """Workers that quit while fetches go on, leaving the crawl mostly serial,
    fail: the pages come out right, so no case catches it, yet the crawl is
    sequential in a thread pool (an idle timeout on a momentarily empty
    queue).  Threads that end between rounds of a crawl that stays busy
    (batches joined per level) do not: the mean in flight says which."""
    case = run.case
    found = findings.idle_workers(run)
    shape = evidence.parallelism(run)
    title = f"workers stay while fetches go on ({case.name})"
    details = {"case": case.name, "mean_in_flight": shape.mean, "max_workers": case.max_workers}
    if found is not None and found.kind == "workers-quit" and shape.mean < SERIAL_MEAN:
        text = (
            f"Workers quit while fetches went on, so the crawl ran mostly serial on {case.name} "
            f"({shape.mean:.1f} fetches in flight on average, max_workers={case.max_workers}). {words.say(found)}"
        )
        return CheckResult("workers-quit", False, text, {**details, "findings": [found.to_dict()]}, "correctness",
                           "L4", title, rules="interview", cause=found.cause)
    text = f"No worker quit while fetches went on in {case.name}."
    return CheckResult("workers-quit", True, text, details, "correctness", "L4", title, rules="interview")


def judge_threads_exit(
    runs: dict[str, CaseRun], ungraded: dict[str, CaseRun] | None = None, rules: str = "interview"
) -> CheckResult:
    """No thread of the crawl left running the user's code after it returned,
    judged on ``runs`` (the cases the rule set grades).  Threads left only in
    ``ungraded`` cases (say ``fetch-error`` under ``leetcode``, whose
    ``get_urls`` raises) make a note, not a failure."""
    title = "no thread left running after the crawl returns"
    found = findings.threads_left(runs)
    if found is not None:
        return CheckResult(
            "threads-exit",
            False,
            words.say(found),
            {"findings": [found.to_dict()], **found.facts["per_case"]},
            "correctness",
            "L5",
            title,
            rules="leetcode",
            cause=found.cause,
        )
    elsewhere = findings.threads_left(ungraded or {})
    if elsewhere is not None:
        text = (
            f"Not graded under --rules {rules}: threads were left running only in "
            f"{named(elsewhere.facts['per_case'])}, a case this rule set does not grade. {words.say(elsewhere)}"
        )
        details = {"findings": [elsewhere.to_dict()], **elsewhere.facts["per_case"]}
        return CheckResult("threads-exit", False, text, details, "note", "L5", title, rules="leetcode")
    hung = [name for name, run in runs.items() if evidence.ending(run) not in evidence.CAME_BACK]
    text = "Every thread the crawl started had finished or was idle in a pool when it returned"
    if hung:
        text += f" (not seen in {named(hung)}, which did not return)"
    return CheckResult(
        "threads-exit",
        True,
        text + ".",
        {},
        "correctness",
        "L5",
        title,
        rules="leetcode",
    )


def sequential_seconds(case: Case) -> float:
    """What a sequential crawl of the case costs: its pages' latencies, summed."""
    return sum(case.latency_of(page) for page in expected_pages(case))


def ideal_seconds(case: Case) -> float:
    """The best wall time with ``max_workers`` fetches at once and no overhead:
    greedy list scheduling, a page becoming ready when its BFS parent returns."""
    depth = depths(case)
    start = defrag(case.start)
    ready: list[tuple[float, str]] = [(0.0, start)]
    workers = [0.0] * case.max_workers
    scheduled = {start}
    end = 0.0
    while ready:
        at, page = heapq.heappop(ready)
        free = heapq.heappop(workers)
        begin = max(at, free)
        finish = begin + case.latency_of(page)
        heapq.heappush(workers, finish)
        end = max(end, finish)
        for link in case.links.get(page, ()) if page not in case.failing else ():
            link = defrag(link)
            if link in depth and link not in scheduled:
                scheduled.add(link)
                heapq.heappush(ready, (finish, link))
    return end


def speedup_of(run: CaseRun) -> tuple[float, float]:
    """(achieved, best possible) speed-up over a sequential crawl."""
    sequential = sequential_seconds(run.case)
    return sequential / max(run.wall, 1e-9), sequential / max(ideal_seconds(run.case), 1e-9)


def judge_speedup(run: CaseRun, correct: bool, attempts: int) -> CheckResult:
    case = run.case
    sequential = sequential_seconds(case)
    ideal = ideal_seconds(case)
    achieved, possible = speedup_of(run)
    details = {
        "case": case.name,
        "sequential_s": round(sequential, 3),
        "ideal_s": round(ideal, 3),
        "took_s": round(run.wall, 3),
        "speedup": round(achieved, 2),
        "best_possible": round(possible, 2),
        "runs": attempts,
    }
    title = f"speed-up over a sequential crawl on {case.name}"
    body = (
        f"{achieved:.1f}x faster than a sequential crawl on {case.name} (took {run.wall:.2f} s; one fetch at a "
        f"time would take {sequential:.2f} s); the best possible with max_workers={case.max_workers} is "
        f"{possible:.1f}x ({ideal:.2f} s)"
    )
    if evidence.ending(run) != "returned":  # no wall time of a finished crawl to compare
        text = f"Not measured: the crawl {evidence.ending(run)} on {case.name}."
        return CheckResult("speed-up", False, text, details, "performance", "L6", title)
    if not correct:
        return CheckResult(
            "speed-up",
            False,
            f"Not counted: the crawl was wrong on {case.name}. {body}.",
            details,
            "performance",
            "L6",
            title,
        )
    if achieved >= SPEEDUP_SHARE * possible:
        return CheckResult("speed-up", True, body + ": near-ideal.", details, "performance", "L6", title)
    cause = idle_cause(run)
    if cause:
        advice = f" {cause}"
    elif run.peak <= 1:
        advice = " Nothing overlapped: the crawl is sequential."
    else:
        shape = evidence.parallelism(run)
        advice = (
            f" All {shape.peak} workers ran at once at some point, but only {shape.mean:.1f} on average: workers "
            "sat idle waiting for a whole batch or level; expand links as soon as any fetch returns "
            "(wait(..., FIRST_COMPLETED)) and keep all max_workers busy."
        )
    return CheckResult(
        "speed-up", False, f"{body}: below {SPEEDUP_SHARE:.0%} of it.{advice}", details, "performance", "L6", title
    )


def judge_prompt_return(runs: dict[str, CaseRun]) -> CheckResult:
    """Median time from the last fetch finishing to the crawl returning."""
    tails = {name: r.tail for name, r in runs.items() if r.tail is not None}
    title = "returns as soon as the last fetch is done"
    if not tails:
        return CheckResult(
            "prompt-return", False, "Not measured: no case returned normally.", {}, "performance", "L6", title
        )
    median = statistics.median(tails.values())
    details = {"median_s": round(median, 4), "per_case_s": {k: round(v, 4) for k, v in tails.items()}}
    if median <= PROMPT_RETURN:
        text = f"Returns {median * 1000:.0f} ms after its last fetch finishes (median of {len(tails)} cases)."
        return CheckResult("prompt-return", True, text, details, "performance", "L6", title)
    text = (
        f"Returns {median:.2f} s after its last fetch finishes (median of {len(tails)} cases): it looks like it "
        "waits for a timeout to decide the crawl is over. Track fetches in flight and return when none remain."
    )
    return CheckResult("prompt-return", False, text, details, "performance", "L6", title)
