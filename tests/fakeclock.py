"""A tiny discrete-event loop for driving the core in tests: a fake clock
and a fake web, so every scheduling test is deterministic.  (The real
simulator is the SimPy driver; this one exists so core tests need nothing
but the core.)"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from crawlsim.core import CrawlOptions, Event, FetchStarted, Scheduler


@dataclass
class Run:
    events: list[Event] = field(default_factory=list)
    starts: list[FetchStarted] = field(default_factory=list)
    finish_time: float = 0.0
    max_in_flight: int = 0
    max_in_flight_per_host: dict[str, int] = field(default_factory=dict)
    sched: Scheduler | None = None


Responder = Callable[[str, int], tuple[int, dict[str, str]]]


def run_fake(
    graph: Mapping[str, Sequence[str]],
    seeds: Sequence[str],
    options: CrawlOptions,
    latency: Callable[[str], float] = lambda url: 1.0,
    respond: Responder | None = None,
    robots: Mapping[str, str] | None = None,
    max_steps: int = 20_000,
) -> Run:
    """Crawl ``graph`` (url -> hrefs) with a fake clock; record everything."""
    sched = Scheduler(options)
    run = Run(sched=sched)
    now = 0.0
    sched.add_seeds(seeds, now)
    completions: list[tuple[float, int, object]] = []
    in_flight_hosts: dict[str, int] = {}
    seq = 0
    for _ in range(max_steps):
        for fetch in sched.poll(now):
            in_flight_hosts[fetch.host] = in_flight_hosts.get(fetch.host, 0) + 1
            run.max_in_flight_per_host[fetch.host] = max(
                run.max_in_flight_per_host.get(fetch.host, 0), in_flight_hosts[fetch.host]
            )
            seq += 1
            heapq.heappush(completions, (now + latency(fetch.url), seq, fetch))
        run.max_in_flight = max(run.max_in_flight, sched.in_flight)
        run.events.extend(sched.drain_events())
        if sched.done:
            break
        wake = sched.next_wakeup()
        next_done = completions[0][0] if completions else None
        candidates = [t for t in (wake, next_done) if t is not None]
        assert candidates, "scheduler is stuck: not done, nothing in flight, no wakeup"
        now = max(now, min(candidates))
        while completions and completions[0][0] <= now:
            t, _, fetch = heapq.heappop(completions)
            in_flight_hosts[fetch.host] -= 1  # type: ignore[attr-defined]
            run.finish_time = max(run.finish_time, t)
            if fetch.kind == "robots":  # type: ignore[attr-defined]
                body = (robots or {}).get(fetch.host)  # type: ignore[attr-defined]
                sched.on_response(fetch.id, t, status=404 if body is None else 200, body=body)  # type: ignore[attr-defined]
                continue
            status, headers = respond(fetch.url, fetch.attempt) if respond else (200, {})  # type: ignore[attr-defined]
            links = graph.get(fetch.url, ()) if status < 400 else ()  # type: ignore[attr-defined]
            sched.on_response(fetch.id, t, status=status, links=list(links), headers=headers)  # type: ignore[attr-defined]
    else:
        raise AssertionError("did not terminate")
    run.events.extend(sched.drain_events())
    run.starts = [e for e in run.events if isinstance(e, FetchStarted)]
    return run
