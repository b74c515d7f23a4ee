"""The app shows a cluster: worker lanes grouped under their node's line,
lane labels naming node and worker, a failed node DOWN, the messages in
transit, each host's node, the cluster's figures; the N/M/P keys rerun it
with more or fewer nodes or another partition; a cluster's trace replays
with its nodes, keys off.  Every app is still (paused, no frame timer) and
simulates on the UI thread, so nothing moves between a key and a look."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlsim.cli import main as cli
from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.views.replay_nodes import NodeReplay
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.trace.jsonl import read_trace
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.nodes import lane_rows
from crawlsim.tui.widgets import BoundsView, HostsView, KeyBar, LanesView, StatusBar

SIZE = (160, 48)
FAIL_AT, RECOVER_AT = 2.0, 5.0

CLUSTER_TOML = f"""
title = "three nodes, n2 fails"
seed = 3

[crawl]
workers = 2
per_host = 1
scope = "any"

[hosts."*"]
latency = 0.25

[web]
kind = "power_law"
pages = 80
hosts = 6
zipf = 1.0
branching = 3

[cluster]
nodes = 3
link_latency = 0.05
fail = [{{node = 2, at = {FAIL_AT}, recover = {RECOVER_AT}}}]
"""


@pytest.fixture
def cluster_scenario(tmp_path: Path) -> Scenario:
    path = tmp_path / "cluster.toml"
    path.write_text(CLUSTER_TOML, encoding="utf-8")
    return load_scenario(str(path))


def still(scenario: Scenario | None = None, at: float = 0.0, **kwargs: object) -> CrawlApp:
    return CrawlApp(scenario, paused=True, at=at, animate=False, threaded=False, **kwargs)  # type: ignore[arg-type]


def lane_lines(app: CrawlApp) -> list[str]:
    return app.query_one(LanesView).plain().splitlines()


async def test_lanes_are_grouped_under_their_nodes(cluster_scenario: Scenario) -> None:
    app = still(cluster_scenario, at=1.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = lane_lines(app)
        heads = [line.split()[0] for line in lines if re.match(r"n\d+ +▕ frontier", line)]
        labels = [" ".join(line.split()[:2]) for line in lines if re.match(r"n\d+ w\d+ ", line)]
        assert heads == ["n0", "n1", "n2"]
        assert labels == [f"n{k} w{w}" for k in range(3) for w in (1, 2)]  # workers from 1 within each node
        for k in range(3):  # each node's lanes right under its line
            at = next(i for i, line in enumerate(lines) if line.startswith(f"n{k} ") and "frontier" in line)
            assert lines[at + 1].startswith(f"n{k} w1") and lines[at + 2].startswith(f"n{k} w2")
        assert any(line.startswith("⇄") and "transit" in line for line in lines)


async def test_a_failed_node_is_down_until_it_recovers(cluster_scenario: Scenario) -> None:
    app = still(cluster_scenario, at=FAIL_AT / 2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()

        def n2() -> str:
            return next(line for line in lane_lines(app) if line.startswith("n2 ") and "frontier" in line)

        assert "DOWN" not in n2()
        app.show((FAIL_AT + RECOVER_AT) / 2)
        assert "DOWN" in n2() and "failed 1×" in n2()
        app.show(RECOVER_AT + 0.01)
        assert "DOWN" not in n2()


async def test_status_and_bounds_show_the_clusters_figures(cluster_scenario: Scenario) -> None:
    app = still(cluster_scenario, at=1.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        run = app.result.cluster if app.result else None
        assert run is not None
        status = app.query_one(StatusBar).plain()
        assert "3 nodes, host-hash" in status
        assert f"violations {run.politeness_violations}" in status
        assert f"end detected +{run.detection_delay:.2f} s late, {run.control_messages} control msgs" in status
        bounds = app.query_one(BoundsView).plain()
        assert "node bound" in bounds and f"{run.control_messages} control messages" in bounds


async def test_hosts_panel_names_each_hosts_node_and_marks_split_hosts(tmp_path: Path) -> None:
    """Under url-hash one host's pages go to several nodes: the hosts panel
    marks it; under host-hash (no failure) every host has one node."""
    for partition, split in (("url-hash", True), ("host-hash", False)):
        path = tmp_path / f"{partition}.toml"
        path.write_text(
            CLUSTER_TOML.replace(f"fail = [{{node = 2, at = {FAIL_AT}, recover = {RECOVER_AT}}}]", f'partition = "{partition}"'),
            encoding="utf-8",
        )
        app = still(load_scenario(str(path)), at=0.0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.show(app.end)
            rows = app.query_one(HostsView).plain().splitlines()
            hosts = [row for row in rows if row.startswith("h")]
            assert hosts and all(re.search(r"\bn\d", row) for row in hosts)
            assert any("!" in row for row in hosts) is split


async def test_node_keys_rerun_and_undo_and_the_key_bar_lists_them_only_for_a_cluster() -> None:
    app = still(load_scenario("see-it"), at=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        single = app.result.finish if app.result else None
        assert "nodes" not in app.query_one(KeyBar).plain()  # one process: the bar as it always was
        await pilot.press("N")
        await pilot.pause()
        assert app.knobs is not None and app.knobs.nodes == 2 and app.result is not None
        two = simulate_cluster(load_scenario("see-it").with_options(record_events=True), ClusterConfig(nodes=2), trace=False)
        assert app.result.cluster is not None and app.result.finish == two.finish_time
        assert "nodes 1→2" in app.query_one(StatusBar).plain()
        assert "N/M" in app.query_one(KeyBar).plain() and "P " in app.query_one(KeyBar).plain()
        assert [line.split()[0] for line in lane_lines(app) if "▕ frontier" in line] == ["n0", "n1"]
        await pilot.press("M")
        await pilot.pause()
        assert app.knobs.nodes == 1 and app.result.cluster is None and app.result.finish == single
        assert "nodes" not in app.query_one(KeyBar).plain()


async def test_partition_key_cycles_back_to_the_start(cluster_scenario: Scenario) -> None:
    app = still(cluster_scenario, at=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seen = []
        for _ in range(4):
            await pilot.press("P")
            await pilot.pause()
            assert app.knobs is not None and app.result is not None and app.result.cluster is not None
            assert app.result.cluster.config.partition == app.knobs.partition  # the run is the key's
            seen.append(app.knobs.partition)
        assert seen == ["consistent-hash", "url-hash", "round-robin", "host-hash"]


async def test_a_cluster_trace_replays_with_its_nodes_and_no_what_if_keys(tmp_path: Path, cluster_scenario: Scenario) -> None:
    path = tmp_path / "cluster.jsonl"
    assert cli(["trace", str(cluster_scenario.path), "-o", str(path)]) == 0
    app = still(trace=read_trace(path), trace_file=str(path), at=(FAIL_AT + RECOVER_AT) / 2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = lane_lines(app)
        assert [line.split()[0] for line in lines if "▕ frontier" in line or "DOWN" in line] == ["n0", "n1", "n2"]
        assert any(line.startswith("n2 ") and "DOWN" in line for line in lines)
        keys = app.query_one(KeyBar).plain()
        assert "nodes" not in keys and "partition" not in keys and "workers" not in keys
        await pilot.press("N")
        await pilot.pause()
        assert app.knobs is None  # nothing to rerun


@given(count=st.integers(1, 12), workers=st.integers(1, 16), room=st.integers(1, 60))
def test_grouped_lanes_fit_their_room_and_stay_with_their_node(count: int, workers: int, room: int) -> None:
    """Whatever the terminal's height: never more rows than room; each lane
    under its own node's line, first lanes first; every node's lanes shown or
    counted as hidden, nodes sharing the room within one lane of each other;
    all of them when they fit."""
    rows = lane_rows(NodeReplay(count, workers, []), count * workers, room)
    assert len(rows) <= room
    if count > room:
        assert rows[-1].kind == "more" and rows[-1].hidden == count - (len(rows) - 1)
        return
    shown: dict[int, list[int]] = {}
    hidden: dict[int, int] = {}
    node = -1
    for row in rows:
        if row.kind == "node":
            assert row.index == node + 1
            node = row.index
            shown[node], hidden[node] = [], row.hidden
        else:
            assert row.kind == "lane" and row.index // workers == node
            shown[node].append(row.index)
    assert sorted(shown) == list(range(count))
    assert all(len(shown[k]) + hidden[k] == workers for k in shown)
    assert all(lanes == list(range(k * workers, k * workers + len(lanes))) for k, lanes in shown.items())
    sizes = [len(lanes) for lanes in shown.values()]
    assert max(sizes) - min(sizes) <= 1
    assert (sum(sizes) == count * workers) is (count * (workers + 1) <= room)


def test_tui_nodes_and_partition_flags_start_the_app_on_the_cluster() -> None:
    from crawlsim.views.session import Knobs
    from crawlsim.tui import build_parser, what_to_show

    scenario, _ = what_to_show(build_parser().parse_args(["see-it", "--nodes", "3", "--partition", "url-hash"]))
    assert scenario is not None
    knobs = Knobs.for_scenario(scenario)
    assert (knobs.nodes, knobs.partition) == (3, "url-hash")
    with pytest.raises(ValueError, match="--nodes"):
        what_to_show(build_parser().parse_args(["see-it", "--nodes", "0"]))


def test_the_bound_line_never_says_a_url_hash_node_owns_a_split_host() -> None:
    """Under url-hash a host's URLs are spread over nodes: the holder has only a
    share of it (the advisor's words); under host-hash it owns the host."""
    from dataclasses import replace as with_

    from rich.text import Text

    from crawlsim.scenario import load_scenario
    from crawlsim.views.session import Knobs, run_session
    from crawlsim.tui.nodes import _bound_line

    scenario = load_scenario("see-it")
    lines = {}
    for partition in ("url-hash", "host-hash"):
        result = run_session(scenario, with_(Knobs.for_scenario(scenario), nodes=3, partition=partition))
        assert result.cluster is not None
        text = Text()
        _bound_line(text, result.cluster, result.replay, False)
        lines[partition] = text.plain
    assert "its share of b.com" in lines["url-hash"] and "owns" not in lines["url-hash"]
    assert "it owns b.com" in lines["host-hash"]
