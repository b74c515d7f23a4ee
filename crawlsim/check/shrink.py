"""Shrink a failing case to the smallest web that still fails the same way.

Why: a race caught on forty-two pages and four workers is hard to follow;
the same race on four pages and two workers is a picture.  Concurrency
testers people trust (Lincheck, Shuttle, QuickCheck's shrinkers) show the
failure shrunk, so this does too.

A case's web is its start page plus its links, numbered in the case's own
order (:func:`case_links`): a shrunk web is a set of those numbers and a
worker count, so it is rebuilt exactly from the case's name (the schedule
string of ``replay.py``).  The search is greedy delta debugging (Zeller's
ddmin, complements only): drop chunks of links, halving the chunks until
single links, keeping every drop after which the crawl still fails; fewer
workers are tried first and again at the end.  Each try is one rerun of the
failure test, and the reruns are bounded (``SHRINK_BUDGET``): when the
budget runs out, the smallest failing web found so far is kept, and said so.

hypothesis's shrinker was considered: it shrinks the choice sequence of a
test's data generator, so it would need the webs generated through
hypothesis strategies and its database and health checks switched off in
the checker's child process; the web here is a plain set of links, which
ddmin shrinks directly, with a deterministic, countable cost.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from crawlsim.check.cases import Case, defrag

SHRINK_BUDGET = 64
"""Reruns of the failure test one shrink may make."""

Link = tuple[str, str]
"""One link: (page, link as written)."""
Fails = Callable[[tuple[int, ...], int], bool]
"""Whether the crawl still fails the same way on (link numbers, workers)."""


@dataclass(frozen=True)
class Shrunk:
    """The smallest failing web found, and what finding it cost."""

    links: tuple[int, ...]
    """The case's link numbers kept (see :func:`case_links`)."""
    workers: int
    reruns: int
    budget_ran_out: bool


def case_links(case: Case) -> list[Link]:
    """Every link of the case's web, numbered by position: pages in the
    case's order, each page's links as written."""
    return [(page, link) for page, links in case.links.items() for link in links]


def web_of(case: Case, kept: Iterable[int]) -> dict[str, list[str]]:
    """The web the kept link numbers make: page -> links, in the case's order."""
    every = case_links(case)
    web: dict[str, list[str]] = {}
    for index in sorted(set(kept)):
        page, link = every[index]
        web.setdefault(page, []).append(link)
    return web


def pages_of(case: Case, kept: Iterable[int]) -> int:
    """How many pages the kept links name, the start page included."""
    every = case_links(case)
    return len({case.start, *(defrag(every[index][1]) for index in kept)})


def depths(case: Case, kept: Iterable[int]) -> dict[str, int]:
    """Each page the kept links reach from the start page, at its link distance."""
    every = case_links(case)
    by_page: dict[str, list[str]] = {}
    for index in sorted(set(kept)):
        by_page.setdefault(every[index][0], []).append(defrag(every[index][1]))
    depth, todo = {case.start: 0}, deque([case.start])
    while todo:
        page = todo.popleft()
        for link in by_page.get(page, ()):
            if link not in depth:
                depth[link] = depth[page] + 1
                todo.append(link)
    return depth


def reachable(case: Case, kept: Iterable[int]) -> tuple[int, ...]:
    """The kept links whose page the crawl can reach from the start: the
    others change nothing, so they are dropped without a rerun."""
    kept = sorted(set(kept))
    depth = depths(case, kept)
    every = case_links(case)
    return tuple(index for index in kept if every[index][0] in depth)


class _Search:
    """The reruns one shrink makes, counted, each web tried once."""

    def __init__(self, case: Case, fails: Fails, budget: int) -> None:
        self.case, self.fails, self.budget = case, fails, budget
        self.reruns = 0
        self.tried: dict[tuple[tuple[int, ...], int], bool] = {}

    @property
    def spent(self) -> bool:
        return self.reruns >= self.budget

    def still_fails(self, kept: Iterable[int], workers: int) -> bool:
        key = (reachable(self.case, kept), workers)
        if key not in self.tried:
            if self.spent:
                return False
            self.reruns += 1
            self.tried[key] = self.fails(*key)
        return self.tried[key]


def shrink(case: Case, fails: Fails, page: str, budget: int = SHRINK_BUDGET, *, known: bool = True) -> Shrunk | None:
    """The smallest web of ``case`` (fewest workers, then fewest links) on
    which ``fails`` still holds, within ``budget`` reruns.  The first guess
    is the web of two pages linking ``page``, the page the failure fetched
    twice (:func:`two_parents`); the search goes on from there, or else
    from the whole web, which fails (``known``) -- when that is not known,
    a guess that passes ends the search with ``None``."""
    search = _Search(case, fails, budget)
    kept = reachable(case, range(len(case_links(case))))
    guess = two_parents(case, kept, page)
    if search.still_fails(guess, case.max_workers):
        kept = guess
    elif not known:
        return None
    workers = _fewest_workers(search, kept, case.max_workers)
    kept = _fewest_links(search, kept, workers)
    workers = _fewest_workers(search, kept, workers)
    return Shrunk(kept, workers, search.reruns, search.spent)


def two_parents(case: Case, kept: tuple[int, ...], page: str) -> tuple[int, ...]:
    """The links of a shortest path to each of the two shallowest pages
    that link ``page``, and their links to it: a page linked from two
    pages is what a duplicate fetch needs."""
    every = case_links(case)
    depth = depths(case, kept)
    into = sorted((depth[every[i][0]], i) for i in kept if defrag(every[i][1]) == page and every[i][0] in depth)
    chosen = [i for _, i in into[:2]]
    wanted = {every[i][0] for i in chosen}
    for level in range(max((depth[p] for p in wanted), default=0), 0, -1):
        for index in kept:
            source, target = every[index][0], defrag(every[index][1])
            if target in wanted and depth[target] == level and depth.get(source) == level - 1:
                chosen.append(index)
                wanted.add(source)
    return reachable(case, chosen)


def _fewest_workers(search: _Search, kept: tuple[int, ...], workers: int) -> int:
    """The smallest worker count below ``workers`` that still fails (tried from one up)."""
    return next((w for w in range(1, workers) if search.still_fails(kept, w)), workers)


def _fewest_links(search: _Search, kept: tuple[int, ...], workers: int) -> tuple[int, ...]:
    """ddmin over the links: drop a chunk when the crawl still fails without
    it; when no chunk can go, halve the chunks, down to single links."""
    chunks = 2
    while len(kept) >= 2 and not search.spent:
        dropped = next((rest for rest in _complements(kept, chunks) if search.still_fails(rest, workers)), None)
        if dropped is not None:
            kept = reachable(search.case, dropped)
            chunks = max(chunks - 1, 2)
        elif chunks >= len(kept):
            break
        else:
            chunks = min(2 * chunks, len(kept))
    return kept


def _complements(kept: tuple[int, ...], chunks: int) -> Iterable[tuple[int, ...]]:
    """``kept`` without each of its ``chunks`` near-equal slices in turn."""
    size = len(kept) / chunks
    for i in range(chunks):
        low, high = round(i * size), round((i + 1) * size)
        yield kept[:low] + kept[high:]
