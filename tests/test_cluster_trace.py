"""The cluster's one trace (crawlsim.trace.cluster): every node's events on
one clock, each with its node, fetch ids unique and slots grouped by node,
messages and failures in the same stream -- what views replay.

Properties over random webs, partitions, link latencies and failures."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cluster.sim import simulate_cluster
from crawlsim.trace.cluster import NODE_KEY
from crawlsim.trace.events import (
    Done,
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
from crawlsim.views.replay import Replay
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.views.session import Knobs, run_session
from tests.test_cluster import clusters, webs


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(webs(), clusters(failures=True))
def test_the_merged_trace_replays_as_one_crawl(data: dict[str, Any], config: ClusterConfig) -> None:
    scenario = scenario_from_dict(data)
    run = simulate_cluster(scenario, config, trace=True)
    workers = scenario.options.workers
    own = sum(1 for t in run.node_traces for e in t if not isinstance(e, Done))
    assert len(run.trace) == len(run.trace_nodes) == own + 1  # the nodes' events and one Done, at the end
    assert [e.t for e in run.trace if isinstance(e, Done)] == [run.finish_time]
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
    run = simulate_cluster(load_scenario("see-it"), ClusterConfig(nodes=3), trace=True)
    lines = [json.dumps(d) for d in run.cluster_trace().dicts()]
    back = [json.loads(line) for line in lines]
    assert [d[NODE_KEY] for d in back] == run.trace_nodes
    assert len(set(run.trace_nodes)) > 1  # see-it's hosts land on more than one node
    assert [event_to_dict(event_from_dict(d)) for d in back] == [event_to_dict(e) for e in run.trace]


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(webs(), clusters(failures=True), st.data())
def test_the_replay_of_a_cluster_agrees_with_itself_at_any_time(data: dict[str, Any], config: ClusterConfig, pick: st.DataObject) -> None:
    """Per-node figures add up to the crawl's: frontier and in-flight shares,
    messages in transit never negative and none left at the end; the crawl
    is done only at its true end."""
    scenario = scenario_from_dict(data)
    run = simulate_cluster(scenario, config, trace=True)
    replay = Replay(run.trace, workers=scenario.options.workers, nodes=run.trace_nodes, node_count=config.nodes)
    cluster = replay.cluster
    assert cluster is not None and len(replay.lanes) >= config.nodes * scenario.options.workers
    for node in range(config.nodes):
        for slot in cluster.slots_of(node):
            assert all(cluster.node_of_slot(span.slot) == node for span in replay.lanes[slot])
    times = sorted(set(pick.draw(st.lists(st.sampled_from(replay.times), max_size=6))) | {replay.end})
    for t in times:
        replay.seek(t)
        c = replay.counters()
        assert sum(n.frontier for n in cluster.status) == c.frontier
        assert all(n.frontier >= 0 and n.in_flight >= 0 for n in cluster.status)
        assert cluster.in_transit >= 0 and cluster.links_in_transit >= 0
        assert c.done == (t >= run.finish_time)  # not when one node runs dry
    assert cluster.in_transit == 0 and not cluster.flows
    assert replay.counters().in_flight == 0
    assert sum(n.sent for n in cluster.status) == run.messages


@given(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64]), st.sampled_from([1, -1]))
def test_node_keys_undo_each_other(nodes: int, direction: int) -> None:
    knobs = replace(Knobs.from_options(load_scenario("see-it").options), nodes=nodes)
    there = knobs.more_nodes() if direction > 0 else knobs.fewer_nodes()
    back = there.fewer_nodes() if direction > 0 else there.more_nodes()
    assert 1 <= there.nodes <= 64
    assert back.nodes == nodes or there.nodes == nodes  # at either end the key does nothing


def test_the_session_runs_the_cluster_the_knobs_ask_for() -> None:
    scenario = load_scenario("see-it")
    knobs = Knobs.for_scenario(scenario)
    assert knobs.nodes == 1 and run_session(scenario, knobs).cluster is None
    three = replace(knobs, nodes=3, partition="url-hash")
    result = run_session(scenario, three)
    alone = simulate_cluster(scenario.with_options(**three.overrides()), ClusterConfig(nodes=3, partition="url-hash"), trace=False)
    assert result.cluster is not None and result.replay.cluster is not None
    assert result.finish == alone.finish_time  # the same crawl as `run --nodes 3 --partition url-hash`
    assert result.cluster.politeness_violations == alone.politeness_violations
    assert "3 nodes, url-hash" in three.describe() and three.diff(knobs) == "nodes 1→3, partition host-hash→url-hash"
    capped = run_session(scenario, three, cap=4)
    assert "4 pages per node" in capped.note  # each node's scheduler has its own max_pages
    assert capped.cluster is not None and capped.cluster.stats.pages_fetched > 4


def test_pages_queued_on_a_failed_node_are_lost_to_the_failure() -> None:
    """see-it on 4 host-hash nodes: node 1 owns both hosts; when it fails
    with its queue and never gets it back, coverage names the failure (not
    a cap the crawl did not have)."""
    from crawlsim.cluster.config import cluster_from_table
    from crawlsim.sim.coverage import coverage_of

    scenario = load_scenario("see-it")
    failing = cluster_from_table({"nodes": 4, "partition": "host-hash", "fail": [{"node": 1, "at": 4.0}]})
    lost = coverage_of(scenario, simulate_cluster(scenario, failing, trace=True)).lost or ()
    reasons = {item.reason for item in lost}
    assert "node failure" in reasons and reasons <= {"node failure", "not discovered"}
    whole = coverage_of(scenario, simulate_cluster(scenario, failing.with_(fail=[]), trace=True))
    assert not whole.lost


class _CountingTrace(list):  # type: ignore[type-arg]
    """A trace that counts reads by index (a compact Trace decodes per read)."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        type(self).reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("nodes", [1, 3])
def test_replay_reads_a_trace_once_not_per_comparison(nodes: int) -> None:
    scenario = load_scenario("see-it")
    run = simulate_cluster(scenario, ClusterConfig(nodes=nodes), trace=True)
    trace = _CountingTrace(run.trace)
    _CountingTrace.reads = 0
    Replay(trace, workers=4, nodes=run.trace_nodes if nodes > 1 else None, node_count=nodes)
    assert _CountingTrace.reads == 0  # iterated once (list(...)), never indexed event by event
