"""The checker finds a case's problems as data (problems.py), then words.py
writes them: the findings carry the evidence, the details agree with them,
and finding never changes the run it looks at."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from crawlsim.check import findings, judge, problems, words
from crawlsim.check.cases import case_named, expected_pages, page_of
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.check.trace import run_events
from crawlsim.trace.events import FetchStarted
from crawlsim.core.urls import host_key


def sequential_run(case_name: str, urls: list[str], result: list[str] | None = None) -> CaseRun:
    """A run that fetched ``urls`` one after another (each returning its
    page's links) and returned ``result`` (default: every page fetched)."""
    case = case_named(case_name, quick=True)
    links = {page_of(page): tuple(out) for page, out in case.links.items()}
    records = [
        FetchRecord(i, url, page_of(url), start=i * 0.01, slot=0, end=i * 0.01 + 0.005, outcome="ok",
                    links=links.get(page_of(url), ()))
        for i, url in enumerate(urls)
    ]
    returned = sorted(dict.fromkeys(urls)) if result is None else result
    return CaseRun(case=case, records=records, wall=len(urls) * 0.01, peak=1, result=returned)


def test_a_page_fetched_twice_is_one_finding_with_its_count_and_the_page_that_linked_it() -> None:
    pages = expected_pages(case_named("basic"))
    run = sequential_run("basic", [*pages, pages[1]])
    seen = problems.observe(run)
    (dup,) = [p for p in seen.problems if isinstance(p, findings.DuplicateFetches)]
    assert (dup.pages, dup.wasted) == (1, 1)
    (page,) = dup.shown
    assert page.page == pages[1] and page.times == 2 and page.linked_from
    assert findings.main_cause(seen.problems) == "dup-fetch"
    details = problems.details_dict(seen.details)
    assert details["fetched_more_than_once"][pages[1]]["times"] == 2
    assert f"{pages[1]} was fetched 2 times" in words.explain_failure("basic", run.case.lesson, seen.problems)


def test_an_off_host_fetch_names_its_url_and_why_the_host_is_another() -> None:
    pages = expected_pages(case_named("host-scope"))
    run = sequential_run("host-scope", [*pages, "http://pa.com/"], result=pages)
    seen = problems.observe(run)
    (off,) = [p for p in seen.problems if isinstance(p, findings.OffHostFetched)]
    assert off.urls == ("http://pa.com/",) and off.start_host == "a.com"
    text = judge.judge_case(run).explanation
    assert "http://pa.com/" in text and "pa.com is a look-alike host that merely contains 'a.com'" in text


def test_a_clean_run_has_no_problems_and_its_summary_counts_its_fetches() -> None:
    pages = expected_pages(case_named("cycle"))
    check = judge.judge_case(sequential_run("cycle", pages))
    assert check.passed and check.cause is None
    assert check.explanation.startswith(f"{len(pages)} pages, each fetched once ({len(pages)} fetches")


CASE = "host-scope"
CANDIDATES = sorted(
    {page_of(p) for p in case_named(CASE).links}
    | {link for links in case_named(CASE).links.values() for link in links}
    | {"http://a.com/#top", "http://A.com/about", "http://b.com/x"}
)


@given(st.lists(st.sampled_from(CANDIDATES), max_size=25))
def test_the_details_and_the_findings_name_the_same_wrong_urls_and_the_run_is_left_as_it_was(
    result: list[str],
) -> None:
    pages = expected_pages(case_named(CASE))
    run = sequential_run(CASE, pages, result=result)
    before = copy.deepcopy(run)
    seen = problems.observe(run)
    assert run == before
    expected = set(pages)
    extra = sorted(set(result) - expected)
    missing = sorted(expected - set(result))
    details = problems.details_dict(seen.details)
    assert details.get("extra", []) == extra[: problems.DETAIL_LIMIT]
    assert details.get("missing", []) == missing[: problems.DETAIL_LIMIT]
    kinds = (findings.FragmentsReturned, findings.OffHostReturned, findings.Respelled, findings.Unreachable)
    explained_extra = [url for p in seen.problems if isinstance(p, kinds) for url in p.urls]
    assert sorted(explained_extra) == extra  # each unexpected URL is explained exactly once
    explained_missing = [
        url for p in seen.problems if isinstance(p, findings.Missing) for url in p.urls
    ] + [url for p in seen.problems if isinstance(p, findings.MissedAsSpelled) for url, _ in p.pairs]
    assert sorted(explained_missing) == missing
    assert bool(seen.problems) == (not judge.judge_case(run).passed)


def test_a_trace_groups_fetches_by_the_one_host_key_while_scope_stays_the_same_hostname() -> None:
    case = case_named("url-details")
    urls = [case.start, "http://a.com:8080/port", "http://user@a.com/userinfo"]
    events = run_events(sequential_run("url-details", urls))
    started = [e for e in events if isinstance(e, FetchStarted)]
    assert [e.host for e in started] == [host_key(u) for u in urls] == ["a.com", "a.com:8080", "a.com"]
    check = judge.judge_case(sequential_run("url-details", urls))
    assert check.passed  # the port and the userinfo do not take the pages off a.com's hostname
