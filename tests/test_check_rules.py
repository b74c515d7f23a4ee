"""Rule sets, the grader's buggy example crawlers, evidence-based hints, and the
same verdict on every run."""

from __future__ import annotations

import functools
import sys
import threading
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import crawlsim.check
from crawlsim.check import CheckReport, run_check
from crawlsim.check.cases import RULE_TEXT


def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"


def example(name: str) -> str:
    return f"{EXAMPLES / name}.py:crawl"


@functools.cache
def shared_run(name: str, only: tuple[str, ...], rules: str = "interview") -> CheckReport:
    """One quick run of an example on these cases under these rules, shared by
    the tests that read it (none of them changes a report)."""
    return run_check(example(name), quick=True, only=list(only), rules=rules)


def graded_failures(report: CheckReport) -> set[str]:
    return {c.name for c in report.checks if not c.passed and c.kind == "correctness"}


# ---------------------------------------------------------------- rule sets


def test_a_correct_leetcode_answer_exits_0_under_leetcode_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("leetcode_answer"), "--quick", "--rules", "leetcode"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--rules leetcode" in out and "Correctness: all" in out
    assert "note fragments [" in out
    assert "Not graded under --rules leetcode: the interview question requires it (it would fail)" in out


def test_the_interview_rules_add_fragments_and_a_raising_get_urls() -> None:
    report = run_check(example("leetcode_answer"), quick=True, rules="interview")
    assert graded_failures(report) == {"fragments", "fetch-error"}
    for name in ("fragments", "fetch-error"):
        check = report.check(name)
        assert check.rules == "interview"
        assert "[Required by the interview question.]" in check.explanation


def test_strict_rules_grade_ports_and_userinfo() -> None:
    def netloc_crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
        seen, todo = {start_url}, [start_url]
        while todo:
            for link in get_urls(todo.pop()):
                if urlsplit(link).netloc == urlsplit(start_url).netloc and link not in seen:
                    seen.add(link)
                    todo.append(link)
        return sorted(seen)

    lenient = run_check(netloc_crawl, quick=True, only=["url-details"], rules="interview")
    assert lenient.ok and lenient.check("url-details").kind == "note"
    strict = run_check(netloc_crawl, quick=True, only=["url-details"], rules="strict")
    check = strict.check("url-details")
    assert not strict.ok and not check.passed and check.kind == "correctness"
    assert "http://a.com:8080/port" in check.explanation and "--rules strict" in check.explanation


def test_an_unknown_rule_set_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_threadpool"), "--rules", "lax"]) == 2
    err = capsys.readouterr().err
    assert "--rules: expected one of leetcode, interview, strict; got 'lax'" in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- the buggy examples, under both rule sets

EXAMPLE_BUGS = [
    # (example, cases to run, the check that must fail, a phrase of its explanation)
    ("buggy_hardcoded_threads", ["pool-2", "pool-3"], "max-workers", "max_workers=2"),
    ("buggy_lstrip_host", ["host-scope"], "host-scope", "http://pa.com/"),
    ("buggy_idle_timeout", ["slow-service"], "concurrency", "quit by"),
    ("buggy_workers_never_exit", ["basic"], "threads-exit", "buggy_workers_never_exit.py:"),
    ("buggy_seen_on_finish", ["seen-race"], "seen-race", "when you submit"),
    ("buggy_substring_host", ["host-scope"], "host-scope", "look-alike"),
    ("buggy_stops_when_queue_empty", ["termination"], "termination", "empty queue"),
    ("buggy_check_then_add", ["check-then-add"], "check-then-add", "lock around both"),
]


@pytest.mark.parametrize("rules", ["leetcode", "interview"])
@pytest.mark.parametrize(("name", "only", "check", "phrase"), EXAMPLE_BUGS, ids=[b[0] for b in EXAMPLE_BUGS])
def test_each_buggy_example_fails_its_check_under_both_rule_sets(
    name: str, only: list[str], check: str, phrase: str, rules: str
) -> None:
    report = shared_run(name, tuple(only), rules)
    result = report.check(check)
    assert not result.passed, result.explanation
    assert phrase in result.explanation, result.explanation
    if result.kind == "correctness":
        assert f"[Required by {RULE_TEXT[result.rules]}.]" in result.explanation
        assert not report.ok


