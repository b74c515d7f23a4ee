"""A running crawl's time left: a lower bound from what is known now, and an estimate.

The bounds of :mod:`crawlsim.sim.bounds` are proven after the fact, from a
finished run's figures.  The same proofs hold from any moment ``t`` of a
crawl, over the pages known at ``t`` (``docs/explanation/bounds.md``, "Time
left from a state"): a page not yet discovered cannot be bounded, so the
lower bound counts only the pages queued, in flight or waiting for a retry.
The busiest-host term is one function, :func:`host_left`, which the
after-the-fact bound calls with its run's figures (the state at time 0 of a
finished crawl's known web) and :class:`TimeLeft` with a live host's.

:class:`TimeLeft` reads a crawl's events as they come -- from the simulator,
the real crawler's coordinator, or the Scrapy recorder -- so every driver
shares one computation; it reads no clock (``now`` is passed in).

The latency floor: the live bound assumes no fetch on a host is faster than
``floor`` (by default the fastest seen on that host once it has five fetches,
else the fastest seen anywhere).  The politeness part -- holds, spacing, the token bucket --
needs no such assumption; :attr:`Lower.proven` is the bound with a floor of
0, and :attr:`Lower.margin` what the floor adds.  In the simulation the
run's fastest fetch per host is a true floor, and the bound is exact
(``tests/test_time_left_properties.py``).

The estimate models the crawl so far: per host, the pages still unknown
from the share of its recent links (the last quarter of the crawl's time, at
least 30 links) that led somewhere new (capture-recapture), capped by a
branching guess; then the lower bound's own terms with each host's mean
fetch in place of its fastest -- the busiest host, spaced as politeness
asks, and the work left spread over as many fetches at once as the crawl
kept on average so far (:meth:`TimeLeft._guess` says why per fetch and not
per host), whichever is slower.  It is a guess, stated as one ("guessing N
pages not yet found from the discovery rate"), with a range from the known
pages alone to the top of an 80% interval of that share
(:meth:`TimeLeft._unknown`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import least_span
from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.words import counted

SHARE_CAP = 0.9
"""The largest share of new links the estimate extrapolates: when nearly every
link leads somewhere new the web's end cannot be seen yet, so the estimate
assumes at most nine pages unknown per page found."""

RECENT_SHARE = 0.25
"""The recent window of the estimate: the last quarter of the crawl's time so far."""

FLOOR_FETCHES = 5
"""Page fetches seen before their fastest is taken as the latency floor: the
first fetch alone (a cold connection, a slow start) would be a floor far too high."""

WINDOW_LINKS = 30
"""The fewest links the estimate's share is read from, when the crawl has seen that many."""

_Floor = Callable[[str], float]
"""A host -> the latency no fetch on it is assumed to beat."""


def host_limit(options: CrawlOptions) -> int:
    """Fetches one host may have in flight: its per-host limit, capped by the workers
    (the workers alone with download slots, which may start more than the limit: (F1))."""
    if options.frontier.startswith("download-slots"):
        return options.workers
    return min(options.per_host or options.workers, options.workers)


def host_left(
    options: CrawlOptions,
    wait: float,
    starts: int,
    spacing: float,
    held: Sequence[float],
    fastest: float,
    busy: float,
) -> tuple[float, bool]:
    """The least time one host still needs: ``wait + max(busy / c, span + fastest)``,
    and whether the spaced starts (rather than the busy time) set it.

    ``wait``: until its first remaining page may start (its robots.txt time
    after the fact; its current hold live); ``starts`` page starts, each
    ``spacing`` apart at least, ``held`` the Retry-After holds between them
    (:func:`~crawlsim.core.politeness.least_span`); ``busy`` the seconds of
    those fetches, at most ``c`` at a time; the last takes ``fastest``.  Just
    ``wait`` with no start left.  The busiest-host bound's proof, from any
    state (module docstring).
    """
    if starts <= 0:
        return wait, False
    busy_term = busy / host_limit(options)
    spacing_term = least_span(options, starts, spacing, held) + fastest
    return wait + max(busy_term, spacing_term), spacing_term > busy_term


