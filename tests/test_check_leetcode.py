"""``--rules leetcode`` is LeetCode 1242's statement: answers LeetCode
accepts, in several designs, exit 0; a crawl with no bound on its threads
still fails; evidence from cases the rule set does not grade is a note."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crawlsim.check import run_check



def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"

ACCEPTED_DESIGNS = ["leetcode_condition", "leetcode_queue_join", "leetcode_batches"]
"""The accepted designs besides ``leetcode_answer``, whose same command (exit 0
under ``--rules leetcode``, and what its report says) is
test_check_rules.py's test_a_correct_leetcode_answer_exits_0_under_leetcode_rules."""


@pytest.mark.parametrize("name", ACCEPTED_DESIGNS)
def test_every_accepted_design_exits_0_under_leetcode_rules(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{EXAMPLES / name}.py:crawl", "--quick", "--rules", "leetcode"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("name", ["leetcode_condition", "leetcode_queue_join", "leetcode_batches"])
def test_a_fixed_pool_of_eight_is_a_note_that_a_stricter_rule_set_would_fail(name: str) -> None:
    target = f"{EXAMPLES / name}.py:crawl"
    leetcode = run_check(target, quick=True, only=["pool-2", "basic"], rules="leetcode")
    check = leetcode.check("max-workers")
    assert leetcode.ok and check.kind == "note" and not check.passed
    assert "no max_workers" in check.explanation and "--rules interview would fail it" in check.explanation
    interview = run_check(target, quick=True, only=["pool-2", "basic"], rules="interview")
    assert not interview.ok and interview.check("max-workers").kind == "correctness"


def thread_per_page(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    """A thread for every page at once: no bound at all."""
    host = urlsplit(start_url).hostname
    found = {start_url}
    lock = threading.Lock()

    def visit(url: str) -> None:
        children = []
        for link in get_urls(url):
            with lock:
                if urlsplit(link).hostname != host or link in found:
                    continue
                found.add(link)
            children.append(threading.Thread(target=visit, args=(link,)))
            children[-1].start()
        for child in children:
            child.join()

    visit(start_url)
    return list(found)


def test_an_unbounded_number_of_threads_still_fails_under_leetcode() -> None:
    report = run_check(thread_per_page, quick=True, only=["diamond-50"], rules="leetcode")
    check = report.check("max-workers")
    assert not report.ok and check.kind == "correctness" and not check.passed
    assert "[Required by LeetCode 1242's statement.]" in check.explanation


def test_a_hang_only_in_an_ungraded_case_is_a_note_and_no_thread_is_said_to_outlive_a_return() -> None:
    """The Condition answer waits forever once a raising get_urls kills a busy
    worker -- in fetch-error, a case LeetCode's statement does not have.  The
    crawl never returns there, so its threads are not "left running after
    the crawl returned": the hang is the finding, a note under leetcode."""
    target = f"{EXAMPLES / 'leetcode_condition'}.py:crawl"
    leetcode = run_check(target, quick=True, only=["basic", "fetch-error"], rules="leetcode")
    assert leetcode.ok and leetcode.check("threads-exit").passed
    note = leetcode.check("fetch-error")
    assert note.kind == "note" and "did not return" in note.explanation
    interview = run_check(target, quick=True, only=["basic", "fetch-error"], rules="interview")
    assert interview.check("fetch-error").cause == "timeout" and not interview.ok
    threads_exit = interview.check("threads-exit")
    assert threads_exit.passed and "not seen in fetch-error, which did not return" in threads_exit.explanation
