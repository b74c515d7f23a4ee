"""``crawlsim crawl`` says its time left as it runs, and how the figures did after.

A real crawl on loopback (crawlsim's own scenario server in a child process):
periodic plain lines when stdout is not a terminal, JSON progress records
on stderr with ``--json``, the after-the-crawl section and its PNG.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawlsim.real.server import ServerProcess
from tests.test_real_crawl import crawl_main, make_scenario

PAGES = {
    "http://a.test/": ["/p1", "/p2", "http://b.test/"],
    "http://a.test/p1": ["/p3"],
    "http://a.test/p2": [],
    "http://a.test/p3": [],
    "http://b.test/": ["/q1", "/q2", "/q3"],
    "http://b.test/q1": [],
    "http://b.test/q2": [],
    "http://b.test/q3": [],
}


def crawl(*flags: str) -> None:
    scenario = make_scenario(PAGES, latency=0.05, crawl={"scope": "any"})
    with ServerProcess(scenario) as server:
        resolve = [f"--resolve={h}={a}:{p}" for h, (a, p) in server.resolve().items()]
        argv = ["http://a.test/", *resolve, "--scope", "any", "--gap", "0.2", "--no-robots", *flags]
        assert crawl_main(argv) == 0


def test_a_crawl_says_its_time_left_as_it_runs_and_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "left.png"
    crawl("--progress", "0.01", "--time-left-png", str(png))
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "] time left: " in line]
    assert any("at least" in line and "known pages only" in line and "about" in line for line in lines), out
    assert lines[-1].endswith("time left: none, the crawl is done")
    # 8 pages: too few for the estimate, so one line on the bound instead of the picture
    assert "time left, as the crawl went: the lower bound was" in out
    assert "8 pages fetched, too few for the estimate" in out and "the estimate's error" not in out
    assert png.read_bytes().startswith(b"\x89PNG")


def test_json_progress_records_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    crawl("--progress", "0.01", "--json")
    captured = capsys.readouterr()
    summary: dict[str, Any] = json.loads(captured.out)
    # the bound less the margin its latency floor adds is politeness alone, which the crawl keeps
    assert summary["time_left"]["bound_excess_less_margin"] <= 1e-6
    records = [json.loads(line)["progress"] for line in captured.err.splitlines() if line.startswith('{"progress"')]
    assert records, captured.err
    assert all(r["time_left_lower"] <= r["time_left_estimate"] for r in records)
    assert all(r["time_left_range"][0] <= r["time_left_estimate"] <= r["time_left_range"][1] for r in records)
    assert {"time_left_holder", "time_left_reason", "pages_known_left", "pages_unknown_guess"} <= set(records[0])


def test_no_progress_with_zero(capsys: pytest.CaptureFixture[str]) -> None:
    crawl("--progress", "0")
    assert "] time left: " not in capsys.readouterr().out


def test_a_bad_progress_value_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert crawl_main(["http://a.test/", "--progress", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--progress" in err and "Traceback" not in err
    assert "0 (never)" in err  # the error names every value the flag takes, 0 included
