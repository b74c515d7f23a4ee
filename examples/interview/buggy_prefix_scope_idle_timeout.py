"""Deliberately buggy: a prefix of the start URL as the scope test, and workers that stop after 2 s idle.

Two faults that show on different cases.  ``link.startswith(start_url)``
keeps only the pages under the start URL's path, so a crawl started at
``http://a.com/n0`` never leaves it although every page is on a.com
(``cycle``, ``diamond-50``, ``deep-chain``, ``large-graph``...).  And the
crawl is over only when every worker has waited 2 s on an empty queue: a
slow finish, not a hang -- it returns 2 s after its last fetch
(``prompt-return``), later than a short case's stall watch waits, so the
checker runs such a case again with more patience before calling it stuck.

    crawlsim check examples/interview/buggy_prefix_scope_idle_timeout.py --quick    # exit 1
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    seen = {start}
    lock = threading.Lock()
    q: queue.Queue[str] = queue.Queue()
    q.put(start)

    def worker() -> None:
        while True:
            try:
                url = q.get(timeout=2.0)  # BUG: done means two seconds with nothing queued
            except queue.Empty:
                return
            try:
                links = list(get_urls(url))
            except Exception:
                links = []
            for link in links:
                link = link.partition("#")[0]
                if not link.startswith(start):  # BUG: a prefix of the start URL, not its hostname
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
