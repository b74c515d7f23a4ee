"""A recorded trace replayed shows the figures its crawl printed: the app's
counters read from the trace file say what ``crawlsim crawl``'s summary said
for the same crawl (the summary is measured from the same events, as
``crawl`` measures a real crawl's)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cli import main
from crawlsim.commands.common import stdout_console
from crawlsim.real.flags import scenario_flags
from crawlsim.real.server import ServerProcess
from crawlsim.real.timescale import scale_scenario
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import SimRun, simulate, utilisation
from crawlsim.sim.measured import measured_run
from crawlsim.trace.events import TraceError
from crawlsim.trace.jsonl import TraceWriter, read_trace
from crawlsim.tui.bars import counter_items
from crawlsim.views.replay import Counters, fetched_text
from crawlsim.views.session import trace_result
from crawlsim.views.summary import options_dict, render_summary, summary_dict


def recorded(tmp_path: Path, scenario: str) -> tuple[SimRun, Path]:
    """A crawl of ``scenario`` and its trace file, written as ``crawl -o`` writes one
    (the options on the Done line)."""
    run = simulate(load_scenario(scenario))
    path = tmp_path / "rec.jsonl"
    writer = TraceWriter(str(path), options=options_dict(run.options))
    for event in run.trace:
        writer(event)
    writer.close()
    return run, path


def crawl_summary(run: SimRun) -> str:
    """The summary ``crawl`` prints: its figures measured from the crawl's events."""
    measured = measured_run(run.options, run.stats, run.finish_time, run.trace)
    out = io.StringIO()
    stdout_console(out).print(render_summary(summary_dict(measured, clock="wall")))
    return out.getvalue()


def app_counters(path: Path) -> Counters:
    """The app's counters once the trace has played to its end (``crawlsim tui --trace``, End)."""
    result = trace_result(read_trace(path))
    result.replay.seek(result.finish)
    return result.replay.counters()


def test_utilisation_is_the_crawls_over_the_workers_it_ran_with(tmp_path: Path) -> None:
    """see-it runs 4 workers over 2 hosts, one fetch at a time each: the trace
    uses 2 lanes, and the app still counts the 4 workers the crawl had."""
    run, path = recorded(tmp_path, "see-it")
    said = re.search(r"utilisation\s+(\d+%) of 4 workers", crawl_summary(run))
    assert said is not None
    counters = app_counters(path)
    shown = {label: value for label, value, _ in counter_items(counters, narrow=False)}
    assert counters.workers == run.options.workers == 4
    assert shown["workers busy"] == said[1]


def test_a_bad_recorded_worker_count_is_one_error_naming_it(tmp_path: Path) -> None:
    _, path = recorded(tmp_path, "see-it")
    text = path.read_text().replace('"workers":4', '"workers":0')
    path.write_text(text)
    with pytest.raises(TraceError, match=r"rec\.jsonl: options\.workers is 0; expected a whole number"):
        read_trace(path)


def crawled(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> tuple[dict[str, Any], Path]:
    """``crawlsim crawl --json -o rec.jsonl`` of scenario ``name`` served on
    loopback (its latencies a tenth): what it printed, and its trace file."""
    scenario = scale_scenario(load_scenario(name), 0.1)
    path = tmp_path / "rec.jsonl"
    with ServerProcess(scenario) as server:
        resolve = [f"--resolve={host}={address}:{port}" for host, (address, port) in server.resolve().items()]
        flags = scenario_flags(scenario.options, list(scenario.data.get("crawl", {})))
        capsys.readouterr()
        assert main(["crawl", *scenario.seeds, *resolve, *flags, "--json", "-o", str(path)]) == 0
    return json.loads(capsys.readouterr().out), path


def test_a_real_crawls_trace_shows_its_pages_lost_and_utilisation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """polite's robots.txt disallows 3 pages a link reaches: ``crawl`` counts
    them reachable and lost, and so does the app replaying its trace."""
    data, path = crawled(tmp_path, capsys, "polite")
    counters = app_counters(path)
    lost = data["pages_lost"]
    assert [item["reason"] for item in lost].count("robots") == 3  # the pages its robots.txt disallows
    assert fetched_text(counters) == f"{data['pages_fetched']}/{data['pages_reachable']}, {len(lost)} lost"
    assert counters.workers == data["options"]["workers"] == 4
    assert utilisation(counters.busy, counters.workers, counters.t) == pytest.approx(data["utilisation"], abs=1e-6)
