"""What a Scrapy crawl did, as crawlsim events (no Scrapy import here).

:class:`ScrapyLog` is fed by the extension (:mod:`crawlsim.integrations.scrapy`)
one signal at a time and turns the whole crawl into the events a crawlsim
trace holds.  It waits for the end because Scrapy learns a page's links
*after* its response (the spider's callback yields them), while a crawlsim
trace names a page's links just before its ``FetchFinished`` -- the order
``crawlsim model`` and the replay read.  So each link is written at its
parent's answer, the way crawlsim's own crawler logs it.

Times are what the crawl measured; only the order of a page's links and
its answer is rearranged.  What each Scrapy moment becomes:

* a request scheduled (a start URL, a link a callback yielded, a redirect's
  target) -> ``Discovered`` (or ``Skipped``: ``seen`` when the duplicate
  filter dropped it, ``scope`` when ``allowed_domains`` kept it out,
  ``robots`` when the host's robots.txt forbade it); its parent is the page
  named by its ``Referer`` header (Scrapy's referer middleware, on by default);
* its transfer starting (leaving its download slot's queue) ->
  ``FetchStarted``, on the lowest free worker lane;
* its response downloaded -> ``FetchFinished`` with the status, or
  ``FetchFailed`` + ``RetryScheduled`` when Scrapy's retry middleware asked
  for it again; no response at all -> ``FetchFailed``.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from crawlsim.core.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.core.robots import RobotsPolicy, policy_from_response
from crawlsim.core.slots import WorkerSlots
from crawlsim.core.urls import canonicalize, host_key

NO_RESPONSE = "no response"
"""A fetch's failure reason when Scrapy got no answer (a timeout, a refused connection)."""


@dataclass
class _Fetch:
    fid: int
    url: str
    host: str
    kind: str
    depth: int
    attempt: int
    reached: float
    """When the request reached the downloader (it may wait in its slot's queue)."""
    started: float | None = None
    """When its transfer started (None: not seen; the reach time stands in)."""
    ended: float | None = None
    status: int | None = None

    @property
    def start(self) -> float:
        return self.reached if self.started is None else self.started


@dataclass
class _Link:
    t: float
    url: str
    referer: str | None
    depth: int
    seen: bool = False


def _canonical(url: str) -> str:
    return canonicalize(url) or url


class ScrapyLog:
    """One Scrapy crawl's moments, in the order they happened (times in seconds from its start)."""

    def __init__(self) -> None:
        self.fetches: list[_Fetch] = []
        self.links: list[_Link] = []
        self.policies: dict[str, RobotsPolicy] = {}

    # -- what the extension reports -------------------------------------------------

    def scheduled(self, t: float, url: str, referer: str | None, depth: int) -> None:
        """A new request entered Scrapy's scheduler (not a retry)."""
        self.links.append(_Link(t, _canonical(url), _canonical(referer) if referer else None, depth))

    def dropped(self, url: str) -> None:
        """The duplicate filter refused the request just scheduled."""
        if self.links and self.links[-1].url == _canonical(url):
            self.links[-1].seen = True

    def reached(self, t: float, url: str, kind: str, depth: int, attempt: int) -> int:
        """A request reached the downloader: its fetch id."""
        url = _canonical(url)
        self.fetches.append(_Fetch(len(self.fetches), url, host_key(url), kind, depth, attempt, t))
        return len(self.fetches) - 1

    def started(self, t: float, fid: int) -> None:
        if self.fetches[fid].started is None:
            self.fetches[fid].started = t

    def downloaded(self, t: float, fid: int, status: int) -> None:
        fetch = self.fetches[fid]
        if fetch.ended is None:
            fetch.ended, fetch.status = t, status

    def left(self, t: float, fid: int) -> None:
        """The request left the downloader; without a response it failed."""
        if self.fetches[fid].ended is None:
            self.fetches[fid].ended = t

    def robots(self, host: str, body: str, user_agent: str) -> None:
        """A host's robots.txt as Scrapy parsed it: whatever the status, the body is the rules."""
        self.policies[host] = policy_from_response(200, body, user_agent)

    # -- the trace ------------------------------------------------------------------

    def waiting(self) -> tuple[int, float]:
        """(most requests waiting in download slots at once, total seconds waited):
        in Scrapy a waiting request holds one of ``CONCURRENT_REQUESTS``."""
        moves = sorted(
            [(f.reached, 1) for f in self.fetches if f.started is not None]
            + [(f.start, -1) for f in self.fetches if f.started is not None]
        )
        peak = now = 0
        for _, step in moves:
            now += step
            peak = max(peak, now)
        return peak, sum(f.start - f.reached for f in self.fetches)

    def host_peaks(self) -> dict[str, int]:
        """Each host's most transfers at once, as they really started (Scrapy
        may start more than its per-domain limit: see :mod:`.scrapy_settings`)."""
        moves = sorted(
            [(f.start, 1, f.host) for f in self.fetches if f.ended is not None]
            + [(max(f.ended or 0.0, f.start), -1, f.host) for f in self.fetches if f.ended is not None]
        )
        now: dict[str, int] = {}
        peaks: dict[str, int] = {}
        for _, step, host in moves:
            now[host] = now.get(host, 0) + step
            peaks[host] = max(peaks.get(host, 0), now[host])
        return peaks

    def refetched(self) -> int:
        """Page fetches of a URL already answered that were no retry (a start
        URL linked again: Scrapy's start requests skip its duplicate filter)."""
        answered: set[str] = set()
        count = 0
        for f in sorted(self.fetches, key=lambda f: f.start):
            if f.kind == "page" and f.attempt == 1:
                count += f.url in answered
            if f.status is not None:
                answered.add(f.url)
        return count

    def events(self, in_scope: Callable[[str], bool] = lambda url: True) -> list[Event]:
        """The crawl as crawlsim events, time-ordered, lanes assigned, ending in ``Done``."""
        done = [f for f in self.fetches if f.ended is not None]
        attached, seeds = self._attach(_answered(done), in_scope)
        groups: list[tuple[float, int, int, list[Event]]] = [(e.t, 0, i, [e]) for i, e in enumerate(seeds)]
        retried = {(f.url, f.kind, f.attempt - 1) for f in done}
        for f in done:
            groups.append((f.start, 1, f.fid, [_started(f)]))
            links = attached.get(f.fid, [])
            rank = 0 if (f.ended or 0.0) > f.start else 2  # an answer in no time still follows its start
            groups.append((max(f.ended or 0.0, f.start), rank, f.fid, [*links, *self._ended(f, links, retried)]))
        groups.sort(key=lambda g: g[:3])
        events = _with_lanes(e for g in groups for e in g[3])
        events.append(_done(events, done))
        return events

    def _attach(
        self, answered: dict[str, list[_Fetch]], in_scope: Callable[[str], bool]
    ) -> tuple[dict[int, list[Event]], list[Event]]:
        """Each link as an event at the answer it came from (by fetch id), and the seeds."""
        fetched = {f.url for f in self.fetches}
        placed = sorted((_source(answered, k), i, k) for i, k in enumerate(self.links))
        known: set[str] = set()
        attached: dict[int, list[Event]] = {}
        seeds: list[Event] = []
        for (t, fid, parent), _, link in placed:
            event = self._link_event(t, link, parent, known, fetched, in_scope)
            if fid is None:
                seeds.append(event)
            else:
                attached.setdefault(fid, []).append(event)
        return attached, seeds

    def _link_event(
        self,
        t: float,
        link: _Link,
        parent: str | None,
        known: set[str],
        fetched: set[str],
        in_scope: Callable[[str], bool],
    ) -> Event:
        url = link.url
        if link.seen or url in known:
            return Skipped(t, url, parent, "seen", url)
        known.add(url)
        if url not in fetched:
            policy = self.policies.get(host_key(url))
            if not in_scope(url):
                return Skipped(t, url, parent, "scope", url)
            if policy is not None and not policy.allowed(url):
                return Skipped(t, url, parent, "robots", url)
        return Discovered(t, url, host_key(url), link.depth, parent)

    def _ended(self, f: _Fetch, links: list[Event], retried: set[tuple[str, str, int]]) -> list[Event]:
        t = max(f.ended or 0.0, f.start)
        reason = NO_RESPONSE if f.status is None else f"HTTP {f.status}"
        if (f.url, f.kind, f.attempt) in retried:
            return [
                FetchFailed(t, f.fid, f.url, f.host, f.kind, reason, False),  # type: ignore[arg-type]
                RetryScheduled(t, f.url, f.host, f.attempt + 1, t, reason),
            ]
        if f.status is None:
            return [FetchFailed(t, f.fid, f.url, f.host, f.kind, reason, True)]  # type: ignore[arg-type]
        new = sum(isinstance(e, Discovered) for e in links)
        out: list[Event] = [FetchFinished(t, f.fid, f.url, f.host, f.kind, f.status, len(links), new)]  # type: ignore[arg-type]
        if f.kind == "robots":
            out.append(RobotsLoaded(t, f.host, f.status, None, False))
        return out


