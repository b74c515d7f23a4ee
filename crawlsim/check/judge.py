"""Turn what the service observed into checks with plain explanations.

A case's check collects *problems* (a wrong result, a page fetched twice, a
fetch on another host, a return while fetches were in flight...), names the
URLs involved, and adds the fix for each kind of problem once.  When the
problem is the one the case was built to expose, the fix is the case's own
lesson.  Timing checks (concurrency, speed-up, prompt return) are derived
from the runs afterwards.
"""

from __future__ import annotations

import heapq
import itertools
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from crawlsim.check import evidence, findings, words
from crawlsim.check.cases import Case, defrag, depths, expected_pages, hostname, page_of
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.check.words import named, plural

MAX_NAMED = 5
DETAIL_LIMIT = 20
"""At most this many entries per list in a check's details (the JSON stays readable)."""
RETRIES_ALLOWED = 5
"""A page whose fetch keeps failing may be retried this many times without
counting as a duplicate fetch (retrying is an L6 extension, not a bug)."""
SPEEDUP_SHARE = 0.6
"""Share of the best possible speed-up that counts as near-ideal."""
PROMPT_RETURN = 0.05
"""Seconds after the last fetch within which a crawl counts as returning promptly."""

HINTS: dict[str, str] = {
    "dup-fetch": (
        "Mark a URL seen when you submit its fetch, not when the fetch finishes, so a page linked "
        "from pages in flight together is submitted once."
    ),
    "fragment": (
        "Drop the #fragment (urldefrag) before the seen check and before returning: it names a part of the same page."
    ),
    "scope": (
        "Keep a link only when urlsplit(link).hostname equals the start URL's hostname exactly: a subdomain "
        "is another host, and 'a.com' in the URL (substring or endswith) also lets in look-alikes."
    ),
    "early-return": (
        "Return only when no fetch is in flight and nothing is queued: an empty queue alone does not mean "
        "done, because a fetch still in flight can return new links."
    ),
    "error": (
        "Catch the exception around get_urls for that page, keep the page in the result with no links, "
        "and carry on crawling."
    ),
    "timeout": (
        "A crawl that stops making progress without returning waits for work that will not come: a "
        "queue.join() whose task_done() is skipped when a fetch raises, a worker thread that died, or a lock "
        "never released."
    ),
    "too-slow": "The crawl was still working at its deadline: it is correct so far but too slow to finish.",
    "crash": (
        "Let the crawl return its result: os._exit, sys.exit or a crash of the interpreter ends the "
        "whole program, not just the crawl."
    ),
    "recursion": "Use an explicit queue instead of recursion: a chain of links can be deeper than the stack.",
    "bad-return": "Return a list of URL strings (the seed returns sorted(seen)).",
    "listed-twice": "Return each URL once.",
    "missing": "Every page reachable from the start URL on the start host belongs in the result.",
    "extra": "Return only pages reachable from the start URL on the start host.",
    "workers": "Never have more than max_workers fetches in flight: use a pool of that size or a semaphore.",
}


def host_relation(url: str, start_host: str) -> str:
    """Why ``url`` is out of scope, in words."""
    host = hostname(url) or "?"
    if host.endswith("." + start_host):
        return f"{host} is a subdomain of {start_host}, so another host"
    if start_host in host:
        return f"{host} is a look-alike host that merely contains '{start_host}'"
    if start_host in url:
        return f"{host} is another host ('{start_host}' only appears in its path)"
    return f"{host} is another host"


