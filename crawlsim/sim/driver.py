"""The SimPy driver: the sans-I/O core, unchanged, on SimPy's simulated clock.

Which SimPy event stands for what::

    a fetch               one Timeout of its sampled latency, made when the core
                          starts the fetch; its callback (on_done) reports the
                          response to the core, then asks it what may start now
    a politeness wake-up  one Timeout until the core's next_wakeup() (a host's
                          gap, a Crawl-delay or a retry's backoff runs out); its
                          callback (on_wake) asks the core what may start now
    the crawler's work    one more Timeout on a fetch whose response waits for
                          the serial client (sim/client.py; only with client_cost)

    env.run()             fires them in time order, ties in the order they were
                          made, until none is left: the crawl is over

No SimPy *process* is needed: the core decides what happens next, so an
event's callback only tells the core what happened (``on_response``, for a
fetch) and asks it what may start now (``poll``), and the driver turns the
core's answers into timeouts.  SimPy is used
through its public API alone (``Environment``, ``timeout``, ``callbacks``,
``run``), so any SimPy release that keeps that API runs it.

Latency is sampled per fetch from the host's model with a seeded RNG; every
event is deterministic in SimPy's (time, insertion order), so the same
scenario, seed and options give the identical trace.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import simpy

from crawlsim.trace.store import Series, Trace
from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import may_hold
from crawlsim.core.fetch import CrawlStats
from crawlsim.core.scheduler import Scheduler
from crawlsim.sim.client import SerialClient

if TYPE_CHECKING:
    from crawlsim.core.fetch import Fetch
    from crawlsim.sim.inputs import SimInput
    from crawlsim.sim.latency import LatencyModel
    from crawlsim.sim.web import Response

_INF = float("inf")


@dataclass
class SimRun:
    """Everything one simulated crawl produced."""

    options: CrawlOptions
    stats: CrawlStats
    finish_time: float
    trace: Trace
    """Every core event with its simulated time (empty when tracing is off), stored
    compactly: a ``Sequence[Event]`` whose items are built when read."""
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
    series: Sequence[tuple[float, int, int]] = field(default_factory=list)
    """(t, frontier size, in flight) whenever either changed (a compact :class:`Series` from ``simulate``)."""
    found: list[str] | None = None
    failures: dict[str, str] = field(default_factory=dict)
    host_page_fetches: dict[str, int] = field(default_factory=dict)
    """Page fetches per host (retries and duplicate fetches included; robots.txt not):
    the kind of fetch ``stats.fetches`` counts, so the hosts' sum to it."""
    host_robots_fetches: dict[str, int] = field(default_factory=dict)
    """robots.txt fetches per host, every attempt (hosts that had one): ``host_fetches``
    is these and ``host_page_fetches``."""
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
        """Busy worker-seconds over available worker-seconds (:func:`utilisation`)."""
        return utilisation(self.busy_time, self.options.workers, self.finish_time)


def utilisation(busy_time: float, workers: int, elapsed: float) -> float:
    """Busy worker-seconds over the worker-seconds ``workers`` lanes had in
    ``elapsed`` seconds: the one computation behind ``run``'s and ``crawl``'s
    figure and a replay's running one, so a trace says what its crawl said."""
    capacity = workers * elapsed
    return busy_time / capacity if capacity > 0 else 0.0


def simulate(
    sim: SimInput,
    options: CrawlOptions | None = None,
    *,
    trace: bool = True,
    series: bool = True,
    compact: bool = True,
) -> SimRun:
    """Run ``sim``'s crawl (a scenario, or any :class:`~crawlsim.sim.inputs.SimInput`)
    to completion on a simulated clock.

    ``options`` replaces the scenario's crawler options; ``trace=False``
    turns event recording off in the core (large webs); ``compact=False``
    keeps the events as a plain list (the same events: a view that reads
    them all at once, several times, pays neither the encoding nor a decode).
    """
    opts = options or sim.options
    if opts.record_events != trace:
        opts = opts.with_(record_events=trace)
    crawl = _Crawl(sim, opts, series=series)
    if not compact:
        crawl.events = []  # type: ignore[assignment]
    crawl.run(sim.seeds)
    return crawl.result()


