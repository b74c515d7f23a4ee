"""The ``pages`` follow-up round: ``crawl(start_url, get_urls, max_workers, max_pages)``.

At most ``max_pages`` pages are fetched and returned, the start included;
the crawl stops submitting at the cap and drains what is in flight.  Which
pages make the cut is the crawl's choice (the report says which it made).

* ``pages-cap`` -- ``max_pages=10`` on a wide site (the start links to 30
  pages, each to 3 more): the start's links arrive all at once, so a cap on
  pages *fetched so far* submits all 30 (an overshoot on every run); a
  crawl that returns at the cap while fetches are in flight returns about
  50 ms before they end.
* ``pages-one`` -- ``max_pages=1``: only the start, an off-by-one shows.
"""

from __future__ import annotations

from collections import Counter

from crawlsim.check import evidence, judge
from crawlsim.check.cases import A, Case, _site, defrag, depths
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.words import named
from crawlsim.words import counted

LATENCY = 0.05
"""Each page's latency: the window in which a crawl that does not drain is caught."""


def _wide_site() -> dict[str, tuple[str, ...]]:
    paths: dict[str, list[str]] = {"/": [f"/p{i}" for i in range(30)]}
    for i in range(30):
        paths[f"/p{i}"] = [f"/p{i}/c{j}" for j in range(3)] + ["/"]
    return _site(A, paths)


def _case(name: str, cap: int, title: str) -> Case:
    return Case(
        name=name,
        title=title,
        lesson=(
            "Count pages when you submit them (len(seen)), stop submitting at max_pages, and drain what is in flight."
        ),
        start=A + "/",
        links=_wide_site(),
        max_workers=4,
        level="L6",
        default_latency=LATENCY,
        args=(cap,),
    )


def PAGES_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [
        _case("pages-cap", 10, "max_pages=10 on a site of 121 pages: exactly 10 fetched and returned, none in flight"),
        _case("pages-one", 1, "max_pages=1: only the start page"),
    ]


def judge_pages(runs: dict[str, CaseRun]) -> list[CheckResult]:
    return [_judge(runs[name]) for name in ("pages-cap", "pages-one") if name in runs]


def _judge(run: CaseRun) -> CheckResult:
    case = run.case
    if run.error or run.timed_out or run.result is None:
        return judge.judge_case(run)
    found = _finding(run)
    if found is None:
        return CheckResult(case.name, True, _chosen(run), {}, "correctness", case.level, case.title)
    cause, text = found
    details = {"max_pages": int(case.args[0]), "fetched": sorted({r.page for r in run.records})}
    return CheckResult(case.name, False, text, details, "correctness", case.level, case.title, cause=cause)


def _finding(run: CaseRun) -> tuple[str, str] | None:
    """The round's mistake shown by the run, if any: (cause, words)."""
    cap = int(run.case.args[0])
    fetches = Counter(r.page for r in run.records)
    returned = {defrag(url) for url in run.result or ()}
    if run.in_flight_at_return:
        return "pages-no-drain", (
            f"Returned at {run.wall:.2f} s with {counted(len(run.in_flight_at_return), 'fetch')} still in flight "
            f"({named(r.url for r in run.in_flight_at_return)}): stop submitting at the cap, but wait for the "
            "fetches already submitted before returning."
        )
    most = max(len(fetches), len(returned))
    if most > cap + 1:
        return "pages-overshoot", (
            f"{counted(len(fetches), 'page')} fetched and {len(returned)} returned with max_pages={cap}: the cap "
            "was checked against pages fetched so far, while many more were already submitted. Count a page when "
            "you submit it (len(seen)) and submit none once that count reaches max_pages."
        )
    if most == cap + 1 or len(returned) < min(cap, len(depths(run.case))):
        return "pages-off-by-one", (
            f"{counted(len(fetches), 'page')} fetched and {len(returned)} returned with max_pages={cap}: the start "
            "page counts as one of the max_pages, and the crawl goes on until it has that many."
        )
    left = evidence.left_running(run)
    if left:
        return "threads-left", (
            f"After the crawl returned, {counted(len(left), 'thread')} it started still ran ({left[0].name} at "
            f"{left[0].left_at}): shut the pool down (or join the workers) before returning."
        )
    twice = sorted(page for page, n in fetches.items() if n > 1)
    if twice:
        return "dup-fetch", f"Fetched {named(twice)} more than once."
    if returned != set(fetches):
        return "pages-unfetched", (
            f"The result and the pages fetched differ ({named(sorted(returned ^ set(fetches)))}): return the pages "
            "fetched, and only those."
        )
    return None


def _chosen(run: CaseRun) -> str:
    """A passing run's choice of pages, by depth."""
    depth = depths(run.case)
    by_depth = Counter(depth.get(defrag(url), -1) for url in run.result or ())
    shape = ", ".join(f"{n} at depth {d}" for d, n in sorted(by_depth.items()))
    return (
        f"{counted(len(run.result or ()), 'page')} fetched once each and returned, none in flight at the return "
        f"(max_pages={int(run.case.args[0])}; this crawl chose {shape})."
    )
