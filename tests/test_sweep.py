"""``crawlsim sweep``: the grid is the product of the lists, every point is
simulated (in this process, in a process pool, or on a Dask cluster) with the
same results, and the CSV, JSON and PNG are written."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cli import main
from crawlsim.commands.sweep import grid_from_args, points


def sweep(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> list[dict[str, Any]]:
    code = main(["sweep", *argv, "-o", str(out), "--json"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    return json.loads(stdout)  # type: ignore[no-any-return]


def test_grid_is_the_product_of_the_lists() -> None:
    from crawlsim.commands.sweep import build_parser

    args = build_parser().parse_args(
        [
            "x",
            "--workers",
            "1,2,4",
            "--gap",
            "0,1.5",
            "--normalize",
            "off,rfc3986",
            "--set",
            "retry_statuses=[429,503],[503]",
        ]
    )
    grid = grid_from_args(args)
    assert grid == {
        "workers": [1, 2, 4],
        "gap": [0.0, 1.5],
        "normalize": ["off", "rfc3986"],
        "retry_statuses": [(429, 503), (503,)],
    }
    assert len(points(grid)) == 3 * 2 * 2 * 2
    assert points(grid)[0] == {"workers": 1, "gap": 0.0, "normalize": "off", "retry_statuses": (429, 503)}


def test_sweep_in_process_writes_csv_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sweep(capsys, tmp_path, "see-it", "--workers", "1,2,4", "--per-host", "1,2", "--jobs", "1")
    assert [(r["workers"], r["per_host"]) for r in rows] == [(1, 1), (1, 2), (2, 1), (2, 2), (4, 1), (4, 2)]
    by_point = {(r["workers"], r["per_host"]): r for r in rows}
    assert by_point[(1, 1)]["finish_time"] == 26.0  # one worker: all the work in a row
    assert by_point[(4, 1)]["finish_time"] == 19.0  # b.com's six 3 s pages, one at a time
    assert by_point[(4, 1)]["binding_bound"] == "busiest_host"
    for row in rows:
        assert row["finish_time"] >= max(row["depth"], row["busiest_host"], row["work"]) - 1e-9

    with (tmp_path / "sweep.csv").open() as f:
        table = list(csv.DictReader(f))
    assert len(table) == 6
    assert {"workers", "per_host", "finish_time", "depth", "busiest_host", "work", "binding_bound"} <= set(table[0])
    assert float(table[0]["finish_time"]) == 26.0

    document = json.loads((tmp_path / "sweep.json").read_text())
    assert document["scenario"] == "see-it"
    assert document["grid"] == {"workers": [1, 2, 4], "per_host": [1, 2]}
    assert document["rows"] == rows

    png = (tmp_path / "sweep.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000


def test_a_process_pool_gives_the_same_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("busiest-host", "--workers", "2,8", "--per-host", "1,4", "--no-plot")
    local = sweep(capsys, tmp_path / "one", *argv, "--jobs", "1")
    pooled = sweep(capsys, tmp_path / "pool", *argv, "--jobs", "2")
    assert pooled == local
    assert not (tmp_path / "pool" / "sweep.png").exists()


def test_dask_cluster_gives_the_same_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("dask.distributed")
    argv = ("see-it", "--workers", "1,2,4", "--normalize", "off,rfc3986", "--no-plot")
    local = sweep(capsys, tmp_path / "local", *argv, "--jobs", "1")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        remote = sweep(capsys, tmp_path / "dask", *argv, "--dask", cluster.scheduler_address)
    assert remote == local


def test_the_default_grid_sweeps_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sweep(capsys, tmp_path, "see-it", "--jobs", "1", "--no-plot")
    assert [r["workers"] for r in rows] == [1, 2, 4, 8, 16]


def test_a_bad_value_in_the_grid_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", "see-it", "--per-host", "1,0", "-o", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == "crawlsim: error: per_host: expected a whole number >= 1, got 0\n"
