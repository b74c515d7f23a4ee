"""What the app is showing: a scenario (or a trace), the knobs, one run.

The what-if keys only change :class:`Knobs`; :func:`run_session` turns a
scenario plus knobs into a simulated run, its bounds and a :class:`Replay`.
Nothing here imports Textual, so the knob logic is tested directly and the
app can run :func:`run_session` in a worker thread for large scenarios.

Polite mode, as the keys define it:

* on:  ``per_host`` = the scenario's own per-host limit (1 if it has none),
  and ``gap`` = the gap set with ``[`` / ``]``;
* off: ``per_host`` = None (only the worker count limits a host) and gap 0.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from crawlsim.core.options import CrawlOptions
from crawlsim.core.priorities import PRIORITIES, priority_name, priority_named
from crawlsim.core.urls import mode_name
from crawlsim.views.replay import Replay
from crawlsim.trace.events import Event
from crawlsim.trace.jsonl import RecordedTrace
from crawlsim.sim.found import Found, found_coverage

if TYPE_CHECKING:
    from crawlsim.cluster.config import ClusterConfig
    from crawlsim.cluster.sim import ClusterRun
    from crawlsim.scenario import Scenario
    from crawlsim.sim.bounds import Bounds
    from crawlsim.sim.coverage import Coverage
    from crawlsim.sim.driver import SimRun

NORMALIZE_CYCLE = ("off", "fragment", "rfc3986", "aggressive")
WORKER_STEPS_BY_ONE = 8
"""``+``/``-`` change the worker count by one up to this many, then double or halve."""
MAX_WORKERS_KNOB = 128
GAP_LADDER = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
MAX_NODES_KNOB = 64
NODE_STEPS_BY_ONE = 8
"""``N``/``M`` change the node count by one up to this many, then double or halve."""
PARTITION_CYCLE = ("host-hash", "consistent-hash", "url-hash", "round-robin")
"""The partitions the ``P`` key cycles through (crawlsim.cluster.config.PARTITIONS)."""
SPEED_LADDER = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0)

LARGE_WEB = 20_000
"""A web with more pages than this is too big to simulate and draw while
the user waits (``million``): the app caps it with ``max_pages``."""
INTERACTIVE_CAP = 5_000
THREAD_PAGES = 300
"""Webs above this size are simulated in a worker thread, off the UI loop."""


def step(ladder: tuple[float, ...], value: float, direction: int) -> float:
    """The next rung of ``ladder`` above (direction 1) or below (-1) ``value``;
    ``value`` itself at either end."""
    if direction > 0:
        return next((v for v in ladder if v > value + 1e-9), value)
    return next((v for v in reversed(ladder) if v < value - 1e-9), value)


def step_workers(workers: int, direction: int) -> int:
    """One ``+`` (direction 1) or ``-`` (-1) on the worker count: by one up to
    :data:`WORKER_STEPS_BY_ONE`, then doubling and halving (1..8, 16, 32,
    64, 128), so a key and its opposite always undo each other."""
    return step_count(workers, direction, WORKER_STEPS_BY_ONE, MAX_WORKERS_KNOB)


def step_count(value: int, direction: int, by_one: int, most: int) -> int:
    """One step up (direction 1) or down (-1) on a count: by one up to
    ``by_one``, then doubling and halving, never past 1 or ``most``."""
    if direction > 0:
        return value + 1 if value < by_one else min(most, max(value, value * 2))
    if value > by_one:
        return max(by_one, value // 2)
    return max(1, value - 1)


PARTITIONS_KNOWN = frozenset(PARTITION_CYCLE)


def next_normalize(current: str | frozenset[str]) -> str:
    """The next mode in off -> fragment -> rfc3986 -> aggressive -> off (a
    custom step set goes to ``off``)."""
    if isinstance(current, str) and current in NORMALIZE_CYCLE:
        return NORMALIZE_CYCLE[(NORMALIZE_CYCLE.index(current) + 1) % len(NORMALIZE_CYCLE)]
    return NORMALIZE_CYCLE[0]


def normalize_label(value: str | frozenset[str]) -> str:
    """The knob's value by its one name (``core.urls.mode_name``): a named mode, or the nearest plus what differs."""
    return mode_name(value)


