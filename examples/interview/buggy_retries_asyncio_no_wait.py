"""Buggy ``retries`` answer with asyncio: retries at once, and a permanent error hangs the crawl.

Two faults that show on different cases.  A transient error is retried
straight away, with no backoff (``retry-backoff``, on ``retries``).  And
only ``ConnectionError`` and ``TimeoutError`` are caught: a ``ValueError``
ends the worker task before its ``task_done()``, so ``queue.join()`` waits
forever (``retries-permanent``).

    crawlsim check examples/interview/buggy_retries_asyncio_no_wait.py --follow-up retries    # exit 1
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urldefrag, urlsplit

TRANSIENT = (ConnectionError, TimeoutError)


async def crawl(
    start_url: str,
    get_urls: Callable[[str], Awaitable[Iterable[str]]],
    max_workers: int = 8,
    max_retries: int = 3,
    backoff: float = 0.1,
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}
    todo: asyncio.Queue[str] = asyncio.Queue()
    todo.put_nowait(start)

    async def fetch(url: str) -> list[str]:
        for attempt in range(max_retries + 1):
            try:
                return list(await get_urls(url))
            except TRANSIENT:
                if attempt == max_retries:
                    return []
                # BUG: no backoff: retried at once
        return []

    async def worker() -> None:
        while True:
            url = await todo.get()
            links = await fetch(url)  # BUG: a ValueError ends this task before task_done()
            for link in links:
                link = urldefrag(link)[0]
                if urlsplit(link).hostname == host and link not in seen:
                    seen.add(link)
                    todo.put_nowait(link)
            todo.task_done()

    workers = [asyncio.create_task(worker()) for _ in range(max_workers)]
    await todo.join()
    for task in workers:
        task.cancel()
    return sorted(seen)
