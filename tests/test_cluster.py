"""A crawl on N simulated nodes (crawlsim.cluster): one core Scheduler per
node, links sent to their owner as messages, Safra's ring detecting the end.

Properties over random webs and latencies: one node is today's crawl, event
for event; under host-hash no page is fetched by two nodes and politeness
holds across the cluster; termination is never detected early; the node
bound is never above the finish time.  Url-hash breaks politeness (a case)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cli import main
from crawlsim.cluster.config import ClusterConfig, ClusterConfigError, apply_flags, cluster_from_table
from crawlsim.cluster.partition import make_partition
from crawlsim.cluster.advice import cluster_advice
from crawlsim.cluster.report import busiest_node, cluster_fields, node_bounds
from crawlsim.cluster.sim import ClusterRun, simulate_cluster
from crawlsim.trace.events import FetchFinished, FetchStarted, event_to_dict
from crawlsim.scenario import ScenarioError, load_scenario
from crawlsim.scenario.files import list_scenarios, scenario_from_dict
from crawlsim.sim.driver import simulate
from tests.test_bounds_properties import crawl_options, hosts

HOSTS = tuple(f"h{i}.com" for i in range(6))
PARTITIONS = ("host-hash", "consistent-hash", "url-hash", "round-robin")
WHOLE_HOST = ("host-hash", "consistent-hash", "round-robin")


@st.composite
def webs(draw: st.DrawFn, polite: bool = False) -> dict[str, Any]:
    """A random web on six hosts, every page reachable from the seeds, random
    latencies; ``polite`` adds a per-host limit or a gap."""
    n = draw(st.integers(2, 30))
    urls = ["http://h0.com/"] + [f"http://{draw(st.sampled_from(HOSTS))}/p{i}" for i in range(1, n)]
    pages: dict[str, list[str]] = {u: [] for u in urls}
    for url in urls:
        pages[url] += draw(st.lists(st.sampled_from(urls), max_size=6))
    for i in range(1, n):
        pages[urls[draw(st.integers(0, i - 1))]].append(urls[i])
    latency = st.one_of(
        st.sampled_from([0.0, 0.1, 1.0, 2.0]),
        st.fixed_dictionaries({"model": st.just("lognormal"), "median": st.sampled_from([0.2, 1.0]), "sigma": st.just(0.7)}),
    )
    crawl: dict[str, Any] = {"scope": "any", "workers": draw(st.integers(1, 5)), "order": draw(st.sampled_from(["bfs", "dfs"]))}
    if polite or draw(st.booleans()):
        crawl["per_host"] = draw(st.integers(1, 3))
        crawl["gap"] = draw(st.sampled_from([0.0, 0.3, 1.0]))
        crawl["randomize_gap"] = draw(st.booleans())
    return {
        "start": draw(st.sampled_from([["http://h0.com/"], ["http://h0.com/", urls[-1]]])),
        "seed": draw(st.integers(0, 10_000)),
        "crawl": crawl,
        "hosts": {h: {"latency": draw(latency)} for h in HOSTS},
        "pages": pages,
    }


@st.composite
def clusters(draw: st.DrawFn, partitions: tuple[str, ...] = PARTITIONS, failures: bool = False) -> ClusterConfig:
    latency = draw(st.one_of(st.sampled_from([0.0, 0.001, 0.5, 3.0]), st.just({"model": "uniform", "low": 0.0, "high": 2.0})))
    nodes = draw(st.integers(2, 5))
    table: dict[str, Any] = {
        "nodes": nodes,
        "partition": draw(st.sampled_from(partitions)),
        "link_latency": latency,
        "batch": draw(st.sampled_from([1, 2, 8])),
        "flush": draw(st.sampled_from([0.0, 0.0, 0.2, 2.0])),
    }
    if failures and draw(st.booleans()):
        at = draw(st.sampled_from([0.0, 0.5, 2.0, 5.0]))
        failure: dict[str, Any] = {"node": draw(st.integers(1, nodes - 1)), "at": at}
        if draw(st.booleans()):
            failure["recover"] = at + draw(st.sampled_from([0.1, 1.0, 4.0]))
            if draw(st.booleans()):
                table["checkpoint"] = draw(st.sampled_from([0.3, 1.0]))
        table["fail"] = [failure]
    return cluster_from_table(table)


def nodes_fetching(run: ClusterRun) -> dict[str, set[int]]:
    """True page -> the nodes that started a page fetch of it."""
    out: dict[str, set[int]] = defaultdict(set)
    for node, events in enumerate(run.node_traces):
        for e in events:
            if isinstance(e, FetchStarted) and e.kind == "page":
                out[e.page].add(node)
    return out


# -- one node is today's crawl ------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in list_scenarios() if n != "million"])
def test_one_node_gives_the_single_process_trace(name: str) -> None:
    scenario = load_scenario(name)
    alone = simulate(scenario, trace=True, series=False)
    one = simulate_cluster(scenario, ClusterConfig(nodes=1), trace=True)
    assert [event_to_dict(e) for e in one.trace] == [event_to_dict(e) for e in alone.trace]
    assert one.finish_time == alone.finish_time and one.stats == alone.stats
    assert one.messages == one.control_messages == 0 and one.detection_delay == 0


# -- properties over random webs ------------------------------------------------------


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(webs(), clusters(("host-hash",)))
def test_host_hash_fetches_every_page_once_and_the_same_pages_as_one_process(data: dict[str, Any], config: ClusterConfig) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    run = simulate_cluster(scenario, config, trace=True)
    assert all(len(nodes) == 1 for nodes in nodes_fetching(run).values())
    alone = simulate(scenario, trace=True, series=False)
    assert run.found == alone.found
    assert run.stats.pages_fetched == alone.stats.pages_fetched


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(webs(), clusters(failures=True))
def test_termination_is_never_detected_early(data: dict[str, Any], config: ClusterConfig) -> None:
    run = simulate_cluster(scenario_from_dict(data, path="<random>"), config, trace=True)
    last_fetch = max((e.t for e in run.trace if isinstance(e, FetchFinished)), default=0.0)
    assert run.at_detection == (True, 0)  # every node idle, no message in transit
    assert run.detected_at >= run.finish_time >= last_fetch
    live = config.nodes - sum(1 for r in run.failures_seen if r["recovered_at"] is None)
    assert run.control_messages >= live  # at least one full round of the token over the live nodes
    assert all(r["recovered_at"] is None or r["recovered_at"] <= run.detected_at for r in run.failures_seen)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(webs(polite=True), clusters(WHOLE_HOST))
def test_whole_host_partitions_keep_politeness_across_the_cluster(data: dict[str, Any], config: ClusterConfig) -> None:
    run = simulate_cluster(scenario_from_dict(data, path="<random>"), config, trace=True)
    assert run.politeness_violations == 0


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), clusters(failures=True))
def test_the_node_bound_is_a_lower_bound(data: st.DataObject, config: ClusterConfig) -> None:
    """Also under robots.txt, Crawl-delay, failures, throttling and retries, and node failures."""
    web = data.draw(webs())
    web["crawl"] = {**data.draw(crawl_options()), "scope": "any"}
    web["hosts"] = {**web["hosts"], **data.draw(hosts())}
    run = simulate_cluster(scenario_from_dict(web, path="<random>"), config, trace=False)
    for bound, _ in node_bounds(run):
        assert bound <= run.finish_time + 1e-9
    assert run.at_detection == (True, 0) and run.detected_at >= run.finish_time


def test_the_node_bound_counts_download_slots_as_one_process_does() -> None:
    """Download slots start a host's fetches beyond per_host (as Scrapy's do): here two of h0's at once."""
    pages = {"http://h0.com/": ["http://h0.com/p1", "http://h0.com/p2"], "http://h0.com/p1": [], "http://h0.com/p2": []}
    web = {
        "crawl": {"workers": 2, "per_host": 1, "frontier": "download-slots", "scope": "any"},
        "hosts": {"h0.com": {"latency": 0.1}},
        "pages": pages,
    }
    config = ClusterConfig(nodes=2, partition="host-hash")
    run = simulate_cluster(scenario_from_dict(web, path="<download slots>"), config, trace=False)
    assert run.finish_time == pytest.approx(0.2)
    assert max(bound for bound, _ in node_bounds(run)) <= run.finish_time + 1e-9


