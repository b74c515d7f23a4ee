"""The ``depth`` follow-up round: ``crawl(start_url, get_urls, max_workers, max_depth)``.

Two cases, each aimed at the round's classic mistakes:

* ``depth-limit`` -- a tree with single paths, deeper than ``max_depth=2``:
  no limit at all fetches the deeper pages; the start counted as depth 1
  loses the pages at depth 2; links found on depth-2 pages returned without
  a fetch show as unfetched pages of depth 3.
* ``depth-shortest`` -- ``/t`` is depth 2 through ``/slow`` (0.4 s) and
  depth 3 through ``/l1`` and ``/l2`` (10 ms each).  ``/slow`` is held at
  the door until ``/t`` has been called (``Case.held_until``), and takes its
  0.4 s only then, so the long path reaches ``/t`` first on every run,
  however late a loaded machine runs the crawl's threads: a crawl that keeps
  the depth of the first path that reached a page gives ``/t`` depth 3 and
  never follows its link to ``/leaf`` (depth 3, within the limit).  A crawl
  that fetches level by level waits out the hold once (``HOLD_TIMEOUT``).

Findings are measured from what the service recorded (which pages were
fetched, what was returned), against the case's true depths; anything else
(a page fetched twice, a crash) is judged as in the base check.
"""

from __future__ import annotations

import dataclasses

from crawlsim.check import judge
from crawlsim.check.cases import A, Case, _site, defrag, depths, expected_pages
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.words import named

SLOW = 0.4
"""The short path's first page: far slower than the long path's two pages."""


def depth_limit() -> Case:
    return Case(
        name="depth-limit",
        title="max_depth=2 on a tree four levels deep: depths 0 to 2 fetched and returned, nothing deeper",
        lesson="The start is depth 0; fetch pages of depth <= max_depth and do not follow links found at max_depth.",
        start=A + "/",
        links=_site(
            A,
            {
                "/": ["/a", "/b"],
                "/a": ["/a1"],
                "/b": ["/b1", "http://b.com/x"],
                "/a1": ["/a2"],
                "/b1": ["/b2"],
                "/a2": ["/a3"],
            },
        ),
        max_workers=4,
        level="L6",
        default_latency=0.01,
        args=(2,),
        max_depth=2,
    )


def depth_shortest() -> Case:
    return Case(
        name="depth-shortest",
        title="max_depth=3, /t reached first by a longer path: its depth is the shortest one (2)",
        lesson="A page's depth is its shortest link distance from the start, not the first path that reached it.",
        start=A + "/",
        links=_site(
            A,
            {
                "/": ["/slow", "/l1"],
                "/slow": ["/t"],
                "/l1": ["/l2"],
                "/l2": ["/t"],
                "/t": ["/leaf"],
                "/leaf": ["/beyond"],
                "/beyond": ["/further"],
            },
        ),
        max_workers=4,
        level="L6",
        latency={A + "/slow": SLOW},
        default_latency=0.01,
        held_until={A + "/slow": A + "/t"},
        args=(3,),
        max_depth=3,
    )


def DEPTH_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [depth_limit(), depth_shortest()]


def judge_depth(runs: dict[str, CaseRun]) -> list[CheckResult]:
    """One check per case of the round that ran."""
    out = []
    limit_missing = False
    for name in ("depth-limit", "depth-shortest"):
        run = runs.get(name)
        if run is None:
            continue
        check = _judge(run, limit_missing)
        if name == "depth-limit":
            limit_missing = check.cause == "depth-off-by-one"
        out.append(check)
    return out


def _judge(run: CaseRun, limit_missing: bool) -> CheckResult:
    case = run.case
    if run.error or run.timed_out or run.result is None:
        return judge.judge_case(run)
    found = _finding(run, limit_missing)
    if found is None:
        return judge.judge_case(run)
    cause, text, facts = found
    return CheckResult(case.name, False, text, facts, "correctness", case.level, case.title, cause=cause)


def _finding(run: CaseRun, limit_missing: bool) -> tuple[str, str, dict[str, object]] | None:
    """The round's own mistake shown by the run, if any: (cause, words, facts)."""
    case = run.case
    limit = case.max_depth or 0
    true = depths(dataclasses.replace(case, max_depth=None))
    returned = {defrag(url) for url in run.result or ()}
    fetched = {record.page for record in run.records}

    def deeper(pages: set[str]) -> list[str]:
        return sorted(p for p in pages if true.get(p, limit + 1) > limit)

    def at(pages: list[str]) -> str:
        return named(f"{p} (depth {true[p]})" if p in true else p for p in pages)

    facts: dict[str, object] = {"max_depth": limit, "fetched": sorted(fetched), "returned": sorted(returned)}
    if deeper(fetched):
        return (
            "depth-no-limit",
            f"Fetched {len(deeper(fetched))} pages deeper than max_depth={limit}: {at(deeper(fetched))}. "
            f"Keep each page's depth with it and do not follow links found on pages at depth {limit}.",
            facts,
        )
    if deeper(returned - fetched):
        return (
            "depth-unfetched",
            f"Returned {at(deeper(returned - fetched))} without fetching them: links found on pages at "
            f"max_depth={limit}. The result is the pages fetched (depth <= {limit}); links found at the limit "
            "are neither followed nor returned.",
            facts,
        )
    missing = sorted(set(expected_pages(case)) - returned)
    if not missing:
        return None
    if case.name == "depth-shortest" and not limit_missing and "http://a.com/t" in fetched:
        return (
            "depth-first-path",
            f"{at(missing)} missing: http://a.com/t is depth 2 (through http://a.com/slow, which takes "
            f"{SLOW:g} s), but the longer path through /l1 and /l2 reached it first and the crawl kept depth 3, "
            "so its links were not followed. A page's depth is its shortest distance from the start: crawl level "
            "by level, or lower a page's depth and follow its links again when a shorter path reaches it.",
            facts,
        )
    return (
        "depth-off-by-one",
        f"{at(missing)} missing from the result, though within max_depth={limit}: the start is depth 0, so pages "
        f"{limit} links away are still fetched (did the start count as depth 1, or the test use < instead of <=?).",
        facts,
    )
