"""The ``politeness`` follow-up round (``crawlsim check FILE.py:crawl --follow-up
politeness``): the judge's findings on recorded calls written out here (the
same verdict every time, whatever the machine), and the shipped answers
graded as a user grades them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crawlsim.check import run_check
from crawlsim.check.cases import Case, expected_pages, in_scope, page_of
from crawlsim.check.politeness_round import POLITENESS_CASES, busiest_host_bound, judge_politeness
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"
START_RETURNS = 0.01
"""When the start page's call returns in the written-out runs below."""


def example(name: str) -> str:
    return f"{EXAMPLES / name}.py:crawl"


def case(name: str) -> Case:
    return next(c for c in POLITENESS_CASES() if c.name == name)


def pages_by_host(c: Case) -> list[list[str]]:
    hosts: dict[str, list[str]] = {}
    for page in c.links:
        if page != c.start:
            hosts.setdefault(page.split("/")[2], []).append(page)
    return list(hosts.values())


def recorded(c: Case, starts: dict[str, float]) -> CaseRun:
    """A run of ``c`` that returned the right pages, its calls starting at
    ``starts`` (page -> seconds) and each taking the case's latency."""
    calls = [(c.start, 0.0), *sorted(starts.items(), key=lambda item: item[1])]
    records = [
        FetchRecord(
            i + 1, url, page_of(url), at, 0, round(at + (START_RETURNS if url == c.start else c.default_latency), 6),
            "ok", c.links.get(url, ()), thread=f"worker-{i}",
        )
        for i, (url, at) in enumerate(calls)
    ]
    wall = max(r.end or 0.0 for r in records) + 0.001
    return CaseRun(c, records=records, result=expected_pages(c), wall=wall, timeout=10.0, peak=1)


def judged(c: Case, starts: dict[str, float], cap_starts: dict[str, float] | None = None) -> CheckResult:
    runs = {c.name: recorded(c, starts)}
    if cap_starts is not None:
        runs["polite-cap"] = recorded(case("polite-cap"), cap_starts)
    return next(check for check in judge_politeness(runs) if check.name == c.name)


