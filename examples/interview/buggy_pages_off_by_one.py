"""Buggy ``pages`` answer: the start page is not counted against the cap.

``len(seen) > max_pages`` lets one page too many in: ``max_pages + 1``
pages fetched and returned (``pages-cap``, ``pages-one``).

    crawlsim check examples/interview/buggy_pages_off_by_one.py --follow-up pages    # exit 1
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

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:  # drains what is in flight after the cap
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = urldefrag(link)[0]
                    if len(seen) > max_pages:  # BUG: the start is one of the max_pages
                        break
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)  # counted when submitted
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
