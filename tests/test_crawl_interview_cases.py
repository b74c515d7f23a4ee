"""Every case the interview question lists, through the public ``crawlsim.crawl``."""

from __future__ import annotations

import threading
from collections import Counter
from itertools import pairwise
from urllib.parse import urljoin

import pytest

import crawlsim
from crawlsim.trace.events import FetchStarted


class Service:
    """A fake ``get_urls`` over a dict graph; counts fetches per URL and the
    most calls in flight at once.  With ``together=n``, the first ``n`` calls
    of pages other than ``hold_from`` wait for each other at a barrier: they
    return only once ``n`` are in flight at the same moment, so a crawler that
    runs fewer at once breaks the barrier and those pages fail -- concurrency
    shown by overlap, never by timing."""

    def __init__(
        self,
        graph: dict[str, list[str]],
        fail: set[str] = frozenset(),
        together: int = 0,
        hold_from: str = "",
    ) -> None:
        self.graph = graph
        self.fail = fail
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.barrier = threading.Barrier(together, timeout=30) if together else None
        self.waiting = together
        self.hold_from = hold_from
        self.broken: list[str] = []
        """Pages whose barrier broke: too few fetches were in flight together."""

    def __call__(self, url: str) -> list[str]:
        with self._lock:
            self.calls[url] += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            wait = self.barrier is not None and url != self.hold_from and self.waiting > 0
            if wait:
                self.waiting -= 1
        try:
            if wait:
                assert self.barrier is not None
                try:
                    self.barrier.wait()  # breaks unless `together` calls overlap
                except threading.BrokenBarrierError:
                    self.broken.append(url)
                    raise
            if url in self.fail:
                raise RuntimeError(f"boom at {url}")
            return [urljoin(url, link) for link in self.graph.get(url, [])]
        finally:
            with self._lock:
                self.in_flight -= 1


def test_basic_graph_each_page_fetched_once() -> None:
    svc = Service({"http://a.com/": ["/x", "/y"], "http://a.com/x": ["/y", "/"]})
    assert crawlsim.crawl("http://a.com/", svc, 4) == ["http://a.com/", "http://a.com/x", "http://a.com/y"]
    assert set(svc.calls.values()) == {1}


def test_cycle_terminates() -> None:
    svc = Service({"http://a.com/1": ["/2"], "http://a.com/2": ["/3"], "http://a.com/3": ["/1"]})
    assert crawlsim.crawl("http://a.com/1", svc, 4) == ["http://a.com/1", "http://a.com/2", "http://a.com/3"]


def test_start_page_without_links() -> None:
    assert crawlsim.crawl("http://a.com/", Service({}), 4) == ["http://a.com/"]


def test_other_hosts_and_subdomains_are_excluded() -> None:
    svc = Service({"http://a.com/": ["http://blog.a.com/p", "http://b.com/", "http://a.com.evil.com/"]})
    assert crawlsim.crawl("http://a.com/", svc, 4) == ["http://a.com/"]
    assert "http://b.com/" not in svc.calls


def test_fragment_counted_once() -> None:
    svc = Service({"http://a.com/": ["http://a.com/x#top", "http://a.com/x"]})
    assert crawlsim.crawl("http://a.com/", svc, 4) == ["http://a.com/", "http://a.com/x"]
    assert svc.calls["http://a.com/x"] == 1


def test_failing_page_is_still_found_and_crawl_finishes() -> None:
    svc = Service({"http://a.com/": ["/x", "/y"], "http://a.com/y": ["/z"]}, fail={"http://a.com/x"})
    assert crawlsim.crawl("http://a.com/", svc, 4) == [
        "http://a.com/",
        "http://a.com/x",
        "http://a.com/y",
        "http://a.com/z",
    ]


def test_diamond_of_50_exactly_50_fetches() -> None:
    pages = [f"http://a.com/{i}" for i in range(50)]
    svc = Service({p: pages for p in pages}, together=2, hold_from=pages[0])
    assert crawlsim.crawl(pages[0], svc, max_workers=8) == sorted(pages)
    assert sum(svc.calls.values()) == 50
    assert svc.broken == []
    assert 2 <= svc.peak <= 8  # two fetches were in flight at once (the barrier held), never more than 8


def test_ten_workers_run_ten_fetches_at_once_and_never_more() -> None:
    """The root links to 100 pages, so the frontier holds more than 10 startable
    fetches: the crawler must have exactly 10 in flight.  The first 10 child
    fetches wait for each other, so this passes only if they overlap.  (The
    speed-up this buys is measured by benchmarks/drop_in_speedup.py.)"""
    pages = [f"http://a.com/{i}" for i in range(100)]
    graph = {"http://a.com/": pages} | {p: [] for p in pages}
    svc = Service(graph, together=10, hold_from="http://a.com/")
    assert crawlsim.crawl("http://a.com/", svc, max_workers=10) == sorted([*pages, "http://a.com/"])
    assert set(svc.calls.values()) == {1}
    assert svc.broken == []
    assert svc.peak == 10


def test_options_pass_through_to_the_core() -> None:
    svc = Service({"http://a.com/": ["/x", "/y", "http://b.com/"], "http://b.com/": ["/q"]})
    assert crawlsim.crawl("http://a.com/", svc, 4, scope="any", max_pages=3) == sorted(
        ["http://a.com/", "http://a.com/x", "http://a.com/y"]
    )
    with pytest.raises(crawlsim.OptionError, match="workrs: unknown crawler option; did you mean 'workers'"):
        crawlsim.crawl("http://a.com/", svc, 4, workrs=3)


def test_gap_spaces_real_request_starts() -> None:
    """The drop-in crawler's own trace (FetchStarted, on the clock it schedules
    by) spaces the five starts on a.com at least a gap apart, exactly."""
    graph = {"http://a.com/": [f"/{i}" for i in range(4)]}
    events: list[object] = []
    calls: list[str] = []

    def get_urls(url: str) -> list[str]:
        calls.append(url)
        return [urljoin(url, link) for link in graph.get(url, [])]

    crawlsim.crawl("http://a.com/", get_urls, 4, gap=0.1, on_event=events.append)
    starts = [e for e in events if isinstance(e, FetchStarted)]
    assert len(starts) == 5 and sorted(calls) == sorted(e.url for e in starts)
    assert all(b.t - a.t >= 0.1 - 1e-9 for a, b in pairwise(starts)), [e.t for e in starts]
