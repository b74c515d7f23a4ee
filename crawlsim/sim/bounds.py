"""Three lower bounds on a simulated crawl's finish time, each with its proof.

Two bottlenecks bound a crawl -- the chain of links and the busiest host --
and total work is the third.  Each bound below is computed from figures of
the run itself (:class:`~crawlsim.sim.driver.SimRun`) and is *proven* to be
at most that run's finish time ``F``: a bound above the finish would teach
the opposite of the truth.  ``max(bounds) <= F`` is checked by a hypothesis
property over random scenarios with robots.txt, Crawl-delay, failures,
429/503 throttling with Retry-After, retries, randomized gaps, the FIFO
frontier, per-host limits above the worker count, caps and every
normalization mode (``tests/test_bounds_properties.py``).

Facts about the scheduler the proofs use (``crawlsim/core``):

(F1) At most ``W = workers`` fetches are in flight at any time, robots.txt
     fetches included; at most ``c = min(per_host or W, W)`` on one host
     (``c = W`` with Scrapy's download slots, whose per-host limit lets
     every fetch waiting in a slot start together: :mod:`crawlsim.core.download_slots`).
(F2) With ``robots`` on, a host's robots.txt fetch is queued the moment the
     host's first URL is accepted, and none of the host's pages starts until
     its final robots.txt answer arrived; robots.txt attempts (retries) run
     one after another.  So the first page fetch on host ``h`` starts no
     earlier than ``t_h + R_h``, where ``t_h`` is when ``h``'s first URL was
     discovered and ``R_h`` the seconds its robots.txt attempts took.
(F3) Politeness (:mod:`crawlsim.core.politeness`, every rule in one part):
     when a fetch starts on a host, the core sets the host's ``ready_at`` no
     earlier than every rule allows, and no fetch on the host starts before
     ``ready_at``; only a start moves it, and otherwise only later.  So
     consecutive page starts on host ``h`` are at least ``g_h`` apart, where
     ``g_h`` is the smallest ``ready_at - now`` the driver saw right after a
     page start on ``h`` (``SimRun.host_gap``; measured, so a randomized gap
     that came out 0.5x is counted as 0.5x), and ``P`` page starts span at
     least ``least_span(options, P, g_h, held_h)`` (the part's own
     statement of its rules: ``(P - 1) * g_h``, more with Retry-After holds
     (F3'), or more when a rule caps a window's starts).
(F3') A response on ``h`` at ``t`` with Retry-After ``s`` sets ``ready_at``
     to at least ``t + s`` (a ``HostDeferred`` ``retry-after``): no page
     start on ``h`` falls in ``(t, t + s)``.
(F4) A URL is fetched only after it was discovered: at time 0 for a seed,
     else when the response of a page listing it was processed.  Attempt
     ``k + 1`` of a URL starts after attempt ``k`` ended.  A retried
     attempt's links are not followed; every processed response's links are,
     whatever its status (a 500 page's links count).
(F5) Every fetch on host ``h`` takes at least ``m_h``, the fastest page
     fetch on ``h`` in this run (robots.txt fetches are counted by ``R_h``).

work
    All fetches lie in ``[0, F]`` and at most ``W`` run at once (F1), so
    ``busy worker-seconds <= W * F``:  **work = busy / W <= F.**

busiest host
    For each host ``h`` with ``P_h`` page fetches taking ``B_h`` seconds:
    every page fetch lies in ``[R_h, F]`` (F2, ``t_h >= 0``), at most ``c``
    at a time (F1), so ``B_h <= c * (F - R_h)``.  The ``P_h`` page starts are
    at least ``g_h`` apart (F3).  A Retry-After answered at ``t`` lies in the
    interval ``[s_k, s_{k+1}]`` of the last start ``s_k <= t`` (the answered
    fetch started before ``t``), and ``s_{k+1} >= t + s`` (F3'), so the hold
    lies inside it; each interval is at least the union ``U_k`` of its holds
    (``held_h``, read from the trace by :func:`retry_after_held`; a hold after
    the last start is left out).  The first start is at ``>= R_h``, and the
    last fetch takes at least ``m_h`` (F5), so ``F >= R_h + span_h + m_h``
    with ``span_h = least_span(options, P_h, g_h, held_h)``.
    **host(h) = R_h + max(B_h / c, span_h + m_h) <= F** (just
    ``R_h`` for a host with no page fetch); the busiest host is the one with
    the largest.  Every hold politeness knows (``DEFER_REASONS``) is in
    ``span_h``: gap and Crawl-delay in ``g_h``, Retry-After in ``held_h``, the
    token bucket in its own term; a retry's backoff holds only its URL, not
    the host, and so is not one.  (The old formula counted the robots.txt fetch as one of the
    gap-spaced starts, and so was above the finish on ``polite``.)

depth
    The graph the run actually revealed: an edge ``p -> v`` for every link
    ``v`` that the processed response of ``p`` listed (a ``Discovered`` or a
    ``Skipped(seen)`` event with parent ``p``).  Give every seed ``D = 0`` and
    settle URLs in increasing ``D`` (Dijkstra); for a fetched URL ``u`` on
    host ``h`` with final attempt ``a_u``::

        S(u) = max(D(u), D_h + R_h)     # D_h: the smallest D on host h
        E(u) = S(u) + a_u * m_h
        D(v) = min over edges p -> v of E(p)

    Claim: ``u``'s first attempt starts no earlier than ``S(u)`` and its
    processed response arrives no earlier than ``E(u)``; so ``u`` is
    discovered no earlier than ``D(u)``.  By induction in time order: ``u``
    was discovered by one processed parent ``p*`` whose edge is in the graph,
    at ``E(p*) >= D(u)`` or more; a host's first URL was discovered at
    ``t_h >= D_h``, so by (F2) its pages start at ``>= D_h + R_h``; the
    ``a_u`` attempts run one after another, each ``>= m_h`` (F4, F5).
    **depth = max over processed fetches of E(u) (and of D_h + R_h) <= F.**
    Only links the run really saw count, so a page that failed reveals
    nothing it did not return (the old bound replayed an ideal crawl in which
    every page answered, and found chains the real crawl never had).  Edges
    come from the trace; a run without one (``record_events`` off, e.g.
    ``million``) gets the weaker ``(d + 1) * min_h m_h``, ``d`` the deepest
    discovery depth of any page fetch started: that fetch ends a chain of
    ``d + 1`` fetches, one after another.

The bounds need no second simulation: one pass over the trace at most.

Which bound binds: the largest; efficiency is it over ``F`` (at most 100%,
since every bound is at most ``F``).  Bounds within float noise (1e-9
relative) of the largest are reported equal to it -- the largest, the proven
one, is unchanged.  Ties are broken here by inference --
a tie between the busiest host and work when the host's limit *is* the
worker count goes to work (more workers relax both), otherwise depth, then
the busiest host.  :mod:`crawlsim.sim.advisor` replaces that inference with
measured counterfactual crawls and writes the explanation that the views
show; :attr:`Bounds.explanation` here only names the binding bound.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

from crawlsim.trace.events import Discovered, Event, FetchFinished, FetchStarted, HostDeferred, Skipped
from crawlsim.sim.driver import SimRun
from crawlsim.sim.time_left import host_left
from crawlsim.sim.time_left import host_limit as options_host_limit

if TYPE_CHECKING:
    from crawlsim.sim.inputs import SimInput

BOUND_NAMES = ("depth", "busiest_host", "work")


@dataclass(frozen=True)
class Bounds:
    depth: float
    busiest_host: float
    busiest_host_name: str | None
    busiest_host_pages: int
    """Page fetches on the busiest host (robots.txt apart: the summary's kind of fetch)."""
    busiest_host_robots: int
    """robots.txt fetches on the busiest host (every attempt); its bound counts their time."""
    work: float
    binding: str
    """``depth``, ``busiest_host`` or ``work``: the largest (ties: see the module docstring)."""
    efficiency: float
    explanation: str
    busiest_host_spacing: bool = False
    """True when the busiest host's bound is set by its gap-spaced starts
    rather than by its busy time over its concurrency."""
    host_bounds: Mapping[str, float] = field(default_factory=dict)
    """Every host's own bound (the busiest host's is ``busiest_host``): the
    views rank hosts by it, so the host the bound names comes first."""
    advice: Any = None
    """The :class:`~crawlsim.sim.advisor.Advice` that chose ``binding`` and
    wrote ``explanation`` (None: bounds only, see :func:`compute_bounds`)."""

    @property
    def binding_value(self) -> float:
        return max(self.depth, self.busiest_host, self.work)

    def values(self) -> dict[str, float]:
        return {"depth": self.depth, "busiest_host": self.busiest_host, "work": self.work}


def host_limit(run: SimRun) -> int:
    """Fetches one host may have in flight: its per-host limit, capped by the workers."""
    return options_host_limit(run.options)


def host_bound(run: SimRun, host: str) -> float:
    """``R_h + max(B_h / c, span_h + m_h)`` (see the module docstring)."""
    return host_bounds(run)[host][0]


def host_bounds(run: SimRun) -> dict[str, tuple[float, bool]]:
    """Every host's bound, and whether its gap-spaced starts (and holds) set it."""
    held = retry_after_held(run.trace)
    return {host: _host_terms(run, host, held.get(host, ())) for host in run.host_fetches}


def _host_terms(run: SimRun, host: str, held: Sequence[float]) -> tuple[float, bool]:
    """The host's bound, and whether the gap-spaced starts set it."""
    robots = run.host_robots_busy.get(host, 0.0)
    pages = run.host_page_fetches.get(host, 0)
    page_busy = run.host_busy.get(host, 0.0) - robots
    fastest = run.host_page_min_latency.get(host, 0.0)
    return host_left(run.options, robots, pages, run.host_gap.get(host, 0.0), held, fastest, page_busy)


def retry_after_held(trace: Iterable[Event]) -> dict[str, list[float]]:
    """Per host, the seconds Retry-After held it within each interval between
    two consecutive page starts that a Retry-After fell in (the union of the
    holds, which may overlap); a hold after the host's last page start delays
    nothing and is left out.  From the trace's ``HostDeferred`` events (none
    without a trace: the bound is then weaker, still proven)."""
    held: dict[str, list[float]] = defaultdict(list)
    since_start: dict[str, _Holds] = {}  # host -> its holds since its latest page start
    for event in trace:
        kind = type(event)
        if kind is FetchStarted and event.kind == "page":  # type: ignore[attr-defined]
            host = event.host  # type: ignore[attr-defined]
            holds = since_start.get(host)
            if holds is not None and holds.covered > 0:
                held[host].append(holds.covered)
            since_start[host] = _Holds()
        elif kind is HostDeferred and event.reason == "retry-after":  # type: ignore[attr-defined]
            holds = since_start.get(event.host)  # type: ignore[attr-defined]
            if holds is not None:
                holds.add(event.t, event.until)  # type: ignore[attr-defined]
    return dict(held)


@dataclass
class _Holds:
    """The Retry-After holds on one host since its latest page start: the
    seconds their union covers, and where the latest one ends (they arrive
    in time order)."""

    covered: float = 0.0
    end: float = float("-inf")

    def add(self, t: float, until: float) -> None:
        self.covered += max(0.0, until - max(t, self.end))
        self.end = max(self.end, until)


def depth_bound(run: SimRun) -> float:
    """The revealed-graph chain bound from the trace, or without a trace the
    deepest fetch's chain at the fastest page fetch (module docstring)."""
    if run.trace:
        return _chain_bound(run)
    fastest = min(run.host_page_min_latency.values(), default=0.0)
    return (run.deepest_fetch + 1) * fastest if run.host_page_fetches else 0.0


def _chain_bound(run: SimRun) -> float:
    """``depth`` with a trace: the longest revealed chain (module docstring)."""
    return _RevealedGraph.of(run.trace).longest_chain(run.host_page_min_latency, run.host_robots_busy)


@dataclass
class _RevealedGraph:
    """The links the run actually saw, read from its trace in one pass:
    only these edges may appear in the depth bound's chains."""

    host_of: dict[str, str]
    """Accepted URL -> its host (a URL linked but never accepted is absent)."""
    edges: dict[str, list[str]]
    """Processed page URL -> the URLs its response listed (Discovered or Skipped(seen))."""
    seeds: list[str]
    attempts: dict[str, int]
    """Processed page URL -> the attempt number of that response (``a_u``)."""

    @classmethod
    def of(cls, trace: Iterable[Event]) -> _RevealedGraph:
        graph = cls({}, defaultdict(list), [], {})
        attempt_of: dict[int, int] = {}  # page fetch id -> its attempt number
        for event in trace:
            kind = type(event)
            if kind is Discovered:
                graph._discovered(event)  # type: ignore[arg-type]
            elif kind is Skipped:
                if event.reason == "seen" and event.parent is not None:  # type: ignore[attr-defined]
                    graph.edges[event.parent].append(event.url)  # type: ignore[attr-defined]
            elif kind is FetchStarted:
                if event.kind == "page":  # type: ignore[attr-defined]
                    attempt_of[event.fetch_id] = event.attempt  # type: ignore[attr-defined]
            elif kind is FetchFinished and event.kind == "page":  # type: ignore[attr-defined]
                graph.attempts[event.url] = attempt_of.get(event.fetch_id, 1)  # type: ignore[attr-defined]
        return graph

    def _discovered(self, event: Discovered) -> None:
        self.host_of[event.url] = event.host
        if event.parent is None:
            self.seeds.append(event.url)
        else:
            self.edges[event.parent].append(event.url)

    def longest_chain(self, fastest: Mapping[str, float], robots: Mapping[str, float]) -> float:
        """Settle URLs in increasing ``D`` (Dijkstra) and return the largest
        ``E(u)`` or ``D_h + R_h`` (module docstring); ``fastest`` is ``m_h``,
        ``robots`` is ``R_h``."""
        distance: dict[str, float] = {}
        heap: list[tuple[float, str]] = [(0.0, url) for url in self.seeds]
        robots_done: dict[str, float] = {}  # D_h + R_h, set when h's first URL is settled
        best = 0.0
        while heap:
            d, url = heappop(heap)
            if url in distance:
                continue
            distance[url] = d
            host = self.host_of.get(url)
            if host is None:
                continue  # linked, never accepted: never fetched
            ready = robots_done.get(host)
            if ready is None:
                ready = robots_done[host] = d + robots.get(host, 0.0)
                best = max(best, ready)
            tries = self.attempts.get(url)
            if tries is None:
                continue  # not fetched (or not answered): reveals nothing
            end = max(d, ready) + tries * fastest.get(host, 0.0)
            best = max(best, end)
            for child in self.edges.get(url, ()):
                if child not in distance:
                    heappush(heap, (end, child))
        return best


def _snap(values: dict[str, float]) -> dict[str, float]:
    """Bounds within float noise (1e-9 relative) of the largest are set equal
    to it, so a tie is an exact tie: 0.6 and 0.6000000000000001 are the same
    bound summed in another order.  The largest value -- the one proven at
    most the finish time -- is unchanged."""
    top = max(values.values())
    return {k: top if v >= top - 1e-9 * max(1.0, top) else v for k, v in values.items()}


def _binding(run: SimRun, values: dict[str, float]) -> str:
    top = max(values.values())
    tied = [k for k in BOUND_NAMES if values[k] == top]
    if len(tied) == 1:
        return tied[0]
    opts = run.options
    if "work" in tied and "busiest_host" in tied and host_limit(run) == opts.workers:
        return "work"
    return tied[0]  # depth, then busiest host, then work (module docstring)


def compute_bounds(sim: SimInput | None, run: SimRun) -> Bounds:
    """All three bounds for ``run`` (``sim``, the scenario or other
    :class:`~crawlsim.sim.inputs.SimInput` simulated, is accepted for the
    callers that pass it; the bounds need only the run)."""
    del sim
    depth = depth_bound(run)
    per_host = host_bounds(run)
    # the largest; between equal hosts, the first by name (max keeps the first)
    busiest = max(sorted(per_host), key=lambda h: per_host[h][0], default=None)
    host_time, spacing = per_host[busiest] if busiest is not None else (0.0, False)
    work = run.busy_time / run.options.workers
    values = _snap({"depth": depth, "busiest_host": host_time, "work": work})
    depth, host_time, work = values["depth"], values["busiest_host"], values["work"]
    binding = _binding(run, values)
    finish = run.finish_time
    efficiency = values[binding] / finish if finish > 0 else 1.0
    return Bounds(
        depth=depth,
        busiest_host=host_time,
        busiest_host_name=busiest,
        busiest_host_pages=run.host_page_fetches.get(busiest, 0) if busiest else 0,
        busiest_host_robots=run.host_robots_fetches.get(busiest, 0) if busiest else 0,
        work=work,
        binding=binding,
        efficiency=efficiency,
        explanation=binding_phrase(run, binding, values[binding], busiest),
        busiest_host_spacing=spacing,
        host_bounds={h: terms[0] for h, terms in per_host.items()},
    )


def holder(run: SimRun, binding: str, busiest: str | None) -> str:
    """Who holds the crawl when ``binding`` binds: a host, the chain, the workers."""
    if binding == "busiest_host" and busiest:
        return busiest
    if binding == "depth":
        return "The longest chain of links"
    workers = run.options.workers
    return "The one worker" if workers == 1 else f"The {workers} workers"


def binding_phrase(run: SimRun, binding: str, bound: float, busiest: str | None) -> str:
    """``b.com holds the crawl at 18.0 s (busiest-host bound; finish 19.0 s).``"""
    finish = run.finish_time
    if finish <= 0:
        return "Nothing was fetched."
    who = holder(run, binding, busiest)
    verb = "hold" if who.startswith("The ") and who != "The one worker" and binding == "work" else "holds"
    label = {"depth": "depth", "busiest_host": "busiest-host", "work": "work"}[binding]
    if bound < 0.8 * finish:
        return (
            f"The crawl takes {seconds(finish)}, well above every lower bound "
            f"(the largest: {who[0].lower() + who[1:] if who.startswith('The ') else who}, {label} bound {seconds(bound)})."
        )
    return f"{who} {verb} the crawl at {seconds(bound)} ({label} bound; finish {seconds(finish)})."


def seconds(value: float) -> str:
    """``18.0 s``, ``0.250 s``: tenths above a second, milliseconds below
    (as ``crawlsim run`` prints times), so two quoted times that differ show
    different figures."""
    if value != 0 and abs(value) < 1:
        return f"{value:.3f} s"
    return f"{value:,.1f} s"


__all__ = [
    "BOUND_NAMES",
    "Bounds",
    "binding_phrase",
    "compute_bounds",
    "depth_bound",
    "holder",
    "host_bound",
    "host_bounds",
    "host_limit",
    "retry_after_held",
    "seconds",
]
