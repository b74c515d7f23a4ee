"""The SimPy driver of a cluster: N nodes (:class:`~crawlsim.cluster.node.Node`,
one core Scheduler each) on one simulated clock, links between them as
messages with a sampled latency, and Safra's token ring deciding when the
crawl is over.

Determinism: fetch latencies come from one ``random.Random(sim.seed)``
drawn in start order, exactly as :func:`crawlsim.sim.driver.simulate` draws
them, so a one-node cluster gives the single process's trace
(``tests/test_cluster.py`` checks every shipped scenario); message and
token latencies come from a second generator, so they never shift the
fetches' draws.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import simpy

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.failure import Failures
from crawlsim.cluster.node import Item, Node
from crawlsim.cluster.partition import make_partition
from crawlsim.cluster.politeness import PolitenessWatch
from crawlsim.cluster.termination import SafraRing
from crawlsim.trace.cluster import ClusterTrace, merge_node_traces
from crawlsim.trace.events import Done, Event, MessageDelivered
from crawlsim.core.options import CrawlOptions
from crawlsim.core.fetch import CrawlStats
from crawlsim.core.scheduler import Scheduler
from crawlsim.core.urls import CanonicalizeError, canonical_or_raise
from crawlsim.sim.driver import page_of_for
from crawlsim.sim.hashing import salt_of

if TYPE_CHECKING:
    from crawlsim.sim.inputs import SimInput


@dataclass
class ClusterRun:
    """Everything one simulated cluster crawl produced.  It has the
    attributes :func:`crawlsim.views.summary.summary_dict` reads
    (``stats`` summed over the nodes), plus the cluster's own."""

    options: CrawlOptions
    config: ClusterConfig
    stats: CrawlStats
    finish_time: float
    """The true end: the last fetch finished or message delivered (after it,
    every node was idle with nothing in transit)."""
    detected_at: float
    """When Safra's ring declared the end (never before ``finish_time``)."""
    control_messages: int
    rounds: int
    nodes: list[dict[str, Any]]
    busy_time: float
    wasted_time: float
    host_busy: dict[str, float]
    host_fetches: dict[str, int]
    """Fetches per host (robots.txt included)."""
    host_page_fetches: dict[str, int]
    """Page fetches per host (robots.txt not): the kind ``stats.fetches`` counts."""
    host_robots_fetches: dict[str, int]
    """robots.txt fetches per host, every attempt (hosts that had one)."""
    node_host_busy: list[dict[str, float]]
    politeness_violations: int
    violations_by_host: Counter[str]
    messages: int
    message_bytes: int
    trace: list[Event] = field(default_factory=list)
    """Every node's events on one clock, fetch ids and slots renumbered
    (see :mod:`crawlsim.trace.cluster`)."""
    trace_nodes: list[int] = field(default_factory=list)
    """The node of each event of ``trace``."""
    node_traces: list[list[Event]] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    found: list[str] | None = None
    failures_seen: list[dict[str, Any]] = field(default_factory=list)
    """One record per node failure (see :class:`crawlsim.cluster.failure.FailureRecord`)."""
    checkpoint_saves: int = 0
    checkpoint_bytes: int = 0
    """Bytes of all the nodes' saves (pickled schedulers)."""
    checkpoint_every: float | None = None
    """Seconds between the last two save rounds: ``checkpoint``, unless
    the bounds of :mod:`crawlsim.cluster.failure` stretched it."""
    distinct_pages_answered: int | None = None
    """URLs with at least one answered page fetch (counted when a node may fail)."""
    refetched: int = 0
    """Page fetches answered for a URL already answered before (counted when a node may fail)."""
    at_detection: tuple[bool, int] | None = None
    """(every node idle, messages in transit) at the moment of detection: (True, 0) when correct."""

    def cluster_trace(self) -> ClusterTrace:
        """``trace`` with the node of each event, for views and trace files."""
        return ClusterTrace(self.trace, self.trace_nodes, self.options.workers, self.config.nodes)

    @property
    def detection_delay(self) -> float:
        return self.detected_at - self.finish_time

    @property
    def cluster_utilisation(self) -> float:
        """Busy worker-seconds over all nodes' worker-seconds (named apart from a
        single crawl's ``utilisation``, whose report counts one node's workers)."""
        capacity = self.options.workers * self.config.nodes * self.finish_time
        return self.busy_time / capacity if capacity > 0 else 0.0


def simulate_cluster(
    sim: SimInput, config: ClusterConfig, options: CrawlOptions | None = None, *, trace: bool | None = None
) -> ClusterRun:
    """Crawl ``sim`` with ``config.nodes`` nodes (each with ``options``'
    workers, per-host limit and gap) until the termination detector fires."""
    opts = options or sim.options
    if trace is not None and opts.record_events != trace:
        opts = opts.with_(record_events=trace)
    cluster = _Cluster(sim, config, opts)
    cluster.run()
    return cluster.result()


