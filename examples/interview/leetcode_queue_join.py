"""A LeetCode 1242 answer in the "``queue.join()`` pool" design.

Eight daemon threads loop on ``queue.get()``; each link that is new is
added to the found set under a lock and put on the queue *before* the page
that found it calls ``task_done()``, so ``queue.join()`` returns exactly
when every page put has been fetched.  The workers stay blocked on
``get()`` afterwards, but they are daemons: they do not keep the program
alive.  A fixed pool, as LeetCode's signature has no ``max_workers``:

    crawlsim check examples/interview/leetcode_queue_join.py --rules leetcode    # exit 0
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

THREADS = 8


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int | None = None) -> list[str]:
    host = urlsplit(start_url).hostname
    found = {start_url}
    lock = threading.Lock()
    todo: queue.Queue[str] = queue.Queue()
    todo.put(start_url)

    def work() -> None:
        while True:
            url = todo.get()
            try:
                for link in get_urls(url):
                    if urlsplit(link).hostname != host:
                        continue
                    with lock:
                        new = link not in found
                        found.add(link)
                    if new:
                        todo.put(link)
            finally:
                todo.task_done()

    for _ in range(THREADS):
        threading.Thread(target=work, daemon=True).start()
    todo.join()
    with lock:
        return list(found)
