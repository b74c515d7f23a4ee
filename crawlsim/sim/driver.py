"""The SimPy driver: the sans-I/O core, unchanged, on a simulated clock.

Each fetch is one SimPy timeout whose callback reports the response to the
core; after every report (and at every politeness wake-up) the driver asks
the core what may start.  No SimPy *process* is needed: a callback per
fetch costs one event, which matters at a million pages (SimPy does about
half a million events a second here).

Latency is sampled per fetch from the host's model with a seeded RNG; every
event is deterministic in SimPy's (time, insertion order), so the same
scenario, seed and options give the identical trace.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import simpy

from crawlsim.core.events import Event
from crawlsim.core.options import CrawlOptions
from crawlsim.core.scheduler import CrawlStats, Scheduler

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario


@dataclass
class SimRun:
    """Everything one simulated crawl produced."""

    options: CrawlOptions
    stats: CrawlStats
    finish_time: float
    trace: list[Event]
    """Every core event with its simulated time (empty when tracing is off)."""
    busy_time: float
    """Worker-seconds spent fetching (robots.txt included)."""
    wasted_time: float
    """Worker-seconds spent on duplicate fetches."""
    host_busy: dict[str, float]
    host_fetches: dict[str, int]
    host_latency: dict[str, float]
    """Mean observed fetch latency per host."""
    host_min_latency: dict[str, float]
    host_gap: dict[str, float]
    """Smallest spacing between request starts each host could have had
    (gap, or Crawl-delay when larger; halved when the gap is randomised)."""
    series: list[tuple[float, int, int]] = field(default_factory=list)
    """(t, frontier size, in flight) whenever either changed."""
    found: list[str] | None = None
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def utilisation(self) -> float:
        """Busy worker-seconds over available worker-seconds."""
        capacity = self.options.workers * self.finish_time
        return self.busy_time / capacity if capacity > 0 else 0.0


def simulate(
    scenario: Scenario,
    options: CrawlOptions | None = None,
    *,
    trace: bool = True,
    series: bool = True,
    latency_of: Callable[[str], float] | None = None,
    ideal: bool = False,
) -> SimRun:
    """Run ``scenario``'s crawl to completion on a simulated clock.

    ``options`` replaces the scenario's crawler options; ``trace=False``
    turns event recording off in the core (large webs); ``latency_of(host)``
    replaces sampling with a fixed latency per host; ``ideal=True`` makes
    every page answer 200 with its links (the depth bound uses both).
    """
    opts = options or scenario.options
    if opts.record_events != trace:
        opts = opts.with_(record_events=trace)
    web = scenario.web
    # The web's ground truth tells a duplicate fetch (two spellings, one page).
    # It costs a set of page identities, so a large untraced run of a web
    # without spelling variants skips it (the core then uses RFC 3986 identity).
    use_truth = web.variants is not None or opts.record_events
    sched = Scheduler(opts, page_of=web.page_of if use_truth else None)
    env = simpy.Environment()
    rng = random.Random(scenario.seed)
    events: list[Event] = []
    points: list[tuple[float, int, int]] = []
    # Per host: [busy seconds, fastest fetch, fetches, latency sampler].  One
    # record per host, handed to each fetch's timeout, so finishing a fetch
    # needs no dictionary lookups.  ``completed`` keeps the order in which
    # hosts first finished a fetch (the order of the dicts in SimRun).
    records: dict[str, list[Any]] = {}
    completed: list[str] = []
    wasted = 0.0
    finish = 0.0
    wake_at: list[float] = [float("inf")]
    dedup_content = opts.content_dedup != "off"
    # Hot-path names bound once: this loop runs once per fetch, a million
    # times for the large scenarios, so attribute lookups add up.
    timeout = env.timeout
    poll = sched.poll
    next_wakeup = sched.next_wakeup
    on_response = sched.on_response
    response = web.response
    links_of = web.links
    inf = float("inf")

    def sampler_for(host: str) -> Callable[[random.Random], float]:
        if latency_of is not None:
            fixed = latency_of(host)
            return lambda _rng: fixed
        return scenario.latency_for(host).sample

    def on_done(event: simpy.Event) -> None:
        # One callback for every fetch; the fetch, its start time and its
        # host's record ride on the timeout's value (no closure per fetch).
        nonlocal finish, wasted
        fetch, started, took, record = event.value
        # SimPy fired this at started + took (the same float sum), so that is
        # env.now without the property call.
        now = finish = started + took
        record[0] += took
        if took < record[1]:
            if record[1] == inf:
                completed.append(fetch.host)
            record[1] = took
        if fetch.kind == "robots":
            body = web.robots_txt(fetch.host)
            on_response(fetch.id, now, status=200 if body is not None else 404, body=body)
        elif ideal:
            on_response(fetch.id, now, status=200, links=links_of(fetch.url))
        else:
            resp = response(fetch.url, fetch.attempt, now)
            on_response(
                fetch.id,
                now,
                status=resp.status,
                links=resp.links,
                headers=resp.headers,
                content=resp.content if dedup_content else None,
            )
        dispatch(now)

    def on_wake(_: simpy.Event) -> None:
        wake_at[0] = inf
        dispatch(env.now)

    def dispatch(now: float) -> None:
        nonlocal wasted
        for fetch in poll(now):
            record = records.get(fetch.host)
            if record is None:
                record = records[fetch.host] = [0.0, inf, 0, sampler_for(fetch.host)]
            record[2] += 1
            took = record[3](rng)
            if fetch.duplicate:
                wasted += took
            timeout(took, (fetch, now, took, record)).callbacks.append(on_done)
        if trace:
            events.extend(sched.drain_events())
        if series:
            point = (now, sched.frontier_size, sched.in_flight)
            if not points or points[-1][1:] != point[1:]:
                if points and points[-1][0] == now:
                    points[-1] = point
                else:
                    points.append(point)
        wake = next_wakeup()
        if wake is not None and wake < wake_at[0]:
            wake_at[0] = wake
            timeout(max(0.0, wake - now)).callbacks.append(on_wake)

    sched.add_seeds(scenario.seeds, 0.0)
    dispatch(0.0)
    env.run()
    if not trace:
        sched.drain_events()
    busy = {h: records[h][0] for h in completed}
    fetches_per_host = {h: r[2] for h, r in records.items()}
    run = SimRun(
        options=opts,
        stats=sched.stats,
        finish_time=finish,
        trace=events,
        busy_time=sum(busy.values()),
        wasted_time=wasted,
        host_busy=busy,
        host_fetches=fetches_per_host,
        host_latency={h: busy[h] / n for h, n in fetches_per_host.items() if n and h in busy},
        host_min_latency={h: records[h][1] for h in completed},
        host_gap={
            name: max(opts.gap, state.crawl_delay) * (0.5 if opts.randomize_gap else 1.0)
            for name, state in sched.host_states().items()
        },
        series=points,
        failures=dict(sched.failures),
    )
    if opts.seen == "exact" and opts.record_events:
        run.found = sched.found()
    return run
