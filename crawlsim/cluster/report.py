"""A cluster run's own figures: per node, politeness, messages, termination
and the node-level lower bound.

The node bound, and its proof.  Let ``F`` be the run's finish time (the
true end: every fetch lies in ``[0, F]``).  Each node's core keeps at most
``W = workers`` fetches in flight, and at most ``c = min(per_host or W, W)``
on one host (each node's scheduler enforces its own options; F1 of
:mod:`crawlsim.sim.bounds`).  So for node ``n`` with ``B_n`` worker-seconds
of fetches, ``B_n <= W * F``; and for each host ``h`` it fetched, with
``B_{n,h}`` seconds, ``B_{n,h} <= c * F``.  Hence

    **node(n) = max(B_n / W, max_h B_{n,h} / c) <= F**,

and the node bound is the largest over the nodes: the busiest node.  It
holds under every partition (under url-hash a host's time is split over
nodes, so its host term shrinks -- the politeness it gave up).  It says
what more nodes cannot beat: when one node's share (or one host on it)
takes ``X`` seconds of its workers, the crawl takes at least ``X``.
``tests/test_cluster.py`` checks ``bound <= finish`` on random runs.
"""

from __future__ import annotations

from typing import Any

from crawlsim.cluster.sim import ClusterRun
from crawlsim.cluster.failure import checkpoint_notes
from crawlsim.sim.time_left import host_limit

_DIGITS = 6


def _round(value: float) -> float:
    return round(float(value), _DIGITS)


def node_bounds(run: ClusterRun) -> list[tuple[float, str | None]]:
    """Per node: its lower bound on the finish time, and the host that sets
    it (None when its total work over its workers does)."""
    workers = run.options.workers
    per_host = host_limit(run.options)  # as the one-process bound counts it (download slots: the workers)
    out: list[tuple[float, str | None]] = []
    for figures, hosts in zip(run.nodes, run.node_host_busy):
        best: tuple[float, str | None] = (figures["busy_time"] / workers, None)
        if hosts:
            host = max(hosts, key=lambda h: (hosts[h], h))
            if hosts[host] / per_host > best[0]:
                best = (hosts[host] / per_host, host)
        out.append(best)
    return out


def busiest_node(run: ClusterRun) -> int:
    """The node with the largest bound (ties: the lowest index)."""
    bounds = node_bounds(run)
    return max(range(len(bounds)), key=lambda i: (bounds[i][0], -i))


def cluster_fields(run: ClusterRun) -> dict[str, Any]:
    """The keys ``run --json`` gains when ``nodes > 1``."""
    config = run.config
    bounds = node_bounds(run)
    top = busiest_node(run)
    nodes = []
    for figures, (bound, host) in zip(run.nodes, bounds):
        row = {k: (_round(v) if isinstance(v, float) else v) for k, v in figures.items()}
        row["messages"] = figures["messages_sent"]
        row["bytes"] = figures["bytes_sent"]
        row["bound"] = _round(bound)
        row["bound_host"] = host
        nodes.append(row)
    return {
        "cluster": {
            "nodes": config.nodes,
            "partition": config.partition,
            "link_latency": config.link_latency.to_spec(),
            "batch": config.batch,
            "flush": config.flush,
        },
        "nodes": nodes,
        "busiest_node": {"node": top, "bound": _round(bounds[top][0]), "host": bounds[top][1]},
        "node_bound": _round(bounds[top][0]),
        "cluster_utilisation": _round(run.cluster_utilisation),
        "messages": run.messages,
        "message_bytes": run.message_bytes,
        "politeness_violations": run.politeness_violations,
        "politeness_violations_by_host": dict(run.violations_by_host.most_common(5)),
        "control_messages": run.control_messages,
        "termination_rounds": run.rounds,
        "detected_at": _round(run.detected_at),
        "detection_delay": _round(run.detection_delay),
        **_failure_fields(run),
    }


def _failure_fields(run: ClusterRun) -> dict[str, Any]:
    """What node failures cost, when the configuration has any."""
    if not run.config.fail:
        return {}
    checkpoint = {"every": run.config.checkpoint, "saves": run.checkpoint_saves, "bytes": run.checkpoint_bytes}
    notes = checkpoint_notes(run.config.checkpoint, run.checkpoint_every)
    if notes:
        checkpoint["every_used"] = run.checkpoint_every
        checkpoint["note"] = notes[0]
    return {"failures_seen": run.failures_seen, "refetched": run.refetched, "checkpoint": checkpoint}


def failure_cost(run: ClusterRun, without: ClusterRun) -> dict[str, Any]:
    """The failures' cost, measured against the same cluster without them
    (``without``): finish time lost, pages never answered, pages answered again."""
    answered = run.distinct_pages_answered or 0
    return {
        "finish_time_without_failures": _round(without.finish_time),
        "finish_cost": _round(run.finish_time - without.finish_time),
        "pages_lost": max(0, without.stats.pages_fetched - answered),
        "pages_refetched": run.refetched,
    }


__all__ = ["busiest_node", "cluster_fields", "failure_cost", "node_bounds"]
