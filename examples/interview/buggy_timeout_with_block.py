"""Buggy ``timeout`` answer: the right timeouts, then a ``with`` block that waits.

The calls are given up on time, but the pool is a ``with ThreadPoolExecutor``
block, whose end is ``shutdown(wait=True)``: the crawl waits for the hung
call's thread after all (``timeout``).

    crawlsim check examples/interview/buggy_timeout_with_block.py --follow-up timeout    # exit 1

A thread cannot be killed, so a call that hangs is *given up*, not stopped:
each worker notes when its call starts, the coordinator waits for the next
call to finish or the earliest call to run out of time, and drops a call
past ``timeout`` seconds (its page counts as found, with no links).  The
timeout is counted from when the call starts, so a page that waited in the
queue for a free worker still gets its full ``timeout``.  Only the end is
wrong: leaving the ``with`` block joins the hung thread.
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

    def fetch(url: str) -> list[str]:
        began[url] = time.monotonic()
        return list(get_urls(url))

    with ThreadPoolExecutor(max_workers=max_workers) as pool:  # BUG: its end waits for every thread
        pending: dict[Future[list[str]], str] = {pool.submit(fetch, start): start}
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
    return sorted(seen)
