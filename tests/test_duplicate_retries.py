"""A page is counted once however its spellings and their retries fare.

With weak normalization one page can be fetched under several spellings; a
spelling's fetch can fail transiently and be retried.  Whatever the order,
``pages_fetched`` is the number of distinct pages that answered, and every
fetch of a page another spelling already claimed is a duplicate fetch --
retries included, so the counter agrees with the ``duplicate`` flag the
views replay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from crawlsim import CrawlOptions, Scheduler
from crawlsim.core.urls import canonicalize

PAGES = [f"http://a.com/p{i}" for i in range(4)]
SPELLINGS = ["", "#top", "#end"]


@given(
    links=st.lists(st.tuples(st.sampled_from(PAGES), st.sampled_from(SPELLINGS)), min_size=1, max_size=12),
    fail=st.sets(st.tuples(st.integers(0, 11), st.integers(1, 2))),
    workers=st.integers(1, 3),
)
def test_pages_fetched_counts_each_page_once_through_retries(
    links: list[tuple[str, str]], fail: set[tuple[int, int]], workers: int
) -> None:
    sched = Scheduler(CrawlOptions(workers=workers, normalize="off", max_retries=2, backoff_base=0.1, backoff_max=0.1))
    sched.add_seeds(["http://a.com/"], 0.0)
    hrefs = [page + frag for page, frag in links]
    order = {}  # URL -> its index among the links, to pick which attempts fail
    answered: set[str] = set()
    flagged = 0
    now = 0.0
    while not sched.done:
        for fetch in sched.poll(now):
            flagged += fetch.duplicate
            if fetch.url == "http://a.com/":
                sched.on_response(fetch.id, now + 0.1, status=200, links=hrefs)
                continue
            index = order.setdefault(fetch.url, len(order))
            if (index, fetch.attempt) in fail:
                sched.on_response(fetch.id, now + 0.1, status=503)
            else:
                sched.on_response(fetch.id, now + 0.1, status=200)
                answered.add(canonicalize(fetch.url, mode="fragment") or fetch.url)
        now += 0.25
    assert sched.stats.pages_fetched == 1 + len(answered)  # the seed and each distinct page
    assert sched.stats.duplicate_fetches == flagged
