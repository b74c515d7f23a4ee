"""Buggy asyncio ``timeout`` answer: the timeout also covers the wait for a free slot.

``asyncio.wait_for`` wraps the semaphore as well as the call, so a page that
waited for one of the ``max_workers`` slots is cancelled after a call far
shorter than ``timeout`` (``timeout``).

    crawlsim check examples/interview/buggy_timeout_asyncio_semaphore.py --follow-up timeout    # exit 1
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urldefrag, urlsplit


async def crawl(
    start_url: str,
    get_urls: Callable[[str], Awaitable[Iterable[str]]],
    max_workers: int = 8,
    timeout: float = 5.0,
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}
    slots = asyncio.Semaphore(max_workers)

    async def call(url: str) -> list[str]:
        async with slots:
            return list(await get_urls(url))

    async def fetch(url: str) -> list[str]:
        try:
            return await asyncio.wait_for(call(url), timeout)  # BUG: the clock runs while waiting for a slot
        except Exception:  # TimeoutError, or a failing page: found, no links
            return []

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
