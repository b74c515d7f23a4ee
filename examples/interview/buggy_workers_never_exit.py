"""Deliberately buggy: returns the right answer, but its workers never stop.

Workers run ``while True: url = q.get()`` inside a thread pool that is never
shut down.  The crawl returns once ``q.join()`` says every URL is done, and
the result is right -- but the workers are still blocked on ``q.get()``, and
pool threads are not daemons: a program that calls this ``crawl`` prints its
answer and then never exits, because Python waits for them at exit.
`crawlsim check` runs the crawler in a child process, so the check itself
still ends; ``threads-exit`` names the line the workers are stuck on.
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
    q: queue.Queue[str] = queue.Queue()
    q.put(start)

    def worker() -> None:
        while True:
            url = q.get()  # BUG: nothing ever tells a worker to stop; it blocks here forever after the crawl
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
            q.task_done()

    pool = ThreadPoolExecutor(max_workers=max_workers)
    for _ in range(max_workers):
        pool.submit(worker)
    q.join()
    return sorted(seen)
