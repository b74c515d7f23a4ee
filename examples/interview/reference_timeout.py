"""The ``timeout`` follow-up: ``crawl(start_url, get_urls, max_workers, timeout)``.

A thread cannot be killed, so a call that hangs is *given up*, not stopped:
each worker notes when its call starts, the coordinator waits for the next
call to finish or the earliest call to run out of time, and drops a call
past ``timeout`` seconds (its page counts as found, with no links).  The
timeout is counted from when the call starts, so a page that waited in the
queue for a free worker still gets its full ``timeout``.  At the end the
pool is shut down without waiting: the hung thread is left to its call.

    crawlsim check examples/interview/reference_timeout.py --follow-up timeout    # exit 0
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def crawl(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8, timeout: float = 5.0
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}
    began: dict[str, float] = {}  # url -> when its call started (written by the worker)
    pool = ThreadPoolExecutor(max_workers=max_workers)

    def fetch(url: str) -> list[str]:
        began[url] = time.monotonic()
        return list(get_urls(url))

    pending: dict[Future[list[str]], str] = {pool.submit(fetch, start): start}
    try:
        while pending:
            deadlines = [began[url] + timeout for url in pending.values() if url in began]
            wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else timeout
            done, _ = wait(pending, timeout=wait_for, return_when=FIRST_COMPLETED)
            for future in done:
                pending.pop(future)
                try:
                    links = future.result()
                except Exception:
                    links = []  # a failing page: found, no links
                for link in links:
                    link = urldefrag(link)[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending[pool.submit(fetch, link)] = link
            now = time.monotonic()
            for future, url in list(pending.items()):
                if url in began and now - began[url] >= timeout:
                    del pending[future]  # given up: found, no links
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # never wait for a hung call's thread
    return sorted(seen)
