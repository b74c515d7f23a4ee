"""Deliberately buggy: worker threads check and add to the seen set without a lock.

Each worker takes a URL from a queue, fetches it, and for every link runs
``if link not in seen: seen.add(link); q.put(link)``.  Two workers holding
pages that link the same URL can both pass the ``not in seen`` check before
either adds it, and the URL is fetched twice.  The window is a few bytecodes
wide, so on real threads this shows only sometimes; `crawlsim check`'s
``check-then-add`` case makes two pages return the same forty links at the
same moment to widen it, and the interleaving explorer (when installed)
catches it on every run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

STOP = ""


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = urlsplit(start).hostname
    seen = {start}
    q: queue.Queue[str] = queue.Queue()
    q.put(start)

    def worker() -> None:
        while True:
            url = q.get()
            if url is STOP:
                return
            try:
                links = list(get_urls(url))
            except Exception:
                links = []
            for link in links:
                link = link.partition("#")[0]
                if urlsplit(link).hostname != host:
                    continue
                if link not in seen:  # BUG: check-then-add without a lock; two workers can both pass
                    seen.add(link)
                    q.put(link)
            q.task_done()

    threads = [threading.Thread(target=worker) for _ in range(max_workers)]
    for thread in threads:
        thread.start()
    q.join()
    for _ in threads:
        q.put(STOP)
    for thread in threads:
        thread.join()
    return sorted(seen)
