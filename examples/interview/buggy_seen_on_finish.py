"""Deliberately buggy: marks a URL seen only when its fetch *finishes*.

Looks fine on a chain, but when two pages in flight together both link the
same URL, neither sees it in ``seen`` (its fetch has not finished yet), so
both submit it and the page is fetched twice.  `crawlsim check` forces that
overlap (case ``seen-race``) so it shows on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname
    seen: set[str] = set()

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        running: dict[Future[list[str]], str] = {pool.submit(fetch, start): start}
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                url = running.pop(future)
                seen.add(url)  # BUG: marked seen on finish; a URL still in flight can be submitted again
                for link in future.result():
                    link = link.partition("#")[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        running[pool.submit(fetch, link)] = link
    return sorted(seen)
