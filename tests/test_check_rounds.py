"""Follow-up rounds (``crawlsim check FILE.py:crawl --follow-up NAME``): the
shipped reference passes every run, each shipped buggy answer fails every
run with its cause named, and bad round names or signatures exit 2."""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import pytest

from crawlsim.check import run_check


def main(argv: list[str]) -> int:
    """``crawlsim check ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["check", *argv])


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"


def example(name: str) -> str:
    return f"{EXAMPLES / name}.py:crawl"


def example_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def freeze(seconds: float) -> None:
    """Stop every thread of this process for ``seconds``, as a loaded machine
    that does not run the process for that long: hold the GIL (a switch
    interval longer than the freeze) while the clocks the check reads go on.
    Not a wait for anything: what a slow machine does, made to happen on
    every run at the moment a test chooses."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(seconds + 1.0)
    try:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
    finally:
        sys.setswitchinterval(interval)


EVERY_RUN = [
    pytest.param(1, id="one-run"),
    pytest.param(5, id="five-runs", marks=pytest.mark.exhaustive),
]
"""How many runs a verdict is checked on: one in README's command, five in
the exhaustive step (the same verdict on every run of a loaded machine)."""

DEPTH_BUGS = [
    # (example, the check that fails, its cause, a phrase of its explanation)
    ("buggy_depth_start_is_one", "depth-limit", "depth-off-by-one", "the start is depth 0"),
    ("buggy_depth_first_path", "depth-shortest", "depth-first-path", "shortest distance"),
    ("buggy_depth_unfetched_links", "depth-limit", "depth-unfetched", "without fetching them"),
]


@pytest.mark.parametrize("runs", EVERY_RUN)
def test_the_depth_reference_passes_every_run(runs: int) -> None:
    for _ in range(runs):
        report = run_check(example("reference_depth"), quick=True, follow_up="depth")
        assert report.ok, report.render()
        assert {c.name for c in report.checks} == {"depth-limit", "depth-shortest"}


@pytest.mark.parametrize("runs", EVERY_RUN)
@pytest.mark.parametrize(("name", "check", "cause", "phrase"), DEPTH_BUGS, ids=[b[0] for b in DEPTH_BUGS])
def test_each_buggy_depth_answer_fails_every_run_with_its_cause(
    name: str, check: str, cause: str, phrase: str, runs: int
) -> None:
    for _ in range(runs):
        report = run_check(example(name), quick=True, follow_up="depth")
        result = report.check(check)
        assert not report.ok and not result.passed and result.cause == cause, result.explanation
        assert phrase in result.explanation


def test_a_first_path_depth_fails_even_when_the_machine_stops_the_crawl_mid_race() -> None:
    """/t's short path goes through a slow page, so the long path reaches /t
    first -- but a machine that stops the process longer than that slow page
    takes (here just as the long path starts) used to let the slow page
    answer first, and the bug passed.  The slow page now waits for /t to be
    called before its latency starts, so no stop of the process reorders them."""
    from crawlsim.check.depth_round import SLOW

    buggy = example_module("buggy_depth_first_path").crawl

    def stopped_mid_race(
        start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_depth: int
    ) -> list[str]:
        def get(url: str) -> Iterable[str]:
            if url.endswith("/l1"):
                freeze(2 * SLOW)
            return get_urls(url)

        return buggy(start_url, get, max_workers, max_depth)

    result = run_check(stopped_mid_race, quick=True, follow_up="depth").check("depth-shortest")
    assert not result.passed and result.cause == "depth-first-path", result.explanation


PAGES_BUGS = [
    ("buggy_pages_counts_fetched", "pages-cap", "pages-overshoot", "pages fetched so far"),
    ("buggy_pages_off_by_one", "pages-one", "pages-off-by-one", "2 pages fetched and 2 returned with max_pages=1"),
    ("buggy_pages_no_drain", "pages-cap", "pages-no-drain", "still in flight"),
]


@pytest.mark.parametrize("runs", EVERY_RUN)
def test_the_pages_reference_passes_every_run_and_says_what_it_chose(runs: int) -> None:
    for _ in range(runs):
        report = run_check(example("reference_pages"), quick=True, follow_up="pages")
        assert report.ok, report.render()
        assert "this crawl chose 1 at depth 0, 9 at depth 1" in report.check("pages-cap").explanation