class _Verdict:
    """Problems found in one run, and the hint categories they call for."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.problems: list[str] = []
        self.categories: list[str] = []
        self.explained_hosts: set[str] = set()
        self.lesson_override: str | None = None
        """Shown instead of the case's lesson when the evidence points elsewhere."""

    def why_off_host(self, urls: Sequence[str], start_host: str) -> str:
        """`` (why)`` for the URLs whose host has not been explained yet in this verdict."""
        reasons = []
        for url in urls[:MAX_NAMED]:
            host = hostname(url) or url
            if host not in self.explained_hosts:
                self.explained_hosts.add(host)
                reasons.append(host_relation(url, start_host))
        return f" ({'; '.join(reasons)})" if reasons else ""

    def add(self, text: str, *categories: str) -> None:
        self.problems.append(text)
        for category in categories:
            if category not in self.categories:
                self.categories.append(category)

    def hints(self) -> list[str]:
        focus = set(self.case_focus())
        out: list[str] = []
        generic = {"missing", "extra"}
        specific = [c for c in self.categories if c not in generic]
        for category in specific or self.categories:  # "a page is missing" adds nothing to a specific fix
            hint = (self.lesson_override or self.case.lesson) if category in focus else HINTS.get(category, "")
            if hint and hint not in out:
                out.append(hint)
        return out

    def cause(self) -> str | None:
        """The one word for what went wrong: the first specific category."""
        generic = {"missing", "extra"}
        specific = [c for c in self.categories if c not in generic]
        chosen = specific or self.categories
        return chosen[0] if chosen else None

    def case_focus(self) -> tuple[str, ...]:
        return FOCUS.get(self.case.name, ())


FOCUS: dict[str, tuple[str, ...]] = {
    "seen-race": ("dup-fetch",),
    "check-then-add": ("dup-fetch",),
    "pool-2": ("workers",),
    "pool-3": ("workers",),
    "url-details": ("scope",),
    "diamond-50": ("dup-fetch",),
    "termination": ("early-return",),
    "host-scope": ("scope",),
    "fragments": ("fragment",),
    "fetch-error": ("error",),
    "deep-chain": ("recursion",),
}
"""Which problem each case was built to expose: for those, the fix shown is
the case's own lesson."""


def judge_case(run: CaseRun) -> CheckResult:
    """The check of one case: right pages, each fetched once, nothing off-host,
    no return while fetches were in flight, no exception, no hang."""
    case = run.case
    if case.kind == "note":
        return _judge_note(run)
    expected = expected_pages(case)
    expected_set = set(expected)
    start_host = hostname(case.start) or ""
    verdict = _Verdict(case)
    details: dict[str, Any] = {
        "case": case.title,
        "expected_pages": len(expected),
        "fetches": len(run.records),
        "max_workers": case.max_workers,
        "peak_in_flight": run.peak,
        "seconds": round(run.wall, 4),
    }
    result: list[str] | None = None

    if run.timed_out:
        _add_timeout(verdict, run, details)
    elif run.error is not None:
        _add_exception(verdict, run, details)
    else:
        result, bad = run.result, run.bad_return
        if bad:
            verdict.add(f"The crawl returned {bad}.", "bad-return")
        elif result is not None:
            details["returned_pages"] = len(result)
            _add_result_problems(verdict, run, result, expected_set, start_host, details)
    _add_fetch_problems(verdict, run, start_host, details)
    if result is not None:
        _add_early_return(verdict, run, result, details)

    if run.race:
        _add_race(verdict, run, details)
    if run.thread_deaths:
        details["thread_deaths"] = [str(death) for death in run.thread_deaths]
    if verdict.problems:
        if run.thread_deaths:
            death = run.thread_deaths[0]
            more = f" (and {len(run.thread_deaths) - 1} more)" if len(run.thread_deaths) > 1 else ""
            verdict.add(
                f"A thread of the crawl died{more}: {death}.",
                "error" if death.type == "SimulatedFetchError" else "timeout" if run.timed_out else "missing",
            )
        explanation = " ".join(verdict.problems + verdict.hints())
        return CheckResult(
            case.name,
            False,
            explanation,
            details,
            "correctness",
            case.level,
            case.title,
            rules=case.rules,
            cause=verdict.cause(),
        )
    text = _passed_text(run, expected)
    if run.thread_deaths:
        death = run.thread_deaths[0]
        more = f" (and {len(run.thread_deaths) - 1} more)" if len(run.thread_deaths) > 1 else ""
        text += f" It passed, but a thread of the crawl died{more}: {death}."
    return CheckResult(case.name, True, text, details, "correctness", case.level, case.title, rules=case.rules)


