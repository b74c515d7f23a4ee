"""Buggy ``timeout`` answer: the timeout counted from when a page is submitted.

It gives up the hung call and returns without waiting for it, but it starts
each page's clock when the page is submitted, so a page that waited in the
queue for a free worker is given up after a call far shorter than
``timeout`` (``timeout``).

    crawlsim check examples/interview/buggy_timeout_from_submit.py --follow-up timeout    # exit 1
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
    began: dict[str, float] = {}  # url -> when it was submitted
    pool = ThreadPoolExecutor(max_workers=max_workers)

    def submit(url: str) -> None:
        began[url] = time.monotonic()  # BUG: the clock starts at submission, queue time included
        pending[pool.submit(lambda: list(get_urls(url)))] = url

    pending: dict[Future[list[str]], str] = {}
    submit(start)
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
                        submit(link)
            now = time.monotonic()
            for future, url in list(pending.items()):
                if url in began and now - began[url] >= timeout:
                    del pending[future]  # given up: found, no links
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # never wait for a hung call's thread
    return sorted(seen)