def test_interview_only_bugs_are_notes_under_leetcode_rules() -> None:
    for name, case in (("buggy_raw_fragments", "fragments"), ("buggy_exception_ends_crawl", "fetch-error")):
        leetcode = shared_run(name, (case,), "leetcode")
        assert leetcode.ok and leetcode.check(case).kind == "note" and not leetcode.check(case).passed
        interview = shared_run(name, (case,))
        assert not interview.ok and case in graded_failures(interview)


def test_an_unlocked_check_then_add_is_caught_by_the_interleaving_explorer() -> None:
    report = shared_run("buggy_check_then_add", ("check-then-add",))
    result = report.check("check-then-add")
    assert not result.passed and "Caught with seed" in result.explanation and "--seed" in result.explanation
    # the fix named is the one this code lacks: it marks seen at submit time already, without a lock
    assert "lock around both" in result.explanation, result.explanation
    assert "when you submit" not in result.explanation, result.explanation


def test_a_seen_set_marked_too_late_keeps_the_mark_on_submit_hint() -> None:
    report = shared_run("buggy_seen_on_finish", ("seen-race",))
    result = report.check("seen-race")
    assert not result.passed and "when you submit" in result.explanation, result.explanation
    assert "lock around both" not in result.explanation, result.explanation


# ---------------------------------------------------------------- evidence in the hints


def test_idle_timeout_workers_are_named_as_the_cause_not_a_missing_pool() -> None:
    report = shared_run("buggy_idle_timeout", ("slow-service",))
    text = report.check("concurrency").explanation
    assert "9 of the 10 threads the crawl started quit by" in text and "queue.get(timeout=" in text
    assert "run fetches in a thread pool" not in text
    assert not report.ok and not report.check("workers-quit").passed  # right pages, but the crawl runs serial


