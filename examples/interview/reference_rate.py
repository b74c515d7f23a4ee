"""The ``rate`` follow-up: ``crawl(start_url, get_urls, max_workers, max_rate)``.

One token bucket for the whole crawl: it holds at most ``max_rate`` tokens
(the burst) and refills at ``max_rate`` tokens a second.  A worker takes a
token before each call, under the bucket's lock, and sleeps outside the
lock until its token is due; the call itself runs with the lock released,
so up to ``max_workers`` calls are in flight while the starts keep to the
rate: at most ``max_rate * T + max_rate`` in any window of ``T`` seconds.

    crawlsim check examples/interview/reference_rate.py --follow-up rate    # exit 0
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

    def fetch(url: str) -> list[str]:
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
