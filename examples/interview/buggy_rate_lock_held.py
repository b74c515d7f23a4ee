"""Buggy ``rate`` answer: the limiter's lock is held across the call.

The starts are spaced right, but the lock that spaces them is held while
``get_urls`` runs, so there is only ever one call in flight: on slow pages
the crawl uses a fraction of the rate it was given (``rate-use``).

    crawlsim check examples/interview/buggy_rate_lock_held.py --follow-up rate    # exit 1
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


class TokenBucket:
    """``rate`` tokens a second, at most ``rate`` saved up, shared by every worker."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = rate
        self.updated = time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> None:
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.rate, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            self.tokens -= 1  # may go negative: this caller's token is due later
            wait_s = -self.tokens / self.rate if self.tokens < 0 else 0.0
        if wait_s > 0:
            time.sleep(wait_s)  # outside the lock: others take their own tokens meanwhile


def crawl(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8, max_rate: float = 10.0
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}
    bucket = TokenBucket(max_rate)
    held = threading.Lock()

    def fetch(url: str) -> list[str]:
        with held:  # BUG: the lock is held across the call: one call at a time
            bucket.take()
            try:
                return list(get_urls(url))
            except Exception:
                return []  # a failing page: found, no links

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
