"""Scrapy's scheduling in the core: the ``lifo`` order and the download-slots
frontiers (``crawlsim.core.download_slots``), each against what Scrapy does."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from crawlsim.core import CrawlOptions, FetchStarted, Scheduler
from crawlsim.trace.events import FetchFailed, FetchFinished
from tests.fakeclock import run_fake
from tests.test_scheduler_properties import PROPS, reachable, webs


def started(fetches: list) -> list[str]:  # type: ignore[type-arg]
    return [f.url for f in fetches]


def test_lifo_fetches_the_url_queued_last_first() -> None:
    """Scrapy's ``LifoMemoryQueue``: a page's last link goes first, before any older URL."""
    sched = Scheduler(CrawlOptions(workers=1, order="lifo", scope="any"))
    sched.add_seeds(["http://a.test/"], 0.0)
    (seed,) = sched.poll(0.0)
    sched.on_response(seed.id, 1.0, links=["/1", "/2", "/3"])
    (first,) = sched.poll(1.0)
    sched.on_response(first.id, 2.0, links=["/4"])
    assert [f.url for f in [first, *sched.poll(2.0)]] == ["http://a.test/3", "http://a.test/4"]


def test_urls_waiting_in_a_slot_hold_the_workers_another_host_could_use() -> None:
    """``CONCURRENT_REQUESTS`` counts a request waiting for its host: with a.test busy
    since an earlier instant, its two new URLs take both free workers and b.test waits."""
    opts = CrawlOptions(workers=3, per_host=1, scope="any", frontier="download-slots-one-queue")
    sched = Scheduler(opts)
    sched.add_seeds(["http://a.test/", "http://b.test/"], 0.0)
    a, b = sched.poll(0.0)
    sched.on_response(b.id, 1.0, links=["http://a.test/1", "http://a.test/2", "http://b.test/1"])
    assert sched.poll(1.0) == [] and sched.next_wakeup() is None
    per_host = CrawlOptions(workers=3, per_host=1, scope="any")
    plain = Scheduler(per_host)
    plain.add_seeds(["http://a.test/", "http://b.test/"], 0.0)
    _, b2 = plain.poll(0.0)
    plain.on_response(b2.id, 1.0, links=["http://a.test/1", "http://a.test/2", "http://b.test/1"])
    assert started(plain.poll(1.0)) == ["http://b.test/1"]  # crawlsim's own frontier lets b.test go
    sched.on_response(a.id, 2.0)
    # a.test's transfer ended: every URL waiting in its slot starts at once, per_host 1 or not
    assert started(sched.poll(2.0)) == ["http://a.test/1", "http://a.test/2", "http://b.test/1"]


def test_the_host_with_the_fewest_fetches_gives_the_next_url() -> None:
    """Scrapy's default ``DownloaderAwarePriorityQueue``: the least busy slot goes next."""
    opts = CrawlOptions(workers=3, per_host=1, scope="any", frontier="download-slots")
    sched = Scheduler(opts)
    sched.add_seeds(["http://a.test/", "http://b.test/"], 0.0)
    a, b = sched.poll(0.0)
    sched.on_response(b.id, 1.0, links=["http://a.test/1", "http://a.test/2", "http://b.test/1"])
    # b.test has nothing in flight, a.test one: b.test's URL leaves first and starts
    assert started(sched.poll(1.0)) == ["http://b.test/1"]


def test_a_freed_worker_takes_the_next_url_before_the_pages_links_are_queued() -> None:
    """Scrapy's engine takes its next request as a download ends; the callback's links
    come after: so /1, queued before, goes before /3, found on the page just answered."""
    sched = Scheduler(CrawlOptions(workers=1, order="lifo", scope="any", frontier="download-slots"))
    sched.add_seeds(["http://a.test/"], 0.0)
    (seed,) = sched.poll(0.0)
    sched.on_response(seed.id, 1.0, links=["/1", "/2"])
    (second,) = sched.poll(1.0)
    sched.on_response(second.id, 2.0, links=["/3"])
    assert (second.url, started(sched.poll(2.0))) == ("http://a.test/2", ["http://a.test/1"])


def test_a_url_taken_as_a_download_ends_waits_for_what_the_slot_started_then() -> None:
    """Scrapy's slot starts what waits in it as a download ends; the request the engine
    takes for the freed place comes a loop turn later, finds those transferring, and
    waits for them all: at one per domain, one at a time once the first burst is over."""
    sched = Scheduler(CrawlOptions(workers=2, per_host=1, order="lifo", scope="any", frontier="download-slots"))
    sched.add_seeds(["http://a.test/"], 0.0)
    (seed,) = sched.poll(0.0)
    sched.on_response(seed.id, 1.0, links=["/1", "/2", "/3", "/4"])
    first, second = sched.poll(1.0)  # the engine brought both at once: both start
    sched.on_response(first.id, 2.0)
    assert sched.poll(2.0) == []  # /2 came for the freed place while `second` transfers
    sched.on_response(second.id, 3.0)
    assert started(sched.poll(3.0)) == ["http://a.test/2"]  # /1, taken now, waits for it


def test_a_download_delay_starts_one_url_per_gap_from_the_last_start() -> None:
    opts = CrawlOptions(workers=4, per_host=4, gap=1.0, scope="any", frontier="download-slots")
    run = run_fake({"http://a.test/": ["/1", "/2", "/3"]}, ["http://a.test/"], opts, latency=lambda u: 0.1)
    assert [s.t for s in run.starts] == [0.0, 1.0, 2.0, 3.0]


@PROPS
@given(webs(), st.integers(1, 5), st.sampled_from([None, 1, 2]), st.sampled_from(["download-slots",
                                                                                    "download-slots-one-queue"]),
       st.sampled_from(["bfs", "lifo"]), st.booleans())
def test_download_slots_fetch_every_page_once_within_the_workers(
    web, workers: int, per_host: int | None, frontier: str, order: str, robots: bool
) -> None:
    """Every reachable page once, never more than ``workers`` in flight, and a host
    starts a fetch only while fewer than ``per_host`` of its fetches that started at
    an earlier instant are in flight (the ones that started together may be more)."""
    graph, latency = web
    opts = CrawlOptions(workers=workers, per_host=per_host, scope="any", frontier=frontier, order=order,
                        robots=robots)
    run = run_fake(graph, ["http://a.com/p0"], opts, latency=lambda u: latency.get(u, 1.0))
    pages = Counter(s.url for s in run.starts if s.kind == "page")
    assert set(pages.values()) == {1} and set(pages) == reachable(graph, "http://a.com/p0")
    assert run.max_in_flight <= workers
    flying: dict[int, FetchStarted] = {}
    for event in run.events:
        if isinstance(event, FetchStarted):
            earlier = [s for s in flying.values() if s.host == event.host and s.t < event.t]
            assert len(earlier) < (per_host or workers)
            flying[event.fetch_id] = event
        elif isinstance(event, (FetchFinished, FetchFailed)):
            flying.pop(event.fetch_id, None)


def test_a_retried_robots_txt_goes_before_the_pages_waiting_for_it() -> None:
    opts = CrawlOptions(workers=2, per_host=1, robots=True, scope="any", frontier="download-slots")
    sched = Scheduler(opts)
    sched.add_seeds(["http://a.test/"], 0.0)
    (robots,) = sched.poll(0.0)
    sched.on_error(robots.id, 1.0, "timeout")  # retried after a backoff, behind the waiting start page
    wake = sched.next_wakeup()
    assert wake is not None and [f.kind for f in sched.poll(wake)] == ["robots"]
