"""The sentences for each kind of finding (``findings.py``), and the fixes.

Kept apart from finding problems so that the words can change (or be
translated) without touching what is measured, and so that every sentence
is built from the facts a finding carries, never from a guess:

* :func:`say` -- a run-level :class:`~crawlsim.check.findings.Finding`;
* :func:`explain_failure` -- one case's problems, one sentence each, then
  the fix for each cause once (:data:`HINTS`, or the case's own lesson);
* :func:`passed` -- a case that passed, in figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from crawlsim.words import counted
from crawlsim.check.cases import hostname
from crawlsim.check.findings import (
    BadReturn,
    CleanRun,
    DuplicateFetches,
    DuplicatePage,
    Finding,
    FragmentsReturned,
    ListedTwice,
    MissedAsSpelled,
    DroppedOnHost,
    Missing,
    OffHostFetched,
    OffHostReturned,
    Problem,
    RaceCaught,
    Raised,
    Respelled,
    ReturnedInFlight,
    ReturnedUnfetched,
    RunEnded,
    SharedLinksDuplicated,
    ThreadDied,
    Unreachable,
    GENERIC_CAUSES,
    causes_of,
)


MAX_NAMED = 5
"""URLs named one by one in a sentence before ``and N more``."""




def named(items: Iterable[str], limit: int = MAX_NAMED) -> str:
    """``a, b and c`` -- at most ``limit`` names, then ``and N more``."""
    items = list(items)
    shown = items[:limit]
    if len(items) > limit:
        return ", ".join(shown) + f" and {len(items) - limit} more"
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _progress(f: dict[str, Any]) -> str:
    return f"{counted(f['fetches'], 'fetch')} so far, {f['pages_done']} of the {f['pages_expected']} pages done"


def _crash(f: dict[str, Any]) -> str:
    return f"No result: {f['message']} during this case."


def _stuck(f: dict[str, Any]) -> str:
    if not f["fetches"]:  # nothing to wait for yet: it spins, or waits before its first fetch
        return (
            f"The crawl did not return and never called get_urls in {f['stopped_after']:.2f} s: it is busy or "
            "waiting before its first fetch (a loop that spins without fetching, or a wait for something nothing "
            "has started)."
        )
    since = f" since {f['last_fetch_end']:.2f} s" if f["last_fetch_end"] is not None else " at all"
    text = (
        f"The crawl did not return and stopped making progress: no fetch was started or in flight{since} "
        f"(stopped after {f['stopped_after']:.2f} s; {_progress(f)})"
    )
    if f["in_flight"]:
        text += f"; {counted(len(f['in_flight']), 'fetch')} in flight then: {named(f['in_flight'])}"
    return text + "."


def _too_slow(f: dict[str, Any]) -> str:
    return (
        f"Too slow: still fetching at the {f['deadline']:g} s deadline (three times a sequential crawl of this "
        f"case, plus time for the crawler's own work), after {_progress(f)}; up to {f['peak']} of max_workers="
        f"{f['max_workers']} fetches ran at once, {f['mean']:.1f} on average."
    )


def _workers_quit(f: dict[str, Any]) -> str:
    return (
        f"{f['quit']} of the {f['started']} threads the crawl started quit by {f['first_quit']:.2f} s while "
        f"fetches went on until {f['last_fetch_start']:.2f} s: a worker that stops when the queue is empty for a "
        "moment (queue.get(timeout=...) then return) leaves the rest of the crawl to the few left. An empty queue "
        "is not the end while fetches are in flight: stop workers only when the crawl is done."
    )


def _narrow_pool(f: dict[str, Any]) -> str:
    return (
        f"Only {f['peak']} of {f['max_workers']} workers ever ran at once ({f['mean']:.1f} on average): size the "
        "pool from max_workers, not a constant."
    )


def _threads_left(f: dict[str, Any]) -> str:
    """Said only of cases whose call came back (``findings.threads_left``);
    the ones that did not return are named as not counted."""
    verb = "was" if f["threads"] == 1 else "were"
    aside = f"; not counted: {named(f['not_returned'])}, which did not return" if f["not_returned"] else ""
    return (
        f"After the crawl {f['ended']}, {counted(f['threads'], 'thread')} it started {verb} still "
        f"running (in {f['case']}: {f['thread']} at {f['where']}; in {f['cases']} of {f['of_cases']} cases{aside}). "
        "Python waits for such threads at exit (they are not daemon threads, or are busy in a thread pool), so a "
        "program that calls this crawl prints its answer and never exits. Stop the workers when the crawl is done "
        "(a sentinel per worker, or pool work items that return)."
    )


def _race_caught(f: dict[str, Any]) -> str:
    """The race the explorer caught; under ``--seed N`` (one schedule
    replayed) it says so, not how many schedules it explored."""
    cost, head, tail = "", f"Caught with seed {f['seed']}", f" Replay it with --seed {f['seed']}."
    if f.get("replayed"):
        head, tail = f"Caught replaying seed {f['seed']}", ""
        cost = f" (in {f['seconds']:g} s)" if f.get("seconds") is not None else ""
    elif f.get("schedules") is not None and f.get("seconds") is not None:
        cost = f" (explored {f['schedules']} schedules in {f['seconds']:g} s)"
    if f.get("text"):
        return f"{head}{cost}: {f['text']}.{tail}"
    steps = f["switches"][-6:]
    shown = "; ".join(f"{thread} at line {line}: `{str(text).strip()}`" for thread, _file, line, text in steps)
    return (
        f"{head}{cost}: {named(f['pages'])} fetched twice under a controlled interleaving"
        + (f" ({shown})" if shown else "")
        + f".{tail}"
    )


SENTENCES: dict[str, Callable[[dict[str, Any]], str]] = {
    "crash": _crash,
    "stuck": _stuck,
    "too-slow": _too_slow,
    "workers-quit": _workers_quit,
    "narrow-pool": _narrow_pool,
    "threads-left": _threads_left,
    "race-caught": _race_caught,
}


def say(finding: Finding) -> str:
    """The finding in plain words."""
    return SENTENCES[finding.kind](finding.facts)


# ---------------------------------------------------------------- the fixes

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
    "narrow-scope": (
        "Keep a link when urlsplit(link).hostname equals the start URL's hostname, wherever its path leads: "
        "every page of the start host is in scope."
    ),
    "prefix-scope": (
        "Compare hostnames, not prefixes: link.startswith(start_url) turns away every page of the start host "
        "outside the start URL's path. Keep a link when urlsplit(link).hostname equals the start URL's hostname."
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
        "A crawl that stops making progress without returning waits for work that will not come (a "
        "queue.join() whose task_done() is skipped when a fetch raises, a worker thread that died, a lock "
        "never released) or spins in a loop that neither fetches nor waits."
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
"""The fix for each cause, shown once per check however many problems call for it."""

ATOMIC_HINT = (
    "Two threads passed the `not in seen` check for the same URL before either added it: the check and "
    "the add must be one step. Hold one lock around both (and the submit), or let a single coordinator "
    "thread own the seen set and decide every submit."
)
"""The fix when the evidence is a narrow race between check and add, not a
seen set marked too late (where the case's own lesson is the fix)."""

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


def _lesson_override(problems: Sequence[Problem]) -> str | None:
    """The fix to show instead of the case's lesson when the evidence points
    elsewhere: shared links fetched twice tell "marked seen too late" from
    "check and add not one step"; a race only the explorer's controlled
    switch shows (the timed run fetched nothing twice) is a missing lock."""
    override: str | None = None
    for problem in problems:
        if isinstance(problem, SharedLinksDuplicated):
            if problem.systematic:
                override = (
                    HINTS["dup-fetch"] + f" {problem.hit} of the {problem.shared} links both pages returned were "
                    "fetched twice, far more than a rare race between threads would give: the seen set is marked "
                    "too late."
                )
            else:
                override = ATOMIC_HINT
        elif isinstance(problem, RaceCaught) and override is None and not problem.timed_run_duplicated:
            override = ATOMIC_HINT
    return override


def hints(case_name: str, lesson: str, problems: Sequence[Problem]) -> list[str]:
    """The fixes the problems call for, each once: the case's lesson (or what
    the evidence says instead) for the cause the case was built to expose,
    the general fix for any other.  "A page is missing" adds nothing to a
    specific fix, so the generic causes count only when alone."""
    focus = set(FOCUS.get(case_name, ()))
    override = _lesson_override(problems)
    causes = causes_of(tuple(problems))
    specific = [c for c in causes if c not in GENERIC_CAUSES] or causes
    out: list[str] = []
    for cause in specific:
        hint = (override or lesson) if cause in focus else HINTS.get(cause, "")
        if hint and hint not in out:
            out.append(hint)
    return out


# ---------------------------------------------------------------- one case's problems


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


class _CaseWriter:
    """Writes one case's problems in order.  It remembers which hosts it has
    already explained, so a look-alike host named in two sentences is
    explained once."""

    def __init__(self) -> None:
        self.explained_hosts: set[str] = set()

    def why_off_host(self, urls: Sequence[str], start_host: str) -> str:
        """`` (why)`` for the URLs whose host this case has not explained yet."""
        reasons = []
        for url in urls[:MAX_NAMED]:
            # keyed by hostname, not host_key: the sentence explains why a
            # *hostname* is not the start's (the interview's scope rule)
            host = hostname(url) or url
            if host not in self.explained_hosts:
                self.explained_hosts.add(host)
                reasons.append(host_relation(url, start_host))
        return f" ({'; '.join(reasons)})" if reasons else ""

    def sentence(self, problem: Problem) -> str | None:
        """The problem in words (``None``: it only changes which fix is shown)."""
        if isinstance(problem, (OffHostReturned, OffHostFetched)):
            return self._off_host(problem)
        return _SENTENCE[type(problem)](problem)  # type: ignore[operator]

    def _off_host(self, problem: OffHostReturned | OffHostFetched) -> str:
        urls = problem.urls
        why = self.why_off_host(urls, problem.start_host)
        if isinstance(problem, OffHostReturned):
            return f"The result has {counted(len(urls), 'page')} on other hosts: {named(urls)}{why}."
        return f"The crawl fetched {counted(len(urls), 'page')} outside {problem.start_host}: {named(urls)}{why}."


def problem_sentences(problems: Sequence[Problem]) -> list[str]:
    """One sentence per problem, in order."""
    writer = _CaseWriter()
    return [text for text in map(writer.sentence, problems) if text is not None]


def explain_failure(case_name: str, lesson: str, problems: Sequence[Problem]) -> str:
    """A failed case's explanation: what went wrong, then how to fix it."""
    return " ".join(problem_sentences(problems) + hints(case_name, lesson, problems))


def _raised(p: Raised) -> str:
    text = f"The crawl raised {p.error}."
    if p.error_type == "SimulatedFetchError":
        text += (
            f" get_urls raised for {named(p.failed_urls)} (the service does that on purpose) and the "
            "exception ended the whole crawl."
        )
    return text


def _unreachable(p: Unreachable) -> str:
    text = f"The result has {counted(len(p.urls), 'page')} that the start host's pages do not lead to: {named(p.urls)}"
    if p.via:
        text += f" (reached only through {named(p.via)}, which {'is' if len(p.via) == 1 else 'are'} out of scope)"
    return text + "."


def _missed_as_spelled(p: MissedAsSpelled) -> str:
    return f"The result misses {named(f'{m} (returned as {got})' for m, got in p.pairs)}."


def _dropped_on_host(p: DroppedOnHost) -> str:
    """Says only the evidence the finding carries: it went on fetching, it
    stayed a while before returning, every page fetched has the start URL as
    a prefix."""
    them = "it" if len(p.urls) == 1 else "them"
    evidence = []
    if p.went_on:
        evidence.append("went on fetching other pages afterwards")
    if p.lingered is not None:
        evidence.append(f"returned {p.lingered:.2f} s later with nothing in flight")
    after = f"; the crawl {' and '.join(evidence)}" if evidence else ""
    text = (
        f"{named(p.urls)}, on {hostname(p.start)} like the start URL, {'was' if len(p.urls) == 1 else 'were'} "
        f"linked from {named(p.linked_by, 3)} and never fetched{after}: its scope test turned {them} away."
    )
    if p.prefix:
        text += f" Every URL it fetched starts with {p.start} and none of these does."
    return text


def _missing(p: Missing) -> str:
    verb = "is" if len(p.urls) == 1 else "are"
    text = f"{counted(len(p.urls), 'reachable page')} {verb} missing from the result: {named(p.urls)}."
    if p.never_fetched_but_linked:
        text += (
            f" Links to {named(p.never_fetched_but_linked)} were returned by {named(p.linked_by)}, "
            "but the crawl never fetched them."
        )
    if p.failed:
        text += f" get_urls raised for {named(p.failed)}, and the crawl lost pages after that."
    return text


def _duplicate_page(d: DuplicatePage) -> str:
    sentence = f"{d.page} was fetched {d.times} times"
    if len(d.spellings) > 1:
        sentence += f" (as {named(d.spellings)})"
    if d.linked_from:
        sentence += f"; it was linked from {named(d.linked_from, 3)}"
        if d.parents_overlapped:
            sentence += ", whose fetches were in flight at the same time"
    if d.second_while_first:
        sentence += "; the second fetch started while the first was still in flight"
    return sentence + "."


def _duplicates(p: DuplicateFetches) -> str:
    sentences = [_duplicate_page(d) for d in p.shown]
    if p.pages > len(p.shown):
        sentences.append(
            f"In all {counted(p.pages, 'page')} were fetched more than once ({counted(p.wasted, 'wasted fetch')})."
        )
    return " ".join(sentences)


def _shared_links(p: SharedLinksDuplicated) -> str | None:
    if p.systematic:
        return None  # the fix shown says it (see _lesson_override)
    return (
        f"{p.hit} of the {p.shared} links both pages returned were fetched twice and the rest once: "
        "the signature of two threads passing the `not in seen` check before either adds."
    )


def _in_flight(p: ReturnedInFlight) -> str:
    verb = "was" if len(p.urls) == 1 else "were"
    state = "still in flight" if not p.late else "still in flight or about to start"
    return f"The crawl returned at {p.wall:.2f} s while {counted(len(p.urls), 'fetch')} {verb} {state}: {named(p.urls)}."


def _unfetched(p: ReturnedUnfetched) -> str:
    verb = "was" if len(p.urls) == 1 else "were"
    return (
        f"{counted(len(p.urls), 'page')} in the result {verb} never fetched: {named(p.urls)}; the crawl "
        "stopped before their fetches were done, so whatever they link to is missing."
    )


def _died(p: ThreadDied) -> str:
    more = f" (and {p.others} more)" if p.others else ""
    return f"A thread of the crawl died{more}: {p.death}."


_SENTENCE: dict[type, Callable[[Any], str | None]] = {
    RunEnded: lambda p: say(p.found),
    Raised: _raised,
    BadReturn: lambda p: f"The crawl returned {p.what}.",
    ListedTwice: lambda p: f"The result lists {named(p.urls)} more than once.",
    FragmentsReturned: lambda p: (
        f"The result has {counted(len(p.urls), 'URL')} with a #fragment: {named(p.urls)}; "
        "a fragment is a part of the same page, not another page."
    ),
    Respelled: lambda p: f"The result spells {named(p.urls)} differently from the links that lead there.",
    Unreachable: _unreachable,
    MissedAsSpelled: _missed_as_spelled,
    DroppedOnHost: _dropped_on_host,
    Missing: _missing,
    DuplicateFetches: _duplicates,
    SharedLinksDuplicated: _shared_links,
    ReturnedInFlight: _in_flight,
    ReturnedUnfetched: _unfetched,
    RaceCaught: lambda p: say(p.found),
    ThreadDied: _died,
}
"""The sentence for each kind of problem (off-host ones need the writer's memory)."""


# ---------------------------------------------------------------- a case that passed


def passed(clean: CleanRun, died: ThreadDied | None) -> str:
    """A passing case's summary: pages, fetches, overlap, and what its
    special pages (groups meant to overlap, pages that raise) showed."""
    text = f"{counted(clean.pages, 'page')}, each fetched once ({counted(clean.fetches, 'fetch')}"
    if clean.retries:
        text += f" counting {counted(clean.retries, 'retry')} of a failing page"
    text += f", up to {clean.peak} in flight, {clean.wall:.2f} s)."
    for pages, met in clean.groups:
        if met:
            text += (
                f" {named(pages)} were in flight together as intended, and every page they both link was still "
                "fetched once."
            )
        else:
            text += (
                f" Not really exercised: {named(pages)} were never in flight together "
                "(the crawl fetched one page at a time)."
            )
    if clean.failing:
        text += f" get_urls raised for {named(clean.failing)}; the page was kept and the crawl went on."
    if died is not None:
        more = f" (and {died.others} more)" if died.others else ""
        text += f" It passed, but a thread of the crawl died{more}: {died.death}."
    if clean.explorer_limit:
        text += (
            f" The interleaving explorer could not run this crawl one thread at a time ({clean.explorer_limit}), "
            "so this verdict rests on the run on real threads: a limit of the checker, not a fault in your code."
        )
    return text
