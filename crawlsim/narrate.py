"""Narration: each core event as one sentence of *why*.

The narrator explains decisions the scheduler already made; it makes none.
Its state (fetches in flight per host, the URLs queued per host, the seen
set, when each host may be asked again, whose robots.txt is still awaited)
is replayed from the events themselves, and the run's options only supply
the numbers a sentence quotes (``per_host``, ``workers``, ``depth_limit``,
``max_pages``...).  So "b.com is busy (1/1 in flight): its queue waits" is
what the events say happened, not a second copy of the politeness rule.

``Narrator(options).narrate(event)`` returns the sentence for the next
event of a trace (events must be fed in trace order, one by one);
:func:`narrate_trace` pairs every event of a trace with its time and
sentence, and :func:`narration_line` formats one for ``crawlsim run --narrate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from crawlsim.core.events import (
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
from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import SAYS
from crawlsim.replay import EventTable, host_and_path, host_of_url

_SAY = EventTable()
"""Narrator methods: event class -> the sentence for it (updating the replayed state)."""

MAX_NAMED_WAITING = 3
"""A start names at most this many other hosts that wait (then "+N more")."""


def seconds(t: float) -> str:
    """A time or duration as the narration prints it: ``3.25`` (3 decimals, no trailing zeros)."""
    text = f"{t:.3f}".rstrip("0").rstrip(".")
    return text or "0"


@dataclass(slots=True)
class _Host:
    """What the events have said about one host so far."""

    queued: set[str] = field(default_factory=set)
    retries: dict[str, float] = field(default_factory=dict)
    """URLs whose retry is scheduled, and when: back in the queue from then on."""
    in_flight: int = 0
    until: float = 0.0
    reason: str = ""
    robots_loaded: bool = False


class Narrator:
    """Turns a trace's events, in order, into sentences of why.

    ``options``: the options the crawl ran with (for the limits a sentence
    quotes).  Feed every event of the trace, in order, to :meth:`narrate`.
    """

    def __init__(self, options: CrawlOptions) -> None:
        self.options = options
        self.limit = options.per_host
        self.hosts: dict[str, _Host] = {}
        self.seen: set[str] = set()
        self.depth_of: dict[str, int] = {}
        self.in_flight = 0
        self.discovered = 0

    def narrate(self, e: Event) -> str:
        """The sentence for ``e`` (the state moves past it)."""
        say = _SAY.get(type(e))
        return say(self, e) if say is not None else type(e).__name__

    def _host(self, name: str) -> _Host:
        host = self.hosts.get(name)
        if host is None:
            host = self.hosts[name] = _Host()
        return host

    def _flight_text(self, host: _Host) -> str:
        """``1/1 in flight`` with a per-host limit, ``2 in flight`` without."""
        return f"{host.in_flight}/{self.limit} in flight" if self.limit else f"{host.in_flight} in flight"

    def _frontier_size(self, t: float) -> int:
        return sum(_waiting_urls(h, t) for h in self.hosts.values())

    # -- found, or not ---------------------------------------------------------

    @_SAY.handles(Discovered)
    def _discovered(self, e: Discovered) -> str:
        host = self._host(e.host)
        host.queued.add(e.url)
        self.seen.add(e.url)
        self.discovered += 1
        self.depth_of[e.url] = e.depth
        where = f"linked from {_short(e.parent)}" if e.parent else "a seed"
        return (
            f"{_where(e.url, e.host)} is new ({where}, depth {e.depth}): added to the seen set "
            f"({_count(len(self.seen), 'URL')}) and to {e.host}'s queue ({len(host.queued)} waiting)"
        )

    @_SAY.handles(Skipped)
    def _skipped(self, e: Skipped) -> str:
        say = _SKIP_SAY.get(e.reason, Narrator._skip_other)
        return say(self, e)

    def _skip_seen(self, e: Skipped) -> str:
        where = f" (linked from {_short(e.parent)})" if e.parent else ""
        if e.url in self.seen:
            return f"{_short(e.url)}{where} is already in the seen set: dropped"
        return (
            f"{_short(e.url)}{where} was never queued, but the {self.options.seen} seen set "
            "answers 'seen' (a false positive): dropped, never fetched"
        )

    def _skip_robots(self, e: Skipped) -> str:
        name = host_of_url(e.url)
        host = self._host(name)
        if e.url in host.queued:
            host.queued.discard(e.url)
            return f"{name}'s robots.txt disallows {_short(e.url)}: taken out of its queue, never fetched"
        self.seen.add(e.url)  # the scheduler marks it seen before asking robots.txt
        return f"{name}'s robots.txt disallows {_short(e.url)}: skipped"

    def _skip_depth(self, e: Skipped) -> str:
        parent_depth = self.depth_of.get(e.parent or "")
        depth = f"depth {parent_depth + 1}" if parent_depth is not None else "its depth"
        return f"{_short(e.url)} would be at {depth}, beyond the depth limit {self.options.depth_limit}: skipped"

    def _skip_cap(self, e: Skipped) -> str:
        opts = self.options
        if opts.max_pages is not None and self.discovered >= opts.max_pages:
            return f"{_short(e.url)}: the page budget is spent (max_pages {opts.max_pages} queued): skipped"
        return f"{_short(e.url)}: its host already has max_pages_per_host {opts.max_pages_per_host} queued: skipped"

    def _skip_scope(self, e: Skipped) -> str:
        return f"{_short(e.url)} is outside the crawl's scope ({self.options.scope}, allow/deny): skipped"

    def _skip_other(self, e: Skipped) -> str:
        what = {"malformed": "is not a URL that parses", "scheme": "is not http(s)"}.get(e.reason, e.reason)
        return f"{e.href or e.url} {what}: skipped"

    # -- fetches ---------------------------------------------------------------

    @_SAY.handles(FetchStarted)
    def _started(self, e: FetchStarted) -> str:
        host = self._host(e.host)
        host.in_flight += 1
        self.in_flight += 1
        if e.kind == "robots":
            return f"{e.host} is new: its robots.txt goes first, on worker {e.slot + 1}; its pages wait for it"
        host.queued.discard(e.url)
        host.retries.pop(e.url, None)
        what = f"{_where(e.url, e.host)} starts on worker {e.slot + 1}"  # w1..wN, as every view numbers them
        if e.attempt > 1:
            what += f" (try {e.attempt})"
        if e.duplicate:
            what += f", though it is {_short(e.page)} under another spelling: a duplicate fetch, wasted"
        what += f" ({e.host}: {self._flight_text(host)}"
        what += f"; all {self.options.workers} workers busy)" if self.in_flight >= self.options.workers else ")"
        waiting = self._waiting(e.t, e.host)
        return f"{what}; {waiting}" if waiting else what

    def _waiting(self, t: float, started: str) -> str:
        """Why the other hosts with queued URLs did not start: busy, or
        waiting for a gap, Crawl-delay, Retry-After or their robots.txt."""
        reasons = []
        for name, host in self.hosts.items():
            if name == started or not _waiting_urls(host, t):
                continue
            reason = self._held_by(t, host)
            if reason:
                reasons.append(f"{name} {reason}")
        if not reasons:
            return ""
        more = f" (+{len(reasons) - MAX_NAMED_WAITING} more)" if len(reasons) > MAX_NAMED_WAITING else ""
        return ", ".join(reasons[:MAX_NAMED_WAITING]) + more + ": their queues wait"

    def _held_by(self, t: float, host: _Host) -> str:
        if self.limit and host.in_flight >= self.limit:
            return f"is busy ({self._flight_text(host)})"
        if host.until > t:
            return f"waits ({host.reason}) until t={seconds(host.until)}"
        if self.options.robots and not host.robots_loaded:
            return "waits for its robots.txt"
        return ""

    def _ended(self, e: FetchFinished | FetchFailed) -> _Host:
        host = self._host(e.host)
        host.in_flight -= 1
        self.in_flight -= 1
        return host

    @_SAY.handles(FetchFinished)
    def _finished(self, e: FetchFinished) -> str:
        host = self._ended(e)
        if e.kind == "robots":
            return f"{e.host}'s robots.txt answered {e.status} ({self._flight_text(host)} now)"
        where = _where(e.url, e.host)
        if e.duplicate_of:
            return f"{where} answered {e.status}, the same text as {_short(e.duplicate_of)}: its links are not followed"
        if e.status >= 400:
            return f"{where} answered {e.status}: recorded as failed, no links"
        return (
            f"{where} answered {e.status}: {_count(e.links, 'link')}, {e.new_links} new "
            f"(frontier {self._frontier_size(e.t)}, {self.in_flight} in flight)"
        )

    @_SAY.handles(FetchFailed)
    def _failed(self, e: FetchFailed) -> str:
        self._ended(e)
        what = f"{e.host}'s robots.txt" if e.kind == "robots" else _where(e.url, e.host)
        if not e.final:
            return f"{what} failed ({e.reason}), tries remain: a retry follows"
        if e.kind == "robots":
            return f"{what} failed for good ({e.reason}): the host counts as disallowing everything"
        return f"{what} failed for good ({e.reason}): recorded as failed"

    @_SAY.handles(RetryScheduled)
    def _retry(self, e: RetryScheduled) -> str:
        self._host(e.host).retries[e.url] = e.at
        return (
            f"{_where(e.url, e.host)} waits {seconds(e.at - e.t)} s ({e.reason}): try {e.attempt} at t={seconds(e.at)}"
        )

    @_SAY.handles(HostDeferred)
    def _deferred(self, e: HostDeferred) -> str:
        host = self._host(e.host)
        host.until, host.reason = e.until, e.reason
        wait = f"no request to {e.host} before t={seconds(e.until)} ({seconds(e.until - e.t)} s"
        says = SAYS.get(e.reason)  # the politeness part words its own rules
        if says is None:  # a trace from a crawler with a rule this one does not know
            return f"{wait}, {e.reason})"
        return says.format(host=e.host, wait=wait)

    @_SAY.handles(RobotsLoaded)
    def _robots(self, e: RobotsLoaded) -> str:
        host = self._host(e.host)
        host.robots_loaded = True
        got = f"HTTP {e.status}" if e.status else "unreachable"
        delay = f", Crawl-delay {seconds(e.crawl_delay)} s" if e.crawl_delay else ""
        rule = (
            "it disallows everything"
            if e.disallow_all
            else f"its {_count(len(host.queued), 'queued URL')} {'is' if len(host.queued) == 1 else 'are'} checked against it"
        )
        return f"{e.host}'s robots.txt is known ({got}{delay}): {rule}"

    @_SAY.handles(Done)
    def _done(self, e: Done) -> str:
        return (
            f"the frontier is empty, nothing is in flight and no retry is pending: "
            f"the crawl is done ({e.pages} URLs queued, {e.fetches} fetches)"
        )


_SKIP_SAY = {
    "seen": Narrator._skip_seen,
    "robots": Narrator._skip_robots,
    "depth": Narrator._skip_depth,
    "cap": Narrator._skip_cap,
    "scope": Narrator._skip_scope,
}
"""Skip reason -> its sentence (malformed and scheme share ``_skip_other``)."""


def _waiting_urls(host: _Host, t: float) -> int:
    """URLs of ``host`` in its queue at ``t``: queued, and retries whose time has come."""
    return len(host.queued) + sum(1 for at in host.retries.values() if at <= t)


def _short(url: str | None) -> str:
    """``a.com/x`` for ``http://a.com/x``."""
    if not url:
        return "?"
    return _where(url, host_of_url(url))


def _where(url: str, host: str) -> str:
    """:func:`~crawlsim.replay.host_and_path`, but a URL spelled with its
    default port (``http://a.com:80/``) keeps its host: ``a.com:80/``."""
    text = host_and_path(url, host)
    return url.split("://", 1)[-1] if text.startswith(":") else text


def narrate_trace(events: Iterable[Event], options: CrawlOptions) -> Iterator[tuple[Event, str]]:
    """Each event of a trace (in order) with its sentence."""
    narrator = Narrator(options)
    for e in events:
        yield e, narrator.narrate(e)


def narration_line(e: Event, sentence: str) -> str:
    """``t=3.25 s  sentence``: one line of ``crawlsim run --narrate``."""
    return f"t={seconds(e.t)} s  {sentence}"


__all__ = ["Narrator", "narrate_trace", "narration_line", "seconds"]


def _count(n: int, noun: str) -> str:
    """``1 URL``, ``2 URLs``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
