"""Buggy ``pages`` answer: the cap counts pages fetched so far, not pages submitted.

When the start page returns its 30 links, one page has been fetched, so
all 30 are submitted: far more than ``max_pages`` fetched and returned
(``pages-cap``).

    crawlsim check examples/interview/buggy_pages_counts_fetched.py --follow-up pages    # exit 1
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
    fetched = 0

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []  # a failed page still counts as found; it has no links

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:  # drains what is in flight after the cap
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                fetched += 1
                for link in future.result():
                    link = urldefrag(link)[0]
                    if fetched >= max_pages:  # BUG: pages submitted but still in flight are not counted
                        break
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
