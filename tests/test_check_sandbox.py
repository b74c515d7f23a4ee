"""`crawlsim check` runs a user's file in a child process: whatever the file
does (exit the process, patch the grader, close stdout, loop at import,
return an endless iterator, leave threads blocked), each case gets a
one-line verdict, the report is the parent's, and the check ends."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crawlsim.check import CheckInputError, run_check
from crawlsim.check.cases import all_cases
from crawlsim.check.runner import case_timeout
from crawlsim.check.sandbox import Sandbox


def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


BFS = """
from collections import deque
from urllib.parse import urlsplit

def bfs(start_url, get_urls):
    seen = {start_url}
    queue = deque([start_url])
    while queue:
        for link in get_urls(queue.popleft()):
            link = link.partition("#")[0]
            if link not in seen and urlsplit(link).hostname == urlsplit(start_url).hostname:
                seen.add(link)
                queue.append(link)
    return sorted(seen)
"""


def write(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(BFS + body)
    return f"{path}:crawl"


def test_os_exit_in_the_crawl_fails_each_case_and_the_report_is_still_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = write(tmp_path, "exits", "import os\ndef crawl(start_url, get_urls, max_workers):\n    os._exit(0)\n")
    assert main([target, "--quick", "--only", "basic,no-links"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  basic" in out and "FAIL  no-links" in out
    assert "exited with code 0" in out and "Correctness: 2 of" in out


def test_the_child_grading_the_base_question_does_not_import_the_judge(tmp_path: Path) -> None:
    """The child only runs the crawl; the judging is the parent's.  Its start-up
    is paid once per file checked, so the judge's and the rounds' modules stay
    out of it unless a round is asked for."""
    body = (
        "import sys\n"
        "def crawl(start_url, get_urls, max_workers):\n"
        "    imported = [m for m in ('crawlsim.check.judge', 'crawlsim.check.rounds') if m in sys.modules]\n"
        "    if imported:\n"
        "        raise RuntimeError(f'the child imported {imported}')\n"
        "    return bfs(start_url, get_urls)\n"
    )
    report = run_check(write(tmp_path, "lean", body), quick=True, only=["basic"])
    assert report.check("basic").passed, report.check("basic").explanation


def test_patching_the_grader_in_the_users_file_changes_nothing(tmp_path: Path) -> None:
    target = write(
        tmp_path,
        "patches",
        "import crawlsim.check.judge as judge\n"
        "from crawlsim.check.report import CheckResult\n"
        "judge.judge_case = lambda run: CheckResult(run.case.name, True, 'patched')\n"
        "def crawl(start_url, get_urls, max_workers):\n    return [start_url]\n",
    )
    report = run_check(target, quick=True, only=["basic"])
    assert not report.check("basic").passed and "patched" not in report.check("basic").explanation
    assert not report.ok


def test_closing_stdout_does_not_hide_the_report(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    target = write(
        tmp_path,
        "closes",
        "import sys\ndef crawl(start_url, get_urls, max_workers):\n    sys.stdout.close()\n"
        "    return bfs(start_url, get_urls)\n",
    )
    assert main([target, "--quick", "--only", "basic"]) == 0
    assert "PASS  L4: basic" in capfd.readouterr().out


def test_prints_of_the_crawler_never_reach_the_json_report(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    target = write(
        tmp_path,
        "chatty",
        "def crawl(start_url, get_urls, max_workers):\n    print('hello from the crawler')\n"
        "    return bfs(start_url, get_urls)\n",
    )
    assert main([target, "--quick", "--only", "basic", "--json"]) == 0
    captured = capfd.readouterr()
    assert captured.out.lstrip().startswith("{") and "hello from the crawler" not in captured.out
    assert "hello from the crawler" in captured.err


@pytest.mark.parametrize(
    ("module", "message", "limit"),
    [
        ("import time\ntime.sleep(3600)\n", "importing it did not finish within", 2.0),
        ("while True:\n    pass\n", "importing it did not finish within", 2.0),
        # a generous limit: the child exits at once, but starting it can take seconds on a loaded machine
        ("import os\nos._exit(3)\n", "importing it exited with code 3", 120.0),
    ],
    ids=["sleeps", "loops", "exits"],
)
def test_an_import_that_never_finishes_or_exits_is_one_line(
    tmp_path: Path, module: str, message: str, limit: float
) -> None:
    path = tmp_path / "bad_import.py"
    path.write_text(module + "def crawl(start_url, get_urls, max_workers):\n    return [start_url]\n")
    with pytest.raises(CheckInputError, match=message), Sandbox(f"{path}:crawl", import_timeout=limit) as box:
        box.load()


def test_an_endless_or_huge_return_value_is_a_finding(tmp_path: Path) -> None:
    endless = write(
        tmp_path,
        "endless",
        "import itertools\ndef crawl(start_url, get_urls, max_workers):\n    return itertools.repeat(start_url)\n",
    )
    huge = write(tmp_path, "huge", "def crawl(start_url, get_urls, max_workers):\n    return [start_url] * 5_000_000\n")
    text = run_check(endless, quick=True, only=["no-links"]).check("no-links").explanation
    assert "endless iterator" in text
    text = run_check(huge, quick=True, only=["no-links"]).check("no-links").explanation
    assert "5,000,000 items" in text


def test_threads_left_blocked_fail_threads_exit_and_the_check_still_ends(tmp_path: Path) -> None:
    target = write(
        tmp_path,
        "blocked",
        "import queue, threading\ndef crawl(start_url, get_urls, max_workers):\n"
        "    q = queue.Queue()\n"
        "    threading.Thread(target=lambda: q.get()).start()  # never gets anything\n"
        "    return bfs(start_url, get_urls)\n",
    )
    report = run_check(target, quick=True, only=["basic", "no-links"])
    assert report.check("basic").passed
    result = report.check("threads-exit")
    assert not result.passed and result.kind == "correctness"
    assert "blocked.py:" in result.explanation and "never exits" in result.explanation
    assert not report.ok


def test_no_such_function_is_found_in_the_child_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = write(tmp_path, "named", "def crawler(start_url, get_urls, max_workers):\n    return []\n")
    assert main([target]) == 2
    err = capsys.readouterr().err
    assert "no function named 'crawl'; functions defined there: bfs, crawler" in err and err.count("\n") == 1


# ---------------------------------------------------------------- slow is not hung


def slow_but_steady(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    """Sequential and far slower than it should be, but always fetching."""
    import time

    seen = {start_url}
    queue = deque([start_url])
    while queue:
        time.sleep(0.02)  # slow, but never still for long
        for link in get_urls(queue.popleft()):
            if link not in seen and urlsplit(link).hostname == urlsplit(start_url).hostname:
                seen.add(link)
                queue.append(link)
    return sorted(seen)


def sequential_that_hangs_on_error(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int
) -> list[str]:
    seen = {start_url}
    queue = deque([start_url])
    while queue:
        try:
            links = list(get_urls(queue.popleft()))
        except Exception:
            threading.Event().wait()  # hangs for good
            raise
        for link in links:
            link = link.partition("#")[0]
            if link not in seen and urlsplit(link).hostname == urlsplit(start_url).hostname:
                seen.add(link)
                queue.append(link)
    return sorted(seen)


def test_a_crawl_still_fetching_at_its_deadline_is_too_slow_not_stuck() -> None:
    report = run_check(slow_but_steady, quick=True, only=["diamond-50"], case_timeout_s=0.6)
    run = report.runs["diamond-50"]
    text = report.check("diamond-50").explanation
    assert run.timed_out and not run.stalled
    assert "Too slow: still fetching" in text and "stopped making progress" not in text
    assert f"{len(run.records)} fetches" in text


def test_a_hang_in_one_case_does_not_shorten_the_next_case() -> None:
    """The full slow-service case takes a sequential crawl about 2.2 s; after a
    hang in fetch-error it still gets its own deadline and passes."""
    report = run_check(sequential_that_hangs_on_error, only=["fetch-error", "slow-service"])
    assert report.runs["fetch-error"].stalled
    assert "stopped making progress" in report.check("fetch-error").explanation
    assert report.check("slow-service").passed, report.check("slow-service").explanation


def test_each_deadline_covers_three_sequential_crawls_of_its_own_case() -> None:
    for case in all_cases(quick=False):
        sequential = sum(case.latency_of(page) for page in case.links)
        assert case_timeout(case) >= 3 * sequential + 2.0


def test_the_json_report_carries_findings_as_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    target = write(
        tmp_path,
        "stuck",
        "import threading\ndef crawl(start_url, get_urls, max_workers):\n    get_urls(start_url)\n"
        "    threading.Event().wait()\n",
    )
    assert main([target, "--quick", "--only", "no-links", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["rules"] == "interview" and report["seed"] is None
    check = next(c for c in report["checks"] if c["name"] == "no-links")
    assert check["rules"] == "leetcode" and check["cause"] == "timeout"
    (finding,) = check["details"]["findings"]
    assert finding["kind"] == "stuck" and finding["facts"]["fetches"] == 1 and finding["facts"]["pages_done"] == 1


BREAKS_THE_CHECKER = {
    "closes-fds": "import os\ndef crawl(start_url, get_urls, max_workers):\n    found = bfs(start_url, get_urls)\n"
    "    os.closerange(3, 1024)\n    return found\n",
    "swaps-lock": "import threading\nclass NoLock:\n    def __init__(self, *a, **k):\n        raise RuntimeError('no')\n"
    "threading.Lock = threading.RLock = NoLock\ndef crawl(start_url, get_urls, max_workers):\n"
    "    return bfs(start_url, get_urls)\n",
}


@pytest.mark.parametrize("name", sorted(BREAKS_THE_CHECKER))
def test_a_crawl_that_breaks_the_checkers_side_fails_without_a_traceback(
    name: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The child's own code broken by the crawl (its pipe closed, threading
    replaced) is that case's one-line verdict: no traceback of the checker's
    reaches the candidate's screen."""
    assert main([write(tmp_path, name, BREAKS_THE_CHECKER[name]), "--quick", "--only", "basic"]) == 1
    out, err = capfd.readouterr()
    assert "FAIL  basic" in out and "broke the" in out
    assert "Traceback" not in out + err


def test_replacing_json_in_the_crawl_does_not_break_the_answer(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """json.dumps, json.loads and json.JSONEncoder replaced (at import and in
    the crawl): the checker's protocol does not use the user's json."""
    body = (
        "import json\njson.dumps = json.loads = lambda *a, **k: 1 / 0\n"
        "def crawl(start_url, get_urls, max_workers):\n    json.JSONEncoder = None\n"
        "    return bfs(start_url, get_urls)\n"
    )
    assert main([write(tmp_path, "json", body), "--quick", "--only", "basic"]) == 0
    out, err = capfd.readouterr()
    passed = [line for line in out.splitlines() if line.strip().startswith("PASS")]
    assert any("basic" in line for line in passed) and "Traceback" not in out + err
