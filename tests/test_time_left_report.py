"""After a simulated crawl, ``crawlsim run`` shows how the live time-left figures
moved against the real time left: a text picture, the figures, and a PNG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate
from crawlsim.views.time_left import PICTURE_PAGES, picture, report_of, section
from crawlsim.words import signed_percent


def test_run_shows_the_time_left_section(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "left.png"
    assert main(["run", "busiest-host", "--time-left-png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "time left, as the crawl went" in out
    assert "the lower bound was never above the real time left" in out
    assert "the estimate's error: +" in out or "the estimate's error: -" in out
    assert png.read_bytes().startswith(b"\x89PNG")


def test_a_small_crawl_says_one_line_and_still_draws_the_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "left.png"
    assert main(["run", "see-it", "--time-left-png", str(png)]) == 0  # 14 pages
    said = [line for line in capsys.readouterr().out.splitlines() if "time left" in line]
    assert said == [
        "time left, as the crawl went: the lower bound was never above the real time left; 14 pages fetched, too "
        f"few for the estimate to mean anything (it needs {PICTURE_PAGES}; --time-left-png draws both)"
    ]
    assert png.read_bytes().startswith(b"\x89PNG")


def test_the_picture_is_drawn_from_the_threshold_on() -> None:
    run = simulate(load_scenario("see-it"), series=False)
    report = report_of(run.options, run.trace)
    assert len(section(report, PICTURE_PAGES - 1)) == 1
    drawn = section(report, PICTURE_PAGES)
    assert drawn[1:-2] == picture(report) and drawn[-1].startswith("  the estimate's error: ")


def test_run_json_holds_the_time_left_its_text_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """One report, two surfaces: the errors ``run`` quotes are the ones its ``--json``
    holds (as ``crawl --json``'s ``time_left``), written by the one signed-percent rule."""
    assert main(["run", "busiest-host"]) == 0
    text = capsys.readouterr().out
    assert main(["run", "busiest-host", "--json"]) == 0
    held = json.loads(capsys.readouterr().out)["time_left"]
    assert set(held) >= {"bound_excess", "estimate_error", "estimate_worst_error", "moments"}
    quoted = [f"{signed_percent(error)} at {share}" for share, error in held["estimate_error"].items()]
    assert f"the estimate's error: {', '.join(quoted)} " in text
    assert main(["run", "see-it", "--json"]) == 0  # too few pages for the estimate: still the report's figures
    assert json.loads(capsys.readouterr().out)["time_left"]["moments"]


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
