"""Every case listed in seed 001, through the public ``crawlsim.crawl``."""

from __future__ import annotations

import threading
import time
from collections import Counter
from urllib.parse import urljoin

import pytest

import crawlsim


class Service:
    """A fake ``get_urls`` over a dict graph; counts fetches per URL."""

    def __init__(self, graph: dict[str, list[str]], delay: float = 0.0, fail: set[str] = frozenset()) -> None:
        self.graph = graph
        self.delay = delay
        self.fail = fail
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0

    def __call__(self, url: str) -> list[str]:
        with self._lock:
            self.calls[url] += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            if self.delay:
                time.sleep(self.delay)
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
    svc = Service({p: pages for p in pages}, delay=0.002)
    assert crawlsim.crawl(pages[0], svc, max_workers=8) == sorted(pages)
    assert sum(svc.calls.values()) == 50
    assert 1 < svc.peak <= 8


def _sequential(start: str, get_urls: Service) -> list[str]:
    seen, queue = {start}, [start]
    while queue:
        for link in get_urls(queue.pop(0)):
            if link not in seen and link.startswith("http://a.com/"):
                seen.add(link)
                queue.append(link)
    return sorted(seen)


def test_slow_fetches_concurrent_is_about_ten_times_faster() -> None:
    pages = [f"http://a.com/{i}" for i in range(100)]
    graph = {"http://a.com/": pages} | {p: [] for p in pages}
    seq_svc, par_svc = Service(graph, delay=0.05), Service(graph, delay=0.05)
    t0 = time.perf_counter()
    expected = _sequential("http://a.com/", seq_svc)
    t1 = time.perf_counter()
    got = crawlsim.crawl("http://a.com/", par_svc, max_workers=10)
    t2 = time.perf_counter()
    assert got == expected
    assert (t1 - t0) / (t2 - t1) > 5  # ideal is ~9x (101 pages, the root alone first)
    assert par_svc.peak == 10


def test_options_pass_through_to_the_core() -> None:
    svc = Service({"http://a.com/": ["/x", "/y", "http://b.com/"], "http://b.com/": ["/q"]})
    assert crawlsim.crawl("http://a.com/", svc, 4, scope="any", max_pages=3) == sorted(
        ["http://a.com/", "http://a.com/x", "http://a.com/y"]
    )
    with pytest.raises(crawlsim.OptionError, match="workrs: unknown crawler option; did you mean 'workers'"):
        crawlsim.crawl("http://a.com/", svc, 4, workrs=3)


def test_gap_spaces_real_request_starts() -> None:
    starts: list[float] = []
    graph = {"http://a.com/": [f"/{i}" for i in range(4)]}

    def get_urls(url: str) -> list[str]:
        starts.append(time.monotonic())
        return [urljoin(url, link) for link in graph.get(url, [])]

    crawlsim.crawl("http://a.com/", get_urls, 4, gap=0.1)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    # the core spaces starts exactly; a worker thread may pick its job up a
    # little late, which can shorten one measured gap by that lag (allow 20 ms)
    assert len(starts) == 5 and min(gaps) >= 0.08