ATOMIC_HINT = (
    "Two threads passed the `not in seen` check for the same URL before either added it: the check and "
    "the add must be one step. Hold one lock around both (and the submit), or let a single coordinator "
    "thread own the seen set and decide every submit."
)
"""The fix when the evidence is a narrow race between check and add, not a
seen set marked too late (where the case's own lesson is the fix)."""


def _add_race(verdict: _Verdict, run: CaseRun, details: dict[str, Any]) -> None:
    """What the interleaving explorer caught (see ``races.py``).

    The hint follows the evidence: when the timed run on real threads fetched
    nothing twice, the duplicate exists only in a schedule that switched
    threads between the check and the add -- a missing lock, which marking
    seen at submit time (the case's lesson) does not cure."""
    details["race"] = run.race
    found = findings.race_caught(run)
    if found is not None:
        _record(verdict, details, found)
        if verdict.lesson_override is None and not duplicate_fetches(run):
            verdict.lesson_override = ATOMIC_HINT


def _add_timeout(verdict: _Verdict, run: CaseRun, details: dict[str, Any]) -> None:
    """Three different things: the process died, the crawl stopped making
    progress (stuck), or it was still fetching at its deadline (too slow)."""
    details["timed_out_after_s"] = run.timeout
    found = findings.how_it_ended(run)
    if found is not None:
        _record(verdict, details, found)


def _record(verdict: _Verdict, details: dict[str, Any], found: findings.Finding) -> None:
    """Keep the finding as data in the details and its words in the verdict."""
    details.setdefault("findings", []).append(found.to_dict())
    verdict.add(words.say(found), found.cause)


def _add_exception(verdict: _Verdict, run: CaseRun, details: dict[str, Any]) -> None:
    error = run.error
    assert error is not None
    details["exception"] = {"type": error.type, "message": error.message, "where": error.where}
    text = f"The crawl raised {error}."
    categories: list[str] = []
    if error.type == "SimulatedFetchError":
        failed = [r.url for r in run.records if r.outcome == "error"]
        text += (
            f" get_urls raised for {named(dict.fromkeys(failed))} (the service does that on purpose) and the "
            "exception ended the whole crawl."
        )
        categories.append("error")
    elif error.type == "RecursionError":
        categories.append("recursion")
    verdict.add(text, *categories)


def _add_result_problems(
    verdict: _Verdict,
    run: CaseRun,
    result: list[str],
    expected: set[str],
    start_host: str,
    details: dict[str, Any],
) -> None:
    counts: dict[str, int] = defaultdict(int)
    for url in result:
        counts[url] += 1
    twice = sorted(url for url, n in counts.items() if n > 1)
    if twice:
        verdict.add(f"The result lists {named(twice)} more than once.", "listed-twice")
        details["listed_twice"] = twice
    got = set(result)
    missing = sorted(expected - got)
    extra = sorted(got - expected)
    if extra:
        details["extra"] = extra[:DETAIL_LIMIT]
        _explain_extra(verdict, run, extra, expected, start_host)
    if missing:
        details["missing"] = missing[:DETAIL_LIMIT]
        _explain_missing(verdict, run, missing, got)


def _explain_extra(verdict: _Verdict, run: CaseRun, extra: list[str], expected: set[str], start_host: str) -> None:
    with_fragment = [u for u in extra if "#" in u]
    other_host = [u for u in extra if "#" not in u and hostname(u) != start_host]
    rest = [u for u in extra if u not in with_fragment and u not in other_host]
    if with_fragment:
        verdict.add(
            f"The result has {plural(len(with_fragment), 'URL')} with a #fragment: {named(with_fragment)}; "
            "a fragment is a part of the same page, not another page.",
            "fragment",
        )
    if other_host:
        verdict.add(
            f"The result has {plural(len(other_host), 'page')} on other hosts: {named(other_host)}"
            f"{verdict.why_off_host(other_host, start_host)}.",
            "scope",
        )
    if rest:
        expected_pages_ = {page_of(e) for e in expected}
        spelled = [u for u in rest if page_of(u) in expected_pages_]
        if spelled:
            verdict.add(f"The result spells {named(spelled)} differently from the links that lead there.", "extra")
        unreachable = [u for u in rest if u not in spelled]
        if unreachable:
            via = _linked_only_from_out_of_scope(run.case, unreachable, start_host)
            text = (
                f"The result has {plural(len(unreachable), 'page')} that the start host's pages do not lead to: "
                f"{named(unreachable)}"
            )
            if via:
                text += f" (reached only through {named(via)}, which {'is' if len(via) == 1 else 'are'} out of scope)"
                verdict.add(text + ".", "scope")
            else:
                verdict.add(text + ".", "extra")


