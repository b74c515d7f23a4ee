"""What went wrong in one case run, found as data.

Each finder looks at one aspect of a :class:`CaseRun` (how it ended, the
result, the fetches, the moment it returned, the race explorer's catch, dead
threads) and returns an :class:`Observation`: the problems it found (the
dataclasses of ``findings.py``) and the figures the JSON report's
``details`` carries for that aspect.  Nothing here writes a sentence
(``words.py`` does) and nothing fills a dict it was handed: the judge joins
the observations in order, and that order is the order the report's
explanation and ``details`` read in.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from crawlsim.check import findings
from crawlsim.check.cases import Case, expected_pages, hostname, in_scope, page_of
from crawlsim.check.findings import (
    BadReturn,
    CleanRun,
    DuplicateFetches,
    DroppedOnHost,
    DuplicatePage,
    FragmentsReturned,
    ListedTwice,
    MissedAsSpelled,
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
)
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord

DETAIL_LIMIT = 20
"""At most this many entries per list in a check's details (the JSON stays readable)."""
LINGER = 0.5
"""Seconds a crawl ran on after a link came back, then returned without
fetching it: long enough that it had the link and turned it away."""
RETRIES_ALLOWED = 5
"""A page may be retried this many times without its retries counting as
duplicate fetches (retrying is an L6 extension, not a bug; the ``retries``
round judges how often)."""

Details = tuple[tuple[str, Any], ...]
"""Ordered ``(key, value)`` pairs for a check's ``details``."""


@dataclass(frozen=True)
class Observation:
    """What one finder saw: problems, and the figures behind them."""

    details: Details = ()
    problems: tuple[Problem, ...] = ()

    def __add__(self, other: Observation) -> Observation:
        return Observation(self.details + other.details, self.problems + other.problems)


NOTHING = Observation()


def details_dict(details: Details) -> dict[str, Any]:
    """The pairs as the report's dict; the run-level ``findings`` of several
    finders (a timeout, then a race) share one list, placed where the first was."""
    out: dict[str, Any] = {}
    for key, value in details:
        if key == "findings":
            out[key] = out.get(key, []) + value
        else:
            out[key] = value
    return out


def observe(run: CaseRun) -> Observation:
    """Every problem of one correctness case, in the order the report tells them.

    The last problem, a dead thread, is only added when something else went
    wrong: a crawl that passed despite a dead thread says so in its summary."""
    case = run.case
    start_host = hostname(case.start) or ""
    seen = _figures(run)
    result: list[str] | None = None
    if run.timed_out:
        seen += _ended(run)
    elif run.error is not None:
        seen += _raised(run)
    else:
        result = run.result
        seen += _returned(run, start_host)
    dups = duplicate_fetches(run)
    seen += _fetches(run, dups, start_host)
    if result is not None:
        seen += _returned_early(run, result)
    seen += _race(run, bool(dups))
    died = thread_died(run)
    if died is None:
        return seen
    seen += Observation((("thread_deaths", [str(d) for d in run.thread_deaths]),))
    return seen + Observation(problems=(died,)) if seen.problems else seen


def _figures(run: CaseRun) -> Observation:
    """The figures every case reports, pass or fail."""
    return Observation(
        (
            ("case", run.case.title),
            ("expected_pages", len(expected_pages(run.case))),
            ("fetches", len(run.records)),
            ("max_workers", run.case.max_workers),
            ("peak_in_flight", run.peak),
            ("seconds", round(run.wall, 4)),
        )
    )


def _ended(run: CaseRun) -> Observation:
    """A crawl that did not return: crashed, stuck or too slow (``findings.how_it_ended``)."""
    found = findings.how_it_ended(run)
    details: Details = (("timed_out_after_s", run.timeout),)
    if found is None:
        return Observation(details)
    return Observation(details + (("findings", [found.to_dict()]),), (RunEnded(found),))


def _raised(run: CaseRun) -> Observation:
    """A crawl that raised; a SimulatedFetchError names the pages that raised it."""
    error = run.error
    assert error is not None
    failed = [r.url for r in run.records if r.outcome == "error"] if error.type == "SimulatedFetchError" else []
    return Observation(
        (("exception", {"type": error.type, "message": error.message, "where": error.where}),),
        (Raised(str(error), error.type, tuple(dict.fromkeys(failed))),),
    )