class _HostTally:
    """One host's running figures during a simulated crawl.

    One tally per host rides on each of its fetches' timeouts, so finishing
    a fetch updates it without a dictionary lookup (that runs once per
    fetch, a million times for the large scenarios); slots keep it small
    and its fields quick to reach.  The bounds (bounds.py) are built from
    these figures, through :class:`SimRun`.
    """

    __slots__ = (
        "contention",
        "fastest",
        "fastest_page",
        "fetches",
        "last_page_start",
        "page_busy",
        "robots_busy",
        "robots_fetches",
        "sample",
        "smallest_gap",
    )

    def __init__(self, sample: Callable[[], float], contention: float = 0.0) -> None:
        self.sample = sample
        """Draws one fetch's latency from the host's model (with the crawl's generator)."""
        self.contention = contention
        """How much longer a fetch takes per other fetch in flight to the host when it starts."""
        self.fetches = 0
        """Fetches started, robots.txt included."""
        self.robots_fetches = 0
        self.page_busy = 0.0
        """Seconds spent on page fetches."""
        self.robots_busy = 0.0
        """Seconds spent on robots.txt fetches (every attempt)."""
        self.fastest = _INF
        """Fastest finished fetch, robots.txt included (inf: none finished yet)."""
        self.fastest_page = _INF
        self.smallest_gap = _INF
        """Smallest gap the core enforced after a page start (inf: not measured)."""
        self.last_page_start = -_INF
        """When the latest page fetch started (only while gaps are measured)."""

    def note_gap(self, gap: float) -> None:
        """A page fetch started and the core set the host ready ``gap`` seconds later."""
        if gap < self.smallest_gap:
            self.smallest_gap = gap if gap > 0.0 else 0.0  # noqa: FURB136 (as before: no call)


class _Lane:
    """One worker lane's fetch in flight: the fetch, its start, its latency and
    its host's tally, re-filled for each fetch the lane runs.

    A lane runs one fetch at a time (the core hands a lane out only when its
    last fetch was answered, which is this fetch's timeout firing), so one
    object per lane serves the whole crawl.  It is the value of the fetch's
    ``Timeout``, which is how :meth:`_Crawl.on_done` knows which fetch ended.
    """

    __slots__ = ("fetch", "started", "tally", "took")

    def __init__(self) -> None:
        # Filled by _Crawl.dispatch before the lane's first timeout is made.
        self.fetch: Fetch
        self.started = 0.0
        self.took = 0.0
        self.tally: _HostTally


