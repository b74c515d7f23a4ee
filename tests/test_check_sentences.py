"""Every sentence of a `crawlsim check` report is true of the run it describes.

A property over the grader's own cases and shipped answers: each problem and
finding says what it presupposes of how its run ended (returned, raised, did
not return), and that holds for the run it is said of; each failed case's
cause is one its own run's problems call for.  And when a hang and another
fault coincide, each is found on the cases where it shows alone.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from crawlsim.check import CheckReport, run_check
from crawlsim.check.evidence import ending
from crawlsim.check.findings import DuplicateFetches, Finding, causes_of, presupposition_holds
from crawlsim.check.problems import observe
from crawlsim.check.runner import CaseRun

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"

HANGS_WITH_WORKERS_LEFT = '''
import queue
import threading
from urllib.parse import urlsplit


def crawl(start_url, get_urls, max_workers):
    """queue.join(): a get_urls that raises kills its worker before task_done(),
    and the other workers (not daemons) stay blocked on get()."""
    host = urlsplit(start_url).hostname
    seen = {start_url}
    todo = queue.Queue()
    todo.put(start_url)

    def worker():
        while True:
            url = todo.get()
            for link in get_urls(url):
                link = link.partition("#")[0]
                if urlsplit(link).hostname == host and link not in seen:
                    seen.add(link)
                    todo.put(link)
            todo.task_done()

    for _ in range(max_workers):
        threading.Thread(target=worker).start()
    todo.join()
    return sorted(seen)
'''

ANSWERS = {
    # (answer, the cases run, the follow-up round)
    "hangs-with-workers-left": (None, ("basic", "fetch-error"), None),
    "buggy_prefix_scope_idle_timeout": (EXAMPLES, ("basic", "cycle", "large-graph"), None),
    "buggy_workers_never_exit": (EXAMPLES, ("basic", "no-links"), None),
    "buggy_exception_ends_crawl": (EXAMPLES, ("fetch-error", "basic"), None),
    "buggy_stops_when_queue_empty": (EXAMPLES, ("termination", "basic"), None),
    "buggy_seen_on_finish": (EXAMPLES, ("seen-race",), None),
    "buggy_retries_asyncio_no_wait": (EXAMPLES, ("retries", "retries-permanent"), "retries"),
}


@functools.cache
def report_of(name: str, folder: Path | None, only: tuple[str, ...], follow_up: str | None, tmp: Path) -> CheckReport:
    if folder is None:
        path = tmp / f"{name.replace('-', '_')}.py"
        path.write_text(HANGS_WITH_WORKERS_LEFT, encoding="utf-8")
    else:
        path = folder / f"{name}.py"
    return run_check(f"{path}:crawl", quick=True, only=list(only), follow_up=follow_up)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CheckReport]:
    tmp = tmp_path_factory.mktemp("answers")
    return {name: report_of(name, folder, only, round_, tmp) for name, (folder, only, round_) in ANSWERS.items()}


def said_of(report: CheckReport) -> list[tuple[str, object, CaseRun]]:
    """(check, what its sentence is built from, the run it is said of), for
    every problem of every case and every run-level finding in the report."""
    out: list[tuple[str, object, CaseRun]] = []
    for name, run in report.runs.items():
        out.extend((name, problem, run) for problem in observe(run).problems)
    # a check names its case (a round's check, the case's name or title in its details)
    runs = {**{r.case.title: r for r in report.runs.values()}, **report.runs}
    for check in report.checks:
        for found in check.details.get("findings", []):
            finding = Finding(found["kind"], found["cause"], found["facts"])
            own = check.name if check.name in runs else check.details.get("case")
            cases = found["facts"].get("per_case") or [own]
            out.extend((check.name, finding, runs[case]) for case in cases)
    return out


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_every_sentence_presupposes_how_its_run_really_ended(name: str, reports: dict[str, CheckReport]) -> None:
    report = reports[name]
    said = said_of(report)
    assert said, report.render()
    for check, item, run in said:
        assert presupposition_holds(item, run), (check, type(item).__name__, ending(run), report.render())  # type: ignore[arg-type]
        if isinstance(item, DuplicateFetches):
            for page in item.listed:
                assert repeats_not_retries(run, page.page) >= 1, (check, page, report.render())


def repeats_not_retries(run: CaseRun, page: str) -> int:
    """Calls of ``page`` after its first that did not follow a failed call of it."""
    calls = sorted((r for r in run.records if r.page == page), key=lambda r: r.start)
    return sum(1 for before, _ in zip(calls, calls[1:], strict=False) if before.outcome != "error")


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_every_failed_case_names_a_cause_its_own_run_shows(name: str, reports: dict[str, CheckReport]) -> None:
    report = reports[name]
    for check in report.checks:
        run = report.runs.get(check.name)
        if run is not None and not check.passed and check.cause and check.kind != "note":
            assert check.cause in causes_of(observe(run).problems), (check.name, check.cause, check.explanation)


def test_threads_of_a_crawl_that_did_not_return_are_not_said_to_outlive_its_return(
    reports: dict[str, CheckReport],
) -> None:
    report = reports["hangs-with-workers-left"]
    assert ending(report.runs["fetch-error"]) == "did not return"
    assert "did not return" in report.check("fetch-error").explanation
    threads_exit = report.check("threads-exit")
    (found,) = threads_exit.details["findings"]
    assert list(found["facts"]["per_case"]) == ["basic"], threads_exit.explanation  # it returned; fetch-error did not
    assert "in 1 of 1 cases; not counted: fetch-error, which did not return" in threads_exit.explanation


def test_a_slow_finish_is_not_a_hang_and_the_scope_bug_it_masked_is_named(reports: dict[str, CheckReport]) -> None:
    """startswith(start_url) and a 2 s idle timeout: the short cases' stall
    watch (a quarter of their deadline) fires first, so the case is run again
    with more patience; it returns, and each fault shows where it is alone."""
    report = reports["buggy_prefix_scope_idle_timeout"]
    assert not any(c.cause == "timeout" for c in report.checks), report.render()
    assert report.check("basic").passed, report.check("basic").explanation
    for case in ("cycle", "large-graph"):
        check = report.check(case)
        assert not check.passed and check.cause == "prefix-scope", check.explanation
        assert "startswith" in report.check("cycle").explanation
    assert report.check("large-graph").same_cause_as == "cycle"
    assert "waits for a timeout" in report.check("prompt-return").explanation
    assert "After the crawl" not in report.check("threads-exit").explanation


def test_a_prefix_scope_is_named_on_a_crawl_that_returns_at_once(tmp_path: Path) -> None:
    """The same scope test in a crawl that returns as soon as nothing is in
    flight: its only fetch ends and it returns, yet the links it turned away
    are not an early return."""
    path = tmp_path / "prefix.py"
    path.write_text(
        "def crawl(start_url, get_urls, max_workers):\n"
        "    seen, todo = {start_url}, [start_url]\n"
        "    while todo:\n"
        "        for link in get_urls(todo.pop()):\n"
        "            if link.startswith(start_url) and link not in seen:\n"
        "                seen.add(link)\n"
        "                todo.append(link)\n"
        "    return sorted(seen)\n",
        encoding="utf-8",
    )
    check = run_check(f"{path}:crawl", quick=True, only=["diamond-50"]).check("diamond-50")
    assert check.cause == "prefix-scope" and "no fetch is in flight" not in check.explanation, check.explanation
    assert "Every URL it fetched starts with http://a.com/p0" in check.explanation


SAME_EVERY_RUN = [
    # (example, cases run, its verdict: exit status 0, the checks that did not pass, the level)
    ("buggy_prefix_scope_idle_timeout", ("basic", "cycle"), (False, ("cycle", "prompt-return"), "L4")),
]


@pytest.mark.parametrize(("name", "only", "expected"), SAME_EVERY_RUN, ids=[s[0] for s in SAME_EVERY_RUN])
def test_the_masked_cause_example_gets_its_verdict(
    name: str, only: tuple[str, ...], expected: tuple[bool, tuple[str, ...], str]
) -> None:
    report = run_check(f"{EXAMPLES / name}.py:crawl", quick=True, only=list(only))
    assert (report.ok, tuple(sorted(c.name for c in report.checks if not c.passed)), report.level) == expected
