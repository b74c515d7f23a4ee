"""Deliberately buggy: the pool size is a constant, not ``max_workers``.

Otherwise the reference design (one coordinator, seen marked on submit,
``wait(FIRST_COMPLETED)``).  With ``max_workers=2`` it still runs eight
fetches at once, over the caller's limit; with ``max_workers=10`` it never
uses more than eight.  `crawlsim check` runs cases with ``max_workers`` of 2
and 3 and a dozen pages ready at once (``pool-2``, ``pool-3``).
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
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=8) as pool:  # BUG: ignores max_workers
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = link.partition("#")[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
