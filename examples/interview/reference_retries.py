"""The ``retries`` follow-up: ``crawl(start_url, get_urls, max_workers, max_retries, backoff)``.

Each worker retries its own page: a ``ConnectionError`` or ``TimeoutError``
is retried up to ``max_retries`` times, retry n after about
``backoff * 2**(n-1)`` seconds times a random factor from 0.5 to 1.5, so
failing pages do not retry in lockstep.  Any other exception is permanent:
the page counts as found, with no links.  The coordinator never sleeps:
the other workers go on fetching while one waits for its retry.

    crawlsim check examples/interview/reference_retries.py --follow-up retries    # exit 0
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

    def fetch(url: str) -> list[str]:
        for attempt in range(max_retries + 1):
            try:
                return list(get_urls(url))
            except TRANSIENT:
                if attempt == max_retries:
                    return []  # gave up: still found, no links
                time.sleep(backoff * 2**attempt * random.uniform(0.5, 1.5))
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
