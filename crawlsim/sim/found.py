"""Every page a crawl found, accounted for from what it recorded: fetched, or lost and why.

The simulation knows the whole web, so it can count pages reachable and
explain each one it missed (:mod:`crawlsim.sim.coverage`).  A real crawl,
or a trace replayed without its web, knows only what the crawl met; this
module does the same accounting over that: a page is *found* when the crawl
requested it or met a link to it, and every page found is either fetched
(answered below 400) or lost, with the same reasons the simulation uses
where they apply:

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

What was recorded is a :class:`Recorded`: a real crawl's result has its four
maps (:mod:`crawlsim.real.accounting`), and :meth:`Found.of_events` reads
them from a trace, so ``crawlsim crawl`` and a replay of its trace count the
same pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from crawlsim.sim.coverage import Coverage, LostPage, narrowings
from crawlsim.trace.events import Event, FetchFailed, FetchFinished, Skipped

if TYPE_CHECKING:
    from crawlsim.core.options import CrawlOptions

LOST_SKIPS = frozenset({"robots", "scope", "cap", "depth"})
"""Skip reasons that lose a page (``seen`` is a page already found;
``malformed`` and ``scheme`` links name no page to fetch)."""


class Recorded(Protocol):
    """What a crawl recorded of the pages it found, URL by URL."""

    @property
    def statuses(self) -> Mapping[str, int]:
        """The last HTTP status each page answered with."""

    @property
    def failures(self) -> Mapping[str, str]:
        """Pages that failed for good, and why."""

    @property
    def unfinished(self) -> Mapping[str, str]:
        """Pages found and not finished when a time limit stopped the crawl, and why."""

    @property
    def skipped(self) -> Mapping[str, str]:
        """Pages not queued, and the first reason of :data:`LOST_SKIPS`."""


@dataclass
class Found:
    """A :class:`Recorded` read from a crawl's events."""

    statuses: dict[str, int] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    unfinished: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of_events(cls, events: Iterable[Event]) -> Found:
        """What the core's ``events`` say of each page, as a real crawl's
        coordinator records it while the crawl runs."""
        found = cls()
        for event in events:
            if isinstance(event, FetchFinished) and event.kind == "page":
                found.statuses[event.url] = event.status
            elif isinstance(event, FetchFailed) and event.kind == "page" and event.final:
                found.failures[event.url] = event.reason
            elif isinstance(event, Skipped) and event.reason in LOST_SKIPS:
                found.skipped.setdefault(event.url, event.reason)
        return found


def fetched_pages(found: Recorded) -> set[str]:
    """Pages that answered below 400 and did not fail for good."""
    return {url for url, status in found.statuses.items() if status < 400 and url not in found.failures}


def lost_pages(found: Recorded) -> list[LostPage]:
    """Each page found but not fetched, with its reason, sorted by URL."""
    fetched = fetched_pages(found)
    lost: dict[str, LostPage] = {}
    for url, reason in found.failures.items():
        if url not in fetched:
            lost[url] = LostPage(url, "failed", reason)
    for url, reason in found.unfinished.items():
        lost.setdefault(url, LostPage(url, "time limit", reason))
    for url, status in found.statuses.items():
        if url not in fetched:
            lost.setdefault(url, LostPage(url, "failed", f"HTTP {status}"))
    for url, reason in found.skipped.items():
        if url not in fetched:
            lost.setdefault(url, LostPage(url, reason, f"{url} was skipped ({reason})"))
    return [lost[url] for url in sorted(lost)]


def found_coverage(found: Recorded, options: CrawlOptions | None = None) -> Coverage:
    """Pages found, fetched and lost, in the simulation's :class:`Coverage`,
    with the simulation's meaning of *reachable*: found within the scope (a
    crawl without its web cannot see further than the links it met).  A page
    found outside the scope is not reachable, as in the simulation: it is
    counted in the scope's :class:`~crawlsim.sim.coverage.Narrowing` instead
    (said when the crawl's ``options`` are known)."""
    fetched = fetched_pages(found)
    every = lost_pages(found)
    lost = tuple(item for item in every if item.reason != "scope")
    reachable = len(fetched) + len(lost)
    narrowed = narrowings(options, reachable, lost, len(every) - len(lost)) if options is not None else ()
    return Coverage(reachable, len(fetched), lost, narrowed=narrowed)


__all__ = ["LOST_SKIPS", "Found", "Recorded", "fetched_pages", "found_coverage", "lost_pages"]
