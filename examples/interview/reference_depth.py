"""The ``depth`` follow-up: ``crawl(start_url, get_urls, max_workers, max_depth)``.

Level by level: every page of one depth is fetched at once in the pool,
and their new links make the next level.  A page's depth is then its BFS
level -- its shortest distance from the start -- however slow the pages
on the short path are; links found on the last level are not followed.

    crawlsim check examples/interview/reference_depth.py --follow-up depth    # exit 0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
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
            return []  # a failed page still counts as found; it has no links

    level, depth = [start], 0
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        while level and depth < max_depth:
            following = []
            for links in pool.map(fetch, level):
                for link in links:
                    link = urldefrag(link)[0]
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        following.append(link)
            level, depth = following, depth + 1
        list(pool.map(fetch, level))  # the last level is fetched, its links not followed
    return sorted(seen)
