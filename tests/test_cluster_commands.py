"""The commands that run a crawl and the cluster: ``sweep --nodes`` (every
point a simulated cluster crawl, on the pool or Dask), ``compare`` on a
scenario with ``[cluster]``, and the one stderr line of the commands that
still run one process (``trace``, ``tui``)."""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cli import main
from crawlsim.trace.cluster import MAX_NODES
from crawlsim.commands.sweep_nodes import CLUSTER_CSV_KEYS, busiest_node_share, cluster_figure
from crawlsim.views.plots import NODE_BOUND_COLOUR

SMALL = (
    'title = "three hosts"\nstart = "http://a.com/"\nseed = 5\n'
    '[crawl]\nworkers = 2\nper_host = 1\ngap = 0.5\nscope = "any"\n'
    '[hosts."*"]\nlatency = 1.0\n'
    '[pages]\n"http://a.com/" = ["/1", "/2", "http://b.com/", "http://c.com/"]\n"http://a.com/1" = ["/2", "/3"]\n'
    '"http://a.com/2" = ["http://b.com/1"]\n"http://a.com/3" = []\n"http://b.com/" = ["/1", "/2", "http://c.com/1"]\n'
    '"http://b.com/1" = ["/2"]\n"http://b.com/2" = []\n"http://c.com/" = []\n"http://c.com/1" = ["http://a.com/"]\n'
)
"""Nine pages on three hosts, one request at a time per host, half a second apart."""


def small(tmp_path: Path, cluster: str = "") -> str:
    path = tmp_path / "small.toml"
    path.write_text(SMALL + (f"[cluster]\n{cluster}\n" if cluster else ""))
    return str(path)


