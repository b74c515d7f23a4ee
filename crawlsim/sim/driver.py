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
from typing import TYPE_CHECKING

import simpy

from crawlsim.core.events import Event
from crawlsim.core.options import CrawlOptions
from crawlsim.core.scheduler import CrawlStats, Fetch, Scheduler

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
    models: dict[str, Callable[[random.Random], float]] = {}
    events: list[Event] = []
    points: list[tuple[float, int, int]] = []
    busy: dict[str, float] = {}
    shortest: dict[str, float] = {}
    fetches_per_host: dict[str, int] = {}
    wasted = 0.0
    finish = 0.0
    wake_at: list[float] = [float("inf")]

    def latency(host: str) -> float:
        if latency_of is not None:
            return latency_of(host)
        sample = models.get(host)
        if sample is None:
            sample = models[host] = scenario.latency_for(host).sample
        return sample(rng)

    def complete(fetch: Fetch, started: float) -> Callable[[simpy.Event], None]:
        def on_done(_: simpy.Event) -> None:
            nonlocal finish
            now = env.now
            finish = now
            took = now - started
            busy[fetch.host] = busy.get(fetch.host, 0.0) + took
            if took < shortest.get(fetch.host, float("inf")):
                shortest[fetch.host] = took
            if fetch.kind == "robots":
                body = web.robots_txt(fetch.host)
                sched.on_response(fetch.id, now, status=200 if body is not None else 404, body=body)
            elif ideal:
                sched.on_response(fetch.id, now, status=200, links=web.links(fetch.url))
            else:
                resp = web.response(fetch.url, fetch.attempt, now)
                content = resp.content if opts.content_dedup != "off" else None
                sched.on_response(
                    fetch.id, now, status=resp.status, links=resp.links, headers=resp.headers, content=content
                )
            dispatch()

        return on_done

    def on_wake(_: simpy.Event) -> None:
        wake_at[0] = float("inf")
        dispatch()

    def dispatch() -> None:
        nonlocal wasted
        now = env.now
        for fetch in sched.poll(now):
            took = latency(fetch.host)
            fetches_per_host[fetch.host] = fetches_per_host.get(fetch.host, 0) + 1
            if fetch.duplicate:
                wasted += took
            env.timeout(took).callbacks.append(complete(fetch, now))
        if trace:
            events.extend(sched.drain_events())
        if series:
            point = (now, sched.frontier_size, sched.in_flight)
            if not points or points[-1][1:] != point[1:]:
                if points and points[-1][0] == now:
                    points[-1] = point
                else:
                    points.append(point)
        wake = sched.next_wakeup()
        if wake is not None and wake < wake_at[0]:
            wake_at[0] = wake
            env.timeout(max(0.0, wake - now)).callbacks.append(on_wake)

    sched.add_seeds(scenario.seeds, 0.0)
    dispatch()
    env.run()
    if not trace:
        sched.drain_events()
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
        host_min_latency=shortest,
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
