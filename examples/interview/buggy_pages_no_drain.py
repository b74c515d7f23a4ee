"""Buggy ``pages`` answer: at the cap the crawl returns at once.

The cap is right, but reaching it ends the loop with fetches still in
flight: the pool is shut down without waiting, the result lists pages
whose fetch has not finished, and their threads run on after the return
(``pages-cap``).

    crawlsim check examples/interview/buggy_pages_no_drain.py --follow-up pages    # exit 1
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def crawl(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8, max_pages: int = 10**9
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []  # a failed page still counts as found; it has no links

    pool = ThreadPoolExecutor(max_workers=max_workers)
    pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            for link in future.result():
                link = urldefrag(link)[0]
                if len(seen) >= max_pages:
                    pool.shutdown(wait=False)  # BUG: returns with the submitted fetches still in flight
                    return sorted(seen)
                if urlsplit(link).hostname == host and link not in seen:
                    seen.add(link)
                    pending.add(pool.submit(fetch, link))
    pool.shutdown()
    return sorted(seen)
