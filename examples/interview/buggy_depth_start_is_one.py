"""Buggy ``depth`` answer: the start page counted as depth 1.

Every page's depth is one too many, so the pages exactly ``max_depth``
links away are never fetched (``depth-limit``).

    crawlsim check examples/interview/buggy_depth_start_is_one.py --follow-up depth    # exit 1
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
            return []

    level, depth = [start], 1  # BUG: the start is depth 0
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
        list(pool.map(fetch, level))
    return sorted(seen)
