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
            "--vary",
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
        assert row["finish_time"] >= max(row["bounds"].values()) - 1e-9

    with (tmp_path / "sweep.csv").open() as f:
        table = list(csv.DictReader(f))
    assert len(table) == 6
    columns = {"workers", "per_host", "finish_time", "depth_bound", "busiest_host_bound", "work_bound", "busiest_host"}
    assert columns | {"binding_bound"} <= set(table[0])
    assert table[-1]["busiest_host"] == rows[-1]["busiest_host"]["host"]
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


# -- sweep.png's drawing: one style with the notebook's sweep_plot (crawlsim.views.plots) ----


def _rows(per_host: int, busiest: float, finishes: list[float]) -> list[dict[str, Any]]:
    """Rows as run_point writes them: workers 1..16, a 1.5 s depth bound
    (it sits on the x-axis next to finish times of hundreds of seconds)."""
    workers = [1, 2, 4, 8, 16]
    return [
        {"workers": w, "per_host": per_host, "finish_time": f,
         "bounds": {"depth": 1.5, "busiest_host": busiest, "work": 500.0 / w},
         "busiest_host": {"host": "h0.example", "fetches": 600}}
        for w, f in zip(workers, finishes, strict=True)
    ]


def _bound_lines(ax: Any) -> dict[str, list[Any]]:
    lines: dict[str, list[Any]] = {}
    for line in ax.get_lines():
        if line.get_gid() != "crawlsim-finish":
            lines.setdefault(line.get_color(), []).append(line)
    return lines


def test_sweep_png_gives_each_bound_its_own_colour_and_shows_the_small_one() -> None:
    from crawlsim.commands.sweep import sweep_figure
    from crawlsim.views.plots import BOUND_COLOURS, IMPOSSIBLE_LABEL

    rows = _rows(1, 153.0, [500.0, 273.0, 184.5, 154.0, 153.2])
    figure = sweep_figure(rows, {"workers": [1, 2, 4, 8, 16]}, "busiest-host: The busiest host sets the pace",
                          {"per_host": 1, "gap": 0.0})
    (ax,) = figure.axes
    labels = {str(line.get_label()): line for line in ax.get_lines()}
    assert set(labels) == {"finish time", "depth bound", "busiest host bound (h0.example)", "work bound"}
    colours = [line.get_color() for line in labels.values()]
    styles = [labels[n].get_linestyle() for n in ("depth bound", "busiest host bound (h0.example)", "work bound")]
    assert len(set(colours)) == 4 and len(set(styles)) == 3  # before: every line one blue
    depth = labels["depth bound"]
    assert depth.get_color() == BOUND_COLOURS["depth"]
    # 1.5 s under a 500 s axis: drawn over the spine, and its value written beside it
    assert depth.get_zorder() > ax.spines["bottom"].get_zorder() and not depth.get_clip_on()
    assert any("depth bound 1.5 s" in t.get_text() and t.get_color() == depth.get_color() for t in ax.texts)
    assert IMPOSSIBLE_LABEL in [t.get_text() for t in ax.get_legend().get_texts()]
    assert "busiest-host" in ax.get_title(loc="left") and "per_host=1" in ax.get_title(loc="left")
    assert "seconds" in ax.get_ylabel()


def test_sweep_png_series_get_their_own_colours_and_shared_bounds_are_drawn_once() -> None:
    from crawlsim.commands.sweep import sweep_figure
    from crawlsim.views.plots import BOUND_COLOURS

    rows = _rows(1, 153.0, [500.0, 273.0, 184.5, 154.0, 153.2]) + _rows(4, 40.0, [500.0, 250.0, 126.0, 64.0, 40.0])
    figure = sweep_figure(rows, {"workers": [1, 2, 4, 8, 16], "per_host": [1, 4]}, "busiest-host: t")
    (ax,) = figure.axes
    finishes = [line for line in ax.get_lines() if line.get_gid() == "crawlsim-finish"]
    assert [line.get_label() for line in finishes] == ["per_host=1", "per_host=4"]
    series_colours = {line.get_color() for line in finishes}
    assert len(series_colours) == 2 and not series_colours & set(BOUND_COLOURS.values())
    bounds = _bound_lines(ax)
    assert len(bounds[BOUND_COLOURS["depth"]]) == 1 and len(bounds[BOUND_COLOURS["work"]]) == 1  # the same for both
    # one per series, in that series' colour (and its marker), the bound's dashes saying which bound
    per_line = [line for line in ax.get_lines() if str(line.get_gid()).startswith("crawlsim-bound:busiest_host:")]
    assert {line.get_color() for line in per_line} == series_colours
    assert len({line.get_marker() for line in per_line}) == 2
    assert "one line per per_host" in ax.get_title(loc="left")


def test_sweep_png_and_the_notebook_sweep_plot_share_one_style() -> None:
    from crawlsim.commands.sweep import sweep_figure
    from crawlsim.notebook import sweep_plot

    notebook = sweep_plot("see-it", workers=[1, 2, 4])
    (ax_nb,) = notebook.figure.axes
    rows = [{"workers": p.workers, "finish_time": p.finish,
             "bounds": {"depth": p.depth, "busiest_host": p.busiest_host, "work": p.work},
             "busiest_host": {"host": p.busiest_host_name, "fetches": 0}} for p in notebook.points]
    (ax_cli,) = sweep_figure(rows, {"workers": [1, 2, 4]}, "see-it").axes

    def look(ax: Any) -> list[tuple[Any, ...]]:
        return [(line.get_label(), line.get_color(), line.get_linestyle()) for line in ax.get_lines()]

    assert look(ax_nb) == look(ax_cli)
    assert ax_nb.get_ylabel() == ax_cli.get_ylabel()


def test_a_models_sweep_says_its_margin_once_in_the_table_and_on_the_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``run`` says it with the bounds: every point's bounds are the model's, within one margin."""
    import crawlsim.commands.sweep as command
    from crawlsim.scenario import load_scenario
    from crawlsim.views.summary import model_margin_line

    site = tmp_path / "measured.toml"
    site.write_text('margin = 0.05\n[pages]\n"http://a.test/" = ["http://a.test/b"]\n"http://a.test/b" = []\n')
    said = model_margin_line(load_scenario(site))
    assert said is not None and "5.0% either way" in said
    titles: list[str] = []
    monkeypatch.setattr(command, "plot", lambda rows, grid, title, path, base=None: titles.append(title))
    assert main(["sweep", str(site), "--workers", "1,2", "--jobs", "1", "-o", str(tmp_path / "out")]) == 0
    assert " ".join(capsys.readouterr().out.split()).count(said) == 1
    (title,) = titles
    document = json.loads((tmp_path / "out" / "sweep.json").read_text())
    (ax,) = command.sweep_figure(document["rows"], document["grid"], title).axes
    assert said in " ".join(ax.get_title(loc="left").split())
    assert main(["sweep", "see-it", "--workers", "1,2", "--jobs", "1", "--no-plot", "-o", str(tmp_path / "o2")]) == 0
    assert "proven for the model" not in capsys.readouterr().out  # a scenario that models nothing