def sweep(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> list[dict[str, Any]]:
    code = main(["sweep", *argv, "-o", str(out), "--json", "--jobs", "1", "--no-plot"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    return json.loads(stdout)  # type: ignore[no-any-return]


def error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The command's stderr, asserted to be exit 2 and one line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("crawlsim: error: "), err
    return err


# -- sweep --nodes ------------------------------------------------------------------


def test_sweep_nodes_rows_and_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sweep(capsys, tmp_path, "see-it", "--nodes", "1,2,4,2")
    assert [(r["workers"], r["cluster"]["nodes"], r["cluster"]["partition"]) for r in rows] == [
        (4, n, "host-hash") for n in (1, 2, 4)
    ]
    for row in rows:
        assert len(row["nodes"]) == row["cluster"]["nodes"]  # the per-node list, as run --nodes --json has it
        assert row["detected_at"] >= row["finish_time"] >= row["node_bound"] == row["busiest_node"]["bound"]
        assert 0 < busiest_node_share(row) <= 1
    assert rows[0]["messages"] == rows[0]["control_messages"] == 0  # one node: nobody to talk to
    assert rows[1]["cluster_advice"]["lines"][0].startswith("node 1 holds the crawl: it owns b.com")
    assert rows[1]["cluster_advice"]["measured"] == {"nodes": 4, "finish_time": rows[2]["finish_time"]}
    document = json.loads((tmp_path / "sweep.json").read_text())
    assert document["grid"] == {"workers": [4], "nodes": [1, 2, 4], "partition": ["host-hash"]}
    assert document["rows"] == rows
    header = (tmp_path / "sweep.csv").read_text().splitlines()[0].split(",")
    assert header == ["index", "workers", *CLUSTER_CSV_KEYS, "error"]
    single = sweep(capsys, tmp_path / "one", "see-it", "--workers", "4")
    assert rows[0]["finish_time"] == single[0]["finish_time"]  # one node is the single process


def test_sweep_nodes_on_the_pool_gives_the_same_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("see-it", "--nodes", "1,3", "--partition", "host-hash,url-hash", "--no-plot", "--json")
    local = sweep(capsys, tmp_path / "one", *argv)
    assert main(["sweep", *argv, "-o", str(tmp_path / "pool"), "--jobs", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == local
    url_hash = [r for r in local if r["cluster"] == {**r["cluster"], "partition": "url-hash", "nodes": 3}]
    assert url_hash[0]["politeness_violations"] > 0  # b.com's pages spread over nodes: its limit broken
    assert main(["sweep", *argv[:-1], "-o", str(tmp_path / "table"), "--jobs", "1"]) == 0  # the table, not JSON
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "every point: workers=4"
    assert table[1].split() == [
        "nodes", "partition", "finish", "detected", "msgs", "impolite", "node", "bound", "held", "by", "busiest", "node"
    ]
    cells = table[5].split()  # 3 url-hash 13.0 s +0.020 s MSGS IMPOLITE ...
    assert cells[:2] == ["3", "url-hash"]
    assert (cells[6], cells[7]) == (str(url_hash[0]["messages"]), str(url_hash[0]["politeness_violations"]))


def test_sweep_nodes_on_dask_gives_the_same_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("dask.distributed")
    argv = ("see-it", "--nodes", "2,3", "--workers", "1,2", "--no-plot", "--json")
    local = sweep(capsys, tmp_path / "local", *argv)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        assert main(["sweep", *argv, "-o", str(tmp_path / "dask"), "--dask", cluster.scheduler_address]) == 0
    assert json.loads(capsys.readouterr().out) == local


def test_sweep_honours_the_scenarios_cluster_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sweep(capsys, tmp_path, small(tmp_path, 'nodes = 3\npartition = "url-hash"'), "--workers", "1,2")
    assert [(r["workers"], r["cluster"]["nodes"], r["cluster"]["partition"]) for r in rows] == [
        (1, 3, "url-hash"), (2, 3, "url-hash")
    ]
    assert all(r["messages"] > 0 for r in rows)


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pages=st.integers(8, 60),
    hosts=st.integers(2, 5),
    seed=st.integers(0, 1000),
    workers=st.integers(1, 4),
    per_host=st.integers(1, 2),
    gap=st.sampled_from([0.2, 0.5, 1.5]),
    latency=st.sampled_from(["0.3", '{model = "lognormal", median = 0.4, sigma = 0.8}']),
    link=st.sampled_from([0.0, 0.05, 2.0]),
)
def test_host_hash_points_are_polite_and_never_beat_their_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pages: int, hosts: int, seed: int, workers: int,
    per_host: int, gap: float, latency: str, link: float,
) -> None:
    """Over random webs with a gap: every host-hash point keeps each host's
    limits across the cluster, fetches the pages one process fetches,
    finishes no sooner than its node bound and is detected no sooner than it ends."""
    path = tmp_path / f"web{next(_names)}.toml"
    path.write_text(
        f'seed = {seed}\n[crawl]\nworkers = {workers}\nper_host = {per_host}\ngap = {gap}\nscope = "any"\n'
        f'[hosts."*"]\nlatency = {latency}\n[web]\nkind = "power_law"\npages = {pages}\nhosts = {hosts}\n'
        f"[cluster]\nlink_latency = {link}\n"
    )
    argv = ("--nodes", "1,2,4", "--partition", "host-hash", "--advise", "infer")
    rows = sweep(capsys, tmp_path / path.stem, str(path), *argv)
    assert [r["politeness_violations"] for r in rows] == [0, 0, 0]
    assert len({r["pages_fetched"] for r in rows}) == 1
    for row in rows:
        assert row["detected_at"] >= row["finish_time"] >= row["node_bound"] - 1e-9


_names = count()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("--nodes", "0"), f"--nodes: expected a whole number 1-{MAX_NODES:,}, got 0"),
        (("--nodes=-1,x",), f"--nodes: expected a whole number 1-{MAX_NODES:,}, got \"-1\""),
        (("--nodes", "2,x"), f"--nodes: expected a whole number 1-{MAX_NODES:,}, got \"x\""),
        (("--nodes", "100000"), f"--nodes: expected a whole number 1-{MAX_NODES:,}, got 100000"),
        (("--nodes", "2.5"), f"--nodes: expected a whole number 1-{MAX_NODES:,}, got \"2.5\""),
        (("--nodes", " , "), "--nodes: expected one or more comma-separated values"),
        (("--nodes", "2", "--partition", "host-hash,ip-hash"), "--partition: expected host-hash | "),
        (("--nodes", "-1"), "--nodes: expected a whole number"),  # argparse reads -1 as a number
    ],
)
def test_sweep_refuses_hostile_nodes_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], expected: str
) -> None:
    err = error_line(capsys, "sweep", "see-it", *argv, "-o", str(tmp_path))
    assert expected in err
    assert not (tmp_path / "sweep.json").exists()  # refused before any point ran


def test_sweep_refuses_a_failure_the_smaller_cluster_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = small(tmp_path, "nodes = 3\nfail = [{node = 2, at = 1.0}]")
    err = error_line(capsys, "sweep", scenario, "--nodes", "3,2", "-o", str(tmp_path / "out"))
    assert "cluster.fail[0].node" in err