def _returned(run: CaseRun, start_host: str) -> Observation:
    """What is wrong with what the crawl returned: not a list, a URL listed
    twice, pages that do not belong, pages that are missing."""
    if run.bad_return:
        return Observation(problems=(BadReturn(run.bad_return),))
    result = run.result
    if result is None:
        return NOTHING
    expected = set(expected_pages(run.case))
    got = set(result)
    twice = sorted(url for url, n in Counter(result).items() if n > 1)
    extra = sorted(got - expected)
    missing = sorted(expected - got)
    seen = Observation((("returned_pages", len(result)),))
    if twice:
        seen += Observation((("listed_twice", twice),), (ListedTwice(tuple(twice)),))
    if extra:
        seen += Observation((("extra", extra[:DETAIL_LIMIT]),), _extra(run.case, extra, expected, start_host))
    if missing:
        seen += Observation((("missing", missing[:DETAIL_LIMIT]),), _missing(run, missing, got))
    return seen


def _extra(case: Case, extra: list[str], expected: set[str], start_host: str) -> tuple[Problem, ...]:
    """Why each returned URL that is not expected is there: a fragment, another
    host, another spelling of an expected page, or a page reached through an
    out-of-scope one."""
    with_fragment, other_host, spelled, unreachable = _sort_extra(case, extra, expected)
    found: list[Problem] = []
    if with_fragment:
        found.append(FragmentsReturned(tuple(with_fragment)))
    if other_host:
        found.append(OffHostReturned(tuple(other_host), start_host))
    if spelled:
        found.append(Respelled(tuple(spelled)))
    if unreachable:
        via = _linked_only_from_out_of_scope(case, unreachable)
        found.append(Unreachable(tuple(unreachable), tuple(via)))
    return tuple(found)