def _answered(done: list[_Fetch]) -> dict[str, list[_Fetch]]:
    """Each page URL's answered fetches, in the order they ended."""
    answered: dict[str, list[_Fetch]] = {}
    for f in sorted(done, key=lambda f: f.ended or 0.0):
        if f.kind == "page" and f.status is not None:
            answered.setdefault(f.url, []).append(f)
    return answered


def _source(answered: dict[str, list[_Fetch]], link: _Link) -> tuple[float, int | None, str | None]:
    """Where a link came from: (its time in the trace, the fetch id, the parent URL).

    The answer from its referer that ended last before the link was
    scheduled (Scrapy may fetch a page twice: a start URL skips the duplicate
    filter); none -- a start URL, or a referer never answered -- makes it a seed."""
    fetches = answered.get(link.referer or "", [])
    ends = [f.ended or 0.0 for f in fetches]
    i = bisect_right(ends, link.t)
    if i == 0:
        return link.t, None, None
    return ends[i - 1], fetches[i - 1].fid, fetches[i - 1].url


def _done(events: list[Event], done: list[_Fetch]) -> Done:
    """The crawl's end: its last event's time, the pages answered below 400 (as crawlsim counts them)."""
    pages = len({f.url for f in done if f.kind == "page" and f.status is not None and f.status < 400})
    end = max((e.t for e in events), default=0.0)
    return Done(end, pages, sum(isinstance(e, FetchStarted) for e in events))


def _started(f: _Fetch) -> FetchStarted:
    return FetchStarted(f.start, f.fid, f.url, f.host, f.kind, f.depth, f.attempt, 0, f.url, False)  # type: ignore[arg-type]


def _with_lanes(events: Iterable[Event]) -> list[Event]:
    """The events with each fetch on the lowest lane free when it started."""
    lanes = WorkerSlots()
    held: dict[int, int] = {}
    out: list[Event] = []
    for e in events:
        if isinstance(e, FetchStarted):
            held[e.fetch_id] = lane = lanes.take()
            e = dataclasses.replace(e, slot=lane)
        elif isinstance(e, (FetchFinished, FetchFailed)) and e.fetch_id in held:
            lanes.give_back(held.pop(e.fetch_id))
        out.append(e)
    return out


__all__ = ["NO_RESPONSE", "ScrapyLog"]