def test_sweep_png_puts_nodes_beside_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", "see-it", "--nodes", "1,2,4", "--workers", "1,4", "--partition", "url-hash", "--jobs", "1"]
    assert main([*argv, "-o", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert (tmp_path / "sweep.png").read_bytes().startswith(b"\x89PNG")
    grid = json.loads((tmp_path / "sweep.json").read_text())["grid"]
    figure = cluster_figure(rows, grid, "see-it: See it")
    left, right = figure.axes
    assert (left.get_xlabel(), right.get_xlabel()) == ("workers", "nodes")
    assert [t.get_text() for t in right.get_xticklabels()] == ["1", "2", "4"]
    finish = [line for line in right.get_lines() if line.get_gid() == "crawlsim-finish"]
    assert finish[0].get_label().startswith("workers=1")
    assert len({line.get_color() for line in finish}) == len(finish) == 2
    bounds = [line for line in right.get_lines() if str(line.get_gid()).startswith("crawlsim-bound:node:")]
    assert len(bounds) == 2  # one node bound per line: they differ, each in its line's colour
    assert [line.get_color() for line in bounds] == [line.get_color() for line in finish]
    assert NODE_BOUND_COLOUR not in {line.get_color() for line in bounds}
    assert "partition=url-hash" in figure.get_suptitle() and "see-it" in figure.get_suptitle()


# -- compare on a cluster -------------------------------------------------------------


def test_compare_runs_both_sides_on_the_scenarios_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = small(tmp_path, "nodes = 3")
    assert main(["compare", scenario, "--a", "workers=1", "--b", "workers=2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["a"]["cluster"]["nodes"] == data["b"]["cluster"]["nodes"] == 3
    assert main(["run", scenario, "--workers", "2", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)
    for key in ("finish_time", "nodes", "node_bound", "messages", "politeness_violations", "detected_at"):
        assert data["b"][key] == run[key], key
    assert main(["compare", scenario, "--a", "workers=1", "--b", "workers=2"]) == 0
    out = capsys.readouterr().out
    assert "3, host-hash" in out and "politeness violations" in out and "B: workers=2, per node" in out


def test_compare_nodes_flag_puts_a_plain_scenario_on_a_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "see-it", "--b", "workers=1", "--nodes", "2", "--partition", "url-hash", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["a"]["cluster"] == data["b"]["cluster"] and data["a"]["cluster"]["partition"] == "url-hash"
    assert error_line(capsys, "compare", "see-it", "--b", "workers=1", "--nodes", "0").endswith(
        f"--nodes: expected a whole number 1-{MAX_NODES:,}, got 0\n"
    )


def test_compare_a_cluster_against_more_workers_on_one(capsys: pytest.CaptureFixture[str]) -> None:
    """"4 machines or 64 workers on one?": a side's own --b nodes=N puts
    both sides on clusters, the other with one node -- the single process."""
    assert main(["compare", "see-it", "--a", "workers=4", "--b", "nodes=2", "--b", "workers=2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["a"]["cluster"]["nodes"], data["b"]["cluster"]["nodes"]) == (1, 2)
    assert data["labels"] == ["A: workers=4", "B: nodes=2, workers=2"]
    assert data["b"]["options"]["workers"] == 2
    assert main(["run", "see-it", "--workers", "4", "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert (data["a"]["finish_time"], data["a"]["fetches"]) == (single["finish_time"], single["fetches"])
    err = error_line(capsys, "compare", "see-it", "--a", "nodes=0", "--b", "workers=2")
    assert err.endswith(f"--a nodes: expected a whole number 1-{MAX_NODES:,}, got 0\n")


# -- the commands that run one process say so -----------------------------------------


def test_trace_and_tui_show_the_cluster_so_they_do_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trace and tui show a [cluster] scenario's nodes (tests/test_trace_nodes.py,
    tests/test_tui_nodes.py): the one-process line is not theirs any more."""
    scenario = small(tmp_path, "nodes = 4")
    assert main(["trace", scenario, "-o", str(tmp_path / "t.jsonl")]) == 0
    assert "[cluster]" not in capsys.readouterr().err
    assert all("node" in json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines())
    main(["tui", scenario])  # no terminal here: it refuses, with nothing about [cluster]
    assert "[cluster]" not in capsys.readouterr().err


def test_the_shared_warning_speaks_only_of_several_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli_options import warn_cluster_ignored
    from crawlsim.scenario.files import scenario_from_dict

    web = {"start": "http://a.com/", "pages": {"http://a.com/": []}}
    assert warn_cluster_ignored(scenario_from_dict({**web, "cluster": {"nodes": 2}}), "animate", "drawing one process")
    assert capsys.readouterr().err == (
        "crawlsim animate: this scenario's [cluster] table (2 nodes) is not supported here yet; drawing one process\n"
    )
    for quiet in (scenario_from_dict({**web, "cluster": {"nodes": 1}}), scenario_from_dict(web), None):
        assert not warn_cluster_ignored(quiet, "animate", "drawing one process")
    assert capsys.readouterr().err == ""