def _linked_only_from_out_of_scope(case: Case, urls: Sequence[str], start_host: str) -> list[str]:
    targets = {page_of(u) for u in urls}
    parents = [
        page
        for page, links in case.links.items()
        if hostname(page) != start_host and any(page_of(link) in targets for link in links)
    ]
    return sorted(parents)


def _explain_missing(verdict: _Verdict, run: CaseRun, missing: list[str], got: set[str]) -> None:
    got_pages = {page_of(u): u for u in got}
    spelled = [m for m in missing if page_of(m) in got_pages]
    if spelled:
        pairs = [f"{m} (returned as {got_pages[page_of(m)]})" for m in spelled]
        verdict.add(
            f"The result misses {named(pairs)}.",
            "fragment" if any("#" in got_pages[page_of(m)] for m in spelled) else "missing",
        )
    lost = [m for m in missing if m not in spelled]
    if not lost:
        return
    fetched = {r.page for r in run.records}
    linked_by = _pages_that_returned_links(run.records)
    never = [m for m in lost if page_of(m) not in fetched]
    seen_link = [m for m in never if linked_by.get(page_of(m))]
    failed_pages = {r.page for r in run.records if r.outcome == "error"}
    verb = "is" if len(lost) == 1 else "are"
    text = f"{plural(len(lost), 'reachable page')} {verb} missing from the result: {named(lost)}."
    if seen_link:
        sources = sorted({p for m in seen_link for p in linked_by[page_of(m)]})
        text += f" Links to {named(seen_link)} were returned by {named(sources)}, but the crawl never fetched them."
    categories = ["missing"]
    if failed_pages:
        text += f" get_urls raised for {named(sorted(failed_pages))}, and the crawl lost pages after that."
        categories = ["error"]
    elif seen_link:
        categories = ["early-return"]
    verdict.add(text, *categories)


def _pages_that_returned_links(records: Iterable[FetchRecord]) -> dict[str, list[str]]:
    """page -> pages whose successful fetch returned a link to it."""
    out: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r.outcome == "ok":
            for link in r.links:
                target = page_of(link)
                if r.page not in out[target]:
                    out[target].append(r.page)
    return out


def duplicate_fetches(run: CaseRun) -> dict[str, list[FetchRecord]]:
    """Pages fetched more than once (retries of a failing page excepted)."""
    by_page: dict[str, list[FetchRecord]] = defaultdict(list)
    for r in run.records:
        by_page[r.page].append(r)
    failing = {page_of(p) for p in run.case.failing}
    out = {}
    for page, records in by_page.items():
        if len(records) < 2:
            continue
        if page in failing and len(records) <= RETRIES_ALLOWED and all(r.outcome != "ok" for r in records):
            continue
        out[page] = sorted(records, key=lambda r: (r.start, r.fetch_id))
    return out


