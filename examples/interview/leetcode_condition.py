"""A LeetCode 1242 answer in the "Condition with a working count" design.

A fixed pool of eight threads shares a frontier; a ``threading.Condition``
guards it together with a count of threads busy fetching.  A thread waits
while the frontier is empty but others are still working (their links may
refill it), and everyone leaves once the frontier is empty and nobody is
working.  LeetCode's signature has no ``max_workers``, so the pool size is a
constant -- accepted there, and by ``--rules leetcode``:

    crawlsim check examples/interview/leetcode_condition.py --rules leetcode    # exit 0
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

THREADS = 8


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int | None = None) -> list[str]:
    host = urlsplit(start_url).hostname
    found = {start_url}
    frontier = [start_url]
    busy = 0
    state = threading.Condition()

    def work() -> None:
        nonlocal busy
        while True:
            with state:
                while not frontier and busy:
                    state.wait()
                if not frontier:
                    state.notify_all()
                    return
                url = frontier.pop()
                busy += 1
            links = list(get_urls(url))
            with state:
                for link in links:
                    if urlsplit(link).hostname == host and link not in found:
                        found.add(link)
                        frontier.append(link)
                busy -= 1
                state.notify_all()

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return list(found)
