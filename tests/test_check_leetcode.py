"""``--rules leetcode`` is LeetCode 1242's statement: answers LeetCode
accepts, in several designs, exit 0; its statement sets no limit on threads,
so ignoring max_workers is a note; evidence from cases the rule set does not
grade is a note."""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import pytest

from crawlsim.check import run_check
from crawlsim.check.cases import RULE_SETS



def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"

ACCEPTED_DESIGNS = ["leetcode_condition", "leetcode_queue_join", "leetcode_batches", "leetcode_threadpool"]
"""The accepted designs besides ``leetcode_answer``, whose same command (exit 0
under ``--rules leetcode``, and what its report says) is
test_check_rules.py's test_a_correct_leetcode_answer_exits_0_under_leetcode_rules."""


@pytest.mark.parametrize("name", ACCEPTED_DESIGNS)
def test_every_accepted_design_exits_0_under_leetcode_rules(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([f"{EXAMPLES / name}.py:crawl", "--quick", "--rules", "leetcode"]) == 0, capsys.readouterr().out


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"leetcode_example_{name}", EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixed_pool_of_18(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    """``ThreadPool(18)``, whatever max_workers says: right by LeetCode's statement."""
    return _example("leetcode_threadpool").crawl(start_url, get_urls, 18)  # type: ignore[no-any-return]


def thread_per_page(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    """A thread for every page at once: no bound at all, and none in LeetCode's statement."""
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


@pytest.mark.parametrize(
    "crawl",
    [f"{EXAMPLES / 'leetcode_queue_join'}.py:crawl", fixed_pool_of_18, thread_per_page],
    ids=["fixed-pool-of-8", "threadpool-of-18", "thread-per-page"],
)
def test_ignoring_max_workers_is_a_note_under_leetcode_and_fails_under_interview(crawl: object) -> None:
    """One rule, whatever the pool: LeetCode's crawl(startUrl, htmlParser) has no max_workers."""
    leetcode = run_check(crawl, quick=True, only=["pool-2", "diamond-50"], rules="leetcode")
    check = leetcode.check("max-workers")
    assert leetcode.ok and check.kind == "note" and not check.passed, check.explanation
    assert "LeetCode 1242's statement" not in check.explanation
    assert "Not graded under --rules leetcode: the interview question requires it" in check.explanation
    interview = run_check(crawl, quick=True, only=["pool-2", "diamond-50"], rules="interview")
    check = interview.check("max-workers")
    assert not interview.ok and check.kind == "correctness" and not check.passed
    assert "[Required by the interview question.]" in check.explanation


def _rule_set_rows(text: str) -> dict[str, str]:
    """check.md's table of rule sets: rule set -> what its row says it grades."""
    return dict(re.findall(r"^\| `(\w+)`(?: \(default\))? \| (.*) \|$", text, flags=re.MULTILINE))


def test_the_docs_grade_max_workers_in_the_rule_set_the_check_declares() -> None:
    rows = _rule_set_rows((Path(__file__).resolve().parent.parent / "docs" / "reference" / "check.md").read_text())
    assert set(rows) == set(RULE_SETS)
    declared = run_check(fixed_pool_of_18, quick=True, only=["pool-2"], rules="strict").check("max-workers").rules
    assert [name for name, row in rows.items() if "`max_workers`" in row] == [declared]
    assert "no limit on threads" in rows["leetcode"]


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
