"""Deliberately buggy: lets an exception from get_urls escape.

One page whose fetch raises (a timeout, a reset connection) makes
``future.result()`` re-raise in the coordinator, and the whole crawl dies
with it instead of counting that page as found with no links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname
    seen = {start}

    def fetch(url: str) -> list[str]:
        return list(get_urls(url))  # BUG: no try/except; one failing page ends the crawl

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        running: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                for link in future.result():
                    link = link.partition("#")[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        running.add(pool.submit(fetch, link))
    return sorted(seen)