# -- url-hash breaks politeness ------------------------------------------------------


def test_url_hash_spreads_a_host_over_nodes_and_breaks_its_limits() -> None:
    scenario = load_scenario("see-it")  # per_host = 1: b.com's six pages one at a time
    spread = simulate_cluster(scenario, ClusterConfig(nodes=4, partition="url-hash"), trace=True)
    whole = simulate_cluster(scenario, ClusterConfig(nodes=4, partition="host-hash"), trace=True)
    assert whole.politeness_violations == 0
    assert spread.politeness_violations > 0
    # the violations are real: b.com had two requests in flight at once, from two nodes
    spans = []
    for node, events in enumerate(spread.node_traces):
        starts = {e.fetch_id: e.t for e in events if isinstance(e, FetchStarted) and e.host == "b.com"}
        spans += [(starts[e.fetch_id], e.t, node) for e in events if isinstance(e, FetchFinished) and e.fetch_id in starts]
    spans.sort()
    assert any(b[0] < a[1] and a[2] != b[2] for a, b in zip(spans, spans[1:]))
    assert spread.finish_time < whole.finish_time  # impoliteness is what bought the speed


# -- node failure ------------------------------------------------------------------------


@settings(max_examples=50)
@given(st.lists(st.from_regex(r"[a-z]{1,8}\.(com|org)", fullmatch=True), min_size=1, max_size=60, unique=True),
       st.integers(2, 8), st.data())