class _Cluster:
    """The nodes, the clock, the links and the detector of one run: the
    :class:`~crawlsim.cluster.node.ClusterSide` its nodes see and the
    :class:`~crawlsim.cluster.failure.ClusterState` its failures change."""

    def __init__(self, sim: SimInput, config: ClusterConfig, opts: CrawlOptions) -> None:
        self.sim = sim
        self.web = sim.web
        self.config = config
        self.opts = opts
        self.env = simpy.Environment()
        self.tracing = opts.record_events
        self.dedup_content = opts.content_dedup != "off"
        self.rng = random.Random(sim.seed)
        self.link_rng = random.Random(salt_of(sim.seed, "cluster-links"))
        self._samplers: dict[str, Callable[[random.Random], float]] = {}
        self.partition = make_partition(config.partition, config.nodes, config.vnodes)
        self.steps = opts.normalize_steps
        many = config.nodes > 1
        politeness_matters = opts.per_host is not None or opts.gap > 0 or opts.robots
        self.watch = PolitenessWatch(opts) if many and politeness_matters else None
        self.route = many
        self.nodes = [Node(i, self, opts, route=many) for i in range(config.nodes)]
        self.fetched: Counter[str] | None = Counter() if config.fail else None
        """Page fetches answered per URL, counted only when a node may fail (refetches)."""
        self.outages = Failures(self)
        self.ring = SafraRing(config.nodes, lambda i: self.nodes[i].idle, self._send_token, self._detected)
        self.at_detection: tuple[bool, int] | None = None
        """(every node idle, messages in transit) when the ring declared the end."""
        self.last_activity = 0.0
        self.in_transit = 0
        self.log: list[tuple[Event, int]] = []
        """Every node's events (and the cluster's own), in the order they happened."""
        self.messages = 0
        self.message_bytes = 0

    # -- per fetch ---------------------------------------------------------------

    def sample(self, host: str) -> float:
        """One fetch latency on ``host`` from the shared generator."""
        draw = self._samplers.get(host)
        if draw is None:
            draw = self._samplers[host] = self.sim.latency_for(host).sample
        return draw(self.rng)

    def activity(self, now: float) -> None:
        if now > self.last_activity:
            self.last_activity = now

    def after(self, node: Node, now: float) -> None:
        """After any activity on ``node``: pass the token on if it holds it and is idle."""
        if self.ring.holder == node.index:
            self.ring.idle(node.index, now)

    # -- links -------------------------------------------------------------------

    def split(
        self, me: int, base: str, links: Sequence[object], depth: int, outbox: dict[int, list[Item]]
    ) -> tuple[list[object], dict[int, int]]:
        """The links ``me`` owns (as written, for its scheduler), and how many
        were queued in ``outbox`` per owner node.  A link that cannot be
        canonicalized stays: its own scheduler skips it with the reason."""
        local: list[object] = []
        touched: dict[int, int] = {}
        owner, steps = self.partition.owner, self.steps
        for href in links:
            if href.__class__ is not str:
                local.append(href)
                continue
            try:
                url = canonical_or_raise(href, base, steps)  # type: ignore[arg-type]
            except CanonicalizeError:
                local.append(href)
                continue
            dst = owner(url)
            if dst == me:
                local.append(href)
            else:
                outbox.setdefault(dst, []).append((url, base, depth))
                touched[dst] = touched.get(dst, 0) + 1
        return local, touched

    def send(self, src: int, dst: int, items: list[Item], size: int, now: float) -> None:
        """One message of links from ``src`` to ``dst``."""
        self.messages += 1
        self.message_bytes += size
        self.in_transit += 1
        self.ring.sent(src)
        took = self.config.link_latency.sample(self.link_rng)
        self.env.timeout(took, (src, dst, items, size)).callbacks.append(self._deliver)

    def _deliver(self, event: simpy.Event) -> None:
        src, dst, items, size = event.value  # type: ignore[misc]
        now = self.env.now
        self.in_transit -= 1
        self.activity(now)
        if not self.nodes[dst].alive:
            self.ring.dropped(dst)
            self.outages.dropped(dst)
            if self.tracing:
                self.nodes[dst].record(MessageDelivered(now, src, dst, len(items), True))
            return
        self.ring.received(dst)
        self.nodes[dst].receive(src, items, size, now)

    def new_scheduler(self, node: Node) -> Scheduler:
        """An empty scheduler for ``node`` (a restart without a checkpoint):
        the crawl's scope, no seeds, nothing seen."""
        sched = Scheduler(self.opts, page_of=page_of_for(self.sim, self.opts), route=node.route if self.route else None)
        sched.add_scope(list(self.sim.seeds))
        return sched

    def _detected(self, now: float) -> None:
        self.at_detection = (all(n.idle for n in self.nodes), self.in_transit)

    def _send_token(self, src: int, dst: int, arrive: Callable[[float], None]) -> None:
        took = self.config.link_latency.sample(self.link_rng)
        self.env.timeout(took).callbacks.append(lambda _: arrive(self.env.now))

    # -- the run -----------------------------------------------------------------

    def run(self) -> None:
        """Seed the owners, start every node, and run until nothing is left."""
        seeds = list(self.sim.seeds)
        owned: list[list[str]] = [[] for _ in self.nodes]
        for href in seeds:
            try:
                url = canonical_or_raise(href, None, self.steps) if isinstance(href, str) else None
            except CanonicalizeError:
                url = None
            owned[self.partition.owner(url) if url is not None and len(self.nodes) > 1 else 0].append(href)
        for node, mine in zip(self.nodes, owned):
            if len(self.nodes) > 1:
                node.sched.add_scope(seeds)
            node.sched.add_seeds(mine, 0.0)
        for node in self.nodes:
            node.dispatch(0.0)
        self.outages.start()
        self.env.run()
        for node in self.nodes:
            if not self.tracing:
                node.sched.drain_events()

    def result(self) -> ClusterRun:
        nodes = self.nodes
        traces = [n.events for n in nodes]
        stats = _summed([s for n in nodes for s in n.stats()])
        end = Done(self.last_activity, stats.discovered, stats.fetches) if self.tracing else None
        merged = merge_node_traces(self.log, self.config.nodes, self.opts.workers, end)
        watch = self.watch
        return ClusterRun(
            options=self.opts,
            config=self.config,
            stats=stats,
            finish_time=self.last_activity,
            detected_at=self.ring.detected_at if self.ring.detected_at is not None else float("nan"),
            control_messages=self.ring.control_messages,
            rounds=self.ring.rounds,
            nodes=[n.figures() for n in nodes],
            busy_time=sum(n.busy for n in nodes),
            wasted_time=sum(n.wasted for n in nodes),
            node_host_busy=[dict(n.host_busy) for n in nodes],
            politeness_violations=watch.violations if watch else 0,
            violations_by_host=watch.by_host if watch else Counter(),
            messages=self.messages,
            message_bytes=self.message_bytes,
            trace=merged.events,
            trace_nodes=merged.nodes,
            node_traces=traces,
            at_detection=self.at_detection,
            **self._merged(),
            **self._failure_figures(),
        )

    def _failure_figures(self) -> dict[str, Any]:
        """Failures seen, saves made, and pages answered again (None/0 without failures)."""
        fetched = self.fetched
        return {
            "failures_seen": [r.as_dict() for r in self.outages.records.values()],
            "checkpoint_saves": self.outages.saves,
            "checkpoint_bytes": self.outages.saved_bytes,
            "checkpoint_every": self.outages.every,
            "distinct_pages_answered": len(fetched) if fetched is not None else None,
            "refetched": sum(c - 1 for c in fetched.values() if c > 1) if fetched is not None else 0,
        }

    def _merged(self) -> dict[str, Any]:
        """The per-host figures, failures and URLs found, over all nodes."""
        host_busy: Counter[str] = Counter()
        host_fetches: Counter[str] = Counter()
        host_robots: Counter[str] = Counter()
        failures: dict[str, str] = {}
        for n in self.nodes:
            host_busy.update(n.host_busy)
            host_fetches.update(n.host_fetches)
            host_robots.update(n.host_robots_fetches)
            failures.update(n.sched.failures)
        found = None
        if self.opts.seen == "exact" and self.tracing:
            found = sorted({u for n in self.nodes for u in n.sched.found()})
        return {
            "host_busy": dict(host_busy),
            "host_fetches": dict(host_fetches),
            "host_page_fetches": {h: n - host_robots[h] for h, n in host_fetches.items()},
            "host_robots_fetches": dict(host_robots),
            "failures": failures,
            "found": found,
        }


def _summed(all_stats: list[CrawlStats]) -> CrawlStats:
    """The nodes' counters added up (the peaks too: an upper bound of the
    cluster's peak, each node's own peak is in its figures)."""
    total = CrawlStats()
    for f in fields(CrawlStats):
        if f.name == "skipped":
            continue
        setattr(total, f.name, sum(getattr(s, f.name) for s in all_stats))
    for s in all_stats:
        total.skipped.update(s.skipped)
    return total


__all__ = ["ClusterRun", "simulate_cluster"]
