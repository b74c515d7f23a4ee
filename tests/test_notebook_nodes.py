"""The notebook widget on a cluster: the nodes and partition controls, lanes
grouped per node, a node drawn DOWN, messages in transit, the cluster's
figures in the summary -- and one node drawn exactly as one process.

As in tests/test_notebook_widget.py, a test does what a browser would: it
sets a control's ``value`` (the same observers fire) or calls ``frame(t)``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.trace.events import FetchStarted, MessageDelivered, MessageSent
from crawlsim.notebook import CrawlWidget, snapshot
from crawlsim.notebook.nodes import SPLIT_COLOUR, outages
from crawlsim.scenario import load_scenario
from crawlsim.views.session import PARTITION_CYCLE

SEE_IT = Path(__file__).resolve().parent.parent / "crawlsim" / "scenarios_data" / "see-it.toml"


def _see_it_with(tmp_path: Path, cluster: str) -> Path:
    """see-it with a ``[cluster]`` table appended (a scenario file a user could write)."""
    path = tmp_path / "cluster.toml"
    path.write_text(SEE_IT.read_text() + "\n[cluster]\n" + cluster)
    return path


def _violations(summary: str) -> int:
    found = re.search(r"politeness violations (\d+)", summary)
    assert found, summary
    return int(found.group(1))


def test_the_nodes_control_reruns_the_crawl_on_that_many_nodes() -> None:
    see_it = load_scenario("see-it")
    w = CrawlWidget("see-it", frames=10)
    assert w.nodes.value == 1 and w.result.cluster is None and w.partition.disabled
    assert list(w.partition.options) == list(PARTITION_CYCLE)
    shown = w.result
    w.partition.value = "url-hash"  # meaningless at one node: no rerun
    assert w.result is shown
    for nodes in (2, 4, 3):
        w.nodes.value = nodes
        expected = simulate_cluster(see_it, ClusterConfig(nodes=nodes, partition="url-hash"), trace=False)
        assert w.result.cluster is not None and w.result.cluster.config.nodes == nodes
        assert w.result.finish == expected.finish_time
        assert f"finish {expected.finish_time:.1f} s" in w.summary.value
        assert f"{nodes} nodes, url-hash" in w.summary.value
        assert not w.partition.disabled
    w.nodes.value = 1  # back to one process: its own finish, bounds and advice again
    assert w.result.cluster is None and w.result.finish == 19.0 and "binding" in w.summary.value
    assert "nodes 3→1" in w.summary.value


def test_the_widget_starts_from_the_scenarios_cluster_table(tmp_path: Path) -> None:
    w = CrawlWidget(str(_see_it_with(tmp_path, 'nodes = 3\npartition = "url-hash"\n')), frames=10)
    assert (w.nodes.value, w.partition.value) == (3, "url-hash")
    assert w.result.cluster is not None and w.result.cluster.config.nodes == 3
    assert w.knobs().nodes == 3 and w.knobs().partition == "url-hash"


@pytest.mark.parametrize("nodes", [2, 4])
def test_lanes_are_grouped_per_node_and_labelled_as_they_are_drawn(nodes: int) -> None:
    w = CrawlWidget("see-it", frames=10)
    w.partition.value = "url-hash"
    w.nodes.value = nodes
    drawing = w.drawing.node_drawing
    assert drawing is not None
    workers = w.workers.value
    labels = {t.get_text(): t.get_position()[1] for t in drawing.node_labels}
    assert list(labels) == [f"n{k}" for k in range(nodes)]  # numbered as the fail list numbers them
    for k in range(nodes):  # each label at the middle of its node's lanes
        assert labels[f"n{k}"] == pytest.approx(k * workers + (workers - 1) / 2)
    ticks = [t.get_text() for t in w.drawing.ax_lanes.get_yticklabels()]
    assert ticks == [f"w{i + 1}" for i in range(workers)] * nodes  # w1..wW within each node
    # every fetch is drawn in a lane of the node that made it: the nearest node label is its node's
    run = w.result.cluster
    assert run is not None
    starts = [(e, node) for e, node in zip(run.trace, run.trace_nodes) if isinstance(e, FetchStarted)]
    assert len({node for _, node in starts}) > 1  # url-hash spreads the work over the nodes
    for e, node in starts:
        nearest = min(labels, key=lambda name: abs(labels[name] - e.slot))
        assert nearest == f"n{node}", (e, node)


def test_url_hash_breaks_politeness_and_host_hash_keeps_it() -> None:
    w = CrawlWidget("see-it", frames=10)
    w.nodes.value = 4
    assert _violations(w.summary.value) == 0 == w.result.cluster.politeness_violations
    assert not w.result.replay.cluster.split_hosts()
    w.partition.value = "url-hash"
    violations = _violations(w.summary.value)
    assert violations == w.result.cluster.politeness_violations > 0
    assert SPLIT_COLOUR in w.summary.value and "end detected +" in w.summary.value
    # the hosts each node crawled: every see-it host is split over nodes, labelled so in red
    split = [t for t in w.drawing.ax_graph.texts if "split" in t.get_text()]
    assert {t.get_text().split(" ·")[0] for t in split} == {"a.com", "b.com"}
    assert all(t.get_color() == SPLIT_COLOUR for t in split)
    assert "hosts split over nodes: 2" in w.drawing.node_drawing.panel.get_text()


def test_a_failed_node_is_drawn_down_from_its_failure_to_its_recovery(tmp_path: Path) -> None:
    path = _see_it_with(tmp_path, 'nodes = 3\npartition = "url-hash"\nfail = [{node = 1, at = 4.0, recover = 8.0}]\n')
    w = CrawlWidget(str(path), frames=40)
    drawing = w.drawing.node_drawing
    assert drawing is not None
    (outage,) = outages(w.result.replay)
    assert (outage.node, outage.start, outage.end) == (1, 4.0, 8.0) and w.result.finish > 8.0
    (mark,) = drawing.down_marks
    lanes = w.result.replay.cluster.slots_of(1)

    w.frame(3.9)
    assert not mark.get_visible() and len(drawing.bands.get_paths()) == 0
    assert "DOWN" not in drawing.node_figures[1].get_text()

    w.frame(6.0)
    assert mark.get_visible() and mark.get_text().strip() == "DOWN"
    assert mark.get_position() == (4.0, pytest.approx((lanes.start + lanes.stop - 1) / 2))
    assert drawing.node_figures[1].get_text() == "n1 DOWN"
    assert all("DOWN" not in drawing.node_figures[k].get_text() for k in (0, 2))
    (band,) = drawing.bands.get_paths()
    xs, ys = band.vertices[:, 0], band.vertices[:, 1]
    assert (xs.min(), xs.max()) == (4.0, 6.0) and (ys.min(), ys.max()) == (lanes.start - 0.5, lanes.stop - 0.5)

    w.frame(10.0)  # back up: its figures again, the band kept as history up to the recovery
    assert drawing.node_figures[1].get_text().startswith("n1 frontier")
    assert drawing.bands.get_paths()[0].vertices[:, 0].max() == 8.0
    assert "n1 DOWN at 4.0 s" in w.summary.value and "back at 8.0 s" in w.summary.value


def test_messages_in_transit_are_counted_with_their_links() -> None:
    w = CrawlWidget("see-it", frames=10)
    w.partition.value = "url-hash"
    w.nodes.value = 4
    trace = w.result.replay.events
    sent = next(e for e in trace if isinstance(e, MessageSent))
    delivered = next(e for e in trace if isinstance(e, MessageDelivered) and (e.src, e.dst) == (sent.src, sent.dst))
    assert delivered.t > sent.t
    w.frame((sent.t + delivered.t) / 2)  # the first message is on its way
    cluster = w.result.replay.cluster
    assert cluster.in_transit >= 1 and cluster.links_in_transit >= sent.links
    words = f"in transit {cluster.in_transit} msg"
    assert words in w.drawing.status.get_text() and words in w.drawing.node_drawing.panel.get_text()
    assert f"n{sent.src}→n{sent.dst}" in w.drawing.node_drawing.panel.get_text()


def test_one_node_draws_exactly_as_one_process() -> None:
    w = CrawlWidget("see-it", frames=10)
    assert w.drawing.node_drawing is None and w.result.replay.cluster is None
    alone = snapshot("see-it", t=0.0)  # the same run, drawn without the widget
    assert bytes(w.image.value) == alone.png()
    lanes = w.drawing.ax_lanes
    assert lanes.get_ylabel() == "workers" and not lanes.texts
    assert [t.get_text() for t in lanes.get_yticklabels()] == ["w1", "w2", "w3", "w4"]
    assert not any("·" in t.get_text() for t in w.drawing.ax_graph.texts)  # host labels without nodes

    w.nodes.value = 2
    w.nodes.value = 1  # and after a cluster run, one node again draws as one process
    assert w.drawing.node_drawing is None and lanes is not w.drawing.ax_lanes
    assert w.drawing.ax_lanes.get_ylabel() == "workers" and not w.drawing.ax_lanes.texts
    assert [t.get_text() for t in w.drawing.ax_graph.texts] == [t.get_text() for t in alone.ax_graph.texts]


def test_knobs_the_scenario_cannot_run_with_say_so_and_keep_the_last_run(tmp_path: Path) -> None:
    w = CrawlWidget(str(_see_it_with(tmp_path, "nodes = 3\nfail = [{node = 2, at = 4.0}]\n")), frames=10)
    shown = w.result
    w.nodes.value = 2  # node 2 (the third) fails, but there are two nodes now
    assert w.result is shown
    assert "cluster.fail[0].node" in w.summary.value and "Traceback" not in w.summary.value


def test_a_snapshot_of_a_cluster_scenario_draws_its_nodes(tmp_path: Path) -> None:
    figure = snapshot(str(_see_it_with(tmp_path, 'nodes = 2\npartition = "url-hash"\n')), t=5.0)
    assert figure.result.cluster is not None and figure.node_drawing is not None
    assert [t.get_text() for t in figure.node_drawing.node_labels] == ["n0", "n1"]
    assert "in transit" in figure.status.get_text()


def test_the_caption_tells_a_node_failure_in_words(tmp_path: Path) -> None:
    path = _see_it_with(tmp_path, 'nodes = 3\npartition = "url-hash"\nfail = [{node = 1, at = 4.0, recover = 8.0}]\n')
    w = CrawlWidget(str(path), frames=40)
    w.frame(4.0)
    assert any("n1 failed" in line for line in w.caption_lines), w.caption_lines
    assert not any(line.endswith(("NodeFailed", "MessageSent", "MessageDelivered")) for line in w.caption_lines)
    w.frame(8.0)
    assert any("n1 is back" in line for line in w.caption_lines), w.caption_lines


def test_animate_draws_a_cluster_scenario_with_its_nodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.notebook.movie import main as animate_main

    scenario = _see_it_with(tmp_path, "nodes = 2\n")
    out = tmp_path / "cluster.gif"
    assert animate_main([str(scenario), "-o", str(out), "--fps", "2", "--seconds", "1"]) == 0
    assert out.read_bytes().startswith(b"GIF8")
    assert "[cluster]" not in capsys.readouterr().err  # it draws the nodes: nothing to own up to
