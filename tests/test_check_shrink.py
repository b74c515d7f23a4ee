"""A failure shrunk to its smallest web, drawn one column per thread, and
replayed exactly by the schedule string the report prints (`check --replay`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawlsim.check.cases import check_then_add
from crawlsim.check.examples import example_path
from crawlsim.check.grade import run_check
from crawlsim.check.replay import ScheduleString, parse
from crawlsim.check.report import CheckReport
from crawlsim.check.shrink import case_links, shrink
from crawlsim.check.wire import ForgedAnswer, checked_shrunk
from crawlsim.cli import main

RACY = ["buggy_check_then_add", "buggy_seen_on_finish"]


@pytest.fixture(scope="module", params=RACY)
def racy(request: pytest.FixtureRequest) -> tuple[str, CheckReport]:
    """A racy shipped answer checked on the check-then-add case (in the sandbox, as the CLI runs it)."""
    target = f"{example_path(request.param)}:crawl"
    return target, run_check(target, only=["check-then-add"])


def replayed(capsys: pytest.CaptureFixture[str], target: str, schedule: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", target, "--replay", schedule, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_racy_answer_fails_and_its_web_is_shrunk(racy: tuple[str, CheckReport]) -> None:
    _, report = racy
    assert not report.check("check-then-add").passed
    [(check, shrunk)] = report.shrunk
    was = shrunk["from"]
    assert check.name == "check-then-add" and shrunk["failed"]
    assert shrunk["pages"] < was["pages"] and shrunk["links"] < was["links"]
    assert shrunk["workers"] < was["workers"]
    assert shrunk["reruns"] <= shrunk["budget"] and not shrunk["budget_ran_out"]


def test_the_schedule_string_replays_the_same_failure_every_time(
    racy: tuple[str, CheckReport], capsys: pytest.CaptureFixture[str]
) -> None:
    target, report = racy
    [(_, shrunk)] = report.shrunk
    first = replayed(capsys, target, shrunk["schedule"])
    assert first == replayed(capsys, target, shrunk["schedule"])
    status, again = first
    assert status == 1 and again["failed"]
    same = ("page", "fetches", "race", "rows", "web", "workers")
    assert {key: again[key] for key in same} == {key: shrunk[key] for key in same}


def test_the_report_draws_the_web_and_a_column_per_thread(racy: tuple[str, CheckReport]) -> None:
    target, report = racy
    [(_, shrunk)] = report.shrunk
    text = report.render()
    assert "The web:\n  /  -> " in text
    threads = sorted({thread for thread, _ in shrunk["rows"]})
    header = next(line for line in text.splitlines() if threads[0] in line and " | " in line)
    assert [cell.strip() for cell in header.split(" | ")] == threads
    assert "get_urls(/) = [/" in text
    assert f"Replay it: crawlsim check {target} --replay {shrunk['schedule']}" in text
    assert report.to_dict()["shrunk"] == [{"check": "check-then-add", **shrunk}]


def test_a_fixed_answer_passes_the_replay(capsys: pytest.CaptureFixture[str]) -> None:
    """The workflow: shrink, fix, replay the same schedule string: it passes, exit 0."""
    status, data = replayed(capsys, f"{example_path('reference_threadpool')}:crawl", "check-then-add:w2:l0-1.2.42:s3")
    assert status == 0 and not data["failed"] and data["rows"] == [] and data["problems"] == []


def test_a_replay_that_did_not_end_cleanly_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def crawl(start_url, get_urls, max_workers):\n    raise ValueError('no')\n")
    assert main(["check", f"{tmp_path / 'broken.py'}:crawl", "--replay", "seen-race:w2:l0-3:s1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "No page was fetched twice on this schedule of this web, but it did not end cleanly" in out
    assert "the crawl raised ValueError('no')" in out and "Passed" not in out


@pytest.mark.parametrize(
    ("schedule", "says"),
    [
        ("nonsense", "expected CASE:wWORKERS:lLINKS:sSEED"),
        ("no-such-case:w2:l0:s1", "no case named 'no-such-case'"),
        ("check-then-add:w2:l0-1.999:s3", "check-then-add has links 0 to 81; got l999"),
        ("check-then-add:w0:l0:s3", "workers must be 1 to 64"),
        ("check-then-add:w2:l0:s99999999999", "the seed must be 0 to"),
        ("check-then-add:w2:l5-2:s3", "a run of links goes up"),
        ("check-then-add:w2:l0-99999999999:s3", "check-then-add has links 0 to 81"),
    ],
)
def test_a_bad_schedule_string_is_one_clear_line_and_exit_2(
    schedule: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["check", "--example", "buggy_check_then_add", "--replay", schedule])
    err = capsys.readouterr().err
    assert status == 2 and says in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_replay_runs_one_schedule_of_one_case_alone(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "--example", "buggy_check_then_add", "--replay", "seen-race:w2:l0-3:s1", "--seed", "3"])
    assert status == 2 and "--replay runs one schedule of a base case" in capsys.readouterr().err


def test_a_schedule_string_reads_back_as_itself() -> None:
    spec = ScheduleString("check-then-add", 2, (0, 1, 2, 5, 40, 41), 30)
    assert str(spec) == "check-then-add:w2:l0-2.5.40-41:s30"
    assert parse(str(spec)) == spec


def test_delta_debugging_keeps_exactly_the_links_a_failure_needs() -> None:
    """A failure that needs four given links and two workers shrinks to
    those, whatever the first guess was."""
    case = check_then_add()
    every = case_links(case)
    needed = {every.index((f"{case.start}a", f"{case.start}k3")), every.index((f"{case.start}b", f"{case.start}k7"))}
    needed |= {0, 1}

    def fails(links: tuple[int, ...], workers: int) -> bool:
        return needed <= set(links) and workers >= 2

    shrunk = shrink(case, fails, f"{case.start}k3")
    assert shrunk is not None
    assert set(shrunk.links) == needed and shrunk.workers == 2 and not shrunk.budget_ran_out


def test_a_spent_budget_keeps_the_smallest_failing_web_and_says_so() -> None:
    case = check_then_add()
    shrunk = shrink(case, lambda links, workers: 0 in links, f"{case.start}k3", budget=3)
    assert shrunk is not None and shrunk.budget_ran_out and shrunk.reruns == 3
    assert 0 in shrunk.links


def test_a_guess_that_passes_ends_a_shrink_not_known_to_fail() -> None:
    case = check_then_add()
    assert shrink(case, lambda links, workers: False, f"{case.start}k3", known=False) is None


def test_a_forged_shrunk_failure_is_refused() -> None:
    with pytest.raises(ForgedAnswer):
        checked_shrunk({"schedule": "x"})


def test_a_column_per_thread_fits_the_width_and_keeps_every_word() -> None:
    """Four tasks in eighty characters: long cells wrap in their own column, nothing is cut."""
    from crawlsim.check.columns import table_lines

    code = "L17 if urlsplit(link).hostname == host and link not in seen:"
    rows = [[f"task {n}", code] for n in (3, 1, 2, 4)]
    lines = table_lines({"start": "http://a.com/", "rows": rows}, width=80)
    assert [cell.strip() for cell in lines[0].split(" | ")] == ["task 1", "task 2", "task 3", "task 4"]
    assert all(len(line) <= 80 for line in lines)
    cells = "".join(lines[2:]).replace("|", "").replace(" ", "")
    assert cells == code.replace(" ", "") * 4