ORDER_CHOICES: tuple[str, ...] = ("bfs", "dfs", *PRIORITIES)
"""The orders the app's ``o`` key cycles through and the widget offers:
BFS, DFS, then best-first with each named priority."""


def order_label(knobs: Knobs) -> str:
    """``BFS``, ``DFS`` or ``best (shallowest)``: how views name the order."""
    choice = knobs.order_choice
    return choice.upper() if choice in ("bfs", "dfs") else f"best ({choice})" if choice != "best" else "best"


@dataclass(frozen=True)
class Knobs:
    """The settings the what-if keys turn; the rest come from the scenario
    and the command line, untouched."""

    workers: int
    polite: bool
    per_host: int
    """The per-host limit used while polite mode is on."""
    gap: float
    """The gap used while polite mode is on."""
    normalize: str | frozenset[str]
    order: str
    priority: Any = None
    """Best-first's priority (a named one, or the scenario's own function)."""
    nodes: int = 1
    """Crawler nodes, each with ``workers`` workers (1: one process)."""
    partition: str = "host-hash"
    """How URLs are split between nodes (used when ``nodes`` > 1)."""

    @classmethod
    def from_options(cls, options: CrawlOptions, cluster: ClusterConfig | None = None) -> Knobs:
        return cls(
            workers=options.workers,
            polite=options.per_host is not None or options.gap > 0,
            per_host=options.per_host or 1,
            gap=options.gap,
            normalize=options.normalize,
            order=options.order,
            priority=options.priority,
            nodes=cluster.nodes if cluster is not None else 1,
            partition=cluster.partition if cluster is not None else "host-hash",
        )

    @classmethod
    def for_scenario(cls, scenario: Scenario) -> Knobs:
        """The knobs a view starts from: the scenario's options and its
        ``[cluster]`` table (nodes, partition)."""
        return cls.from_options(scenario.options, scenario.cluster)

    def overrides(self) -> dict[str, Any]:
        """The option values these knobs stand for."""
        return {
            "workers": self.workers,
            "per_host": self.per_host if self.polite else None,
            "gap": self.gap if self.polite else 0.0,
            "normalize": self.normalize,
            "order": self.order,
            "priority": self.priority if self.order == "best" else None,
        }

    # one method per key, each returning new knobs ------------------------------

    def more_workers(self) -> Knobs:
        return replace(self, workers=step_workers(self.workers, 1))

    def fewer_workers(self) -> Knobs:
        return replace(self, workers=step_workers(self.workers, -1))

    def toggle_polite(self) -> Knobs:
        return replace(self, polite=not self.polite)

    def gap_up(self) -> Knobs:
        """A larger gap; turns polite mode on (a gap means nothing without it)."""
        return replace(self, polite=True, gap=step(GAP_LADDER, self.gap, 1))

    def gap_down(self) -> Knobs:
        """A smaller gap (polite mode on, as for :meth:`gap_up`)."""
        return replace(self, polite=True, gap=step(GAP_LADDER, self.gap, -1))

    def more_nodes(self) -> Knobs:
        return replace(self, nodes=step_count(self.nodes, 1, NODE_STEPS_BY_ONE, MAX_NODES_KNOB))

    def fewer_nodes(self) -> Knobs:
        return replace(self, nodes=step_count(self.nodes, -1, NODE_STEPS_BY_ONE, MAX_NODES_KNOB))

    def next_partition(self) -> Knobs:
        at = PARTITION_CYCLE.index(self.partition) if self.partition in PARTITIONS_KNOWN else -1
        return replace(self, partition=PARTITION_CYCLE[(at + 1) % len(PARTITION_CYCLE)])

    def cycle_normalize(self) -> Knobs:
        return replace(self, normalize=next_normalize(self.normalize))

    @property
    def order_choice(self) -> str:
        """The order as one name: ``bfs``, ``dfs`` or a named priority
        (``best`` for a priority function without a name)."""
        if self.order != "best":
            return self.order
        return priority_name(self.priority) or "best"

    def with_order_choice(self, choice: str) -> Knobs:
        """These knobs with the order named ``choice`` (one of :data:`ORDER_CHOICES`)."""
        if choice in ("bfs", "dfs"):
            return replace(self, order=choice, priority=None)
        return replace(self, order="best", priority=priority_named(choice))

    def next_order(self) -> Knobs:
        """The next order of :data:`ORDER_CHOICES` (after a custom priority: bfs)."""
        current = self.order_choice
        at = ORDER_CHOICES.index(current) if current in ORDER_CHOICES else -1
        return self.with_order_choice(ORDER_CHOICES[(at + 1) % len(ORDER_CHOICES)])

    def toggle_order(self) -> Knobs:
        """BFS and DFS only (the widget's old control; the app cycles :meth:`next_order`)."""
        return replace(self, order="dfs" if self.order == "bfs" else "bfs", priority=None)

    def describe(self) -> str:
        polite = f"polite on (per-host {self.per_host}, gap {self.gap:g} s)" if self.polite else "polite off"
        nodes = f" · {self.nodes} nodes, {self.partition}" if self.nodes > 1 else ""
        return (
            f"workers {self.workers} · {polite} · normalize {normalize_label(self.normalize)} · "
            f"order {order_label(self)}{nodes}"
        )

    def diff(self, other: Knobs) -> str:
        """What changed from ``other`` to these knobs, e.g. ``workers 4→8``."""
        parts = []
        if self.workers != other.workers:
            parts.append(f"workers {other.workers}→{self.workers}")
        if self.polite != other.polite:
            parts.append(f"polite {'on' if self.polite else 'off'}")
        if self.gap != other.gap:
            parts.append(f"gap {other.gap:g}→{self.gap:g} s")
        if self.normalize != other.normalize:
            parts.append(f"normalize {normalize_label(other.normalize)}→{normalize_label(self.normalize)}")
        if self.order_choice != other.order_choice:
            parts.append(f"order {order_label(other)}→{order_label(self)}")
        if self.nodes != other.nodes:
            parts.append(f"nodes {other.nodes}→{self.nodes}")
        if self.partition != other.partition:
            parts.append(f"partition {other.partition}→{self.partition}")
        return ", ".join(parts)