@pytest.mark.parametrize("runs", EVERY_RUN)
@pytest.mark.parametrize(("name", "check", "cause", "phrase"), PAGES_BUGS, ids=[b[0] for b in PAGES_BUGS])
def test_each_buggy_pages_answer_fails_every_run_with_its_cause(
    name: str, check: str, cause: str, phrase: str, runs: int
) -> None:
    for _ in range(runs):
        report = run_check(example(name), quick=True, follow_up="pages")
        result = report.check(check)
        assert not report.ok and not result.passed and result.cause == cause, result.explanation
        assert phrase in result.explanation


RETRIES_BUGS = [
    # (example, the check that fails, its cause, a phrase of its explanation)
    ("buggy_retries_fixed_delay", "retry-backoff", "retry-no-growth", "they do not grow"),
    ("buggy_retries_no_jitter", "retry-jitter", "retry-no-jitter", "the same on every page: no jitter"),
    ("buggy_retries_permanent", "retry-permanent", "retry-permanent", "raised ValueError and was called 4 times"),
    ("buggy_retries_coordinator_sleeps", "retry-coordinator", "retry-blocks", "no call was in flight for"),
]


def test_the_retries_reference_passes_every_run() -> None:
    for _ in range(3):
        report = run_check(example("reference_retries"), quick=True, follow_up="retries")
        assert report.ok, report.render()


@pytest.mark.parametrize(("name", "check", "cause", "phrase"), RETRIES_BUGS, ids=[b[0] for b in RETRIES_BUGS])
def test_each_buggy_retries_answer_fails_every_run_with_its_cause(name: str, check: str, cause: str, phrase: str) -> None:
    for _ in range(3 if cause != "retry-blocks" else 1):  # sleeping through every backoff takes 5 s a run
        report = run_check(example(name), quick=True, follow_up="retries")
        result = report.check(check)
        assert not report.ok and result.cause == cause, result.explanation
        assert phrase in result.explanation


RETRIES_VERDICTS = [
    # (example, the checks that fail, sorted)
    ("reference_retries", ()),
    ("buggy_retries_fixed_delay", ("retry-backoff", "retry-jitter")),
    ("buggy_retries_no_jitter", ("retry-jitter",)),
    ("buggy_retries_permanent", ("retry-permanent",)),
    ("buggy_retries_asyncio_no_wait", ("retry-backoff", "retry-jitter", "retry-permanent")),
]


@pytest.mark.parametrize(("name", "failing"), RETRIES_VERDICTS, ids=[v[0] for v in RETRIES_VERDICTS])
def test_each_retries_answer_gets_its_verdict(name: str, failing: tuple[str, ...]) -> None:
    report = run_check(example(name), quick=True, follow_up="retries")
    assert tuple(sorted(c.name for c in report.checks if not c.passed)) == failing, report.render()
    assert report.ok == (not failing)


def test_an_asyncio_answer_that_hangs_on_a_permanent_error_also_gets_its_missing_backoff() -> None:
    """Each fault on the case where it shows alone: the hang on the ValueError
    case, the missing backoff on the transient one; its retries are no
    duplicate fetch, and no hint about marking URLs seen."""
    report = run_check(example("buggy_retries_asyncio_no_wait"), quick=True, follow_up="retries")
    hang, backoff = report.check("retry-permanent"), report.check("retry-backoff")
    assert hang.cause == "timeout" and "did not return" in hang.explanation, hang.explanation
    assert "raised ValueError at" in hang.explanation
    assert backoff.cause == "retry-no-wait" and "retried at once" in backoff.explanation, backoff.explanation
    for check in report.checks:
        assert "fetched 3 times" not in check.explanation and "when you submit" not in check.explanation
        assert "LeetCode" not in check.explanation, check.explanation  # LeetCode's statement has no retries


def no_jitter_and_every_error_retried(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_retries: int, backoff: float
) -> list[str]:
    """Growing waits with no jitter, and a ValueError retried like the rest: two faults at once."""
    from concurrent.futures import ThreadPoolExecutor

    host = urlsplit(start_url).hostname
    seen = {start_url}

    def fetch(url: str) -> list[str]:
        for attempt in range(max_retries + 1):
            try:
                return list(get_urls(url))
            except Exception:
                if attempt < max_retries:
                    time.sleep(backoff * 2**attempt)
        return []

    with ThreadPoolExecutor(max_workers) as pool:
        level = [start_url]
        while level:
            found = [link for links in pool.map(fetch, level) for link in links]
            level = [link for link in dict.fromkeys(found) if urlsplit(link).hostname == host and link not in seen]
            seen.update(level)
    return sorted(seen)


