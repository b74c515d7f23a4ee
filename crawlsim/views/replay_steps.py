"""The crawl as a table of steps, read from the trace: BFS "by hand".

A textbook traces BFS one page at a time: take the oldest URL from the
frontier, fetch it, add its new links, discard the ones already seen, and
write down the frontier and the visited set.  :func:`crawl_steps` rebuilds
exactly that table from the core's events -- ``FetchFinished`` closes a step,
the ``Discovered`` and ``Skipped(reason="seen")`` events whose parent is that
page are its new and discarded links -- so the table is what the scheduler
did, not a second implementation of BFS.

With one worker the steps are the textbook's; with several they interleave
(a step closes when its fetch finishes, whichever started first).  It lives
beside :mod:`crawlsim.views.replay` (no front end) so the notebook and the
offline page (:mod:`crawlsim.page`) print the same table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crawlsim.trace.events import Discovered, Event, FetchFailed, FetchFinished, FetchStarted, Skipped


@dataclass(frozen=True)
class Step:
    """One page fetched and expanded, and the crawl's state right after."""

    number: int
    t: float
    url: str
    """The page this step fetched."""
    added: tuple[str, ...]
    """Links that were new: they joined the frontier (and the seen set)."""
    discarded: tuple[str, ...]
    """Links to pages already seen: dropped, which is what ends cycles."""
    frontier: tuple[str, ...]
    """Pages waiting after this step, oldest first (BFS takes the first)."""
    visited: tuple[str, ...]
    """Pages fetched so far, in the order they were fetched."""
    in_flight: tuple[str, ...] = ()
    """Other pages being fetched at that moment (empty with one worker)."""


def crawl_steps(trace: Iterable[Event]) -> list[Step]:
    """One :class:`Step` per finished page fetch (robots.txt fetches are not
    steps; a failed page is a step with no links)."""
    waiting: dict[str, None] = {}  # insertion-ordered set: discovery order
    visited: list[str] = []
    flying: dict[int, str] = {}
    added: dict[str, list[str]] = {}
    discarded: dict[str, list[str]] = {}
    steps: list[Step] = []

    def close(fetch_id: int, t: float, url: str) -> None:
        flying.pop(fetch_id, None)
        visited.append(url)
        steps.append(
            Step(
                number=len(steps) + 1,
                t=t,
                url=url,
                added=tuple(added.pop(url, [])),
                discarded=tuple(discarded.pop(url, [])),
                frontier=tuple(waiting),
                visited=tuple(visited),
                in_flight=tuple(flying.values()),
            )
        )

    for e in trace:
        if isinstance(e, Discovered):
            waiting[e.url] = None
            if e.parent is not None:
                added.setdefault(e.parent, []).append(e.url)
        elif isinstance(e, Skipped):
            if e.reason == "seen" and e.parent is not None:
                discarded.setdefault(e.parent, []).append(e.url)
            elif e.parent is None:
                waiting.pop(e.url, None)  # purged from the frontier (robots.txt)
        elif isinstance(e, FetchStarted) and e.kind == "page":
            waiting.pop(e.url, None)
            flying[e.fetch_id] = e.url
        elif isinstance(e, FetchFinished) and e.kind == "page":
            close(e.fetch_id, e.t, e.url)
        elif isinstance(e, FetchFailed) and e.kind == "page":
            if e.final:
                close(e.fetch_id, e.t, e.url)
            else:
                flying.pop(e.fetch_id, None)
                waiting[e.url] = None  # back in line for its retry
    return steps


def fetch_order(trace: Iterable[Event]) -> list[str]:
    """Page URLs in the order their first fetch started."""
    seen: dict[str, None] = {}
    for e in trace:
        if isinstance(e, FetchStarted) and e.kind == "page":
            seen.setdefault(e.url, None)
    return list(seen)


__all__ = ["Step", "crawl_steps", "fetch_order"]