def _add_fetch_problems(verdict: _Verdict, run: CaseRun, start_host: str, details: dict[str, Any]) -> None:
    dups = duplicate_fetches(run)
    if dups:
        index = _link_index(run)
        ordered = sorted(dups.items(), key=lambda item: (-len(item[1]), item[0]))
        details["pages_fetched_more_than_once"] = len(ordered)
        details["fetched_more_than_once"] = {
            page: {
                "times": len(records),
                "as": sorted({r.url for r in records}),
                "linked_from": _linked_before(index, records)[:DETAIL_LIMIT],
            }
            for page, records in ordered[:DETAIL_LIMIT]
        }
        sentences = []
        any_fragment = False
        for page, records in ordered[:3]:
            spellings = sorted({r.url for r in records})
            sentence = f"{page} was fetched {len(records)} times"
            if len(spellings) > 1:
                sentence += f" (as {named(spellings)})"
                any_fragment = any_fragment or any("#" in s for s in spellings)
            parents = _linked_before(index, records)
            if parents:
                together = len(parents) > 1 and _overlapping(run, parents)
                sentence += f"; it was linked from {named(parents, 3)}"
                if together:
                    sentence += ", whose fetches were in flight at the same time"
            first, second = records[0], records[1]
            if first.end is None or first.end > second.start:
                sentence += "; the second fetch started while the first was still in flight"
            sentences.append(sentence + ".")
        if len(ordered) > 3:
            extra_pages = sum(len(r) - 1 for _, r in ordered)
            sentences.append(
                f"In all {plural(len(ordered), 'page')} were fetched more than once "
                f"({plural(extra_pages, 'wasted fetch')})."
            )
        verdict.add(" ".join(sentences), "fragment" if any_fragment else "dup-fetch")
        _systematic_or_race(verdict, run, set(dups))
    off_host = [r for r in run.records if (hostname(r.url) or "") != start_host]
    if off_host:
        urls = list(dict.fromkeys(r.url for r in off_host))
        details["fetched_off_host"] = urls[:DETAIL_LIMIT]
        verdict.add(
            f"The crawl fetched {plural(len(urls), 'page')} outside {start_host}: {named(urls)}"
            f"{verdict.why_off_host(urls, start_host)}.",
            "scope",
        )


def _systematic_or_race(verdict: _Verdict, run: CaseRun, duplicated: set[str]) -> None:
    """On a case where several pages return the same links at once, tell a
    rare race (a few links fetched twice: check and add not atomic) from a
    seen set marked too late (every shared link fetched twice)."""
    case = run.case
    if not case.groups:
        return
    shared = set.intersection(*({page_of(link) for link in case.links.get(page, ())} for page in case.groups[0]))
    if len(shared) < 2:
        return
    hit = len(shared & duplicated)
    if 2 * hit >= len(shared):  # most of them: not a narrow window between two threads
        verdict.lesson_override = (
            HINTS["dup-fetch"] + f" {hit} of the {len(shared)} links both pages returned were fetched twice, "
            "far more than a rare race between threads would give: the seen set is marked too late."
        )
    else:
        verdict.problems.append(
            f"{hit} of the {len(shared)} links both pages returned were fetched twice and the rest once: "
            "the signature of two threads passing the `not in seen` check before either adds."
        )
        verdict.lesson_override = ATOMIC_HINT


def _link_index(run: CaseRun) -> dict[str, list[tuple[float, str]]]:
    """page -> (when, by which page) each successful fetch returned a link to it, in time order."""
    index: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for r in run.records:
        if r.outcome == "ok" and r.end is not None:
            for target in {page_of(link) for link in r.links}:
                index[target].append((r.end, r.page))
    for entries in index.values():
        entries.sort()
    return index


def _linked_before(index: dict[str, list[tuple[float, str]]], records: Sequence[FetchRecord]) -> list[str]:
    """Pages whose fetch had returned a link to this page before its second
    fetch started: the pages that caused the duplicate."""
    second_start = records[1].start
    parents: list[str] = []
    for end, parent in index.get(records[0].page, ()):
        if end > second_start:
            break
        if parent not in parents:
            parents.append(parent)
    return parents


def _overlapping(run: CaseRun, pages: Sequence[str]) -> bool:
    """Were fetches of two of ``pages`` in flight at the same moment?"""
    spans = [(r.start, r.end or r.start) for r in run.records if r.page in pages]
    spans.sort()
    return any(b_start < a_end for (_, a_end), (b_start, _) in itertools.pairwise(spans))


