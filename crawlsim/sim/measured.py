"""A crawl's figures measured from its trace, as a :class:`SimRun`: a real crawl's bounds.

The bounds (:mod:`crawlsim.sim.bounds`) need per-host figures -- busy time,
page fetches, the fastest page fetch, robots.txt time, the smallest enforced
gap -- that the simulator's driver counts as it goes.  A real crawl runs the
same core, whose events carry the same facts on the crawl's own clock: a
fetch's start and end, the hold politeness set at each start
(``HostDeferred``, emitted just before its ``FetchStarted``).  Read from
those, the proofs hold as they do for a simulation (they use only what the
core guarantees), so ``crawlsim crawl`` has bounds too.  What a real crawl
cannot have is advice: it cannot be rerun (``crawlsim model`` makes a
scenario of it that can).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from crawlsim.trace.events import Event, FetchFailed, FetchFinished, FetchStarted, HostDeferred
from crawlsim.sim.driver import SimRun

if TYPE_CHECKING:
    from crawlsim.core.options import CrawlOptions
    from crawlsim.core.scheduler import CrawlStats

_INF = float("inf")


@dataclass
class _Host:
    """One host's figures, measured so far."""

    fetches: int = 0
    robots_fetches: int = 0
    busy: float = 0.0
    robots_busy: float = 0.0
    fastest: float = _INF
    fastest_page: float = _INF
    smallest_gap: float = _INF
    last_page_start: float = -_INF
    hold: tuple[float, float] | None = None
    """The latest start's hold (when, until), from the ``HostDeferred`` before its ``FetchStarted``."""

    def started(self, event: FetchStarted) -> None:
        self.fetches += 1
        if event.kind != "page":
            self.robots_fetches += 1
            return
        held = self.hold is not None and self.hold[0] == event.t and event.t != self.last_page_start
        self.smallest_gap = min(self.smallest_gap, self.hold[1] - event.t if held else 0.0)  # type: ignore[index]
        self.last_page_start = event.t
        self.hold = None

    def ended(self, kind: str, took: float) -> None:
        self.busy += took
        self.fastest = min(self.fastest, took)
        if kind == "page":
            self.fastest_page = min(self.fastest_page, took)
        else:
            self.robots_busy += took


@dataclass
class _Tally:
    hosts: dict[str, _Host] = field(default_factory=dict)
    running: dict[int, FetchStarted] = field(default_factory=dict)
    wasted: float = 0.0
    deepest: int = 0

    def read(self, event: Event) -> None:
        kind = type(event)
        if kind is FetchStarted:
            self._host(event.host).started(event)  # type: ignore[attr-defined]
            self.running[event.fetch_id] = event  # type: ignore[attr-defined,assignment]
            if event.kind == "page":  # type: ignore[attr-defined]
                self.deepest = max(self.deepest, event.depth)  # type: ignore[attr-defined]
        elif kind is FetchFinished or kind is FetchFailed:
            start = self.running.pop(event.fetch_id, None)  # type: ignore[attr-defined]
            if start is not None:
                took = event.t - start.t
                self._host(start.host).ended(start.kind, took)
                self.wasted += took if start.duplicate else 0.0
        elif kind is HostDeferred and event.reason != "retry-after":  # type: ignore[attr-defined]
            self._host(event.host).hold = (event.t, event.until)  # type: ignore[attr-defined]

    def counts(self) -> dict[str, dict[str, int]]:
        """SimRun's fetch counts per host, every host that started one: all its
        fetches, its page fetches and its robots.txt fetches (hosts that had one)."""
        hosts = self.hosts
        return {
            "host_fetches": {name: h.fetches for name, h in hosts.items()},
            "host_page_fetches": {name: h.fetches - h.robots_fetches for name, h in hosts.items()},
            "host_robots_fetches": {name: h.robots_fetches for name, h in hosts.items() if h.robots_fetches},
        }

    def _host(self, name: str) -> _Host:
        host = self.hosts.get(name)
        if host is None:
            host = self.hosts[name] = _Host()
        return host


def measured_run(
    options: CrawlOptions, stats: CrawlStats, finish_time: float, events: Iterable[Event], **extra: object
) -> SimRun:
    """A crawl's :class:`SimRun`, measured from its ``events`` (every one the
    core emitted, in order); ``extra`` sets SimRun's other fields (``found``,
    ``failures``).  A fetch the crawl never finished (a time limit) counts
    only as started."""
    trace = list(events)
    tally = _Tally()
    for event in trace:
        tally.read(event)
    done = {name: h for name, h in tally.hosts.items() if h.fastest != _INF}
    busy = {name: h.busy for name, h in done.items()}
    return SimRun(
        options=options,
        stats=stats,
        finish_time=finish_time,
        trace=trace,  # type: ignore[arg-type]
        busy_time=sum(busy.values()),
        wasted_time=tally.wasted,
        host_busy=busy,
        host_latency={name: busy[name] / h.fetches for name, h in done.items()},
        host_min_latency={name: h.fastest for name, h in done.items()},
        host_gap={name: h.smallest_gap if h.smallest_gap != _INF else 0.0 for name, h in done.items()},
        host_page_min_latency={name: h.fastest_page for name, h in done.items() if h.fastest_page != _INF},
        host_robots_busy={name: h.robots_busy for name, h in done.items() if h.robots_busy},
        deepest_fetch=tally.deepest,
        **tally.counts(),
        **extra,  # type: ignore[arg-type]
    )


__all__ = ["measured_run"]
