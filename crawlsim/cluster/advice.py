"""What holds a cluster crawl back, said only when measured.

Two sentences, each backed by evidence rather than inference:

* "node K holds the crawl: it owns H" -- when node K's lower bound (proven
  at most the finish time, :mod:`crawlsim.cluster.report`) is set by host H
  and comes within :data:`HOLDS` of the finish time: the run itself proves
  that K's requests to H, at its per-host limit, take that long.
* "more nodes will not help: H is the bottleneck on any partition that
  keeps a host on one node" -- when, in addition, the same crawl rerun with
  twice the nodes finishes no more than :data:`NO_GAIN` sooner.  Otherwise
  the rerun's finish time is quoted as what twice the nodes buys.

The rerun is a counterfactual crawl, so it costs a second simulation; the
run command asks for it under the same rule as the single-process advisor
(``--advise``: measured unless the crawl made more than
``crawlsim.sim.advisor.MEASURE_LIMIT`` fetches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.report import node_bounds
from crawlsim.cluster.sim import ClusterRun, simulate_cluster
from crawlsim.trace.cluster import MAX_NODES

if TYPE_CHECKING:
    from crawlsim.sim.inputs import SimInput

HOLDS = 0.9
"""A node holds the crawl when its bound is at least this share of the finish time."""
NO_GAIN = 0.05
"""Twice the nodes 'do not help' when they finish less than this share sooner."""


@dataclass(frozen=True)
class ClusterAdvice:
    lines: tuple[str, ...]
    measured: dict[str, Any] | None
    """The counterfactual run: ``nodes`` and ``finish_time`` (None: not run)."""

    def as_dict(self) -> dict[str, Any]:
        return {"lines": list(self.lines), "measured": self.measured}


def cluster_advice(sim: SimInput, config: ClusterConfig, run: ClusterRun, *, measure: bool) -> ClusterAdvice:
    """The sentences for ``run`` (see the module docstring)."""
    bounds = node_bounds(run)
    node = max(range(len(bounds)), key=lambda i: (bounds[i][0], -i))
    bound, host = bounds[node]
    finish = run.finish_time
    lines: list[str] = []
    holds = finish > 0 and host is not None and bound >= HOLDS * finish
    if holds:
        lines.append(
            f"node {node} holds the crawl: it owns {owned(config, host)}, whose fetches alone keep it busy "
            f"{bound:,.1f} s of the {finish:,.1f} s"
        )
    nodes = min(config.nodes * 2, MAX_NODES)  # a rerun stays inside the nodes' range
    if measure and nodes == config.nodes:
        lines.append(f"more nodes not measured: {MAX_NODES:,} is the most a cluster may have")
    if not measure or nodes == config.nodes or config.fail:
        return ClusterAdvice(tuple(lines), None)
    more = simulate_cluster(sim, config.with_(nodes=nodes), run.options, trace=False)
    measured = {"nodes": nodes, "finish_time": round(more.finish_time, 6)}
    if holds and more.finish_time >= (1 - NO_GAIN) * finish:
        lines.append(
            f"more nodes will not help: {host} is the bottleneck on any partition that keeps a host on one node "
            f"(measured: {nodes} nodes finish in {more.finish_time:,.1f} s)"
        )
    else:
        lines.append(f"measured: {nodes} nodes finish in {more.finish_time:,.1f} s instead of {finish:,.1f} s")
    return ClusterAdvice(tuple(lines), measured)


def owned(config: ClusterConfig, host: str) -> str:
    """Under url-hash a node owns URLs, so only a share of a host."""
    return f"its share of {host}" if config.partition == "url-hash" else host


__all__ = ["HOLDS", "NO_GAIN", "ClusterAdvice", "cluster_advice", "owned"]