def test_missing_jitter_is_named_beside_a_retried_permanent_error() -> None:
    report = run_check(no_jitter_and_every_error_retried, quick=True, follow_up="retries")
    assert report.check("retry-permanent").cause == "retry-permanent"
    assert report.check("retry-jitter").cause == "retry-no-jitter", report.check("retry-jitter").explanation


def stopped_once_at_a_backoff(name: str, call: int, seconds: float) -> Callable[..., list[str]]:
    """Example ``name``'s crawl, on a machine that stops the process for
    ``seconds`` on its first run, just as http://a.com/dead0's call number
    ``call`` fails: every page's wait before that retry is stretched alike."""
    crawl = example_module(name).crawl
    runs: list[None] = []

    def stopped(
        start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_retries: int, backoff: float
    ) -> list[str]:
        runs.append(None)
        calls: list[str] = []

        def get(url: str) -> Iterable[str]:
            try:
                return get_urls(url)
            finally:
                calls.append(url)
                if len(runs) == 1 and url.endswith("/dead0") and calls.count(url) == call:
                    freeze(seconds)

        return crawl(start_url, get, max_workers, max_retries, backoff)

    return stopped


@pytest.mark.parametrize(
    ("name", "call", "cause"),
    [("reference_retries", 1, None), ("buggy_retries_fixed_delay", 3, "retry-no-growth")],
    ids=["growing-waits-stopped-at-the-first", "fixed-waits-stopped-at-the-third"],
)
def test_a_machine_that_stops_during_a_backoff_does_not_decide_the_growth(name: str, call: int, cause: str | None) -> None:
    """A stop of the process stretches every wait it ends: before the first
    retry it made growing waits look flat, before the third it made fixed
    waits grow.  Such a run is measured again."""
    report = run_check(stopped_once_at_a_backoff(name, call, 0.3), quick=True, follow_up="retries")
    result = report.check("retry-backoff")
    assert result.cause == cause, result.explanation


def sequential_with_backoff(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_retries: int, backoff: float
) -> list[str]:
    """Right retries, but one page at a time: every backoff stops the whole crawl."""
    import random
    import time

    host = urlsplit(start_url).hostname
    seen, todo = {start_url}, [start_url]
    while todo:
        url = todo.pop(0)
        links: list[str] = []
        for attempt in range(max_retries + 1):
            try:
                links = list(get_urls(url))
                break
            except (ConnectionError, TimeoutError):
                if attempt < max_retries:
                    time.sleep(backoff * 2**attempt * random.uniform(0.5, 1.5))
            except Exception:
                break
        for link in links:
            if urlsplit(link).hostname == host and link not in seen:
                seen.add(link)
                todo.append(link)
    return sorted(seen)


def test_backoff_waits_one_after_another_are_named() -> None:
    result = run_check(sequential_with_backoff, quick=True, follow_up="retries").check("retry-coordinator")
    assert result.cause == "retry-blocks" and "no call was in flight for" in result.explanation


def no_depth_limit(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_depth: int
) -> list[str]:
    """The base crawl, its max_depth ignored."""
    host = urlsplit(start_url).hostname
    seen, todo = {start_url}, [start_url]
    while todo:
        for link in get_urls(todo.pop()):
            if urlsplit(link).hostname == host and link not in seen:
                seen.add(link)
                todo.append(link)
    return sorted(seen)


def test_a_crawl_with_no_depth_limit_is_named() -> None:
    report = run_check(no_depth_limit, quick=True, follow_up="depth")
    result = report.check("depth-limit")
    assert result.cause == "depth-no-limit" and "http://a.com/a2 (depth 3)" in result.explanation