def crawl_with_a_dying_helper(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    def helper() -> None:
        raise KeyError("helper gave up")  # the line the report must point at

    thread = threading.Thread(target=helper)
    thread.start()
    thread.join()
    seen, todo = {start_url}, [start_url]
    while todo:
        for link in get_urls(todo.pop()):
            link = link.partition("#")[0]
            if urlsplit(link).hostname == urlsplit(start_url).hostname and link not in seen:
                seen.add(link)
                todo.append(link)
    return sorted(seen)


def crawl_plain(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    seen, todo = {start_url}, [start_url]
    while todo:
        for link in get_urls(todo.pop()):
            if urlsplit(link).hostname == urlsplit(start_url).hostname and link not in seen:
                seen.add(link)
                todo.append(link)
    return sorted(seen)


def test_a_dead_thread_is_in_the_text_report_even_when_the_case_passes() -> None:
    report = run_check(crawl_with_a_dying_helper, quick=True, only=["basic"])
    check = report.check("basic")
    assert check.passed
    assert "a thread of the crawl died: KeyError" in check.explanation
    assert "test_check_rules.py:" in check.explanation and "raise KeyError" in report.render()


# ---------------------------------------------------------------- --seed and the explorer hook


def test_seed_is_reported_and_the_race_hook_reports_what_the_explorer_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[dict[str, object]] = []

    def explore(
        target: Callable[[], list[str]], *, seeds: list[int], files: list[str], preemption_bound: int
    ) -> object:
        calls.append({"seeds": seeds, "files": files, "outcome": target()})
        step = ("Thread-2", files[0], 21, "if link not in seen:")
        schedule = types.SimpleNamespace(seed=seeds[0], outcome=["http://a.com/c"], switches=[step])
        return types.SimpleNamespace(schedules=[schedule], seconds=0.1)

    fake = types.ModuleType("crawlsim.check.interleave")
    fake.explore = explore  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "crawlsim.check.interleave", fake)
    monkeypatch.setattr(crawlsim.check, "interleave", fake, raising=False)

    report = run_check(crawl_plain, quick=True, only=["seen-race"], seed=7)
    assert calls and calls[0]["seeds"] == [7] and str(calls[0]["files"][0]).endswith("test_check_rules.py")
    assert isinstance(calls[0]["outcome"], list)  # the crawl ran as a plain callable
    result = report.check("seen-race")
    assert not result.passed
    # --seed 7 replays that one schedule: the verdict says so, and does not ask to replay it again
    assert "Caught replaying seed 7" in result.explanation and "Replay it with" not in result.explanation
    assert "Thread-2 at line 21: `if link not in seen:`" in result.explanation
    assert "--seed 7" in report.render().splitlines()[0]


# ---------------------------------------------------------------- same result every run

SAME_EVERY_RUN = [
    # (example, cases run, its verdict: exit status 0, the checks that did not pass, the level)
    ("reference_threadpool", ["seen-race", "termination"], (True, (), "L6-observable")),
    ("reference_asyncio", ["seen-race", "termination"], (True, (), "L6-observable")),
    ("reference_sequential", ["basic", "seen-race"], (True, (), "L6-observable")),
    ("leetcode_answer", ["fragments", "fetch-error"], (False, ("fetch-error", "fragments"), "L4")),
    ("buggy_seen_on_finish", ["seen-race"], (False, ("seen-race",), "L4")),
    ("buggy_stops_when_queue_empty", ["termination"], (False, ("termination",), "L4")),
    ("buggy_substring_host", ["host-scope"], (False, ("host-scope",), "below L4")),
    ("buggy_raw_fragments", ["fragments"], (False, ("fragments",), "L4")),
    ("buggy_exception_ends_crawl", ["fetch-error"], (False, ("fetch-error", "prompt-return"), "L4")),
    ("buggy_hardcoded_threads", ["pool-2"], (False, ("max-workers",), "below L4")),
    ("buggy_lstrip_host", ["host-scope"], (False, ("host-scope",), "below L4")),
    (
        "buggy_idle_timeout",
        ["slow-service"],
        (False, ("concurrency", "prompt-return", "speed-up", "workers-quit"), "below L4"),
    ),
    ("buggy_workers_never_exit", ["no-links"], (False, ("threads-exit",), "L4")),
    ("buggy_check_then_add", ["check-then-add"], (False, ("check-then-add",), "L4")),
]


def verdict(report: CheckReport) -> tuple[bool, tuple[str, ...], str]:
    return report.ok, tuple(sorted(c.name for c in report.checks if not c.passed)), report.level


@pytest.mark.parametrize(("name", "only", "expected"), SAME_EVERY_RUN, ids=[s[0] for s in SAME_EVERY_RUN])
def test_each_file_gets_its_verdict(name: str, only: list[str], expected: tuple[bool, tuple[str, ...], str]) -> None:
    """One run each here (shared with the tests above where they run the same
    cases); the same verdict on five runs in a row is the exhaustive step's."""
    assert verdict(shared_run(name, tuple(only))) == expected


@pytest.mark.exhaustive
@pytest.mark.parametrize(("name", "only", "expected"), SAME_EVERY_RUN, ids=[s[0] for s in SAME_EVERY_RUN])
def test_the_same_file_gives_the_same_verdict_five_times(
    name: str, only: list[str], expected: tuple[bool, tuple[str, ...], str]
) -> None:
    verdicts = {verdict(run_check(example(name), quick=True, only=only)) for _ in range(5)}
    assert verdicts == {expected}, verdicts


def test_a_replayed_seed_says_only_that_schedule_was_explored(capsys: pytest.CaptureFixture[str]) -> None:
    """A replay of a seed that does not race passes that case; the report must not read as a clean bill."""
    assert main([f"{example('buggy_check_then_add')}", "--only", "check-then-add", "--seed", "1"]) in (0, 1)
    assert "only schedule 1 was explored" in capsys.readouterr().out
    for bad in ("-5", "99999999999999999999"):
        assert main([f"{example('buggy_check_then_add')}", "--only", "basic", "--seed", bad]) == 2
        assert "--seed: expected a whole number from 0 to" in capsys.readouterr().err
