"""Buggy ``depth`` answer: a page keeps the depth of the first path that reached it.

The base answer's ``FIRST_COMPLETED`` loop, with the depth stored at
submit time.  When the short path to a page is slow, a longer path
reaches it first; the page is marked seen at the longer depth, and its
links past the limit are dropped, though they are within it
(``depth-shortest``).

    crawlsim check examples/interview/buggy_depth_first_path.py --follow-up depth    # exit 1
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def crawl(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8, max_depth: int = 10**9
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        depth_of: dict[Future[list[str]], int] = {pool.submit(fetch, start): 0}
        pending = set(depth_of)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                depth = depth_of.pop(future)
                if depth >= max_depth:
                    continue
                for link in future.result():
                    link = urldefrag(link)[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)  # BUG: first path wins; a shorter path found later is ignored
                        child = pool.submit(fetch, link)
                        depth_of[child] = depth + 1
                        pending.add(child)
    return sorted(seen)
