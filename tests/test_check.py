"""`crawlsim check`: every reference passes, every planted bug is caught with
the right explanation, on every run, and user mistakes never crash it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crawlsim.check import CheckReport, run_check
from crawlsim.check.cases import all_cases, expected_pages
from crawlsim.trace.events import Done, FetchFailed, FetchFinished, FetchStarted, event_from_dict


def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"


def example(name: str) -> str:
    return f"{EXAMPLES / name}.py:crawl"


_reports: dict[str, CheckReport] = {}


def quick_report(name: str) -> CheckReport:
    """One quick run per example, shared by the tests that look at it."""
    if name not in _reports:
        _reports[name] = run_check(example(name), quick=True)
    return _reports[name]


def failed_names(report: CheckReport) -> set[str]:
    return {c.name for c in report.checks if not c.passed and c.kind == "correctness"}


# ---------------------------------------------------------------- the oracle matches the seed's list


def test_seed_cases_expect_what_the_question_says() -> None:
    cases = {c.name: c for c in all_cases(quick=True)}
    assert expected_pages(cases["basic"]) == ["http://a.com/", "http://a.com/x", "http://a.com/y"]
    assert expected_pages(cases["cycle"]) == ["http://a.com/1", "http://a.com/2", "http://a.com/3"]
    assert expected_pages(cases["no-links"]) == ["http://a.com/"]
    assert expected_pages(cases["host-scope"]) == ["http://a.com/", "http://a.com/about"]
    assert expected_pages(cases["fragments"]) == ["http://a.com/", "http://a.com/x", "http://a.com/y", "http://a.com/z"]
    assert "http://a.com/x" in expected_pages(cases["fetch-error"])
    assert len(expected_pages(cases["diamond-50"])) == 50
    assert len(expected_pages(cases["slow-service"])) == 40
    assert len(expected_pages(next(c for c in all_cases(quick=False) if c.name == "slow-service"))) == 100
    assert len(expected_pages(cases["deep-chain"])) > 1000  # deeper than the default recursion limit


# ---------------------------------------------------------------- references


@pytest.mark.parametrize("name", ["reference_threadpool", "reference_asyncio"])
def test_concurrent_references_pass_everything(name: str) -> None:
    report = quick_report(name)
    assert report.ok, report.render()
    assert [c.name for c in report.checks if not c.passed] == []
    assert report.level == "L6-observable"
    assert report.mode == ("asyncio" if name == "reference_asyncio" else "threads")
    assert "cannot be observed" in report.render() or "Not observable" in report.render()


def test_sequential_reference_is_correct_but_not_concurrent() -> None:
    report = quick_report("reference_sequential")
    assert report.ok  # exit status 0: nothing is wrong, it is just slow
    assert failed_names(report) == set()
    assert report.level == "below L4"
    concurrency = report.check("concurrency")
    assert not concurrency.passed and concurrency.kind == "performance"
    assert "No concurrency observed" in concurrency.explanation
    assert not report.check("speed-up").passed
    assert "Not really exercised" in report.check("seen-race").explanation


def test_full_run_of_the_thread_pool_reference() -> None:
    report = run_check(example("reference_threadpool"))
    assert report.ok and report.level == "L6-observable", report.render()
    assert len(report.runs["large-graph"].records) == 2000


# ---------------------------------------------------------------- planted bugs

BUGS = [
    # (example, failing check, phrases its explanation must contain, level reached)
    (
        "buggy_seen_on_finish",
        "seen-race",
        [
            "http://a.com/c was fetched 2 times",
            "linked from http://a.com/",
            "http://a.com/a",
            "http://a.com/b",
            "in flight at the same time",
            "when you submit",
        ],
        "below L4",
    ),
    (
        "buggy_stops_when_queue_empty",
        "termination",
        ["missing from the result", "http://a.com/h1", "never fetched: http://a.com/g1", "in flight", "empty queue"],
        "below L4",
    ),
    (
        "buggy_substring_host",
        "host-scope",
        [
            "http://blog.a.com/p",
            "subdomain",
            "http://a.com.evil.com/x",
            "look-alike",
            "fetched 7 pages outside a.com",
            "http://pa.com/",
            "hostname",
        ],
        "below L4",
    ),
    (
        "buggy_raw_fragments",
        "fragments",
        ["http://a.com/x#top", "#fragment", "http://a.com/x was fetched 2 times", "http://a.com/z#section"],
        "L4",
    ),
    (
        "buggy_exception_ends_crawl",
        "fetch-error",
        [
            "raised SimulatedFetchError",
            "http://a.com/x",
            "buggy_exception_ends_crawl.py:",
            "future.result()",
            "ended the whole crawl",
            "keep crawling",
        ],
        "L4",
    ),
]


@pytest.mark.parametrize(("name", "check", "phrases", "level"), BUGS, ids=[b[0] for b in BUGS])
def test_each_bug_is_caught_with_the_right_explanation(name: str, check: str, phrases: list[str], level: str) -> None:
    report = quick_report(name)
    assert not report.ok
    result = report.check(check)
    assert not result.passed and result.kind == "correctness"
    for phrase in phrases:
        # a check whose cause an earlier check showed keeps its fix in .hint, said once in the report
        said = result.explanation if result.same_cause_as is None else f"{result.explanation} {result.hint}"
        assert phrase in said, f"{phrase!r} not in: {said}"
    assert report.level == level, report.render()
    assert main([example(name), "--quick", "--only", check]) == 1


def test_seen_on_finish_also_wastes_fetches_on_the_diamond() -> None:
    report = quick_report("buggy_seen_on_finish")
    assert {"basic", "diamond-50", "seen-race"} <= failed_names(report)
    details = report.check("diamond-50").details
    assert details["fetches"] > 50
    assert all(info["times"] > 1 for info in details["fetched_more_than_once"].values())


def test_a_crawl_that_spins_before_its_first_fetch_is_told_so(tmp_path: Path) -> None:
    """A crawl that never calls get_urls has no fetch to wait for: the check says it
    never fetched, not a count of fetches of pages that reads as nonsense."""
    spin = tmp_path / "spin.py"
    spin.write_text("def crawl(start_url, get_urls, max_workers):\n    while True:\n        pass\n")
    report = run_check(f"{spin}:crawl", quick=True, only=["basic"])
    basic = report.check("basic")
    assert not basic.passed and basic.cause == "timeout", basic.explanation
    assert "never called get_urls" in basic.explanation
    assert "0 fetches" not in basic.explanation and "spins in a loop" in basic.hint


def test_stopping_on_an_empty_queue_is_also_slow_to_return() -> None:
    report = quick_report("buggy_stops_when_queue_empty")
    failed = failed_names(report)
    # termination's slow pages are stretched past the crawler's own 0.1 s wait, so it fails on any machine;
    # slow-service's 0.2 s start page outlasts the wait too, and so does any fetch a loaded machine held
    # longer: whichever checks fail, they fail of this one cause, counted once
    assert "termination" in failed
    assert {c.cause for c in report.failed if c.kind == "correctness"} == {"early-return"}
    assert f"Correctness: {len(failed)} of" in report.render()
    assert len(failed) == 1 or "(1 cause: early-return)" in report.render()
    assert "waits for a timeout" in report.check("prompt-return").explanation


def test_other_bugs_fail_only_their_own_checks() -> None:
    assert failed_names(quick_report("buggy_substring_host")) == {"host-scope"}
    assert failed_names(quick_report("buggy_exception_ends_crawl")) == {"fetch-error"}
    # large-graph has no fragments any more: one cause, one failed check
    assert failed_names(quick_report("buggy_raw_fragments")) == {"fragments"}


# One run of each of these verdicts is in README's command already: the quick
# runs above fail seen-race and termination for the two bugs and pass every
# check for the two references.  Five runs in a row of each race case alone,
# the same every time, are the exhaustive step's (-m exhaustive).
RACE_VERDICTS = [
    ("buggy_seen_on_finish", "seen-race", False),
    ("buggy_stops_when_queue_empty", "termination", False),
    ("reference_threadpool", "seen-race", True),
    ("reference_asyncio", "termination", True),
]


def race_verdict(name: str, case: str) -> tuple[bool, list[str]]:
    result = run_check(example(name), quick=True, only=[case]).check(case)
    return result.passed, sorted(result.details.get("fetched_more_than_once", {}))


@pytest.mark.exhaustive
@pytest.mark.parametrize(("name", "case", "expect_pass"), RACE_VERDICTS)
def test_race_verdicts_are_the_same_on_every_run(name: str, case: str, expect_pass: bool) -> None:
    verdicts = [race_verdict(name, case) for _ in range(5)]
    assert verdicts == [verdicts[0]] * 5
    assert verdicts[0][0] is expect_pass


# ---------------------------------------------------------------- crawlers defined here (callable targets)


def _host(url: str) -> str | None:
    return urlsplit(url).hostname


def crawl_that_raises(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    get_urls(start_url)
    raise ValueError("ran out of ideas")  # the line the report must point at


def crawl_returning_none(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> None:
    get_urls(start_url)


def crawl_ignoring_max_workers(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    """Correct pages, but one thread per page of each BFS level, all released
    together by a barrier: far more than max_workers fetches in flight."""
    seen = {start_url}
    level = [start_url]
    while level:
        barrier = threading.Barrier(len(level))
        links: dict[str, list[str]] = {}

        def fetch(url: str, barrier: threading.Barrier = barrier, links: dict[str, list[str]] = links) -> None:
            barrier.wait()
            links[url] = list(get_urls(url))

        threads = [threading.Thread(target=fetch, args=(url,)) for url in level]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        level = []
        for url in sorted(links):
            for link in links[url]:
                link = link.partition("#")[0]
                if link not in seen and _host(link) == _host(start_url):
                    seen.add(link)
                    level.append(link)
    return sorted(seen)


def crawl_recursive(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    seen: set[str] = set()

    def visit(url: str) -> None:
        seen.add(url)
        for link in get_urls(url):
            link = link.partition("#")[0]
            if link not in seen and _host(link) == _host(start_url):
                visit(link)

    visit(start_url)
    return sorted(seen)


def crawl_hangs_when_a_worker_dies(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int
) -> list[str]:
    import queue

    seen = {start_url}
    todo: queue.Queue[str] = queue.Queue()
    todo.put(start_url)

    def worker() -> None:
        while True:
            url = todo.get()
            for link in get_urls(url):  # a raise kills the worker before task_done()
                link = link.partition("#")[0]
                if link not in seen and _host(link) == _host(start_url):
                    seen.add(link)
                    todo.put(link)
            todo.task_done()

    for _ in range(max_workers):
        threading.Thread(target=worker, daemon=True).start()
    todo.join()
    return sorted(seen)


async def crawl_async_returns_early(
    start_url: str, get_urls: Callable[[str], Awaitable[list[str]]], max_workers: int
) -> list[str]:
    """Starts fetches as tasks but returns without waiting for them."""
    seen = {start_url}
    tasks = set()

    async def visit(url: str) -> None:
        for link in await get_urls(url):
            if link not in seen and _host(link) == _host(start_url):
                seen.add(link)
                tasks.add(asyncio.create_task(visit(link)))

    await visit(start_url)
    return sorted(seen)


def crawl_bfs(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int) -> list[str]:
    seen = {start_url}
    queue = deque([start_url])
    while queue:
        for link in get_urls(queue.popleft()):
            if link not in seen and _host(link) == _host(start_url):
                seen.add(link)
                queue.append(link)
    return sorted(seen)


def test_a_crawl_that_raises_fails_its_cases_with_the_users_line() -> None:
    report = run_check(crawl_that_raises, quick=True, only=["basic", "no-links"])
    result = report.check("basic")
    assert not result.passed
    assert "raised ValueError: ran out of ideas" in result.explanation
    assert "test_check.py:" in result.explanation and "crawl_that_raises" in result.explanation
    assert "raise ValueError" in result.explanation


def test_a_crawl_that_returns_nothing_is_told_so() -> None:
    result = run_check(crawl_returning_none, quick=True, only=["basic"]).check("basic")
    assert not result.passed and "returned None" in result.explanation


def test_too_many_fetches_in_flight_fail_max_workers() -> None:
    report = run_check(crawl_ignoring_max_workers, quick=True, only=["slow-service"])
    result = report.check("max-workers")
    assert not result.passed and result.kind == "correctness"
    assert "max_workers=10" in result.explanation and "slow-service" in result.explanation
    assert report.check("slow-service").passed  # the pages are right; the limit is not


def test_recursion_fails_the_deep_chain() -> None:
    result = run_check(crawl_recursive, quick=True, only=["deep-chain"]).check("deep-chain")
    assert not result.passed
    assert "RecursionError" in result.explanation and "explicit queue" in result.explanation


def test_a_crawl_that_failed_is_never_called_stuck_while_its_error_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine can take longer to read a RecursionError's thousand
    frames than the stall watch waits.  Made certain here: reading an error
    inside the crawl's own thread waits until the watch has seen the crawl
    idle past its stall limit, as the slowest machine would."""
    from crawlsim.check import runner, services

    watched = threading.Event()
    real_idle_for, real_of = services.SimService.idle_for, runner.ExceptionSummary.of

    def idle_for(self: services.SimService, now: float) -> float:
        if reading.is_set():
            watched.set()
            return float("inf")
        return real_idle_for(self, now)

    reading = threading.Event()

    def of(exc: BaseException, user_file: str | None) -> runner.ExceptionSummary:
        if threading.current_thread().name.startswith("crawlsim-check:"):
            reading.set()
            watched.wait(10.0)  # a guard only: the watch polls every 10 ms
        return real_of(exc, user_file)

    monkeypatch.setattr(services.SimService, "idle_for", idle_for)
    monkeypatch.setattr(runner.ExceptionSummary, "of", staticmethod(of))
    report = run_check(crawl_recursive, quick=True, only=["deep-chain"])
    run = report.runs["deep-chain"]
    assert not run.stalled and not run.timed_out
    assert "RecursionError" in report.check("deep-chain").explanation