def web_size(scenario: Scenario) -> int | None:
    """Pages the scenario's web holds, or None when unknown or unbounded.

    Counted once per web: a view asks on every knob turn (:func:`large_run`),
    and the count walks every host (10,000 of them in ``million``), while
    the web never changes once loaded."""
    web = scenario.web
    try:
        return _WEB_SIZES[web]
    except KeyError:
        pass
    except TypeError:  # a web that cannot be remembered (unhashable): counted each time
        return _count_web(web)
    size = _WEB_SIZES[web] = _count_web(web)
    return size


_WEB_SIZES: weakref.WeakKeyDictionary[Any, int | None] = weakref.WeakKeyDictionary()
""":func:`web_size`'s answers, forgotten with their web."""


def _count_web(web: Any) -> int | None:
    total = 0
    for host in web.hosts():
        size = web.host_size(host)
        if size is None:
            return None
        total += size
    return total


def large_run(scenario: Scenario, cap: int | None) -> bool:
    """True when the view's crawl of ``scenario`` may fetch more than
    :data:`THREAD_PAGES` pages (or an unknown number): such a run is
    simulated off the UI thread and its replay built after its finish time
    and bounds are drawn (``run_session(..., replay=False)``)."""
    limits = [v for v in (web_size(scenario), scenario.options.max_pages, cap) if v is not None]
    return not limits or min(limits) > THREAD_PAGES