@dataclass(frozen=True)
class Lower:
    """At least ``seconds`` more, set by ``holder`` for ``reason``, over the pages known now."""

    seconds: float
    proven: float
    """The same bound with no latency assumed (a floor of 0): politeness alone."""
    holder: str
    """A host, ``in flight``, ``retry`` or ``workers``: what sets the bound."""
    reason: str
    """``b.com has 156 queued at one per 2 s (Crawl-delay)``."""
    known: int
    """Pages known and still to fetch: queued, in flight or waiting for a retry."""

    @property
    def margin(self) -> float:
        """What the latency floor adds to the politeness-only bound."""
        return self.seconds - self.proven

    def sentence(self) -> str:
        """``at least 312 s more: b.com has 156 queued at one per 2 s (Crawl-delay); known pages only``,
        and, when the latency floor adds to it, ``(margin 3.1 s: no fetch faster than the fastest so far)``."""
        if self.known == 0:
            return "nothing known is left to fetch"
        said = f"at least {_secs(self.seconds)} more: {self.reason}; known pages only"
        if self.margin > 0:
            said += f" (margin {_secs(self.margin)}: no fetch faster than the fastest so far)"
        return said


@dataclass(frozen=True)
class Estimate:
    """About ``seconds`` more (``low`` to ``high``): a model of the crawl so far."""

    seconds: float
    low: float
    high: float
    share: float
    """The share of links that led to a page not found before, lately (the discovery rate)."""
    unknown: int
    """Pages not yet discovered that the estimate assumes."""

    def sentence(self) -> str:
        """``about 420 s more (300 s-610 s), guessing 80 pages not yet found (12% of links new lately)``."""
        return (
            f"about {_secs(self.seconds)} more ({_secs(self.low)}-{_secs(self.high)}), guessing "
            f"{counted(self.unknown, 'page')} not yet found from the discovery rate ({self.share:.0%} of links new lately)"
        )


@dataclass
class _Host:
    """What is known of one host now."""

    queued: set[str] = field(default_factory=set)
    retries: dict[str, float] = field(default_factory=dict)
    """URL -> when its retry may start."""
    until: float = 0.0
    """Its ready time: no fetch starts on it before (the latest ``HostDeferred``)."""
    held_by: str = "gap"
    crawl_delay: float = 0.0
    robots_loaded: bool = False
    fastest: float = float("inf")
    """Its fastest page fetch seen so far."""
    fetched: int = 0
    took: float = 0.0
    """The seconds its page fetches took, summed."""
    found: int = 0
    """Its URLs found so far."""

    def mean_fetch(self, otherwise: float) -> float:
        """Its mean page fetch so far (``otherwise`` before its first)."""
        return self.took / self.fetched if self.fetched else otherwise


@dataclass(frozen=True)
class _Term:
    seconds: float
    holder: str
    reason: str


