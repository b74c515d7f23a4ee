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
    """Seconds each host spent answering (robots.txt included)."""
    host_fetches: dict[str, int]
    """Fetches per host (robots.txt included)."""
    host_latency: dict[str, float]
    """Mean observed fetch latency per host."""
    host_min_latency: dict[str, float]
    """Fastest fetch per host (robots.txt included)."""
    host_gap: dict[str, float]
    """Per host, the smallest gap the core enforced after a page fetch's start
    (gap or Crawl-delay, times the random factor actually drawn when the gap
    is randomised): consecutive page starts on the host were at least this
    far apart.  Measured from the host's ``ready_at`` right after each start."""
    series: list[tuple[float, int, int]] = field(default_factory=list)
    """(t, frontier size, in flight) whenever either changed."""
    found: list[str] | None = None
    failures: dict[str, str] = field(default_factory=dict)
    host_page_fetches: dict[str, int] = field(default_factory=dict)
    """Page fetches per host (retries and duplicate fetches included; robots.txt not)."""
    host_page_min_latency: dict[str, float] = field(default_factory=dict)
    """Fastest page fetch per host (hosts with at least one page fetch)."""
    host_robots_busy: dict[str, float] = field(default_factory=dict)
    """Seconds spent on each host's robots.txt fetches (every attempt)."""
    host_crawl_delay: dict[str, float] = field(default_factory=dict)
    """The Crawl-delay honoured per host (only hosts whose robots.txt set one)."""
    deepest_fetch: int = 0
    """The largest discovery depth of any page fetch started (seeds are 0)."""

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
) -> SimRun:
    """Run ``scenario``'s crawl to completion on a simulated clock.

    ``options`` replaces the scenario's crawler options; ``trace=False``
    turns event recording off in the core (large webs).
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
    # Per host: [page busy seconds, fastest fetch, fetches, latency sampler,
    # robots.txt busy seconds, fastest page fetch, smallest gap enforced after
    # a page start, robots.txt fetches].  One record per host, handed to each fetch's timeout, so
    # finishing a fetch needs no dictionary lookups.  ``completed`` keeps the
    # order in which hosts first finished a fetch (the order of the dicts in
    # SimRun).  The bounds (bounds.py) are built from these figures.
    records: dict[str, list[Any]] = {}
    completed: list[str] = []
    deepest = [0]
    # The gap the core enforced after each page start is read from the host's
    # ready_at -- only when a gap or a Crawl-delay can exist at all, so the
    # large impolite runs pay nothing for it.
    measure_gaps = opts.gap > 0 or opts.robots
    host_states = sched.host_states()
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
    inf = float("inf")

    def sampler_for(host: str) -> Callable[[random.Random], float]:
        return scenario.latency_for(host).sample

    def on_done(event: simpy.Event) -> None:
        # One callback for every fetch; the fetch, its start time and its
        # host's record ride on the timeout's value (no closure per fetch).
        nonlocal finish, wasted
        fetch, started, took, record = event.value
        # SimPy fired this at started + took (the same float sum), so that is
        # env.now without the property call.
        now = finish = started + took
        if took < record[1]:
            if record[1] == inf:
                completed.append(fetch.host)
            record[1] = took
        if fetch.kind == "robots":
            record[4] += took
            record[7] += 1
            body = web.robots_txt(fetch.host)
            on_response(fetch.id, now, status=200 if body is not None else 404, body=body)
        else:
            record[0] += took
            if took < record[5]:  # noqa: PLR1730 (hot path: no call)
                record[5] = took
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
                record = records[fetch.host] = [0.0, inf, 0, sampler_for(fetch.host), 0.0, inf, inf, 0]
            record[2] += 1
            took = record[3](rng)
            if fetch.duplicate:
                wasted += took
            if fetch.depth > deepest[0]:  # noqa: PLR1730 (hot path: no call)
                deepest[0] = fetch.depth
            if measure_gaps and fetch.kind == "page":
                gap = host_states[fetch.host].ready_at - now
                if gap < record[6]:
                    record[6] = gap if gap > 0.0 else 0.0  # noqa: FURB136 (hot path: no call)
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
    busy = {h: records[h][0] + records[h][4] for h in completed}
    fetches_per_host = {h: r[2] for h, r in records.items()}
    states = sched.host_states()
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
        host_gap={h: (records[h][6] if records[h][6] != inf else 0.0) for h in completed},
        series=points,
        failures=dict(sched.failures),
        host_page_fetches={h: r[2] - r[7] for h, r in records.items()},
        host_page_min_latency={h: records[h][5] for h in completed if records[h][5] != inf},
        host_robots_busy={h: records[h][4] for h in completed if records[h][4]},
        host_crawl_delay={h: st.crawl_delay for h, st in states.items() if st.crawl_delay > 0},
        deepest_fetch=deepest[0],
    )
    if opts.seen == "exact" and opts.record_events:
        run.found = sched.found()
    return run