def interactive_cap(scenario: Scenario) -> int | None:
    """The page cap the app imposes on ``scenario`` (None: no cap needed).

    A million-page web would take minutes to simulate with events on and
    cannot be drawn page by page anyway, so the app crawls its first
    :data:`INTERACTIVE_CAP` pages (``max_pages``) and says so."""
    size = web_size(scenario)
    limit = scenario.options.max_pages
    if size is not None and size > LARGE_WEB and (limit is None or limit > INTERACTIVE_CAP):
        return INTERACTIVE_CAP
    return None


REPLAY_PENDING = "replay: building…"
"""What a view shows in the picture's place until :func:`replay_result` is done."""
ADVICE_PENDING = "advice: measuring… (the crawl is rerun with each knob turned)"
"""What a view shows in the advice's place until :func:`advise_result` is done."""


@dataclass(frozen=True)
class Result:
    """One finished run, ready to draw."""

    replay: Replay
    finish: float
    knobs: Knobs | None
    options: CrawlOptions | None
    run: SimRun | None = None
    bounds: Bounds | None = None
    note: str = ""
    coverage: Coverage | None = None
    """Pages reachable and lost (a trace's: the pages it found, :mod:`crawlsim.sim.found`;
    None for a cluster's trace)."""
    cluster: ClusterRun | None = None
    """The cluster's own run when the knobs ask for more than one node
    (``run`` is None then: bounds and advice are for one process)."""
    simulated: Scenario | None = None
    """The scenario as simulated (the knobs and cap applied): what the advice reruns."""
    advice_pending: bool = False
    """The bounds are here but their advice is not yet (``bounds.explanation``
    is :data:`ADVICE_PENDING`): :func:`advise_result` completes it."""
    replay_pending: bool = False
    """The finish time and bounds are here but the events are not yet:
    ``replay`` is an empty :class:`Replay` spanning ``[0, finish]``,
    and :func:`replay_result` records and builds the real one."""


def run_session(
    scenario: Scenario, knobs: Knobs, *, cap: int | None = None, advice: bool = True, replay: bool = True
) -> Result:
    """Simulate ``scenario`` with ``knobs`` applied; compute its bounds and replay.

    This is the only place the app runs the crawl: the core, driven by the
    SimPy driver, produces the trace; the views only replay it.  The bounds'
    explanation is the advisor's (:mod:`crawlsim.sim.advisor`): it reruns the
    crawl with the knobs it names and quotes what they measured, the same
    sentence ``crawlsim run`` prints.

    Those reruns cost several crawls, so a view that must answer a key at
    once passes ``advice=False``: the result then has the finish time and the
    bounds, ``advice_pending`` set and :data:`ADVICE_PENDING` as the
    explanation, and :func:`advise_result` adds the advice later (off the UI
    thread, or after the frame is drawn).

    Recording the events and building the replay cost more than the crawl
    itself, so ``replay=False`` goes further: the crawl runs with event
    recording off (its finish time, counters and bounds only), the result's
    replay is an empty one spanning ``[0, finish]`` and ``replay_pending`` is
    set; :func:`replay_result` then records the same crawl's events and
    builds its replay.  A cluster's run is always replayed at once."""
    scen, note = _simulated(scenario, knobs, cap)
    if knobs.nodes > 1:
        return _run_cluster(scen, knobs, note)
    result = _replayed_run(scen, knobs, note) if replay else _unreplayed_run(scen, knobs, note)
    return advise_result(result) if advice else result


def _simulated(scenario: Scenario, knobs: Knobs, cap: int | None) -> tuple[Scenario, str]:
    """The scenario as simulated (the knobs and the cap applied), and the cap's note."""
    overrides = knobs.overrides()
    note = ""
    if cap is not None:
        overrides["max_pages"] = cap
        note = f"capped at {cap:,} pages (max_pages) for the interactive view"
    return scenario.with_options(**overrides, record_events=True), note