class TimeLeft:
    """A crawl's time left, from its events so far.

    Feed it every event in order (:meth:`see`); ask :meth:`lower` and
    :meth:`estimate` at any ``now``.  ``floor`` maps a host to a latency no
    fetch on it can beat (None: the fastest seen so far, an assumption the
    margin states).
    """

    def __init__(self, options: CrawlOptions, floor: Mapping[str, float] | None = None) -> None:
        self.options = options
        self._floor = floor
        self._hosts: dict[str, _Host] = defaultdict(_Host)
        self._in_flight: dict[int, FetchStarted] = {}
        self._kind: dict[str, str] = {}
        self._done = False
        self._discovered = 0
        self._host_of: dict[str, str] = {}
        """Every URL found -> its host."""
        self._linked: list[tuple[str, bool]] = []
        """Every link read, in order: the host it leads to, and whether it found a new page."""
        self._fetched: list[tuple[float, int]] = []
        """Per page response processed: its time, and how many links had been read then."""
        self._busy = 0.0
        """Page-fetch seconds spent up to :attr:`_busy_at` (two fetches at once count twice)."""
        self._busy_at = 0.0

    def see(self, event: Event) -> None:
        """One more event of the crawl."""
        kind = type(event)
        if kind is Discovered:
            self._found(event)  # type: ignore[arg-type]
        elif kind is FetchStarted:
            self._started(event)  # type: ignore[arg-type]
        elif kind is FetchFinished or kind is FetchFailed:
            self._ended(event)  # type: ignore[arg-type]
        elif kind is RetryScheduled:
            if self._kind.get(event.url) == "page":  # type: ignore[attr-defined]
                self._hosts[event.host].retries[event.url] = event.at  # type: ignore[attr-defined]
        elif kind is HostDeferred:
            host = self._hosts[event.host]  # type: ignore[attr-defined]
            host.until, host.held_by = event.until, event.reason  # type: ignore[attr-defined]
        elif kind is RobotsLoaded:
            host = self._hosts[event.host]  # type: ignore[attr-defined]
            host.crawl_delay, host.robots_loaded = event.crawl_delay or 0.0, True  # type: ignore[attr-defined]
        elif kind is Skipped:
            self._skipped(event)  # type: ignore[arg-type]
        elif kind is Done:
            self._done = True

    def see_all(self, events: Iterable[Event]) -> TimeLeft:
        for event in events:
            self.see(event)
        return self

    def _found(self, event: Discovered) -> None:
        host = self._hosts[event.host]
        host.queued.add(event.url)
        host.found += 1
        self._discovered += 1
        self._host_of[event.url] = event.host
        if event.parent is not None:
            self._linked.append((event.host, True))

    def _skipped(self, event: Skipped) -> None:
        if event.reason == "seen" and event.parent is not None:
            host = self._host_of.get(event.url)
            if host is not None:
                self._linked.append((host, False))
        elif event.reason == "robots":  # a queued URL its robots.txt now forbids
            for host in self._hosts.values():
                host.queued.discard(event.url)

    def _started(self, event: FetchStarted) -> None:
        if event.kind == "page":
            self._busy = self.busy(event.t)
            self._busy_at = event.t
            host = self._hosts[event.host]
            host.queued.discard(event.url)
            host.retries.pop(event.url, None)
        self._in_flight[event.fetch_id] = event
        self._kind[event.url] = event.kind

    def _ended(self, event: FetchFinished | FetchFailed) -> None:
        start = self._in_flight.get(event.fetch_id)
        if start is None or start.kind != "page":
            self._in_flight.pop(event.fetch_id, None)
            return
        self._busy = self.busy(event.t)
        self._busy_at = event.t
        del self._in_flight[event.fetch_id]
        host = self._hosts[event.host]
        took = event.t - start.t
        host.fastest = min(host.fastest, took)
        host.fetched += 1
        host.took += took
        if isinstance(event, FetchFinished):
            self._fetched.append((event.t, len(self._linked)))

    # -- the lower bound ------------------------------------------------------

    def floor(self, host: str) -> float:
        """The latency no fetch on ``host`` is assumed to beat: given, or the fastest
        page fetch seen on it once it has :data:`FLOOR_FETCHES`, else the fastest seen
        anywhere once the crawl has as many (else 0: nothing assumed)."""
        if self._floor is not None:
            return self._floor.get(host, 0.0)
        own = self._hosts.get(host)
        if own is not None and own.fetched >= FLOOR_FETCHES:
            return own.fastest
        if sum(h.fetched for h in self._hosts.values()) >= FLOOR_FETCHES:
            return min(h.fastest for h in self._hosts.values())
        return 0.0

    def least_spacing(self, host: str) -> float:
        """The least seconds between two starts on ``host`` from now on: its gap
        or Crawl-delay, at its smallest randomized draw (half)."""
        spacing = max(self.options.gap, self._hosts[host].crawl_delay)
        return spacing * 0.5 if self.options.randomize_gap else spacing

    def _certain(self, host: _Host) -> int:
        """The page starts ``host`` will surely make: none while its robots.txt
        is awaited (it may forbid every queued page)."""
        if self.options.robots and not host.robots_loaded:
            return 0
        return len(host.queued) + len(host.retries)

    def known(self) -> int:
        """Pages known and still to fetch."""
        waiting = sum(len(h.queued) + len(h.retries) for h in self._hosts.values())
        return waiting + sum(1 for _ in self._pages_in_flight())

    def _pages_in_flight(self) -> Iterable[FetchStarted]:
        return (f for f in self._in_flight.values() if f.kind == "page")

    def busy(self, now: float) -> float:
        """Page-fetch seconds the crawl spent up to ``now``, two fetches at once counting twice."""
        return self._busy + sum(1 for _ in self._pages_in_flight()) * (now - self._busy_at)

    def lower(self, now: float) -> Lower:
        """At least this much more, from the pages known at ``now``."""
        if self._done:
            return Lower(0.0, 0.0, "", "the crawl is done", 0)
        best = self._largest(now, self.floor)
        proven = self._largest(now, lambda _host: 0.0)
        return Lower(best.seconds, min(proven.seconds, best.seconds), best.holder, best.reason, self.known())

    def _largest(self, now: float, floor: _Floor) -> _Term:
        terms = [_Term(0.0, "", self._nothing_certain()), *self._host_terms(now, floor)]
        terms.append(self._work_term(now, floor))
        terms.extend(self._flight_terms(now, floor))
        return max(terms, key=lambda term: term.seconds)

    def _nothing_certain(self) -> str:
        """Why the bound is 0: nothing known is left, or robots.txt may yet forbid what is."""
        if any(h.queued for h in self._hosts.values()):
            return "robots.txt not yet read: the pages queued may all be forbidden"
        return "nothing known is left to fetch"

    def _host_terms(self, now: float, floor: _Floor) -> Iterable[_Term]:
        for name, host in self._hosts.items():
            starts = self._certain(host)
            if starts == 0:
                continue
            fastest, spacing = floor(name), self.least_spacing(name)
            wait = max(0.0, host.until - now)
            seconds, spaced = host_left(self.options, wait, starts, spacing, (), fastest, starts * fastest)
            for at in host.retries.values():
                seconds = max(seconds, at - now + fastest)
            yield _Term(seconds, name, self._host_reason(name, host, starts, spacing if spaced else None))

    def _host_reason(self, name: str, host: _Host, starts: int, spacing: float | None) -> str:
        if spacing is None or spacing <= 0:
            return f"{name} has {starts:,} queued, {host_limit(self.options)} at a time"
        rule = "Crawl-delay" if host.crawl_delay > self.options.gap else "gap"
        return f"{name} has {starts:,} queued at one per {_secs(spacing)} ({rule})"

    def _work_term(self, now: float, floor: _Floor) -> _Term:
        busy = sum(self._certain(h) * floor(name) for name, h in self._hosts.items())
        busy += sum(max(0.0, f.t + floor(f.host) - now) for f in self._pages_in_flight())
        workers = self.options.workers
        return _Term(busy / workers, "workers", f"{self.known():,} fetches left over {workers} workers")

    def _flight_terms(self, now: float, floor: _Floor) -> Iterable[_Term]:
        for fetch in self._pages_in_flight():
            yield _Term(max(0.0, fetch.t + floor(fetch.host) - now), "in flight", f"{fetch.url} is in flight")

    # -- what a running crawl says ---------------------------------------------

    def figures(self, now: float) -> dict[str, Any]:
        """The two figures at ``now`` as one record (``--json`` progress, Scrapy's stats)."""
        lower, guess = self.lower(now), self.estimate(now)
        return {
            "t": round(now, 3),
            "time_left_lower": round(lower.seconds, 3),
            "time_left_margin": round(lower.margin, 3),
            "time_left_holder": lower.holder,
            "time_left_reason": lower.reason,
            "time_left_estimate": round(guess.seconds, 3),
            "time_left_range": [round(guess.low, 3), round(guess.high, 3)],
            "pages_known_left": lower.known,
            "pages_unknown_guess": guess.unknown,
        }

    def line(self, now: float) -> str:
        """``time left: at least 312 s more: b.com has ...; known pages only; about 420 s more (...)``."""
        if self._done:
            return "time left: none, the crawl is done"
        lower = self.lower(now)
        if lower.known == 0:
            return "time left: nothing known is left to fetch"
        return f"time left: {lower.sentence()}; {self.estimate(now).sentence()}"

    # -- the estimate ---------------------------------------------------------

    def estimate(self, now: float) -> Estimate:
        """About this much more: the known pages, and the unknown ones guessed
        from the links of the responses lately (module docstring)."""
        lower = self.lower(now).seconds
        if self._done or not self._fetched:
            return Estimate(lower, lower, lower, 0.0, 0)
        window = self._window(now)
        first = self._fetched[-window - 1][1] if window < len(self._fetched) else 0
        links = self._linked[first:]
        new = Counter(host for host, is_new in links if is_new)
        seen = Counter(host for host, is_new in links if not is_new)
        growth = new.total() / window
        mid = self._unknown(new, seen, growth, high=False)
        top = self._unknown(new, seen, growth + 1.28 * math.sqrt(max(growth, 1.0) / window), high=True)
        guess, low, high = (max(lower, self._guess(now, unknown)) for unknown in (mid, {}, top))
        share = new.total() / max(1, len(links))
        return Estimate(guess, min(low, guess), max(high, guess), share, round(sum(mid.values())))

    def _window(self, now: float) -> int:
        """How many of the latest responses the estimate reads: those of the
        last quarter of the time so far, widened back until their links number
        :data:`WINDOW_LINKS` (or all of them)."""
        fetched = self._fetched
        since = now * (1.0 - RECENT_SHARE)
        links = len(self._linked)
        window = 1
        while window < len(fetched) and (
            fetched[-window - 1][0] >= since or fetched[-window - 1][1] > links - WINDOW_LINKS
        ):
            window += 1
        return window

    def _unknown(self, new: Counter[str], seen: Counter[str], growth: float, *, high: bool) -> dict[str, float]:
        """Pages not yet found, per host: the smaller of two guesses (never past
        ``max_pages`` in all).  Capture-recapture: a share ``p`` of the links to
        the host lately led to a page not found before, so ``D_h * p / (1 - p)``
        are unknown (right when links go anywhere on the host, too high on a
        tree, whose links all lead somewhere new); a branching process: each
        known page to fetch finds ``growth`` new ones, each as many more, the
        host taking its share of the recent finds (right on a tree, too high
        when links go anywhere).  ``high``: the top of the 80% interval of ``p``."""
        branching = self.known() * _unknown_per_known(growth)
        found = new.total()
        unknown: dict[str, float] = {}
        for name in new:
            hits, trials = new[name], new[name] + seen[name]
            p = _wilson_high(hits, trials) if high else hits / trials
            unknown[name] = min(self._hosts[name].found * _unknown_per_known(p), branching * hits / found)
        cap = self.options.max_pages
        if cap is not None and unknown:
            room = max(0.0, cap - self._discovered) / max(sum(unknown.values()), 1e-9)
            unknown = {h: n * min(1.0, room) for h, n in unknown.items()}
        return unknown

    def _guess(self, now: float, unknown: Mapping[str, float]) -> float:
        """Seconds left if ``unknown`` pages per host are still to be found: the
        lower bound's busiest-host and work terms with each host's mean fetch
        so far in place of its fastest, the work spread over as many fetches
        at once as the crawl kept on average so far (at most what the hosts
        left may take) rather than over every worker.

        Measured per fetch, not per host: a host's pages per second depend on
        how many of its fetches run at once, and that changes as the crawl
        goes -- Scrapy's download slots give a host the workers the others
        free, so a slow host sharing four workers with three fast ones runs
        one fetch at a time, and two or three once it is alone.  Its pace so
        far (its seconds with a fetch in flight over its pages) then foretold
        twice the time it took; its mean fetch does not change, and the work
        over the crawl's parallelism so far holds through the change -- as long
        as that parallelism lasts: where the last host alone keeps fewer fetches
        in flight than the crawl did (the simulated download-slots case in
        ``tests/test_time_left_estimate.py``), the estimate runs low."""
        mean = self._mean_fetch()
        work = sum(max(0.0, f.t + self._hosts[f.host].mean_fetch(mean) - now) for f in self._pages_in_flight())
        by_host, room = 0.0, 0
        for name, host in self._hosts.items():
            starts = len(host.queued) + len(host.retries) + round(unknown.get(name, 0.0))
            if starts == 0:
                continue
            each = host.mean_fetch(mean)
            spacing = max(self.options.gap, host.crawl_delay)
            wait = max(0.0, host.until - now)
            by_host = max(by_host, host_left(self.options, wait, starts, spacing, (), each, starts * each)[0])
            work += starts * each
            room += host_limit(self.options)
        parallel = min(self.busy(now) / now if now > 0 else 0.0, room, self.options.workers)
        return max(by_host, work / parallel if parallel > 0 else 0.0)

    def _mean_fetch(self) -> float:
        """The mean page fetch so far, over every host (for a host with none yet)."""
        fetched = sum(h.fetched for h in self._hosts.values())
        return sum(h.took for h in self._hosts.values()) / fetched if fetched else 0.0