def waves(c: Case, per_host: int, step: float) -> dict[str, float]:
    """Each host's pages ``per_host`` at a time, a wave every ``step`` seconds, every host at once."""
    return {
        page: START_RETURNS + (j // per_host) * step for pages in pages_by_host(c) for j, page in enumerate(pages)
    }


# ---------------------------------------------------------------- the judge, on written-out calls


def test_calls_within_both_limits_pass_with_what_was_measured() -> None:
    c = case("polite-speed")
    result = judged(c, waves(c, 1, 0.1001))
    assert result.passed, result.explanation
    assert "At most 1 call in flight on one host (per_host 1), up to 4 across 4 hosts" in result.explanation
    assert "the closest starts on one host were 0.100 s apart (gap 0.1)" in result.explanation
    assert "(busiest-host bound 0.60 s)" in result.explanation


def test_too_many_in_flight_on_one_host_names_the_host_how_many_and_when() -> None:
    c = case("polite-cap")
    starts = waves(c, 2, 0.0501)
    starts.update(dict.fromkeys(pages_by_host(c)[1][:5], 0.5))  # five of h2.a.com's pages at once, later
    result = judged(c, starts)
    assert not result.passed and result.cause == "polite-per-host", result.explanation
    assert result.explanation.startswith("h2.a.com had 5 calls in flight at 0.50 s with per_host 2")


def test_a_cap_on_the_whole_crawl_is_named_as_a_global_cap() -> None:
    c = case("polite-cap")
    every = [page for pages in pages_by_host(c) for page in pages]
    starts = {page: START_RETURNS + (i // 2) * 0.0501 for i, page in enumerate(every)}  # two at a time, in all
    result = judged(c, starts)
    assert not result.passed and result.cause == "polite-global-cap", result.explanation
    assert "Never more than 2 calls in flight across 3 hosts with per_host 2" in result.explanation


def test_starts_closer_than_the_gap_are_a_violation_with_the_measured_gap() -> None:
    c = case("polite-gap")
    starts = waves(c, 1, 0.1501)
    late = pages_by_host(c)[2][3]
    starts[late] = starts[pages_by_host(c)[2][2]] + 0.03  # one start 30 ms after the one before
    result = judged(c, starts)
    assert not result.passed and result.cause == "polite-gap", result.explanation
    assert re.match(r"Two calls on h3\.a\.com started 0\.030 s apart \(at 0\.31 s and 0\.34 s\) with gap 0\.15", (
        result.explanation
    )), result.explanation


def test_a_gap_counted_from_returns_is_named_where_overlapping_calls_start_together() -> None:
    c = case("polite-gap")
    # two at a time; each pair starts a gap after the pair before returned
    starts = waves(c, 2, c.default_latency + 0.1501)
    result = judged(c, starts)
    assert not result.passed and result.cause == "polite-gap-from-end", result.explanation
    assert "every call started at least 0.15 s after its host's last call returned" in result.explanation


def test_a_gap_counted_from_returns_is_named_where_it_only_slows_the_crawl() -> None:
    c = case("polite-speed")
    result = judged(c, waves(c, 1, c.default_latency + 0.1001))
    assert not result.passed and result.cause == "polite-gap-from-end", result.explanation
    assert "The crawl took 1.10 s after the start page returned; the busiest-host bound is 0.60 s" in (
        result.explanation
    )
    assert "a median 0.10 s after the host's last call returned" in result.explanation


def test_hosts_that_wait_for_each_other_are_named_with_the_rate_measured() -> None:
    c = case("polite-speed")
    every = [page for j in range(6) for pages in pages_by_host(c) for page in pages[j : j + 1]]
    result = judged(c, {page: START_RETURNS + i * 0.1001 for i, page in enumerate(every)})  # one start per gap
    assert not result.passed and result.cause == "polite-serialised", result.explanation
    assert "Its 24 calls started 10.0 per second across 4 hosts" in result.explanation
    assert "A lock held while sleeping" in result.hint


def test_a_global_cap_in_polite_cap_names_the_slow_crawl_the_same_way() -> None:
    c = case("polite-speed")
    every = [page for j in range(6) for pages in pages_by_host(c) for page in pages[j : j + 1]]
    starts = {page: START_RETURNS + i * 0.1001 for i, page in enumerate(every)}  # one at a time
    cap = case("polite-cap")
    cap_every = [page for pages in pages_by_host(cap) for page in pages]
    result = judged(c, starts, cap_starts={p: START_RETURNS + (i // 2) * 0.0501 for i, p in enumerate(cap_every)})
    assert not result.passed and result.cause == "polite-global-cap", result.explanation
    assert "Never more than 1 call in flight across 4 hosts with per_host 1" in result.explanation


def test_a_crawl_that_kept_the_exact_host_rule_is_told_the_rounds_scope() -> None:
    c = case("polite-gap")
    run = recorded(c, {})
    run.result = [c.start]
    result = judge_politeness({c.name: run})[0]
    assert not result.passed and result.cause == "polite-scope", result.explanation
    assert result.explanation.startswith("No call went to the start's subdomains (h1.a.com, h2.a.com, h3.a.com)")


def test_the_busiest_host_bound_is_its_pages_gap_apart_plus_a_call() -> None:
    assert busiest_host_bound(case("polite-speed")) == pytest.approx(5 * 0.1 + 0.1)
    assert busiest_host_bound(case("polite-gap")) == pytest.approx(4 * 0.15 + 0.02)
    assert busiest_host_bound(case("polite-cap")) == pytest.approx(4 * 0.05)  # per_host 2, no gap


def test_the_round_scope_takes_in_subdomains_and_nothing_that_merely_ends_alike() -> None:
    c = case("polite-cap")
    assert in_scope(c, "http://h1.a.com/p0") and in_scope(c, "http://a.com/x")
    assert not in_scope(c, "http://xa.com/") and not in_scope(c, "http://a.com.evil.com/")
    assert "http://xa.com/" not in expected_pages(c) and "http://h3.a.com/p7" in expected_pages(c)
    base = Case("t", "", "", "http://a.com/", {}, 4, "L4")
    assert not in_scope(base, "http://blog.a.com/p")  # the base question: the start's hostname alone


# ---------------------------------------------------------------- the shipped answers

POLITENESS_BUGS = [
    # (example, the check that fails, its cause, what the check measured)
    ("buggy_politeness_no_cap", "polite-cap", "polite-per-host", "calls in flight at"),
    ("buggy_politeness_global_cap", "polite-cap", "polite-global-cap", "calls in flight across 3 hosts"),
    ("buggy_politeness_gap_from_end", "polite-gap", "polite-gap-from-end", "after its host's last call returned"),
    ("buggy_politeness_gap_from_end", "polite-speed", "polite-gap-from-end", "after the host's last call returned"),
    ("buggy_politeness_lock_sleeps", "polite-speed", "polite-serialised", "the hosts waited for each other"),
    ("buggy_politeness_asyncio_no_gap", "polite-gap", "polite-gap", "s apart (at "),
]


@pytest.mark.parametrize("name", ["reference_politeness", "reference_politeness_asyncio"])
def test_the_politeness_references_keep_both_limits_near_the_bound(name: str) -> None:
    report = run_check(example(name), quick=True, follow_up="politeness")
    assert report.ok, report.render()
    assert {c.name for c in report.checks} == {"polite-cap", "polite-gap", "polite-speed"}
    assert "busiest-host bound" in report.check("polite-speed").explanation


@pytest.mark.parametrize(
    ("name", "check", "cause", "phrase"), POLITENESS_BUGS, ids=[f"{b[0]}-{b[1]}" for b in POLITENESS_BUGS]
)
def test_each_buggy_politeness_answer_fails_with_its_cause_and_what_was_measured(
    name: str, check: str, cause: str, phrase: str
) -> None:
    report = run_check(example(name), quick=True, follow_up="politeness", only=[check])
    result = report.check(check)
    assert not result.passed and result.cause == cause, result.explanation
    assert phrase in result.explanation


def test_the_base_cases_run_under_the_round_except_the_exact_host_rule_it_widens() -> None:
    report = run_check(example("reference_politeness"), follow_up="politeness")
    names = [c.name for c in report.checks]
    assert report.ok, report.render()
    assert "basic" in names and "many-hosts" in names and "host-scope" not in names
    assert "the base case host-scope, whose rule this widens, does not run" in " ".join((report.contract or "").split())


def test_asking_for_the_skipped_base_case_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    assert main(["check", example("reference_politeness"), "--follow-up", "politeness", "--only", "host-scope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "case host-scope does not run under round politeness" in err, err


def test_a_stop_of_the_machine_after_the_last_fetch_is_not_the_crawls_wait() -> None:
    """The time from the last fetch to the return (prompt-return's evidence) leaves out
    spans in which the machine stopped the process: a loaded machine's seconds, not a
    crawl waiting for a timeout; a wait the crawl made itself still counts."""
    c = case("polite-cap")
    run = recorded(c, {})
    last = max(r.end or 0.0 for r in run.records)
    run.wall = last + 0.3
    assert run.tail == pytest.approx(0.3)
    run.stops.append((last + 0.05, last + 0.29))
    assert run.tail == pytest.approx(0.06)
