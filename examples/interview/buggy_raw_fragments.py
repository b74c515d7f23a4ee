"""Deliberately buggy: keeps links exactly as written, #fragment and all.

``/x`` and ``/x#top`` are one page, but this crawler treats them as two: it
fetches the page twice and returns both spellings (and ``/z#section``
instead of ``/z``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    host = urlsplit(start_url).hostname
    seen = {start_url}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        running: set[Future[list[str]]] = {pool.submit(fetch, start_url)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                for link in future.result():  # BUG: the #fragment is never dropped
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        running.add(pool.submit(fetch, link))
    return sorted(seen)
