"""What a Scrapy crawl did, as crawlsim events, written as the crawl goes
(no Scrapy import here).

:class:`ScrapyLog` is fed by the extension (:mod:`crawlsim.integrations.scrapy`)
one signal at a time and hands each event to its sink (the trace file) as
soon as nothing can come before it, so a crawl that is killed leaves the
trace of everything up to a moment shortly before, and a long crawl keeps
only what is still in flight.  One thing makes it wait: Scrapy learns a
page's links *after* its response (the spider's callback yields them),
while a crawlsim trace names a page's links just before its
``FetchFinished`` -- the order ``crawlsim model`` and the replay read.  So a
page's answer is held until it is *settled*: its callback has finished (the
extension sees the request leave the scraper), it was retried or
redirected, or (a robots.txt answer, or a Scrapy whose scraper cannot be
watched) it ended one flush ago.  Events are written in time order up to
the earliest moment an unsettled fetch could still add something.  Under
``ROBOTSTXT_OBEY`` a link to a host whose robots.txt is not answered yet
waits too (with all after it): that answer decides whether it is skipped.

Times are what the crawl measured; only the order of a page's links and
its answer is rearranged.  What each Scrapy moment becomes:

* a request scheduled (a start URL, a link a callback yielded, a redirect's
  target) -> ``Discovered`` (or ``Skipped``: ``seen`` when the duplicate
  filter dropped it, ``scope`` when ``allowed_domains`` kept it out,
  ``robots`` when the host's robots.txt forbade it); its parent is the page
  named by its ``Referer`` header (Scrapy's referer middleware, on by default);
* a link ``DEPTH_LIMIT`` dropped (Scrapy's depth middleware drops it without
  a signal; the extension watches the middleware) -> ``Skipped`` ``depth``;
* its transfer starting (leaving its download slot's queue) ->
  ``FetchStarted``, on the lowest free worker lane;
* its response downloaded -> ``FetchFinished`` with the status, or
  ``FetchFailed`` + ``RetryScheduled`` when Scrapy's retry middleware asked
  for it again; no response at all -> ``FetchFailed``.

What is kept for the whole crawl is a set of URLs (as Scrapy's own
duplicate filter keeps) and a few counters for the closing summary of how
Scrapy's scheduling differed from crawlsim's; no event is kept once written.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

from crawlsim.trace.events import (
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

Sink = Callable[[Event], None]


@dataclass(slots=True)
class _Link:
    t: float
    url: str
    referer: str | None
    depth: int
    seq: int
    seen: bool = False
    beyond_depth: bool = False
    """Dropped by ``DEPTH_LIMIT``, not scheduled."""


@dataclass(slots=True)
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
    settled: bool = False
    """No more links can come from it (its callback is done, or it has none)."""
    retried: bool = False
    start_queued: bool = False
    end_queued: bool = False
    links: list[_Link] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.reached if self.started is None else self.started

    @property
    def end(self) -> float:
        return max(self.ended or 0.0, self.start)


def _canonical(url: str) -> str:
    return canonicalize(url) or url


class ScrapyLog:
    """One Scrapy crawl's moments, fed in the order they happened (times in
    seconds from its start), written to ``sink`` in time order as they settle.

    Without a sink the events are kept, for :meth:`events` to return."""

    def __init__(self, sink: Sink | None = None) -> None:
        self.kept: list[Event] = []
        self._sink: Sink = sink or self.kept.append
        self.in_scope: Callable[[str], bool] = lambda url: True
        self.fetches: dict[int, _Fetch] = {}
        """The fetches not yet written whole, by id."""
        self.policies: dict[str, RobotsPolicy] = {}
        self.obey_robots = False
        """``ROBOTSTXT_OBEY``: a link to a host whose robots.txt is not answered yet waits for it."""
        self._robots_failed: set[str] = set()
        """Hosts whose robots.txt got no answer (Scrapy then allows everything)."""
        self._ids = count()
        self._order = count()
        self._attempts: dict[tuple[str, str, int], int] = {}
        self._last_answer: dict[str, int] = {}
        """Each page URL's latest answered fetch (a link's referer finds its source here)."""
        self._queue: list[tuple[float, int, int, int, str, object]] = []
        self._clock = 0.0
        self._last_link: _Link | None = None
        self._known: set[str] = set()
        self._fetched: set[str] = set()
        self._answered: set[str] = set()
        self._good: set[str] = set()
        self._lanes = WorkerSlots()
        self._held: dict[int, int] = {}
        self._written_t = 0.0
        self._started_count = 0
        self._hosts: dict[str, _Peak] = {}
        self._refetched = 0
        self._closed = False

    # -- what the extension reports -------------------------------------------------

    def scheduled(self, t: float, url: str, referer: str | None, depth: int) -> None:
        """A new request entered Scrapy's scheduler (not a retry)."""
        self._tick(t)
        link = _Link(t, _canonical(url), _canonical(referer) if referer else None, depth, next(self._order))
        self._last_link = link
        self._place(link)

    def dropped(self, url: str) -> None:
        """The duplicate filter refused the request just scheduled."""
        if self._last_link is not None and self._last_link.url == _canonical(url):
            self._last_link.seen = True

    def beyond_depth(self, t: float, url: str, referer: str, depth: int) -> None:
        """``DEPTH_LIMIT`` dropped a link the page ``referer`` yielded."""
        self._tick(t)
        self._place(_Link(t, _canonical(url), _canonical(referer), depth, next(self._order), beyond_depth=True))

    def reached(self, t: float, url: str, kind: str, depth: int, attempt: int) -> int:
        """A request reached the downloader: its fetch id."""
        self._tick(t)
        url = _canonical(url)
        fid = next(self._ids)
        self.fetches[fid] = _Fetch(fid, url, host_key(url), kind, depth, attempt, t)
        self._attempts[(url, kind, attempt)] = fid
        self._fetched.add(url)
        earlier = self._attempts.get((url, kind, attempt - 1))
        if earlier is not None:
            self.retried(earlier)
        return fid

    def started(self, t: float, fid: int) -> None:
        f = self.fetches.get(fid)
        if f is None or f.started is not None or f.ended is not None:
            return
        self._tick(t)
        f.started = t
        self._queue_start(f)

    def downloaded(self, t: float, fid: int, status: int) -> None:
        f = self.fetches.get(fid)
        if f is None or f.ended is not None:
            return
        self._tick(t)
        f.ended, f.status = t, status
        if f.kind == "page":
            self._last_answer[f.url] = fid
        self._queue_start(f)
        self._queue_end(f)

    def left(self, t: float, fid: int) -> None:
        """The request left the downloader; without a response it failed."""
        f = self.fetches.get(fid)
        if f is not None and f.ended is None:
            self._tick(t)
            f.ended = t
            if f.kind == "robots":
                self._robots_failed.add(f.host)
            self._queue_start(f)
            self._queue_end(f)

    def robots(self, host: str, body: str, user_agent: str) -> None:
        """A host's robots.txt as Scrapy parsed it: whatever the status, the body is the rules."""
        self.policies[host] = policy_from_response(200, body, user_agent)

    def settle(self, fid: int | None) -> None:
        """No more links will come from fetch ``fid`` (its callback finished, or it was redirected)."""
        f = self.fetches.get(fid) if fid is not None else None
        if f is not None and not f.settled:
            f.settled = True
            self._queue_end(f)

    def retried(self, fid: int | None) -> None:
        """Scrapy asked for fetch ``fid``'s URL again: a failed attempt."""
        f = self.fetches.get(fid) if fid is not None else None
        if f is not None and not f.end_queued:
            f.retried = True
            self.settle(fid)

    def settle_ended(self, before: float, kinds: tuple[str, ...] | None = None) -> None:
        """Settle every fetch (of ``kinds``; None: all) that ended before ``before``:
        what nothing else settles (a robots.txt answer) waits one flush, no longer."""
        for f in list(self.fetches.values()):
            if f.ended is not None and f.ended < before and (kinds is None or f.kind in kinds):
                self.settle(f.fid)

    # -- writing --------------------------------------------------------------------

    @property
    def clock(self) -> float:
        """The latest moment reported."""
        return self._clock

    def flush(self) -> int:
        """Write every event nothing unsettled can come before; how many were written."""
        floor = self._clock
        for f in self.fetches.values():
            if not f.start_queued:
                floor = min(floor, f.reached)
            elif f.ended is not None and not f.end_queued:
                floor = min(floor, f.end)
        return self._write_until(floor)

    def close(self) -> Done:
        """Settle and write everything, then the ``Done`` event (returned, not written:
        the caller adds the options to its line)."""
        if not self._closed:
            self._closed = True
            for f in list(self.fetches.values()):
                f.ended = self._clock if f.ended is None else f.ended  # still in flight: never answered
                self._queue_start(f)
                f.settled = True
                self._queue_end(f)
            self._write_until(float("inf"))
        return Done(self._written_t, len(self._good), self._started_count)

    def events(self, in_scope: Callable[[str], bool] | None = None) -> list[Event]:
        """The whole crawl as events, ending in ``Done`` (for a log with no sink)."""
        if in_scope is not None:
            self.in_scope = in_scope
        done = self.close()
        return [*self.kept, done]

    # -- the closing summary ----------------------------------------------------------

    def host_peaks(self) -> dict[str, int]:
        """Each host's most transfers at once, as they really started (Scrapy
        may start more than its per-domain limit: see :mod:`.scrapy_settings`)."""
        for peak in self._hosts.values():
            peak.close()
        return {host: peak.peak for host, peak in self._hosts.items()}

    def refetched(self) -> int:
        """Page fetches of a URL already answered that were no retry (a start
        URL linked again: Scrapy's start requests skip its duplicate filter)."""
        return self._refetched

    # -- inside ---------------------------------------------------------------------

    def _tick(self, t: float) -> None:
        """Time moves to ``t``."""
        if t > self._clock:
            self._clock = t

    def _place(self, link: _Link) -> None:
        """A link goes with the answer it came from (its referer's latest), else stands alone."""
        source = self.fetches.get(self._last_answer.get(link.referer or "", -1))
        if source is not None and not source.end_queued:
            source.links.append(link)
        else:  # its source is written (or settled) already, or there is none: a seed
            parent = link.referer if source is not None or link.referer in self._answered else None
            self._push(link.t, 0, link.seq, "link", (link, parent))

    def _push(self, t: float, rank: int, key: int, kind: str, item: object) -> None:
        heapq.heappush(self._queue, (t, rank, key, next(self._order), kind, item))

    def _queue_start(self, f: _Fetch) -> None:
        if not f.start_queued:
            f.start_queued = True
            self._push(f.start, 1, f.fid, "start", f)

    def _queue_end(self, f: _Fetch) -> None:
        if f.settled and f.ended is not None and not f.end_queued:
            f.end_queued = True
            rank = 0 if f.end > f.start else 2  # an answer in no time still follows its start
            self._push(f.end, rank, f.fid, "end", f)

    def _write_until(self, floor: float) -> int:
        written = 0
        while self._queue and self._queue[0][0] < floor:
            if self._awaits_robots(self._queue[0][4], self._queue[0][5]):
                break  # its verdict is not known yet: nothing after it is written before it
            t, _, _, _, kind, item = heapq.heappop(self._queue)
            for event in self._group(t, kind, item):
                self._sink(event)
                written += 1
        return written

    def _awaits_robots(self, kind: str, item: object) -> bool:
        """Whether a queued link (or a link of a queued answer) goes to a host whose
        robots.txt, which decides the link's verdict, is not answered yet."""
        if not self.obey_robots or self._closed or kind == "start":
            return False
        links = [item[0]] if kind == "link" else item.links  # type: ignore[index, attr-defined]
        return any(self._unjudged(link) for link in links)

    def _unjudged(self, link: _Link) -> bool:
        host = host_key(link.url)
        if host in self.policies or host in self._robots_failed or link.seen or link.beyond_depth:
            return False
        return link.url not in self._fetched and link.url not in self._known and self.in_scope(link.url)

    def _group(self, t: float, kind: str, item: object) -> list[Event]:
        self._new_instant(t)
        if kind == "link":
            link, parent = item  # type: ignore[misc]
            return [self._link_event(t, link, parent)]
        f: _Fetch = item  # type: ignore[assignment]
        if kind == "start":
            return [self._start_event(f)]
        links = [self._link_event(t, link, f.url) for link in sorted(f.links, key=lambda k: k.seq)]
        out = [*links, *self._ended(f, links)]
        self._forget(f)
        return out

    def _new_instant(self, t: float) -> None:
        if t > self._written_t:
            for peak in self._hosts.values():
                peak.close()
            self._written_t = t

    def _start_event(self, f: _Fetch) -> FetchStarted:
        lane = self._held[f.fid] = self._lanes.take()
        self._started_count += 1
        self._hosts.setdefault(f.host, _Peak()).now += 1
        if f.kind == "page" and f.attempt == 1 and f.url in self._answered:
            self._refetched += 1
        return FetchStarted(f.start, f.fid, f.url, f.host, f.kind, f.depth, f.attempt, lane, f.url, False)  # type: ignore[arg-type]

    def _forget(self, f: _Fetch) -> None:
        """A fetch written whole: its lane is free and nothing of it is kept but its URL."""
        self._lanes.give_back(self._held.pop(f.fid))
        self._hosts[f.host].now -= 1
        if f.status is not None and f.kind == "page":
            self._answered.add(f.url)
            if f.status < 400 and not f.retried:
                self._good.add(f.url)
        del self.fetches[f.fid]
        if self._attempts.get((f.url, f.kind, f.attempt)) == f.fid:
            del self._attempts[(f.url, f.kind, f.attempt)]
        if self._last_answer.get(f.url) == f.fid:
            del self._last_answer[f.url]

    def _link_event(self, t: float, link: _Link, parent: str | None) -> Event:
        url = link.url
        if link.seen or url in self._known:
            return Skipped(t, url, parent, "seen", url)
        if link.beyond_depth:
            return Skipped(t, url, parent, "depth", url)
        self._known.add(url)
        if url not in self._fetched:
            policy = self.policies.get(host_key(url))
            if not self.in_scope(url):
                return Skipped(t, url, parent, "scope", url)
            if policy is not None and not policy.allowed(url):
                return Skipped(t, url, parent, "robots", url)
        return Discovered(t, url, host_key(url), link.depth, parent)

    def _ended(self, f: _Fetch, links: list[Event]) -> list[Event]:
        t = f.end
        reason = NO_RESPONSE if f.status is None else f"HTTP {f.status}"
        if f.retried:
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


@dataclass(slots=True)
class _Peak:
    """A count that moves within instants; its peak is taken as each instant ends
    (so a transfer that ends the moment another starts never counts as two at once)."""

    now: int = 0
    peak: int = 0

    def close(self) -> None:
        self.peak = max(self.peak, self.now)


__all__ = ["NO_RESPONSE", "ScrapyLog"]