def _sort_extra(
    case: Case, extra: list[str], expected: set[str]
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The unexpected URLs, each in the first group that explains it: with a
    #fragment, on another host, an expected page spelled otherwise, or none of these."""
    with_fragment = [u for u in extra if "#" in u]
    other_host = [u for u in extra if "#" not in u and not in_scope(case, u)]
    rest = [u for u in extra if u not in with_fragment and u not in other_host]
    expected_pages_ = {page_of(e) for e in expected}
    spelled = [u for u in rest if page_of(u) in expected_pages_]
    return with_fragment, other_host, spelled, [u for u in rest if u not in spelled]


def _linked_only_from_out_of_scope(case: Case, urls: Sequence[str]) -> list[str]:
    """Out-of-scope pages of the case's web that link to ``urls``."""
    targets = {page_of(u) for u in urls}
    parents = [
        page
        for page, links in case.links.items()
        if not in_scope(case, page) and any(page_of(link) in targets for link in links)
    ]
    return sorted(parents)


def _missing(run: CaseRun, missing: list[str], got: set[str]) -> tuple[Problem, ...]:
    """Expected pages the result lacks: returned under another spelling, or
    lost (linked but never fetched, or lost after a get_urls that raised)."""
    got_pages = {page_of(u): u for u in got}
    spelled = [m for m in missing if page_of(m) in got_pages]
    lost = [m for m in missing if m not in spelled]
    found: list[Problem] = []
    if spelled:
        found.append(MissedAsSpelled(tuple((m, got_pages[page_of(m)]) for m in spelled)))
    if lost:
        found.extend(_lost(run, lost))
    return tuple(found)


def _lost(run: CaseRun, lost: list[str]) -> tuple[Problem, ...]:
    """Reachable pages missing under any spelling, with what explains the
    loss: links the crawl turned away while it went on (its scope test),
    links to them that were never fetched, fetches that raised."""
    fetched = {r.page for r in run.records}
    linked_by = _pages_that_returned_links(run.records)
    seen_link = [m for m in lost if page_of(m) not in fetched and linked_by.get(page_of(m))]
    dropped = _dropped(run, seen_link)
    unfollowed = [m for m in seen_link if m not in dropped]
    sources = sorted({p for m in unfollowed for p in linked_by[page_of(m)]})
    failed = sorted({r.page for r in run.records if r.outcome == "error"})
    missing = Missing(tuple(lost), tuple(unfollowed), tuple(sources), tuple(failed))
    return (missing, _dropped_on_host(run, dropped, linked_by)) if dropped else (missing,)


def _dropped(run: CaseRun, linked: list[str]) -> list[str]:
    """Of pages linked and never fetched, those the crawl turned away.  It
    returned with nothing in flight (an early return leaves fetches in
    flight), and either every page it fetched starts with the start URL
    while none of these does, or after the link came back it started other
    fetches or stayed ``LINGER`` seconds before returning: it had the link
    and did not follow it (an early return stops as the link arrives)."""
    if run.in_flight_at_return or not linked:
        return []
    if _prefix_scope(run, linked):
        return linked
    went_on, lingered = _after_the_links(run, linked)
    return [m for m in linked if went_on.get(m) or lingered.get(m) is not None]


def _after_the_links(run: CaseRun, linked: Sequence[str]) -> tuple[dict[str, bool], dict[str, float | None]]:
    """For each linked page: whether a fetch started after the first link to
    it came back, and how long the crawl stayed after it (when ``LINGER`` or more)."""
    index = _link_index(run)
    last_start = max((r.start for r in run.records if r.start <= run.wall), default=0.0)
    arrived = {m: index[page_of(m)][0][0] for m in linked if index.get(page_of(m))}
    went_on = {m: at < last_start for m, at in arrived.items()}
    lingered = {m: round(run.wall - at, 2) if run.wall - at >= LINGER else None for m, at in arrived.items()}
    return went_on, lingered


def _prefix_scope(run: CaseRun, urls: Sequence[str]) -> bool:
    """Every URL fetched starts with the start URL and none of ``urls`` does."""
    start = run.case.start
    return all(r.url.startswith(start) for r in run.records) and not any(u.startswith(start) for u in urls)


def _dropped_on_host(run: CaseRun, dropped: list[str], linked_by: dict[str, list[str]]) -> DroppedOnHost:
    """The turned-away pages, and whether the scope test reads as a prefix of the start URL."""
    parents = sorted({p for m in dropped for p in linked_by[page_of(m)]})
    went_on, lingered = _after_the_links(run, dropped)
    stayed = [s for s in lingered.values() if s is not None]
    return DroppedOnHost(
        tuple(dropped),
        tuple(parents),
        run.case.start,
        _prefix_scope(run, dropped),
        any(went_on.values()),
        min(stayed) if stayed else None,
    )


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
    """Pages fetched more than once, not counting retries: a call that
    starts after the page's previous call failed is a retry (up to
    ``RETRIES_ALLOWED`` of them), whatever the page is."""
    by_page: dict[str, list[FetchRecord]] = defaultdict(list)
    for r in run.records:
        by_page[r.page].append(r)
    out = {}
    for page, records in by_page.items():
        records = sorted(records, key=lambda r: (r.start, r.fetch_id))
        retries = sum(1 for before, after in itertools.pairwise(records) if _retried(before, after))
        if len(records) - retries >= 2 or retries > RETRIES_ALLOWED:
            out[page] = records
    return out


def _retried(before: FetchRecord, after: FetchRecord) -> bool:
    """``after`` is a retry of ``before``: it started once ``before`` had failed."""
    return before.outcome == "error" and before.end is not None and before.end <= after.start


def _fetches(run: CaseRun, dups: dict[str, list[FetchRecord]], start_host: str) -> Observation:
    """Problems with the fetches themselves: pages fetched twice, pages
    fetched on another host."""
    seen = _duplicates(run, dups) if dups else NOTHING
    off_host = list(dict.fromkeys(r.url for r in run.records if not in_scope(run.case, r.url)))
    if off_host:
        seen += Observation(
            (("fetched_off_host", off_host[:DETAIL_LIMIT]),), (OffHostFetched(tuple(off_host), start_host),)
        )
    return seen


def _duplicates(run: CaseRun, dups: dict[str, list[FetchRecord]]) -> Observation:
    """Pages fetched more than once, most-fetched first, each with the pages
    that linked it before its second fetch; then, on a race case, whether the
    pattern says "marked seen too late" or "check and add not atomic"."""
    index = _link_index(run)
    ordered = sorted(dups.items(), key=lambda item: (-len(item[1]), item[0]))
    listed = tuple(_duplicate_page(run, index, page, records) for page, records in ordered[:DETAIL_LIMIT])
    details: Details = (
        ("pages_fetched_more_than_once", len(ordered)),
        (
            "fetched_more_than_once",
            {
                d.page: {"times": d.times, "as": list(d.spellings), "linked_from": list(d.linked_from[:DETAIL_LIMIT])}
                for d in listed
            },
        ),
    )
    wasted = sum(len(records) - 1 for _, records in ordered)
    found: list[Problem] = [DuplicateFetches(listed, len(ordered), wasted)]
    shared = _shared_links_duplicated(run.case, set(dups))
    if shared is not None:
        found.append(shared)
    return Observation(details, tuple(found))


def _duplicate_page(
    run: CaseRun, index: dict[str, list[tuple[float, str]]], page: str, records: list[FetchRecord]
) -> DuplicatePage:
    """One duplicated page's evidence: its spellings, the pages that linked
    it before the second fetch, and whether the fetches overlapped."""
    parents = _linked_before(index, records)
    first, second = records[0], records[1]
    return DuplicatePage(
        page=page,
        times=len(records),
        spellings=tuple(sorted({r.url for r in records})),
        linked_from=tuple(parents),
        parents_overlapped=len(parents) > 1 and _overlapping(run, parents),
        second_while_first=first.end is None or first.end > second.start,
    )


def _shared_links_duplicated(case: Case, duplicated: set[str]) -> SharedLinksDuplicated | None:
    """On a case where several pages return the same links at once, how many
    of those shared links were fetched twice (to tell a rare race from a
    seen set marked too late)."""
    if not case.groups:
        return None
    shared = set.intersection(*({page_of(link) for link in case.links.get(page, ())} for page in case.groups[0]))
    if len(shared) < 2:
        return None
    return SharedLinksDuplicated(len(shared & duplicated), len(shared))


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


def _returned_early(run: CaseRun, result: list[str]) -> Observation:
    """Signs the crawl returned before it was done: fetches in flight at the
    return (or started just after it, e.g. tasks created but never awaited),
    and pages in the result whose fetch had not completed by then."""
    already = {r.fetch_id for r in run.in_flight_at_return}
    late = [r for r in run.records if r.start > run.wall and r.fetch_id not in already]
    pending = [r.url for r in run.in_flight_at_return + late]
    seen = NOTHING
    if pending:
        seen += Observation(
            (("in_flight_at_return", pending[:DETAIL_LIMIT]),),
            (ReturnedInFlight(tuple(pending), run.wall, bool(late)),),
        )
    completed = {
        r.page for r in run.records if r.outcome in ("ok", "error") and r.end is not None and r.end <= run.wall
    }
    unfetched = [u for u in result if page_of(u) not in completed and in_scope(run.case, u)]
    if unfetched:
        seen += Observation(
            (("returned_but_never_fetched", unfetched[:DETAIL_LIMIT]),), (ReturnedUnfetched(tuple(unfetched)),)
        )
    return seen


def _race(run: CaseRun, timed_run_duplicated: bool) -> Observation:
    """What the interleaving explorer caught (see ``races.py``), and whether
    the timed run on real threads showed the duplicate too."""
    if not run.race:
        return NOTHING
    details: Details = (("race", run.race),)
    if "limit" in run.race:  # nothing caught; the explorer's limit is said on the pass (clean_run)
        return Observation(details)
    found = findings.race_caught(run)
    if found is None:
        return Observation(details)
    return Observation(details + (("findings", [found.to_dict()]),), (RaceCaught(found, timed_run_duplicated),))


def thread_died(run: CaseRun) -> ThreadDied | None:
    """The first exception that killed one of the crawl's threads, and what it
    points to: a failing get_urls, a hang (the dead worker held the crawl), or lost pages."""
    if not run.thread_deaths:
        return None
    death = run.thread_deaths[0]
    cause = "error" if death.type == "SimulatedFetchError" else "timeout" if run.timed_out else "missing"
    return ThreadDied(str(death), len(run.thread_deaths) - 1, cause)


def clean_run(run: CaseRun) -> CleanRun:
    """The figures of a case that passed."""
    case = run.case
    return CleanRun(
        pages=len(expected_pages(case)),
        fetches=len(run.records),
        retries=len(run.records) - len({r.page for r in run.records}),
        peak=run.peak,
        wall=run.wall,
        groups=tuple((tuple(sorted(group)), group in run.groups_met) for group in case.groups),
        failing=tuple(sorted(case.failing)),
        explorer_limit=run.race.get("limit") if run.race else None,
    )