def test_consistent_hashing_moves_only_the_failed_nodes_hosts(names: list[str], nodes: int, data: st.DataObject) -> None:
    dead = data.draw(st.integers(0, nodes - 1))
    before = make_partition("consistent-hash", nodes)
    after = before.without(dead)
    for name in names:
        owner = before.host_owner(name)
        assert after.host_owner(name) == owner if owner != dead else after.host_owner(name) != dead


def test_host_hash_moves_most_hosts_when_a_node_fails() -> None:
    names = [f"h{i}.example" for i in range(400)]
    before, after = make_partition("host-hash", 4), make_partition("host-hash", 4).without(3)
    moved = sum(before.host_owner(n) != after.host_owner(n) for n in names)
    share = sum(before.host_owner(n) == 3 for n in names)
    assert moved > 2 * share  # mod 3 instead of mod 4: far more than the dead node's quarter


def failed(partition: str, **failure: float) -> ClusterRun:
    table: dict[str, Any] = {"nodes": 4, "partition": partition, "fail": [{"node": 2, "at": 30.0, **failure}]}
    if "recover" in failure:
        table["checkpoint"] = 10.0
    return simulate_cluster(load_scenario("busiest-host"), cluster_from_table(table), trace=False)


def test_a_failure_loses_work_and_a_checkpoint_saves_some() -> None:
    base = simulate_cluster(load_scenario("busiest-host"), ClusterConfig(nodes=4, partition="consistent-hash"), trace=False)
    gone = failed("consistent-hash")
    (record,) = gone.failures_seen
    assert record["urls_lost"] > 0 and gone.refetched > 0 and gone.stats.fetches > base.stats.fetches
    assert gone.distinct_pages_answered == base.stats.pages_fetched  # the others found every page again
    empty = simulate_cluster(
        load_scenario("busiest-host"),
        cluster_from_table({"nodes": 4, "partition": "consistent-hash", "fail": [{"node": 2, "at": 30.0, "recover": 60.0}]}),
        trace=False,
    )
    saved = failed("consistent-hash", recover=60.0)
    assert saved.failures_seen[0]["restored_from"] == 20.0 and saved.checkpoint_bytes > 0
    assert saved.refetched < empty.refetched  # the save remembered what it had seen
    assert saved.at_detection == empty.at_detection == (True, 0)


def test_run_reports_the_failure_cost(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "fail.toml"
    path.write_text(
        'start = "http://a.com/"\n[crawl]\nworkers = 2\nper_host = 1\nscope = "any"\n[hosts."*"]\nlatency = 1.0\n'
        '[pages]\n"http://a.com/" = ["http://b.com/", "http://c.com/", "/1"]\n"http://a.com/1" = ["/2"]\n'
        '"http://a.com/2" = ["/3"]\n"http://a.com/3" = []\n"http://b.com/" = ["/1", "http://c.com/x"]\n'
        '"http://b.com/1" = []\n"http://c.com/" = []\n"http://c.com/x" = []\n'
        "[cluster]\nnodes = 3\npartition = \"consistent-hash\"\nfail = [{node = 1, at = 1.5}]\n"
    )
    assert main(["run", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    cost = data["failure_cost"]
    assert set(cost) == {"finish_time_without_failures", "finish_cost", "pages_lost", "pages_refetched"}
    assert data["failures_seen"][0]["node"] == 1
    assert cost["finish_cost"] == pytest.approx(data["finish_time"] - cost["finish_time_without_failures"], abs=1e-6)


def test_a_failure_that_ends_the_crawl_sooner_says_sooner(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "fail.toml"
    path.write_text(
        'start = "http://a.com/"\n[hosts."*"]\nlatency = 1.0\n[pages]\n"http://a.com/" = ["/x"]\n"http://a.com/x" = []\n'
        "[cluster]\nnodes = 3\nfail = [{node = 1, at = 0.5}]\n"
    )
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "finish 2.0 s sooner than without it (2.0 s): 2 pages lost, never fetched" in out
    assert "-2.0 s" not in out
    assert "1 URL lost with it" in out


# -- configuration and the command line ---------------------------------------------


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"nodes": 0}, "cluster.nodes"),
        ({"nodes": True}, "cluster.nodes"),
        ({"partition": "ip-hash"}, "cluster.partition"),
        ({"link_latency": -1}, "cluster.link_latency"),
        ({"link_latency": {"model": "lognormal"}}, "cluster.link_latency.median"),
        ({"flush": float("nan")}, "cluster.flush"),
        ({"batch": 0}, "cluster.batch"),
        ({"nodez": 4}, "cluster.nodez"),
        ([4], "cluster"),
        ({"nodes": 3, "fail": [{"node": 0, "at": 1.0}]}, "cluster.fail[0].node"),
        ({"nodes": 3, "fail": [{"node": 3, "at": 1.0}]}, "cluster.fail[0].node"),
        ({"nodes": 3, "fail": [{"node": 1, "at": 5.0, "recover": 5.0}]}, "cluster.fail[0].recover"),
        ({"nodes": 3, "fail": [{"node": 1}]}, "cluster.fail[0]"),
        ({"nodes": 3, "fail": [{"node": 1, "at": 1.0, "when": 2}]}, "cluster.fail[0].when"),
        ({"checkpoint": 0}, "cluster.checkpoint"),
    ],
)
def test_a_bad_cluster_table_names_its_key(table: object, key: str) -> None:
    with pytest.raises(ClusterConfigError) as err:
        cluster_from_table(table)
    assert err.value.key == key
    data = {"start": "http://a.com/", "pages": {"http://a.com/": []}, "cluster": table}
    with pytest.raises(ScenarioError, match=re.escape(key)):
        scenario_from_dict(data, path="x.toml")