def _replayed_run(scen: Scenario, knobs: Knobs, note: str) -> Result:
    """The crawl with its events recorded: bounds, coverage and the replay (advice pending)."""
    from crawlsim.sim.bounds import compute_bounds
    from crawlsim.sim.coverage import coverage_of
    from crawlsim.sim.driver import simulate

    # a plain list of events: bounds, coverage and the replay each read them all
    run = simulate(_remembering(scen), scen.options, compact=False)
    bounds = replace(compute_bounds(scen, run), explanation=ADVICE_PENDING)
    coverage = coverage_of(scen, run)
    known = _known_pages(scen, coverage)
    replay = Replay(run.trace, known_pages=known, workers=scen.options.workers, coverage=coverage)
    return Result(replay, run.finish_time, knobs, scen.options, run, bounds, note, coverage, None, scen, True)


def _remembering(scen: Scenario) -> Scenario:
    """``scen`` crawling a stand-in for its web that remembers the links of its
    plain pages across this session's reruns (:mod:`crawlsim.sim.remembered`)."""
    from crawlsim.sim.remembered import remembering

    return replace(scen, web=remembering(scen.web))


def _unreplayed_run(scen: Scenario, knobs: Knobs, note: str) -> Result:
    """The crawl with event recording off: the finish time and bounds, no events yet.

    Without the events the depth bound is the deepest fetch's chain at the
    fastest fetch (:func:`~crawlsim.sim.bounds.depth_bound`), until
    :func:`replay_result` measures the revealed chain."""
    from crawlsim.sim.bounds import compute_bounds
    from crawlsim.sim.driver import simulate

    run = simulate(_remembering(scen), scen.options, trace=False, series=False)  # (the replay's brings the series)
    bounds = replace(compute_bounds(scen, run), explanation=ADVICE_PENDING)
    replay = Replay((), workers=scen.options.workers, end=run.finish_time)  # the events come with replay_result
    return Result(
        replay, run.finish_time, knobs, scen.options, run, bounds, note, simulated=scen, advice_pending=True,
        replay_pending=True,
    )


def replay_result(result: Result, *, cancelled: Callable[[], bool] | None = None) -> Result:
    """``result`` with its replay: the same crawl run again with its events
    recorded, its bounds from them (the revealed chain), coverage and the
    :class:`Replay`.  A result with no replay pending is returned as it is;
    the advice stays pending if it was.

    The crawl is deterministic, so the replay's finish is the finish already
    shown (a hypothesis property checks it).  ``cancelled`` is asked before
    and after the crawl; when it says yes this raises
    :class:`~crawlsim.sim.advisor.AdviceCancelled` (a newer key made this
    work stale)."""
    from crawlsim.sim.advisor import AdviceCancelled

    if not result.replay_pending or result.simulated is None or result.knobs is None:
        return result
    if cancelled is not None and cancelled():
        raise AdviceCancelled
    full = _replayed_run(result.simulated, result.knobs, result.note)
    if cancelled is not None and cancelled():
        raise AdviceCancelled
    return replace(full, advice_pending=result.advice_pending)


def advise_result(result: Result, *, cancelled: Callable[[], bool] | None = None) -> Result:
    """``result`` with its advice (the advisor's counterfactual reruns):
    the binding bound and explanation ``crawlsim run`` prints for the same
    settings.  A result with nothing pending is returned as it is; one whose
    replay is pending gets it first (:func:`replay_result`: the advice reads
    the recorded events).

    ``cancelled`` is asked between reruns; when it says yes this raises
    :class:`~crawlsim.sim.advisor.AdviceCancelled` (a newer key made this
    advice stale)."""
    from crawlsim.sim.advisor import explained

    if not result.advice_pending or result.bounds is None or result.simulated is None:
        return result
    result = replay_result(result, cancelled=cancelled)
    if result.run is None or result.bounds is None or result.simulated is None:
        return result
    bounds, _ = explained(result.simulated, result.run, result.bounds, coverage=result.coverage, cancelled=cancelled)
    return replace(result, bounds=bounds, advice_pending=False)


