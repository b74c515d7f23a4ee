"""Deliberately buggy: a worker quits when the queue has been empty for 80 ms.

The result is right -- the worker that is fetching never quits, so it
handles whatever its page links -- but while the first page is in flight
the queue is empty, every other worker times out and returns, and the rest
of the crawl runs on one thread: effectively sequential, in a thread pool.
`crawlsim check` sees it in ``slow-service`` (its start page takes 0.2 s):
one fetch at a time, and 9 of the 10 threads gone after 0.08 s, which
fails ``workers-quit``; and the last thread returns only 80 ms after the
last fetch (``prompt-return``).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname
    seen = {start}
    lock = threading.Lock()
    q: queue.Queue[str] = queue.Queue()
    q.put(start)

    started = threading.Barrier(max_workers)  # every thread is up before the first fetch

    def worker() -> None:
        started.wait()
        while True:
            try:
                url = q.get(timeout=0.08)
            except queue.Empty:
                return  # BUG: an empty queue for a moment is not the end while fetches are in flight
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
                q.put(link)

    threads = [threading.Thread(target=worker) for _ in range(max_workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(seen)