@dataclass(frozen=True)
class Moment:
    """The two figures at one instant of a crawl, beside the truth once it is known."""

    t: float
    lower: float
    proven: float
    estimate: float
    low: float
    high: float


def time_left_series(
    options: CrawlOptions, events: Iterable[Event], floor: Mapping[str, float] | None = None, points: int = 200
) -> list[Moment]:
    """The bound and the estimate as they stood during a recorded crawl: at
    each instant once all its events are in (a start's hold is emitted before
    the start), at most ``points`` instants evenly spread in time.  The true
    time left at ``t`` is the crawl's finish less ``t``."""
    events = list(events)
    if not events:
        return []
    left = TimeLeft(options, floor)
    step = events[-1].t / points if points > 0 else 0.0
    out: list[Moment] = []
    next_t = 0.0
    for i, event in enumerate(events):
        left.see(event)
        last = i + 1 == len(events)
        if (last or events[i + 1].t != event.t) and (event.t >= next_t or last):
            lower, guess = left.lower(event.t), left.estimate(event.t)
            out.append(Moment(event.t, lower.seconds, lower.proven, guess.seconds, guess.low, guess.high))
            next_t = event.t + step
    return out


def _unknown_per_known(share: float) -> float:
    """``share / (1 - share)``, ``share`` capped at :data:`SHARE_CAP`.  With links
    drawn evenly from ``N`` pages of which ``D`` are found, a share ``(N - D) / N``
    of them lead somewhere new, and ``(N - D) / D`` is this; a page to fetch that
    finds ``g`` new pages, each finding ``g`` more, finds ``g / (1 - g)`` in all."""
    p = min(max(share, 0.0), SHARE_CAP)
    return p / (1.0 - p)


def _wilson_high(hits: int, trials: int, z: float = 1.28) -> float:
    """The high end of the Wilson score interval of ``hits / trials`` (80%: ``z = 1.28``)."""
    if trials <= 0:
        return SHARE_CAP
    p = hits / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return min(1.0, centre + half)


def _secs(value: float) -> str:
    """``312 s``, ``2 s``, ``0.25 s``, ``1.5 s``: few figures, as a person says a time left."""
    if value >= 10:
        return f"{value:,.0f} s"
    return f"{value:.2g} s" if value < 1 else f"{value:.1f} s".replace(".0 s", " s")


__all__ = [
    "Moment",
    "time_left_series","SHARE_CAP", "Estimate", "Lower", "TimeLeft", "host_left", "host_limit"]