def test_the_report_states_the_contract_and_the_rubric_items(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_depth"), "--follow-up", "depth", "--quick"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Follow-up round depth: crawl(start_url, get_urls, max_workers, max_depth): the start is depth 0" in out
    assert "Makes observable: the follow-up 'max depth or max pages'" in out


def test_the_base_cases_run_first_unless_quick() -> None:
    report = run_check(example("reference_depth"), follow_up="depth", only=["basic", "cycle"])
    assert [c.name for c in report.checks][:2] == ["basic", "cycle"] and report.ok
    assert "depth-limit" in {c.name for c in report.checks}


def test_only_takes_the_rounds_own_case_names() -> None:
    report = run_check(example("buggy_depth_first_path"), follow_up="depth", only=["depth-shortest"])
    assert [c.name for c in report.checks] == ["depth-shortest"]
    assert not report.ok and report.checks[0].cause == "depth-first-path"


def test_only_with_base_names_alone_keeps_every_round_case() -> None:
    report = run_check(example("reference_depth"), follow_up="depth", only=["basic"])
    names = [c.name for c in report.checks]
    assert names[0] == "basic" and {"depth-limit", "depth-shortest"} <= set(names) and "cycle" not in names


def test_an_unknown_case_under_a_round_lists_the_rounds_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_depth"), "--follow-up", "depth", "--only", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "unknown case nope" in err and "round depth's own cases are: depth-limit, depth-shortest" in err


def test_a_rounds_case_without_its_round_names_the_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_depth"), "--only", "depth-limit"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "add --follow-up depth" in err, err


def test_another_rounds_case_under_a_round_names_its_own_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_depth"), "--follow-up", "timeout", "--only", "depth-limit"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "case depth-limit belongs to round depth, not timeout: use --follow-up depth" in err
    assert "add --follow-up" not in err


def test_a_mistyped_round_gets_did_you_mean_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_depth"), "--follow-up", "dept"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'depth'?" in err and len(err.strip().splitlines()) == 1


def test_the_wrong_signature_for_the_round_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([example("reference_threadpool"), "--follow-up", "depth", "--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "cannot be called as crawl(start_url, get_urls, max_workers, max_depth)" in err
    assert "the signature the depth round calls" in err


TIMEOUT_BUGS = [
    ("buggy_timeout_with_block", "timeout-waits", "never returned, and the crawl waited for it"),
    ("buggy_timeout_from_submit", "timeout-too-soon", "dropped though those calls returned within"),
    ("buggy_timeout_asyncio_semaphore", "timeout-too-soon", "returned without ever being fetched"),
]


@pytest.mark.parametrize("name", ["reference_timeout", "reference_timeout_asyncio"])
def test_the_timeout_references_give_up_the_hung_call_and_wait_for_the_slow_ones(name: str) -> None:
    for _ in range(2):
        report = run_check(example(name), quick=True, follow_up="timeout")
        assert report.ok, report.render()
        assert "every slower call inside the limit was waited for" in report.check("timeout").explanation


@pytest.mark.parametrize(("name", "cause", "phrase"), TIMEOUT_BUGS, ids=[b[0] for b in TIMEOUT_BUGS])
def test_each_buggy_timeout_answer_fails_with_its_cause(name: str, cause: str, phrase: str) -> None:
    for _ in range(2 if cause != "timeout-waits" else 1):  # a crawl that waits costs its 4 s deadline
        result = run_check(example(name), quick=True, follow_up="timeout").check("timeout")
        assert not result.passed and result.cause == cause, result.explanation
        assert phrase in result.explanation


def test_the_hung_call_is_released_when_the_check_is_done_with_the_run() -> None:
    run = run_check(example("reference_timeout"), quick=True, follow_up="timeout").runs["timeout"]
    hung = [r for r in run.records if r.page == "http://a.com/hung"]
    assert len(hung) == 1 and hung[0].outcome == "abandoned" and hung[0].end is not None
    assert all(t.ended is not None for t in run.threads), run.threads  # the hung worker's thread ended too


RATE_BUGS = [
    # (example, the check that fails, its cause, what the check measured)
    ("buggy_rate_per_worker", "rate-limit", "rate-per-worker", "starts in"),
    ("buggy_rate_no_limit", "rate-limit", "rate-no-limit", "starts in"),
    ("buggy_rate_lock_held", "rate-use", "rate-one-at-a-time", "never more than one call in flight"),
    ("buggy_rate_asyncio_lock_held", "rate-use", "rate-one-at-a-time", "never more than one call in flight"),
]


@pytest.mark.parametrize("name", ["reference_rate", "reference_rate_asyncio"])
def test_the_rate_references_keep_to_the_bound_and_use_the_rate(name: str) -> None:
    for _ in range(2):
        report = run_check(example(name), quick=True, follow_up="rate")
        assert report.ok, report.render()
        assert "the fullest window held" in report.check("rate-limit").explanation


@pytest.mark.parametrize(("name", "check", "cause", "phrase"), RATE_BUGS, ids=[b[0] for b in RATE_BUGS])
def test_each_buggy_rate_answer_fails_with_its_cause_and_what_was_measured(
    name: str, check: str, cause: str, phrase: str
) -> None:
    result = run_check(example(name), quick=True, follow_up="rate").check(check)
    assert not result.passed and result.cause == cause, result.explanation
    assert phrase in result.explanation and "with max_rate" in result.explanation
    if phrase == "starts in":  # the window measured, whatever its length on this machine
        assert re.search(r"\b\d+ starts in \d+\.\d\d s with max_rate 20 ", result.explanation), result.explanation


def test_help_lists_every_round_with_its_signature(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name, params in [
        ("depth", "max_depth"),
        ("pages", "max_pages"),
        ("retries", "max_retries, backoff"),
        ("timeout", "timeout"),
        ("rate", "max_rate"),
        ("politeness", "per_host, gap"),
    ]:
        assert re.search(rf"\n  {name} +crawl\(start_url, get_urls, max_workers, {params}\)\n", out), name
    flat = " ".join(out.split())
    assert "max_rate * T + max_rate" in flat and "finishes without waiting for it" in flat
    assert "makes observable: L6's politeness and rate limits" in flat
    assert "cases: depth-limit, depth-shortest" in flat and "cases: rate-limit, rate-use" in flat
    assert "counted from start to start" in flat and "cases: polite-cap, polite-gap, polite-speed" in flat


def test_the_asyncio_answer_without_a_bound_fails_max_workers() -> None:
    report = run_check(example("buggy_asyncio_unbounded"), quick=True, only=["pool-2", "pool-3"])
    assert report.mode == "asyncio" and report.check("pool-2").passed
    result = report.check("max-workers")
    assert not result.passed and "fetches were in flight" in result.explanation


def evenly_spaced(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_rate: float
) -> list[str]:
    """A limiter with no burst: start slots 1/max_rate apart, handed out under a lock, slept for outside it."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    lock, slot = threading.Lock(), [time.monotonic()]

    def fetch(url: str) -> list[str]:
        with lock:
            mine = slot[0] = max(slot[0] + 1 / max_rate, time.monotonic())
        time.sleep(max(0.0, mine - time.monotonic()))
        return list(get_urls(url))

    host = urlsplit(start_url).hostname
    seen, level = {start_url}, [start_url]
    with ThreadPoolExecutor(max_workers) as pool:
        while level:
            found = [link for links in pool.map(fetch, level) for link in links]
            level = [link for link in dict.fromkeys(found) if urlsplit(link).hostname == host and link not in seen]
            seen.update(level)
    return sorted(seen)


def evenly_spaced_stopped_at_its_first_link(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int, max_rate: float
) -> list[str]:
    """The limiter above on a machine that stops the process just as the
    first link is fetched, for as long as six start slots: the slots that
    came due meanwhile all start together when it runs again."""
    import threading

    first = threading.Event()

    def get(url: str) -> Iterable[str]:
        if url != start_url and not first.is_set():
            first.set()
            freeze(6 / max_rate)
        return get_urls(url)

    return evenly_spaced(start_url, get, max_workers, max_rate)


@pytest.mark.parametrize("crawl", [evenly_spaced, evenly_spaced_stopped_at_its_first_link])
def test_a_limiter_without_a_burst_passes_and_the_report_names_the_choice(crawl: Callable[..., list[str]]) -> None:
    """Starts a stopped machine bunched are not the crawl's choice of a burst."""
    report = run_check(crawl, quick=True, follow_up="rate")
    assert report.ok, report.render()
    assert "this crawl chose evenly spaced starts" in report.check("rate-limit").explanation


@pytest.mark.parametrize("stopped", [0.0, 0.3], ids=["as-scheduled", "process-stopped-at-the-timeout"])
def test_the_asyncio_timeout_reference_cancels_the_hung_call(stopped: float) -> None:
    """Cancelled once it has run its timeout: how long after that the
    cancellation lands is the machine's (a process stopped for ``stopped``
    seconds just before the timeout cancels it that much later), so the
    report's measured seconds are checked against the limit, not as digits."""
    import asyncio

    from crawlsim.check.timeout_round import HUNG, INSIDE, TIMEOUT

    reference = example_module("reference_timeout_asyncio").crawl

    async def crawl(start_url: str, get_urls: Callable[[str], object], max_workers: int, timeout: float) -> object:
        if stopped:
            asyncio.get_running_loop().call_later(timeout - 0.1, freeze, stopped)
        return await reference(start_url, get_urls, max_workers, timeout)

    run_report = run_check(crawl, quick=True, follow_up="timeout")
    result = run_report.check("timeout")
    assert result.passed and "given up (cancelled after " in result.explanation, result.explanation
    (hung,) = [r for r in run_report.runs["timeout"].records if r.page == HUNG]
    assert hung.outcome == "cancelled" and hung.end is not None and hung.end - hung.start >= INSIDE * TIMEOUT
