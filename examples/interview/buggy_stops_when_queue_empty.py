"""Deliberately buggy: decides the crawl is over when the queue is empty.

Workers put new links on a queue; the coordinator stops as soon as the
queue stays empty for a moment.  But while slow fetches are in flight the
queue *is* empty, and those fetches are about to return more links.  The
pool still waits for them on exit, so their links get marked seen but are
never fetched, and whatever those pages link to is lost.  `crawlsim check`
makes the first page's children slow (case ``termination``) so this shows on
every run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname
    seen = {start}
    lock = threading.Lock()
    todo: queue.Queue[str] = queue.Queue()
    todo.put(start)

    def visit(url: str) -> None:
        try:
            links = list(get_urls(url))
        except Exception:
            links = []
        for link in links:
            link = link.partition("#")[0]
            if urlsplit(link).hostname != host:
                continue
            with lock:
                if link in seen:
                    continue
                seen.add(link)
            todo.put(link)

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        while True:
            try:
                url = todo.get(timeout=0.1)
            except queue.Empty:
                break  # BUG: an empty queue is taken to mean "done" while fetches are still in flight
            pool.submit(visit, url)
    return sorted(seen)
