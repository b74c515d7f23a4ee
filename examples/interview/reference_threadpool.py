"""Reference answer: a thread-pool crawl with one coordinator.

The coordinator (the calling thread) is the only code that reads or writes
``found``, ``backlog`` and ``running``; pool threads only call ``get_urls``.
So there is no lock, and no check-then-act race.

* A URL goes into ``found`` the moment it is queued, so two pages returning
  together that both link it queue it once.
* The crawl ends when nothing is queued *and* nothing is in flight: an empty
  backlog alone says nothing about the fetches still running.
* At most ``max_workers`` futures exist at once, so memory held by finished
  link lists stays bounded and ``wait`` stays cheap on big crawls.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def strip_fragment(url: str) -> str:
    return url.partition("#")[0]


def host_of(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:  # e.g. a bad IPv6 literal: not a page we can crawl
        return None


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = strip_fragment(start_url)
    host = host_of(start)
    found = {start}
    backlog = deque([start])
    running: dict[Future[list[str]], str] = {}

    def links_of(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []  # the page counts as found; it just has no links we can follow

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        while backlog or running:
            while backlog and len(running) < max_workers:
                url = backlog.popleft()
                running[pool.submit(links_of, url)] = url
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                del running[future]
                for link in future.result():
                    link = strip_fragment(link)
                    if link not in found and host_of(link) == host:
                        found.add(link)  # marked when queued, never when fetched
                        backlog.append(link)
    return sorted(found)