def test_flags_override_the_table_and_are_checked() -> None:
    config = apply_flags(cluster_from_table({"nodes": 2, "batch": 4}), "8", "url-hash")
    assert (config.nodes, config.partition, config.batch) == (8, "url-hash", 4)
    with pytest.raises(ClusterConfigError, match="--nodes"):
        apply_flags(config, "four", None)
    with pytest.raises(ClusterConfigError, match="--partition"):
        apply_flags(config, None, "ring")


def test_run_json_gains_the_cluster_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "busiest-host", "--nodes", "3", "--partition", "url-hash", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["node"] for row in data["nodes"]] == [0, 1, 2]
    assert sum(row["fetches"] for row in data["nodes"]) == data["fetches"]
    for row in data["nodes"]:
        assert {"fetches", "busy_time", "messages", "bytes", "peak_frontier"} <= set(row)
    assert sum(row["messages"] for row in data["nodes"]) == data["messages"] > 0
    assert data["politeness_violations"] > 0 and data["detection_delay"] >= 0 and data["control_messages"] >= 3
    assert data["node_bound"] == max(row["bound"] for row in data["nodes"]) <= data["finish_time"]
    assert data["busiest_node"]["node"] in (0, 1, 2)


def test_run_readable_summary_shows_the_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--nodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 nodes, host-hash" in out and "politeness violations 0" in out and "node 1" in out


def test_bad_flags_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--nodes", "-3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--nodes" in err


def test_cluster_fields_agree_with_the_run() -> None:
    run = simulate_cluster(load_scenario("polite"), ClusterConfig(nodes=3), trace=False)
    fields = cluster_fields(run)
    assert fields["messages"] == run.messages and fields["control_messages"] == run.control_messages
    assert fields["detection_delay"] == pytest.approx(run.detected_at - run.finish_time, abs=1e-6)


# -- measured advice -----------------------------------------------------------------


def test_advice_says_more_nodes_will_not_help_only_when_measured() -> None:
    scenario = load_scenario("busiest-host")
    config = ClusterConfig(nodes=4)
    run = simulate_cluster(scenario, config, trace=False)
    advice = cluster_advice(scenario, config, run, measure=True)
    double = simulate_cluster(scenario, ClusterConfig(nodes=8), trace=False)
    assert advice.measured == {"nodes": 8, "finish_time": round(double.finish_time, 6)}
    node, host = busiest_node(run), node_bounds(run)[busiest_node(run)][1]
    assert advice.lines[0].startswith(f"node {node} holds the crawl: it owns {host}")
    assert double.finish_time >= 0.95 * run.finish_time and "more nodes will not help" in advice.lines[1]
    assert cluster_advice(scenario, config, run, measure=False).lines == advice.lines[:1]


def test_advice_quotes_what_more_nodes_buy_when_they_help() -> None:
    scenario = load_scenario("busiest-host")
    config = ClusterConfig(nodes=2, partition="url-hash")
    run = simulate_cluster(scenario, config, trace=False)
    advice = cluster_advice(scenario, config, run, measure=True)
    assert advice.measured is not None and advice.measured["finish_time"] < 0.95 * run.finish_time
    assert not any("will not help" in line for line in advice.lines)