def _add_early_return(verdict: _Verdict, run: CaseRun, result: list[str], details: dict[str, Any]) -> None:
    """Signs the crawl returned before it was done: fetches in flight at the
    return (or started just after it, e.g. tasks created but never awaited),
    and pages in the result whose fetch had not completed by then."""
    already = {r.fetch_id for r in run.in_flight_at_return}
    late = [r for r in run.records if r.start > run.wall and r.fetch_id not in already]
    pending = run.in_flight_at_return + late
    if pending:
        urls = [r.url for r in pending]
        details["in_flight_at_return"] = urls[:DETAIL_LIMIT]
        verb = "was" if len(urls) == 1 else "were"
        state = "still in flight" if not late else "still in flight or about to start"
        verdict.add(
            f"The crawl returned at {run.wall:.2f} s while {plural(len(urls), 'fetch')} {verb} {state}: {named(urls)}.",
            "early-return",
        )
    completed = {
        r.page for r in run.records if r.outcome in ("ok", "error") and r.end is not None and r.end <= run.wall
    }
    start_host = hostname(run.case.start)
    unfetched = [u for u in result if page_of(u) not in completed and hostname(u) == start_host]
    if unfetched:
        details["returned_but_never_fetched"] = unfetched[:DETAIL_LIMIT]
        verb = "was" if len(unfetched) == 1 else "were"
        verdict.add(
            f"{plural(len(unfetched), 'page')} in the result {verb} never fetched: {named(unfetched)}; the crawl "
            "stopped before their fetches were done, so whatever they link to is missing.",
            "early-return",
        )


def _passed_text(run: CaseRun, expected: list[str]) -> str:
    case = run.case
    retries = len(run.records) - len({r.page for r in run.records})
    text = f"{plural(len(expected), 'page')}, each fetched once ({plural(len(run.records), 'fetch')}"
    if retries:
        text += f" counting {plural(retries, 'retry')} of a failing page"
    text += f", up to {run.peak} in flight, {run.wall:.2f} s)."
    for group in case.groups:
        pages = sorted(group)
        if group in run.groups_met:
            text += (
                f" {named(pages)} were in flight together as intended, and every page they both link was still "
                "fetched once."
            )
        else:
            text += (
                f" Not really exercised: {named(pages)} were never in flight together "
                "(the crawl fetched one page at a time)."
            )
    if case.failing:
        text += f" get_urls raised for {named(sorted(case.failing))}; the page was kept and the crawl went on."
    return text


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
    """Peak fetches in flight never above ``max_workers``, in any case."""
    over = [r for r in runs.values() if r.peak > r.case.max_workers]
    widest = max(runs.values(), key=lambda r: r.peak / r.case.max_workers)
    details = {name: {"peak": r.peak, "max_workers": r.case.max_workers} for name, r in runs.items()}
    if over:
        worst = max(over, key=lambda r: r.peak - r.case.max_workers)
        text = (
            f"Up to {worst.peak} fetches were in flight at once in {worst.case.name} with max_workers="
            f"{worst.case.max_workers} (over the limit in {named(r.case.name for r in over)}). {HINTS['workers']}"
        )
        return CheckResult(
            "max-workers",
            False,
            text,
            details,
            "correctness",
            "L4",
            "peak fetches in flight <= max_workers",
            rules="leetcode",
            cause="workers",
        )
    text = (
        f"Never more than max_workers fetches in flight (busiest: {widest.peak} of {widest.case.max_workers} "
        f"in {widest.case.name})."
    )
    return CheckResult(
        "max-workers",
        True,
        text,
        details,
        "correctness",
        "L4",
        "peak fetches in flight <= max_workers",
        rules="leetcode",
    )


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


def judge_threads_exit(runs: dict[str, CaseRun]) -> CheckResult:
    """No thread of the crawl left running the user's code after it returned."""
    title = "no thread left running after the crawl returns"
    found = findings.threads_left(runs)
    if found is None:
        return CheckResult(
            "threads-exit",
            True,
            "Every thread the crawl started had finished or was idle in a pool when it returned.",
            {},
            "correctness",
            "L5",
            title,
            rules="leetcode",
        )
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