class _Crawl:
    """One simulated crawl in progress: the core, SimPy's clock and the figures kept.

    :meth:`dispatch` starts the fetches the core hands out, each as one
    ``Timeout``; :meth:`on_done` is every fetch timeout's callback (a method
    of the crawl, not a closure made per fetch: the fetch rides on the
    timeout's value, its lane).
    """

    def __init__(self, sim: SimInput, opts: CrawlOptions, *, series: bool) -> None:
        web = sim.web
        self.opts = opts
        self.sched = sched = Scheduler(opts, page_of=page_of_for(sim, opts))
        self.env = env = simpy.Environment()
        self.rng = random.Random(sim.seed)
        self.latency_for = sim.latency_for
        self.page_latency: Mapping[str, float] | None = getattr(sim, "page_latency", None) or None
        """A page's own measured fetch time, replacing its host's draw (a model of a recorded crawl)."""
        self.contention: Mapping[str, float] = getattr(sim, "host_contention", None) or {}
        """Host -> its fetches' slowdown per other fetch in flight to it (a model of a recorded crawl)."""
        self.tracing = opts.record_events
        self.series = series
        self.tallies: dict[str, _HostTally] = {}
        self.samplers: dict[int, tuple[LatencyModel, Callable[[], float]]] = {}
        self.completed: list[str] = []
        """Hosts in the order they first finished a fetch (the order of SimRun's dicts)."""
        self.events = Trace()
        self.points = Series()
        self.wasted = 0.0
        self.finish = 0.0
        self.deepest = 0
        self.wake_at = _INF
        self.busy = 0
        """Fetches in flight (the core's count, kept here: while every worker
        is busy nothing can start early, so the core is not asked when to wake)."""
        self.workers = opts.workers
        # The gap the core enforced after each page start is read from the host's
        # ready_at -- only when a politeness rule can hold a host at all, so the
        # large impolite runs pay nothing for it.
        self.measure_gaps = may_hold(opts)
        self.host_states = sched.host_states()
        self.dedup_content = opts.content_dedup != "off"
        self.lanes: list[_Lane] = []
        """Lane number -> its fetch in flight (made when the lane is first used)."""
        self.response = web.response
        # Without content fingerprints a plain 200 page needs only its links:
        # a web with no policies or variants gives them without a Response
        # object (Web.plain_pages; None otherwise).
        self.plain = None if self.dedup_content else web.plain_pages()
        self.robots_txt = web.robots_txt
        cost = getattr(sim, "client_cost", 0.0)
        self.client = SerialClient(cost, self.arm) if cost else None
        """The crawler's own serial work per response (a recorded crawl's model: sim/client.py)."""

    def run(self, seeds: Iterable[str]) -> None:
        """Crawl from ``seeds`` until the core has nothing left to do (no event is left)."""
        self.sched.add_seeds(seeds, 0.0)
        self.dispatch(0.0, self.sched.poll(0.0))
        self.env.run()

    def arm(self, lane: _Lane, delay: float) -> None:
        """Report ``lane``'s fetch ``delay`` seconds from now: one ``Timeout``
        (SimPy refuses a negative delay: a custom LatencyModel's mistake)."""
        self.env.timeout(delay, lane).callbacks.append(self.on_done)

    def dispatch(self, now: float, fetches: list[Fetch]) -> None:
        """Start ``fetches`` (what the core allows at ``now``), each reported
        after its sampled latency; then record, and set the next wake-up."""
        tallies = self.tallies
        lanes = self.lanes
        measure_gaps = self.measure_gaps
        for fetch in fetches:
            host = fetch.host
            tally = tallies.get(host)
            if tally is None:
                tally = tallies[host] = self._new_tally(host)
            tally.fetches += 1
            took = tally.sample()
            if self.page_latency is not None:
                took = self.page_latency.get(fetch.url, took)
            if tally.contention:  # a host that shares itself between its connections
                took *= 1.0 + tally.contention * (self.host_states[host].in_flight - 1)
            if fetch.duplicate:
                self.wasted += took
            depth = fetch.depth
            if depth > self.deepest:  # noqa: PLR1730 (hot path: no call)
                self.deepest = depth
            if measure_gaps and fetch.kind == "page":
                # The core has already started the whole batch, so ready_at is the
                # host's after its last start at this instant; a second page start
                # on the host at this instant (a rule that does not hold every
                # start, such as a token bucket) was 0 s after the first.
                tally.note_gap(self.host_states[host].ready_at - now if tally.last_page_start != now else 0.0)
                tally.last_page_start = now
            slot = fetch.slot
            while slot >= len(lanes):
                lanes.append(_Lane())
            lane = lanes[slot]
            lane.fetch, lane.started, lane.took, lane.tally = fetch, now, took, tally
            self.arm(lane, took)
        if self.tracing:
            self.events.extend(self.sched.drain_events())
        if self.series:  # (t, frontier, in flight) when either changed (Series.note)
            self.points.note(now, self.sched.frontier_size, self.sched.in_flight)
        self.busy = busy = self.busy + len(fetches)
        if busy < self.workers:  # (else next_wakeup() would say None: every worker is busy)
            self._wake_when_due(now)

    def _wake_when_due(self, now: float) -> None:
        """Set a wake-up for the core's next time-blocked start, if it is earlier than the one set."""
        wake = self.sched.next_wakeup()
        if wake is not None and wake < self.wake_at:
            self.wake_at = wake
            self.env.timeout(max(0.0, wake - now)).callbacks.append(self.on_wake)

    def _new_tally(self, host: str) -> _HostTally:
        """The tally of a host met for the first time.  Hosts with one latency
        model share one sampler (a closure on the crawl's generator): ten
        thousand hosts, one model, one closure."""
        model = self.latency_for(host)
        # keyed by identity, the model kept alive beside its sampler (so its id is not reused)
        shared = self.samplers.get(id(model))
        if shared is None:
            shared = self.samplers[id(model)] = (model, model.sampler(self.rng))
        return _HostTally(shared[1], self.contention.get(host, 0.0))

    def on_done(self, event: simpy.Timeout) -> None:
        """A lane's fetch is over (its ``Timeout`` fired): report its response
        to the core, then dispatch what the core starts now.  The fetch, its
        start time, its latency and its host's tally ride on the lane, the
        timeout's value."""
        lane: _Lane = event.value  # type: ignore[assignment]  # (SimPy types a value Any | None)
        if self.client is not None and self.client.holds(lane):
            return  # re-armed: the response waits for the crawler's own work
        fetch, started, took, tally = lane.fetch, lane.started, lane.took, lane.tally
        # The fetch ends at its start plus its latency: the time SimPy fired
        # this timeout at (``env.now``; a serial client's wait is in ``took``).
        now = self.finish = started + took
        self.busy -= 1
        if took < tally.fastest:
            if tally.fastest == _INF:
                self.completed.append(fetch.host)
            tally.fastest = took
        if fetch.kind == "robots":
            self._robots_done(fetch, now, took, tally)
        else:
            tally.page_busy += took
            if took < tally.fastest_page:  # noqa: PLR1730 (hot path: no call)
                tally.fastest_page = took
            links = self.plain(fetch.url) if self.plain is not None else None
            if links is not None:  # a plain 200 page (Web.plain_pages): its links are all the answer
                self.sched.on_response(fetch.id, now, links=links)
            else:
                self._respond(fetch, now)
        self.dispatch(now, self.sched.poll(now))

    def _respond(self, fetch: Fetch, now: float) -> None:
        """Report the web's full :class:`~crawlsim.sim.web.Response` to ``fetch``."""
        report_page(self.sched, self.response(fetch.url, fetch.attempt, now), fetch, now, self.dedup_content)

    def _robots_done(self, fetch: Fetch, now: float, took: float, tally: _HostTally) -> None:
        tally.robots_busy += took
        tally.robots_fetches += 1
        report_robots(self.sched, self.robots_txt(fetch.host), fetch, now)

    def on_wake(self, _: simpy.Event) -> None:
        """A host's politeness delay (or a retry's backoff) ran out."""
        self.wake_at = _INF
        now = self.env.now
        self.dispatch(now, self.sched.poll(now))

    def result(self) -> SimRun:
        """The finished crawl's :class:`SimRun`."""
        sched = self.sched
        hosts = self._per_host()
        run = SimRun(
            options=self.opts,
            stats=sched.stats,
            finish_time=self.finish,
            trace=self.events,
            busy_time=sum(hosts["host_busy"].values()),
            wasted_time=self.wasted,
            series=self.points,
            failures=dict(sched.failures),
            deepest_fetch=self.deepest,
            **hosts,
        )
        if self.opts.seen == "exact" and self.opts.record_events:
            run.found = sched.found()
        return run

    def _per_host(self) -> dict[str, Any]:
        """SimRun's ``host_*`` figures: hosts that finished a fetch in
        :attr:`completed` order, the fetch counts in start order."""
        tallies, completed = self.tallies, self.completed
        busy = {h: tallies[h].page_busy + tallies[h].robots_busy for h in completed}
        fetches = {h: t.fetches for h, t in tallies.items()}
        return {
            "host_busy": busy,
            "host_fetches": fetches,
            "host_latency": {h: busy[h] / n for h, n in fetches.items() if n and h in busy},
            "host_page_fetches": {h: t.fetches - t.robots_fetches for h, t in tallies.items()},
            "host_robots_fetches": {h: t.robots_fetches for h, t in tallies.items() if t.robots_fetches},
            "host_crawl_delay": {h: st.crawl_delay for h, st in self.sched.host_states().items() if st.crawl_delay > 0},
            **self._fastest(),
        }

    def _fastest(self) -> dict[str, dict[str, float]]:
        """The fastest fetches, gaps and robots.txt time of the hosts that finished a fetch."""
        finished = [(h, self.tallies[h]) for h in self.completed]
        return {
            "host_min_latency": {h: t.fastest for h, t in finished},
            "host_gap": {h: (t.smallest_gap if t.smallest_gap != _INF else 0.0) for h, t in finished},
            "host_page_min_latency": {h: t.fastest_page for h, t in finished if t.fastest_page != _INF},
            "host_robots_busy": {h: t.robots_busy for h, t in finished if t.robots_busy},
        }


