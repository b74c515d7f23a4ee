"""``crawlsim trace --nodes N``: a cluster's trace carries the node of each
event (JSONL: a ``"node"`` key per line; Chrome: a process per node, a
thread per worker), replays to the crawl ``run --nodes N`` reports, and a
tampered one is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlsim.cli import main as cli
from crawlsim.views.summary import _round
from crawlsim.trace.events import FetchStarted
from crawlsim.views.session import trace_result
from crawlsim.trace.jsonl import read_trace


def tui_main(argv: list[str]) -> int:
    """``crawlsim tui ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["tui", *argv])


NODES = 3
WORKERS = 4  # see-it's


def trace_file(tmp_path: Path, *flags: str, name: str = "t.jsonl", scenario: str = "see-it") -> Path:
    path = tmp_path / name
    assert cli(["trace", scenario, "-o", str(path), *flags]) == 0
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert cli(["run", *args, "--json", "--advise", "infer"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("partition", ["host-hash", "url-hash"])
def test_every_line_carries_its_node_and_replays_to_runs_finish(tmp_path: Path, capsys, partition: str) -> None:
    path = trace_file(tmp_path, "--nodes", str(NODES), "--partition", partition)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines and all(0 <= line["node"] < NODES for line in lines)
    assert len({line["node"] for line in lines}) > 1  # see-it's two hosts are crawled on more than one node
    recorded = read_trace(path)
    assert (recorded.node_count, recorded.workers) == (NODES, WORKERS)
    starts = [(e, k) for e, k in zip(recorded.events, recorded.nodes or []) if isinstance(e, FetchStarted)]
    assert all(e.slot // WORKERS == k for e, k in starts)  # each fetch on a lane of its own node
    result = trace_result(recorded)
    data = run_json(capsys, "see-it", "--nodes", str(NODES), "--partition", partition)
    assert _round(result.replay.end) == data["finish_time"]
    cluster = result.replay.cluster
    assert cluster is not None
    result.replay.seek(result.replay.end)
    assert [s.fetched for s in cluster.status] == [row["pages_fetched"] for row in data["nodes"]]


def test_a_scenarios_cluster_table_is_traced_without_flags(tmp_path: Path) -> None:
    scenario = tmp_path / "two.toml"
    text = Path("scenarios/see-it.toml").read_text(encoding="utf-8")
    scenario.write_text(text.replace("[crawl]", "[cluster]\nnodes = 2\n\n[crawl]", 1), encoding="utf-8")
    lines = [json.loads(line) for line in trace_file(tmp_path, scenario=str(scenario)).read_text().splitlines()]
    assert {line["node"] for line in lines} == {0, 1}
    one = trace_file(tmp_path, "--nodes", "1", scenario=str(scenario), name="one.jsonl")
    assert all("node" not in json.loads(line) for line in one.read_text().splitlines())  # --nodes 1: one process


def test_chrome_trace_has_a_process_per_node_and_a_thread_per_worker(tmp_path: Path) -> None:
    path = trace_file(tmp_path, "--nodes", str(NODES), name="t.json")
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert names == {1: "node n0", 2: "node n1", 3: "node n2", 4: "hosts"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name" and e["pid"] <= NODES}
    workers = {key: name for key, name in threads.items() if key[1] > 0}
    assert workers and all(1 <= tid <= WORKERS and name == f"worker w{tid}" for (_, tid), name in workers.items())
    recorded = read_trace(trace_file(tmp_path, "--nodes", str(NODES)))
    node_of = {e.fetch_id: k for e, k in zip(recorded.events, recorded.nodes or []) if isinstance(e, FetchStarted)}
    spans = [e for e in events if e["ph"] == "X"]
    assert len(spans) == len(node_of)
    assert all(e["pid"] == node_of[e["args"]["fetch_id"]] + 1 for e in spans)  # each fetch in its node's process
    assert any(e["name"].startswith("message → n") for e in events)


def tamper(path: Path, index: int, change: dict | None) -> Path:
    lines = path.read_text().splitlines()
    data = json.loads(lines[index])
    if change is None:
        del data["node"]
    else:
        data.update(change)
    lines[index] = json.dumps(data)
    out = path.with_name(f"tampered-{index}.jsonl")
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (None, 'no "node" key'),
        ({"node": 5000}, "expected a whole number 0-1023"),
        ({"node": "n1"}, "expected a whole number"),
        ({"node": True}, "expected a whole number"),
        ({"node": -1}, "expected a whole number"),
    ],
)
def test_a_tampered_cluster_trace_is_one_line_and_exit_2(tmp_path: Path, capsys, change: dict | None, words: str) -> None:
    good = trace_file(tmp_path, "--nodes", str(NODES))
    bad = tamper(good, 5, change)
    capsys.readouterr()
    assert tui_main(["--trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 6" in err and words in err and "Traceback" not in err


def test_a_fetch_on_another_nodes_lane_is_refused(tmp_path: Path) -> None:
    good = trace_file(tmp_path, "--nodes", str(NODES))
    lines = [json.loads(line) for line in good.read_text().splitlines()]
    index = next(i for i, d in enumerate(lines) if d["type"] == "FetchStarted" and d["node"] > 0)
    moved = tamper(good, index, {"node": 0})  # its slot belongs to a later node's group
    with pytest.raises(ValueError, match=f"line {index + 1}: slot"):
        read_trace(moved)


def test_trace_without_node_keys_is_one_process(tmp_path: Path) -> None:
    recorded = read_trace(trace_file(tmp_path))
    assert recorded.nodes is None and trace_result(recorded).replay.cluster is None


def test_the_done_lines_lanes_per_node_are_checked(tmp_path: Path) -> None:
    good = trace_file(tmp_path, "--nodes", str(NODES))
    done = next(i for i, line in enumerate(good.read_text().splitlines()) if '"Done"' in line)
    with pytest.raises(ValueError, match='"workers" is 0'):
        read_trace(tamper(good, done, {"workers": 0}))
    with pytest.raises(ValueError, match="does not fit"):  # fewer lanes than the slots used
        read_trace(tamper(good, done, {"workers": 1}))
