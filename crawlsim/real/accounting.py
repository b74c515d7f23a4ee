"""Every page a real crawl found, accounted for: fetched, or lost and why.

The simulation knows the whole web, so it can count pages reachable and
explain each one it missed (:mod:`crawlsim.sim.coverage`).  A real crawl
knows only what it met; this module does the same accounting over that:
a page is *found* when the crawl requested it or met a link to it, and
every page found is either fetched (answered below 400) or lost, with the
same reasons the simulation uses where they apply:

  ``failed``      requested and failed for good (HTTP 404, a timeout, too
                  large: the detail says which);
  ``robots``      disallowed by robots.txt, or its host's robots.txt could
                  not be read (RFC 9309: the whole host is disallowed);
  ``scope``       linked from a fetched page, outside the crawl's scope;
  ``cap``         found after ``max_pages`` / ``max_pages_per_host`` ran out;
  ``depth``       found beyond ``depth_limit``;
  ``time limit``  found but not finished when ``--max-time`` stopped the crawl.

So ``pages found = pages fetched + pages lost``, and a page a link reaches
is never "unreachable" because its fetch failed.  The summary's ``pages
reachable`` is the simulation's word: pages found *within the scope*; the
pages found outside it are said apart, as what the scope left out.

Links the time limit left unexamined on a page whose links were being
admitted when it came (``CrawlResult.links_dropped``) are not pages found:
they were never resolved, so they name no page yet.  They are counted per
page instead (``crawl --json``'s ``links_not_examined``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crawlsim.sim.coverage import Coverage, LostPage, narrowings

if TYPE_CHECKING:
    from crawlsim.real.results import CrawlResult

LOST_SKIPS = frozenset({"robots", "scope", "cap", "depth"})
"""Skip reasons that lose a page (``seen`` is a page already found;
``malformed`` and ``scheme`` links name no page to fetch)."""


def fetched_pages(result: CrawlResult) -> set[str]:
    """Pages that answered below 400 and did not fail for good."""
    return {url for url, status in result.statuses.items() if status < 400 and url not in result.failures}


def lost_pages(result: CrawlResult) -> list[LostPage]:
    """Each page found but not fetched, with its reason, sorted by URL."""
    fetched = fetched_pages(result)
    lost: dict[str, LostPage] = {}
    for url, reason in result.failures.items():
        if url not in fetched:
            lost[url] = LostPage(url, "failed", reason)
    for url, reason in result.unfinished.items():
        lost.setdefault(url, LostPage(url, "time limit", reason))
    for url, status in result.statuses.items():
        if url not in fetched:
            lost.setdefault(url, LostPage(url, "failed", f"HTTP {status}"))
    for url, reason in result.skipped.items():
        if url not in fetched:
            lost.setdefault(url, LostPage(url, reason, f"{url} was skipped ({reason})"))
    return [lost[url] for url in sorted(lost)]


def real_coverage(result: CrawlResult) -> Coverage:
    """Pages found, fetched and lost, in the simulation's :class:`Coverage`,
    with the simulation's meaning of *reachable*: found within the scope (a
    real crawl cannot see further than the links it met).  A page found
    outside the scope is not reachable, as in the simulation: it is counted
    in the scope's :class:`~crawlsim.sim.coverage.Narrowing` instead."""
    fetched = fetched_pages(result)
    found = lost_pages(result)
    lost = tuple(item for item in found if item.reason != "scope")
    reachable = len(fetched) + len(lost)
    narrowed = narrowings(result.options, reachable, lost, len(found) - len(lost))
    return Coverage(reachable, len(fetched), lost, narrowed=narrowed)


__all__ = ["LOST_SKIPS", "fetched_pages", "lost_pages", "real_coverage"]
