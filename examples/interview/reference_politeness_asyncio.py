"""The ``politeness`` follow-up with asyncio: a queue per host, a task started only when per_host and gap allow.

``async def crawl(start_url, get_urls, max_workers, per_host, gap)``, the
same design as ``reference_politeness.py`` on one event loop: the
coordinating coroutine keeps a queue of pages per host, each host's calls in
flight and the time its next call may start, and creates a task for a page
only when its host is under ``per_host``, its time has come and fewer than
``max_workers`` tasks run -- so each task's call starts at once, and the host's
next start moves ``gap`` on from then.  Between events it waits for the
first task to finish or the next host to come due.

    crawlsim check examples/interview/reference_politeness_asyncio.py --follow-up politeness    # exit 0
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from urllib.parse import urldefrag, urlsplit


def in_scope(url: str, domain: str) -> bool:
    """The start's hostname or one of its subdomains (``xa.com`` is not ``a.com``'s)."""
    host = urlsplit(url).hostname or ""
    return host == domain or host.endswith("." + domain)


async def crawl(
    start_url: str,
    get_urls: Callable[[str], Awaitable[Iterable[str]]],
    max_workers: int = 8,
    per_host: int = 2,
    gap: float = 0.1,
) -> list[str]:
    start = urldefrag(start_url)[0]
    domain = urlsplit(start).hostname or ""
    seen = {start}
    queues: dict[str, deque[str]] = defaultdict(deque)
    in_flight: dict[str, int] = defaultdict(int)
    next_start: dict[str, float] = defaultdict(float)  # monotonic time each host may start its next call
    running: dict[asyncio.Task[list[str]], str] = {}

    async def fetch(url: str) -> list[str]:
        try:
            return list(await get_urls(url))
        except Exception:
            return []  # a failing page: found, no links

    def queue(url: str) -> None:
        queues[urlsplit(url).hostname or ""].append(url)

    def start_due() -> float | None:
        """Start every page whose host may start now; the seconds until the next host comes due."""
        soonest = None
        for host, pages in queues.items():
            while pages and in_flight[host] < per_host and len(running) < max_workers:
                now = time.monotonic()
                if now < next_start[host]:
                    wait_s = next_start[host] - now
                    soonest = wait_s if soonest is None else min(soonest, wait_s)
                    break
                next_start[host] = now + gap  # from this call's start
                in_flight[host] += 1
                running[asyncio.create_task(fetch(pages.popleft()))] = host
        return soonest

    queue(start)
    while running or any(queues.values()):
        timeout = start_due()
        if not running:
            await asyncio.sleep(timeout or 0.0)
            continue
        done, _ = await asyncio.wait(running, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            in_flight[running.pop(task)] -= 1
            for link in task.result():
                link = urldefrag(link)[0]
                if in_scope(link, domain) and link not in seen:
                    seen.add(link)
                    queue(link)
    return sorted(seen)
