"""Buggy ``retries`` answer: waits that double, but the same on every page.

Retry n waits exactly ``backoff * 2**(n-1)``: the backoff grows as it
should, but with no random factor every failing page retries at the same
moments as the others, in lockstep (``retry-jitter``).

    crawlsim check examples/interview/buggy_retries_no_jitter.py --follow-up retries    # exit 1
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit

TRANSIENT = (ConnectionError, TimeoutError)


def crawl(
    start_url: str,
    get_urls: Callable[[str], Iterable[str]],
    max_workers: int = 8,
    max_retries: int = 3,
    backoff: float = 0.1,
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}

    def fetch(url: str) -> list[str]:
        for attempt in range(max_retries + 1):
            try:
                return list(get_urls(url))
            except TRANSIENT:
                if attempt == max_retries:
                    return []  # gave up: still found, no links
                time.sleep(backoff * 2**attempt)  # BUG: no random factor, so failing pages retry in lockstep
            except Exception:
                return []  # permanent: never retried
        return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = urldefrag(link)[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
