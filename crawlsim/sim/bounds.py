"""Lower bounds on a crawl's finish time, which one binds, and what would help.

Three bounds explain most crawl times (seed 000):

depth
    A page cannot be fetched before a page linking to it has finished, so
    the crawl lasts at least as long as its longest *shortest* discovery
    chain.  Computed by re-running the same core with unlimited workers, no
    politeness, every page answering, and each host at the fastest latency
    it showed in the real run: that replay's finish time is the bound.
busiest host
    A host with P requests, at most c at a time, with starts at least g
    apart, needs about P x max(L / c, g).  Precisely: its busy time / c, and
    (P - 1) x g plus its fastest fetch -- whichever is larger.
work
    All fetch time divided among the workers: busy worker-seconds / workers.

The largest is the binding bound; efficiency is that bound over the actual
finish time.  The explanation names the host and the knob that would help.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from crawlsim.sim.driver import SimRun, simulate

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario


@dataclass(frozen=True)
class Bounds:
    depth: float
    busiest_host: float
    busiest_host_name: str | None
    busiest_host_pages: int
    work: float
    binding: str
    """``depth``, ``busiest_host`` or ``work``."""
    efficiency: float
    explanation: str

    @property
    def binding_value(self) -> float:
        return max(self.depth, self.busiest_host, self.work)


def host_bound(run: SimRun, host: str) -> float:
    """The time ``host`` alone needs, given its requests in ``run``."""
    per_host = run.options.per_host or run.options.workers
    requests = run.host_fetches.get(host, 0)
    if requests == 0:
        return 0.0
    spaced = (requests - 1) * run.host_gap.get(host, 0.0) + run.host_min_latency.get(host, 0.0)
    return max(run.host_busy.get(host, 0.0) / min(per_host, run.options.workers), spaced)


def depth_bound(scenario: Scenario, run: SimRun) -> float:
    """Finish time of the ideal replay (see module docstring)."""
    fastest = dict(run.host_min_latency)

    def latency_of(host: str) -> float:
        if host not in fastest:
            fastest[host] = scenario.latency_for(host).median
        return fastest[host]

    ideal = run.options.with_(
        workers=max(1, run.stats.discovered + run.stats.robots_fetches + 1),
        per_host=None,
        gap=0.0,
        randomize_gap=False,
        max_crawl_delay=0.0,
        frontier="per-host",
    )
    return simulate(scenario, ideal, trace=False, series=False, latency_of=latency_of, ideal=True).finish_time


def compute_bounds(scenario: Scenario, run: SimRun) -> Bounds:
    """All three bounds for ``run`` of ``scenario``, and the diagnosis."""
    depth = depth_bound(scenario, run)
    per_host = {h: host_bound(run, h) for h in run.host_fetches}
    busiest = max(per_host, key=lambda h: (per_host[h], h), default=None)
    host_time = per_host.get(busiest, 0.0) if busiest else 0.0
    work = run.busy_time / run.options.workers
    values = {"depth": depth, "busiest_host": host_time, "work": work}
    binding = max(values, key=lambda k: (values[k], k == "busiest_host"))
    finish = run.finish_time
    efficiency = values[binding] / finish if finish > 0 else 1.0
    return Bounds(
        depth=depth,
        busiest_host=host_time,
        busiest_host_name=busiest,
        busiest_host_pages=run.host_fetches.get(busiest, 0) if busiest else 0,
        work=work,
        binding=binding,
        efficiency=efficiency,
        explanation=explain(run, binding, values, busiest),
    )


def explain(run: SimRun, binding: str, values: dict[str, float], busiest: str | None) -> str:
    """One plain sentence: what holds the crawl back, and which knob would help."""
    finish = run.finish_time
    opts = run.options
    if finish <= 0:
        return "Nothing was fetched."
    bound = values[binding]
    if bound < 0.8 * finish:
        causes = []
        if opts.frontier == "fifo":
            causes.append("the single FIFO frontier stalls behind a busy host (head-of-line blocking)")
        if run.stats.retries:
            causes.append(f"{run.stats.retries} retries wait out backoff and Retry-After")
        if run.wasted_time:
            causes.append(f"duplicate fetches waste {run.wasted_time:.1f} worker-seconds")
        cause = "; ".join(causes) if causes else "workers sit idle waiting for pages to be discovered"
        return (
            f"The crawl takes {finish:.1f} s, well above every bound (best {bound:.1f} s): {cause}."
        )
    if binding == "busiest_host" and busiest:
        gap_limited = run.host_gap.get(busiest, 0.0) * max(0, run.host_fetches.get(busiest, 1) - 1) >= (
            run.host_busy.get(busiest, 0.0) / (opts.per_host or opts.workers)
        )
        knob = (
            f"a smaller gap (or Crawl-delay) on {busiest} would"
            if gap_limited
            else f"a higher per-host limit or a smaller gap on {busiest} would"
        )
        return f"{busiest} holds the crawl at {finish:.1f} s: more workers will not help; {knob}."
    if binding == "depth":
        return (
            f"The longest chain of links holds the crawl at {finish:.1f} s: more workers or a higher "
            "per-host limit will not help; only faster responses (or links to deep pages from near the start) would."
        )
    next_bound = max(values["depth"], values["busiest_host"])
    return (
        f"{_workers(opts.workers)} busy {run.utilisation:.0%} of the time, {'holds' if opts.workers == 1 else 'hold'} the crawl at "
        f"{finish:.1f} s: more workers would help, down to about {next_bound:.1f} s where the next bound binds."
    )


def _workers(n: int) -> str:
    return "The one worker," if n == 1 else f"The {n} workers,"
