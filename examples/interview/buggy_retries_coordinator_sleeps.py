"""Buggy ``retries`` answer: the coordinator sleeps through each backoff.

The retry waits grow and are jittered, and the pool keeps fetching what was
already submitted while the coordinator sleeps -- but nothing new is
submitted until it wakes, so links found in the meantime wait for every
backoff in turn (``retries``).

    crawlsim check examples/interview/buggy_retries_coordinator_sleeps.py --follow-up retries    # exit 1
"""

from __future__ import annotations

import random
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
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: dict[Future[Iterable[str]], tuple[str, int]] = {pool.submit(get_urls, start): (start, 0)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                url, attempt = pending.pop(future)
                try:
                    links = list(future.result())
                except TRANSIENT:
                    if attempt < max_retries:
                        time.sleep(backoff * 2**attempt * random.uniform(0.5, 1.5))  # BUG: the coordinator sleeps
                        pending[pool.submit(get_urls, url)] = (url, attempt + 1)
                    continue
                except Exception:
                    continue  # permanent: found, no links
                for link in links:
                    link = urldefrag(link)[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending[pool.submit(get_urls, link)] = (link, 0)
    return sorted(seen)
