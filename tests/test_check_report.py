"""The `crawlsim check` report reads in 30 seconds: the verdict and the
failures first, the passes folded by level, the levels said in one line,
what no checker sees said once; a crawl whose workers quit is not passed;
the trace it writes says where, and replays without false alarms."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlsim.check import CheckReport, run_check
from crawlsim.check.report import UNOBSERVABLE
from crawlsim.trace.jsonl import read_trace
from crawlsim.tui.seen import seen_sets
from crawlsim.views.replay import Replay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"
_reports: dict[str, CheckReport] = {}


def quick(name: str) -> CheckReport:
    if name not in _reports:
        _reports[name] = run_check(f"{EXAMPLES / name}.py:crawl", quick=True)
    return _reports[name]


def main(argv: list[str]) -> int:
    from crawlsim.cli import main

    return main(["check", *argv])


def test_a_passing_report_is_short_and_says_its_verdict_first() -> None:
    text = quick("reference_threadpool").render()
    lines = text.splitlines()
    assert len(lines) <= 30, text
    verdict = next(i for i, line in enumerate(lines) if line.startswith("Correctness: all"))
    assert verdict < next(i for i, line in enumerate(lines) if "PASS" in line)
    # one line (or its wrap) per level, not one per check; the performance checks apart
    before = lines[: lines.index("Performance:")] if "Performance:" in lines else lines
    assert [line.split(":")[0].strip() for line in before if "  PASS  " in line] == ["PASS  L4", "PASS  L5", "PASS  L6"]
    assert any(line.startswith("Levels: L4") for line in lines)
    assert UNOBSERVABLE not in " ".join(lines) and "--explain" in lines[-1]


def test_the_passes_say_which_checks_are_correctness_and_which_performance() -> None:
    """As the JSON's ``kind`` does: the performance checks listed under their own heading."""
    from crawlsim.check.report import CheckResult

    checks = [
        CheckResult("basic", True, "", level="L4"),
        CheckResult("concurrency", True, "", kind="performance", level="L4"),
        CheckResult("cycle", True, "", level="L5"),
        CheckResult("speed-up", True, "", kind="performance", level="L6"),
    ]
    lines = CheckReport("crawler.py:crawl", "threads", True, checks, 1.0).render().splitlines()
    heading = lines.index("Performance:")
    assert [line for line in lines[:heading] if "PASS" in line] == ["  PASS  L4: basic", "  PASS  L5: cycle"]
    assert lines[heading + 1 : heading + 3] == ["  PASS  L4: concurrency", "  PASS  L6: speed-up"]
    assert "Performance:" not in CheckReport("crawler.py:crawl", "threads", True, checks[::2], 1.0).render()


def test_failures_come_before_every_pass() -> None:
    lines = quick("buggy_seen_on_finish").render().splitlines()
    fails = [i for i, line in enumerate(lines) if line.startswith("  FAIL  ")]
    passes = [i for i, line in enumerate(lines) if line.startswith("  PASS  ")]
    assert fails and passes and max(fails) < min(passes)
    assert lines[2].startswith("Correctness: 7 of")


def test_explain_says_what_no_checker_sees_once() -> None:
    report = quick("reference_threadpool")
    text = " ".join(report.render(explain=True).split())
    assert text.count("Not observable by a checker") == 1 and "distributed termination" in text


def test_workers_that_quit_while_fetches_go_on_fail() -> None:
    """Right pages, but one thread left to do the work: a mostly serial crawl is not passed."""
    report = quick("buggy_idle_timeout")
    assert not report.ok
    quit_ = report.check("workers-quit")
    assert not quit_.passed and quit_.kind == "correctness" and "quit" in quit_.explanation
    assert report.check("slow-service").passed  # its pages are right: only the new check catches it
    assert quick("reference_threadpool").check("workers-quit").passed


def test_the_trace_flag_says_where_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "mine.jsonl"
    argv = [f"{EXAMPLES / 'reference_threadpool'}.py:crawl", "--quick", "--only", "diamond-50"]
    assert main([*argv, "--trace-out", str(trace)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("Wrote the trace of case diamond-50") and str(trace) in out[-1]
    assert f"crawlsim tui --trace {trace}" in out[-1]


@pytest.mark.parametrize("name", ["reference_threadpool", "buggy_seen_on_finish"])
def test_a_candidates_trace_replays_without_false_alarms(name: str, tmp_path: Path) -> None:
    """The app's seen set holds every URL in flight, and its page count is the
    pages the crawl fetched (not 0): the checker cannot see a seen set, so
    it shows none missing."""
    path = tmp_path / "t.jsonl"
    quick(name).write_trace(path)
    events = read_trace(path).events
    replay = Replay(events)
    for event in events:
        replay.seek(event.t)
        assert seen_sets(replay).outside == 0, event
    assert replay.counters().pages == 50

