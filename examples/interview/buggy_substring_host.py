"""Deliberately buggy: keeps a link when the start host appears anywhere in it.

``"a.com" in link`` lets in http://blog.a.com/ (a subdomain: another host),
http://a.com.evil.com/ and http://xa.com/ (look-alikes), even
http://evil.com/a.com/ -- and then crawls whatever those link to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname or ""
    seen = {start}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        running: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                for link in future.result():
                    link = link.partition("#")[0]
                    if host in link and link not in seen:  # BUG: substring match, not hostname equality
                        seen.add(link)
                        running.add(pool.submit(fetch, link))
    return sorted(seen)