def page_of_for(sim: SimInput, opts: CrawlOptions) -> Callable[[str], str] | None:
    """The ``page_of`` a scheduler crawling ``sim``'s web with ``opts`` is
    given (one rule for every simulated driver: this one, and each node and
    restarted scheduler of a cluster).

    The web's ground truth tells a duplicate fetch (two spellings, one page),
    but it costs the core a set of page identities.  So a large untraced run
    of a web without spelling variants goes without it (the core then uses
    RFC 3986 identity), and so does a traced run in which every fetch is its
    own page (:meth:`~crawlsim.sim.web.Web.fetches_are_identities`: the same
    events, without an identity per fetched page).
    """
    web = sim.web
    if web.variants is not None or (
        opts.record_events and not web.fetches_are_identities(opts.normalize_steps, sim.seeds)
    ):
        return web.page_of
    return None


def report_page(sched: Scheduler, resp: Response, fetch: Fetch, now: float, dedup_content: bool) -> None:
    """Tell the core what the web answered to page ``fetch`` (one spelling
    for every simulated driver: this one and each cluster node)."""
    sched.on_response(
        fetch.id,
        now,
        status=resp.status,
        links=resp.links,
        headers=resp.headers,
        content=resp.content if dedup_content else None,
    )


def report_robots(sched: Scheduler, body: str | None, fetch: Fetch, now: float) -> None:
    """Tell the core a host's robots.txt: the file (200), or none (404)."""
    sched.on_response(fetch.id, now, status=200 if body is not None else 404, body=body)
