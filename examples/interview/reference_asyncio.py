"""Reference answer: asyncio workers over a queue, for an ``async`` get_urls.

``max_workers`` worker tasks take URLs from an ``asyncio.Queue``.  The
queue's unfinished-task count is the in-flight tracking: ``put`` raises it,
``task_done`` lowers it only after a page's links have been queued, so
``queue.join()`` returns exactly when nothing is queued and nothing is being
fetched.  Everything runs on one event loop, so ``found`` needs no lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urlsplit


def strip_fragment(url: str) -> str:
    return url.partition("#")[0]


def host_of(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


async def crawl(start_url: str, get_urls: Callable[[str], Awaitable[Iterable[str]]], max_workers: int = 8) -> list[str]:
    start = strip_fragment(start_url)
    host = host_of(start)
    found = {start}
    queue: asyncio.Queue[str] = asyncio.Queue()
    queue.put_nowait(start)

    async def worker() -> None:
        while True:
            url = await queue.get()
            try:
                try:
                    links = list(await get_urls(url))
                except Exception:
                    links = []  # found, with no links
                for link in links:
                    link = strip_fragment(link)
                    if link not in found and host_of(link) == host:
                        found.add(link)  # marked when queued
                        queue.put_nowait(link)
            finally:
                queue.task_done()

    workers = [asyncio.create_task(worker()) for _ in range(max_workers)]
    try:
        await queue.join()
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return sorted(found)