def test_a_hung_crawl_is_stuck_and_names_the_dead_worker() -> None:
    report = run_check(crawl_hangs_when_a_worker_dies, quick=True, only=["fetch-error"], case_timeout_s=0.5)
    result = report.check("fetch-error")
    assert not result.passed
    assert "did not return and stopped making progress" in result.explanation
    assert "A thread of the crawl died" in result.explanation and "SimulatedFetchError" in result.explanation
    assert report.runs["fetch-error"].stalled


def test_an_async_crawl_returning_with_fetches_in_flight() -> None:
    report = run_check(crawl_async_returns_early, quick=True, only=["termination"])
    assert report.mode == "asyncio"
    result = report.check("termination")
    assert not result.passed
    assert "still in flight" in result.explanation and "http://a.com/slow1" in result.explanation
    assert "http://a.com/h1" in result.explanation  # a missing page is named


def test_uppercase_host_is_a_note_not_a_failure() -> None:
    report = run_check(crawl_bfs, quick=True, only=["host-case", "basic"])
    note = report.check("host-case")
    assert note.kind == "note" and note.passed and "A.COM" in note.explanation
    assert report.ok


# ---------------------------------------------------------------- CLI: bad input, JSON, traces


@pytest.fixture
def user_files(tmp_path: Path) -> Path:
    (tmp_path / "syntax.py").write_text("def crawl(start_url, get_urls, max_workers):\n    return [start_url\n")
    (tmp_path / "boom.py").write_text("x = 1 / 0\n")
    (tmp_path / "shapes.py").write_text(
        "def two_args(start_url, get_urls):\n    return [start_url]\nnumber = 3\n"
        "def crawl(start_url, get_urls, max_workers):\n    return [start_url]\n"
    )
    return tmp_path


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py:crawl", "no such file"),
        ("shapes.py:nope", "no function named 'nope'; functions defined there: crawl, two_args"),
        ("shapes.py:number", "is an int, not a function"),
        ("shapes.py:two_args", "cannot be called as two_args(start_url, get_urls, max_workers)"),
        ("syntax.py:crawl", "syntax.py:2: syntax error"),
        ("boom.py:crawl", "boom.py:1: importing it raised ZeroDivisionError"),
        ("notpython:crawl", "expected FILE.py:FUNCTION"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    user_files: Path, target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(user_files / target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crawlsim: error:")
    assert message in err
    assert "Traceback" not in err


def test_unknown_option_and_unknown_case_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_threadpool"), "--bogus"]) == 2
    assert main([example("reference_threadpool"), "--only", "nosuchcase"]) == 2
    assert "unknown case nosuchcase" in capsys.readouterr().err


def test_json_report_and_replayable_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "diamond.jsonl"
    code = main([example("buggy_seen_on_finish"), "--quick", "--only", "seen-race", "--json", "--trace-out", str(trace)])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["partial"] is True
    assert {c["name"] for c in report["checks"]} >= {"seen-race", "diamond-50"}
    seen_race = next(c for c in report["checks"] if c["name"] == "seen-race")
    assert seen_race["details"]["fetched_more_than_once"]["http://a.com/c"]["times"] == 2

    events = [event_from_dict(json.loads(line)) for line in trace.read_text().splitlines()]
    assert isinstance(events[-1], Done)
    assert [e.t for e in events] == sorted(e.t for e in events)
    started = [e for e in events if isinstance(e, FetchStarted)]
    ended = [e for e in events if isinstance(e, FetchFinished | FetchFailed)]
    assert len(started) == len(ended) == events[-1].fetches > 50
    assert any(e.duplicate for e in started)  # the wasted fetches show up in the replay
    assert {e.slot for e in started} <= set(range(8))
    assert started[0].depth == 0 and max(e.depth for e in started) == 1


def test_trace_of_a_failing_page_and_report_rendering(tmp_path: Path) -> None:
    report = run_check(example("reference_threadpool"), quick=True, only=["fetch-error"])
    events = report.trace("fetch-error")
    failed = [e for e in events if isinstance(e, FetchFailed)]
    assert [e.url for e in failed] == ["http://a.com/x"] and "SimulatedFetchError" in failed[0].reason
    text = report.render()
    assert "PASS  L5: fetch-error" in text and "Level reached" in text
    assert report.__rich__().plain == text
    assert json.loads(report.to_json())["checks"][0]["name"] == "fetch-error"
    assert report.write_trace(tmp_path / "t.jsonl", case="fetch-error") == len(events)
