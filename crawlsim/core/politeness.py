"""Politeness: when may a host start its next request, and why.

Every rule that holds a host back lives here, and nowhere else:

==============  ================================================  ===============
reason          rule                                              options
==============  ================================================  ===============
``gap``         at least ``gap`` seconds between two request      ``gap``,
                starts (times a seeded factor in [0.5, 1.5]       ``randomize_gap``
                when randomized, as Scrapy's
                ``RANDOMIZE_DOWNLOAD_DELAY``)
``crawl-delay`` the same spacing from the host's robots.txt,      ``max_crawl_delay``
                when longer than the gap (capped)
``retry-after`` no request before a 429/503's Retry-After         (the response)
``token-bucket`` a bucket of ``burst`` tokens per host, refilled  ``rate``,
                at ``rate`` tokens a second; each request start   ``burst``
                takes one (golang.org/x/time/rate's
                ``Limiter(r, b)``, nginx's ``limit_req``)
==============  ================================================  ===============

The scheduler calls :class:`Politeness` when a request starts, when a
host's Crawl-delay is known and when a response asks to be left alone; the
part sets the host's ``ready_at`` (the frontier never starts a host before
it) and emits one :class:`~crawlsim.trace.events.HostDeferred` naming the
rule that set it.  Everything else that needs the rule asks here too:

* the simulator, whether a start can hold a host at all (:func:`may_hold`:
  only then does it measure the spacing the bounds use);
* the bounds, the least time ``n`` starts on one host must span, holds
  included (:func:`least_span`) -- the proof step of the busiest-host bound;
* the real crawler, the spacing its requests must keep on the wire too
  (:meth:`Politeness.pace` and :class:`WireClock`): the core spaces
  request *starts*, the socket sends them a little later, and a redirect
  hop is a request the core never sees;
* the narration, one sentence per reason (:data:`SAYS`).

To add a rule: its options (with their rules in
:data:`crawlsim.core.options.RULES`), its reason in :data:`crawlsim.trace.events.DEFER_REASONS`
and :data:`SAYS`, its hold in :meth:`Politeness.started`, its term in
:func:`least_span`, and its wire form in :class:`Pace` / :class:`WireClock`.
Outside the core a rule also needs: a per-second rate (or a duration)
scaled in :mod:`crawlsim.real.timescale`; a rerun in the advisor's
counterfactuals (:mod:`crawlsim.sim.advisor`); its words in the run
summary's ``options_line`` and the real crawl's ``politeness_line``; a
flag in :mod:`crawlsim.cli_options`; and a docstring on its ``CrawlOptions``
field (the docs' options table is built from it).  The per-host token
bucket was added that way: this module and
``options.py`` first, and the bucket was invisible until the rest followed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crawlsim.trace.events import DeferReason, Emit, HostDeferred

if TYPE_CHECKING:
    from crawlsim.core.frontier import HostState
    from crawlsim.core.options import CrawlOptions

SAYS: dict[str, str] = {
    "gap": "a fetch from {host} starts now, so politeness holds the host: {wait}, the gap)",
    "crawl-delay": "a fetch from {host} starts now and its robots.txt asks for a Crawl-delay: {wait})",
    "retry-after": "{host} answered with Retry-After: {wait}), whatever is queued",
    "token-bucket": "a fetch from {host} starts now and takes its last token: {wait}, the token bucket's rate)",
}
"""What each reason means, as one sentence of the narration: ``{host}`` is the
host, ``{wait}`` reads ``no fetch from HOST before t=T (S s`` (the
sentence closes the parenthesis)."""

_INF = float("inf")


def may_hold(options: CrawlOptions) -> bool:
    """Whether a request start can ever hold a host under ``options``: a gap,
    a token bucket, or robots.txt (whose Crawl-delay may ask for one)."""
    return options.gap > 0 or options.robots or options.rate is not None


def least_span(options: CrawlOptions, starts: int, smallest_gap: float, held: Sequence[float] = ()) -> float:
    """The least seconds from the first to the last of ``starts`` request
    starts on one host, when consecutive starts were seen at least
    ``smallest_gap`` apart (the gap or Crawl-delay as drawn, measured by the
    driver) and ``held`` lists, per interval between two consecutive starts
    that a Retry-After fell in, the seconds its Retry-After holds covered.
    The bounds' proof step: each rule gives a span, the largest holds.

    * spacing and Retry-After: ``starts - 1`` intervals, each at least
      ``smallest_gap``; an interval in which a response asked for
      Retry-After also covers that hold (the response came after the
      interval's first start, and no start came before the hold ended);
    * token bucket: ``n`` starts within ``T`` seconds take at most
      ``burst + rate * T`` tokens, so ``T >= (n - burst) / rate``.
    """
    plain = max(0, starts - 1 - len(held))
    span = plain * smallest_gap + sum(max(smallest_gap, seconds) for seconds in held)
    rate = options.rate
    if rate is not None and starts > options.burst:
        span = max(span, (starts - options.burst) / rate)
    return span


@dataclass(frozen=True, slots=True)
class Pace:
    """One host's rules as a sender of requests must keep them on the wire:
    at least ``gap`` seconds between two requests (gap or Crawl-delay, not
    randomized), and at most ``burst + rate * T`` requests in any ``T``
    seconds (``rate`` None: no bucket)."""

    gap: float = 0.0
    rate: float | None = None
    burst: int = 1

    @property
    def free(self) -> bool:
        """Nothing to keep: any request may go at once."""
        return self.gap <= 0 and self.rate is None


class WireClock:
    """When one host's requests actually went out, against its :class:`Pace`.

    Invariant: :meth:`earliest` is never before the last send plus the gap that
    send was claimed under, nor before the token bucket holds a token (the
    bucket kept as its theoretical arrival time, GCRA: one float, and exactly a
    token bucket).  A gap counts after the request sent under it, as the core's
    :meth:`Politeness.started` counts it from the start it applied to: a
    Crawl-delay read from robots.txt holds the requests after the next one, not
    the first page after the robots.txt request (:meth:`Politeness.crawl_delay`).
    """

    __slots__ = ("_next", "_tat", "pace")

    def __init__(self) -> None:
        self._next = -_INF
        """The last send plus its gap."""
        self._tat = -_INF
        self.pace = Pace()
        """The rules of the latest request claimed (:meth:`claim`; a Crawl-delay arrives mid-crawl)."""

    def earliest(self, pace: Pace) -> float:
        """The first time (the clock :meth:`sent` is given) a request under
        ``pace`` may go.  A query: it changes nothing (:meth:`claim` does)."""
        at = self._next
        if pace.rate is not None:
            at = max(at, self._tat - (pace.burst - 1) / pace.rate)
        return at

    def claim(self, pace: Pace) -> None:
        """A request under ``pace`` goes next: its send (:meth:`sent`) is
        counted against these rules (a Crawl-delay may have arrived since the last)."""
        self.pace = pace

    def sent(self, at: float) -> None:
        """A request went on the wire at ``at``, under the rules last claimed."""
        self._next = at + self.pace.gap
        rate = self.pace.rate
        if rate is not None:
            self._tat = max(self._tat, at) + 1.0 / rate


class Politeness:
    """The part of the scheduler that decides when a host may start next.

    Invariant: after a request starts on a host at ``now``, the host's
    ``ready_at`` is no earlier than every rule's next allowed start; it
    only moves later while the host is held; and each time a rule moves it,
    one ``HostDeferred`` names that rule.  A host no rule can hold has
    ``polite`` false, so the scheduler skips the call on its starts.
    """

    __slots__ = (
        "_burst",
        "_emit",
        "_gap",
        "_interval",
        "_max_crawl_delay",
        "_randomize",
        "_rate",
        "_rng",
        "_tat",
        "_tolerance",
        "every_host",
    )

    def __init__(self, options: CrawlOptions, rng: random.Random, emit: Emit) -> None:
        self._gap = options.gap
        self._randomize = options.randomize_gap
        self._max_crawl_delay = options.max_crawl_delay
        self._rng = rng
        """The scheduler's one stream (retry jitter and gap factors, in call order)."""
        self._emit = emit
        self._rate = rate = options.rate
        self._burst = options.burst
        self._interval = 0.0 if rate is None else 1.0 / rate
        """Seconds per token."""
        self._tolerance = 0.0 if rate is None else (options.burst - 1) / rate
        """How far a bucket's arrival time may run ahead of now: ``burst - 1`` tokens."""
        self._tat: dict[str, float] = {}
        """Host -> its bucket's theoretical arrival time (GCRA)."""
        self.every_host = options.gap > 0 or rate is not None
        """A rule holds every host (a gap, a bucket): each new host is ``polite``."""

    def started(self, host: HostState, now: float) -> None:
        """A request to ``host`` started at ``now``: hold the host until every
        rule allows its next one (the rule that holds it longest names the deferral)."""
        gap = self._gap if self._gap >= host.crawl_delay else host.crawl_delay  # noqa: FURB136 (per fetch: no call)
        until: float | None = None
        reason: DeferReason = "gap"
        if gap > 0:
            if self._randomize:
                gap *= self._rng.uniform(0.5, 1.5)
            until = now + gap
            reason = "crawl-delay" if host.crawl_delay > self._gap else "gap"
        if self._rate is not None:
            tat = self._tat.get(host.name, now)
            self._tat[host.name] = tat = (tat if tat > now else now) + self._interval
            allowed = tat - self._tolerance
            if allowed > now and (until is None or allowed > until):
                until, reason = allowed, "token-bucket"
        if until is not None:
            host.ready_at = until
            self._emit(HostDeferred, now, host.name, until, reason)

    def crawl_delay(self, host: HostState, delay: float | None, now: float) -> float | None:
        """``host``'s robots.txt asks for ``delay`` seconds between requests:
        honour it up to ``max_crawl_delay``.  Returns the delay honoured, or
        None when there is none usable (absent, negative, NaN)."""
        if delay is None or not delay >= 0:
            return None
        host.crawl_delay = min(delay, self._max_crawl_delay)
        if host.crawl_delay > 0:
            host.polite = True
            if host.ready_at < now:
                host.ready_at = now
        return host.crawl_delay

    def retry_after(self, host: HostState, now: float, seconds: float) -> None:
        """``host`` answered with Retry-After ``seconds``: none of its requests
        starts before then, whatever is queued."""
        until = now + seconds
        if until > host.ready_at:
            host.ready_at = until
            self._emit(HostDeferred, now, host.name, until, "retry-after")

    def pace(self, host: HostState | None) -> Pace:
        """``host``'s rules as a sender must keep them on the wire (redirect hops included)."""
        delay = host.crawl_delay if host is not None else 0.0
        return Pace(max(self._gap, delay), self._rate, self._burst)


__all__ = ["SAYS", "Pace", "Politeness", "WireClock", "least_span", "may_hold"]
