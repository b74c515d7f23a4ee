"""The ``timeout`` follow-up with asyncio: ``async def crawl(start_url, get_urls, max_workers, timeout)``.

A task per page, at most ``max_workers`` calls at once (a semaphore).  The
timeout wraps the call alone, inside the semaphore: a page that waited for
a free slot still gets its full ``timeout``.  ``asyncio.wait_for`` cancels
a call past it, and the page counts as found, with no links.

    crawlsim check examples/interview/reference_timeout_asyncio.py --follow-up timeout    # exit 0
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

    async def fetch(url: str) -> list[str]:
        async with slots:
            try:
                return list(await asyncio.wait_for(get_urls(url), timeout))
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
