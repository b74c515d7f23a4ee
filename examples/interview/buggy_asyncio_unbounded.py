"""Buggy asyncio answer: a task per page and nothing bounding them.

Right pages, fetched once each, but every link found becomes a task at
once: ``max_workers`` is never used, so a wide page puts all its links in
flight together (``max-workers``).

    crawlsim check examples/interview/buggy_asyncio_unbounded.py    # exit 1
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urldefrag, urlsplit


async def crawl(start_url: str, get_urls: Callable[[str], Awaitable[Iterable[str]]], max_workers: int = 8) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}

    async def fetch(url: str) -> list[str]:
        try:
            return list(await get_urls(url))  # BUG: no semaphore of max_workers around the call
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
