"""The cluster's one trace (crawlsim.cluster.trace): every node's events on
one clock, each with its node, fetch ids unique and slots grouped by node,
messages and failures in the same stream -- what views replay.

Properties over random webs, partitions, link latencies and failures."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from crawlsim.cluster.sim import simulate_cluster
from crawlsim.cluster.trace import NODE_KEY
from crawlsim.core.events import (
    FetchFailed,
    FetchFinished,
    FetchStarted,
    MessageDelivered,
    MessageSent,
    NodeFailed,
    NodeRecovered,
    event_from_dict,
    event_to_dict,
)
from crawlsim.cluster.config import ClusterConfig
from crawlsim.scenario import scenario_from_dict
from tests.test_cluster import clusters, webs


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(webs(), clusters(failures=True))
def test_the_merged_trace_replays_as_one_crawl(data: dict[str, Any], config: ClusterConfig) -> None:
    scenario = scenario_from_dict(data)
    run = simulate_cluster(scenario, config, trace=True)
    workers = scenario.options.workers
    assert len(run.trace) == len(run.trace_nodes) == sum(len(t) for t in run.node_traces)
    assert [e.t for e in run.trace] == sorted(e.t for e in run.trace)
    open_: dict[int, tuple[int, str]] = {}
    busy: dict[int, set[int]] = {}
    started_ids: set[int] = set()
    sent = delivered = lost = 0
    for e, node in zip(run.trace, run.trace_nodes):
        assert 0 <= node < config.nodes
        if isinstance(e, FetchStarted):
            assert e.fetch_id not in started_ids  # ids unique across the cluster
            started_ids.add(e.fetch_id)
            assert e.slot // workers == node  # node k's lanes are the k-th group
            assert e.slot not in busy.setdefault(node, set())  # no lane holds two fetches
            busy[node].add(e.slot)
            open_[e.fetch_id] = (e.slot, e.url)
        elif isinstance(e, (FetchFinished, FetchFailed)) and e.fetch_id in open_:
            slot, url = open_.pop(e.fetch_id)
            assert url == e.url and slot // workers == node  # an answer ends its own node's fetch
            busy[node].discard(slot)
        elif isinstance(e, NodeFailed):
            for fid, (slot, _) in list(open_.items()):  # its fetches in flight die with it
                if slot // workers == node:
                    del open_[fid]
                    busy[node].discard(slot)
        elif isinstance(e, MessageSent):
            assert e.src == node != e.dst
            sent += 1
        elif isinstance(e, MessageDelivered):
            assert e.dst == node != e.src
            delivered += not e.lost
            lost += e.lost
    assert sent == run.messages
    assert delivered + lost == sent  # every message arrives (or is lost with its node) before the end
    assert lost == sum(f["messages_dropped"] for f in run.failures_seen)
    assert not open_ or any(isinstance(e, NodeRecovered) for e in run.trace)


def test_a_trace_line_carries_its_node_and_reads_back() -> None:
    from crawlsim.scenario import load_scenario

    run = simulate_cluster(load_scenario("see-it"), ClusterConfig(nodes=3), trace=True)
    lines = [json.dumps(d) for d in run.cluster_trace().dicts()]
    back = [json.loads(line) for line in lines]
    assert [d[NODE_KEY] for d in back] == run.trace_nodes
    assert len(set(run.trace_nodes)) > 1  # see-it's hosts land on more than one node
    assert [event_to_dict(event_from_dict(d)) for d in back] == [event_to_dict(e) for e in run.trace]
