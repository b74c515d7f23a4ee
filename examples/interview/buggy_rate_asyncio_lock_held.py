"""Buggy asyncio ``rate`` answer: the limiter's lock is held across the call.

The starts keep to the rate, but each task awaits ``get_urls`` while it
holds the bucket's lock, so one call is in flight at a time: on slow pages
the crawl uses a fraction of its rate (``rate-use``).

    crawlsim check examples/interview/buggy_rate_asyncio_lock_held.py --follow-up rate    # exit 1
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urldefrag, urlsplit


class TokenBucket:
    """``rate`` tokens a second, at most ``rate`` saved up, shared by every task."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = rate
        self.updated = time.monotonic()
        self.lock = asyncio.Lock()

    async def take(self) -> None:
        async with self.lock:
            now = time.monotonic()
            self.tokens = min(self.rate, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            self.tokens -= 1  # may go negative: this caller's token is due later
            wait_s = -self.tokens / self.rate if self.tokens < 0 else 0.0
        if wait_s > 0:
            await asyncio.sleep(wait_s)  # outside the lock


async def crawl(
    start_url: str,
    get_urls: Callable[[str], Awaitable[Iterable[str]]],
    max_workers: int = 8,
    max_rate: float = 10.0,
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}
    slots = asyncio.Semaphore(max_workers)
    bucket = TokenBucket(max_rate)

    async def fetch(url: str) -> list[str]:
        async with slots, bucket.lock:  # BUG: the lock is held across the call: one call at a time
            await asyncio.sleep(1 / max_rate)
            try:
                return list(await get_urls(url))
            except Exception:
                return []  # a failing page: found, no links

    tasks = {asyncio.create_task(fetch(start))}
    while tasks:
        done, tasks = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            for link in task.result():
                link = urldefrag(link)[0]
                if urlsplit(link).hostname == host and link not in seen:
                    seen.add(link)
                    tasks.add(asyncio.create_task(fetch(link)))
    return sorted(seen)
