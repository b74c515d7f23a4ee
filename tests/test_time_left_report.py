"""After a simulated crawl, ``crawlsim run`` shows how the live time-left figures
moved against the real time left: a text picture, the figures, and a PNG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate
from crawlsim.views.time_left import picture, report_of


def test_run_shows_the_time_left_section(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "left.png"
    assert main(["run", "busiest-host", "--time-left-png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "time left, as the crawl went" in out
    assert "the lower bound was never above the real time left" in out
    assert "the estimate's error: +" in out or "the estimate's error: -" in out
    assert png.read_bytes().startswith(b"\x89PNG")


def test_run_json_keeps_its_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "polite", "--json"]) == 0
    assert "time_left" not in json.loads(capsys.readouterr().out)


def test_an_unwritable_png_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["run", "polite", "--time-left-png", str(blocker / "x.png")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_the_picture_marks_the_truth_the_bound_and_the_estimate() -> None:
    run = simulate(load_scenario("busiest-host"), series=False)
    report = report_of(run.options, run.trace)
    assert report is not None and report.finish == run.finish_time
    drawn = "\n".join(picture(report))
    assert "." in drawn and "L" in drawn and "e" in drawn
    # the bound is at most the truth at every instant, and meets it once every page is known
    assert report.bound_excess() <= 1e-9
    assert report.moments[-1].lower == 0.0
