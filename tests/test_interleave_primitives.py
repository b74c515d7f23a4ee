"""The interleaving explorer runs every standard way of putting work on threads.

Each design in tests/fixtures/interleave/every_primitive.py runs twice: with
an unlocked check-then-add on its seen set (the explorer must catch the
duplicate fetch) and with a lock around it (every schedule must return the
whole web, fetch each page once, and stay under the explorer's control:
no stall, no deadlock, no schedule stopped).
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

from crawlsim.check import interleave as il

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "interleave" / "every_primitive.py"
PAGES = [f"http://a.com/p{i}" for i in range(5)]
WEB = {page: [other for other in PAGES if other != page] for page in PAGES} | {PAGES[0]: PAGES[1:4]}
"""Every page links every other, except that the start does not link p4:
the threads fetching p1-p3 can claim p4 together, in every design (level
by level ones too)."""
WORKERS = 3


def _load():
    spec = importlib.util.spec_from_file_location("interleave_every_primitive", FIXTURE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


designs = _load()


def _crawler(name: str, seen_class: type):
    """``crawl(start_url, get_urls, max_workers)`` of one design, with a fresh seen set per call."""
    design = designs.DESIGNS[name]

    def crawl(start_url, get_urls, max_workers):
        return design(start_url, get_urls, max_workers, seen_class())

    return crawl


@pytest.mark.parametrize("name", sorted(designs.DESIGNS))
def test_an_unlocked_check_then_add_is_caught(name):
    report = il.find_duplicate_fetches(_crawler(name, designs.RacySeen), web=WEB, start_url=PAGES[0],
                                       files=[str(FIXTURE)], max_workers=WORKERS)
    assert report.problems == []
    assert report.first is not None, "the race was not found"
    assert report.first.race is not None and report.first.race.after.text == "if url in self.urls:"


@pytest.mark.parametrize("name", sorted(designs.DESIGNS))
def test_a_locked_seen_set_passes_every_schedule_under_control(name):
    crawl = _crawler(name, designs.LockedSeen)

    def target():
        calls: collections.Counter[str] = collections.Counter()

        def get_urls(url: str) -> list[str]:
            calls[url] += 1
            return WEB[url]

        return crawl(PAGES[0], get_urls, WORKERS), calls

    result = il.explore(target, files=[str(FIXTURE)])
    assert len(result.schedules) >= 8
    for schedule in [result.calibration, *result.schedules]:
        assert (schedule.outcome, schedule.problems, schedule.leftover) == ("returned", [], [])
        assert not schedule.nondeterministic
        found, calls = schedule.value
        assert found == PAGES and calls == dict.fromkeys(PAGES, 1)


def test_a_search_cut_short_is_reported_as_the_explorers_limit():
    crawl = _crawler("thread-pool-map-levels", designs.RacySeen)
    report = il.find_duplicate_fetches(crawl, web=WEB, start_url=PAGES[0], files=[str(FIXTURE)],
                                       max_workers=WORKERS, budget=0.0)
    assert report.first is None and report.schedules == 1  # the calibration only
    assert report.limit is not None and "time budget ran out after 0 of" in report.limit
    complete = il.find_duplicate_fetches(crawl, web=WEB, start_url=PAGES[0], files=[str(FIXTURE)],
                                         max_workers=WORKERS)
    assert complete.limit is None and complete.first is not None


def test_the_check_says_the_explorers_limit_is_its_own_not_the_crawlers(monkeypatch):
    from crawlsim.check import races, run_check

    monkeypatch.setattr(races, "EXPLORE_BUDGET", 0.0)
    crawl = _crawler("thread-pool-map-levels", designs.LockedSeen)
    report = run_check(crawl, quick=True, only=["check-then-add"], rules="leetcode")
    check = report.check("check-then-add")
    assert report.ok and check.passed and check.remark, check.explanation
    assert "could not run this crawl one thread at a time (its time budget ran out after 0 of" in check.explanation
    assert "a limit of the checker, not a fault in your code" in check.explanation