def _known_pages(scen: Scenario, coverage: Coverage) -> set[str]:
    """Pages to draw from the start: the web's own list (small webs) and the
    pages the crawl lost, drawn with their reason."""
    known: set[str] = set()
    pages_of = getattr(scen.web, "known_pages", None)
    if callable(pages_of):
        known = set(pages_of())
    known.update(item.page for item in coverage.lost or ())
    return known if len(known) <= 5_000 else set()


def _run_cluster(scen: Scenario, knobs: Knobs, note: str) -> Result:
    """The knobs' crawl on ``knobs.nodes`` simulated nodes (the scenario's
    ``[cluster]`` table for the rest: link latency, batch, failures).  The
    one-process bounds and advice do not apply; the cluster's own figures
    are in ``Result.cluster``."""
    from crawlsim.cluster.sim import simulate_cluster
    from crawlsim.sim.coverage import coverage_of

    config = scen.cluster.with_(nodes=knobs.nodes, partition=knobs.partition)
    if note:  # each node's scheduler has its own max_pages
        note = note.replace(" pages (max_pages)", " pages per node (max_pages)")
    run = simulate_cluster(scen, config, scen.options, trace=True)
    coverage = coverage_of(scen, run)
    replay = Replay(
        run.trace,
        known_pages=_known_pages(scen, coverage),
        workers=scen.options.workers,
        coverage=coverage,
        nodes=run.trace_nodes,
        node_count=config.nodes,
    )
    return Result(replay, run.finish_time, knobs, scen.options, None, None, note, coverage, cluster=run)


def trace_result(events: list[Event] | RecordedTrace) -> Result:
    """A trace replayed as recorded: no knobs, no bounds (no scenario to
    rerun); a cluster's trace replays with its nodes.  One process's pages
    reachable and lost are what it found, as ``crawlsim crawl`` counts them
    (:mod:`crawlsim.sim.found`): a trace has no web to say more."""
    trace = events if isinstance(events, RecordedTrace) else RecordedTrace(events)
    coverage = found_coverage(Found.of_events(trace.events)) if trace.nodes is None else None
    replay = Replay(
        trace.events, workers=trace.workers, coverage=coverage, nodes=trace.nodes, node_count=trace.node_count
    )
    return Result(replay, replay.end, None, None, coverage=coverage)



@dataclass
class LiveFeed:
    """Events of a crawl still running, for a view to follow.

    The crawl (in another thread) appends to ``events`` and sets ``done``
    when it ends; the view takes ``events[:n]`` snapshots (list appends are
    atomic in CPython), so no lock is needed.  ``label`` names what is crawled.
    """

    label: str
    events: list[Event] = field(default_factory=list)
    done: bool = False
    error: str = ""
    time_left: str = ""
    """The crawl's latest time-left line (:class:`crawlsim.sim.time_left.TimeLeft`), or ""."""


def default_speed(finish: float) -> float:
    """Simulated seconds per real second so a run plays in about 20 s."""
    want = finish / 20.0 if finish > 0 else 1.0
    return next((v for v in SPEED_LADDER if v >= want), SPEED_LADDER[-1])


__all__ = [
    "GAP_LADDER",
    "NORMALIZE_CYCLE",
    "SPEED_LADDER",
    "WORKER_STEPS_BY_ONE",
    "Knobs",
    "LiveFeed",
    "ADVICE_PENDING",
    "REPLAY_PENDING",
    "Result",
    "advise_result",
    "default_speed",
    "interactive_cap",
    "large_run",
    "replay_result",
    "next_normalize",
    "run_session",
    "step",
    "step_workers",
    "trace_result",
    "web_size",
]
