"""A LeetCode 1242 answer in the "``multiprocessing.pool.ThreadPool``" design.

``ThreadPool(max_workers)`` runs the fetches; each finished page's links
come back to this (main) thread through ``imap_unordered``, and only this
thread reads or writes the found set, so no lock is needed.  A link is kept
when its hostname equals the start's exactly.  Each round submits every
page found in the round before, so pages of one depth are fetched together:

    crawlsim check examples/interview/leetcode_threadpool.py --rules leetcode    # exit 0

(The pool's own handler threads wait on a pipe and poll a clock; the
checker's interleaving explorer runs them under its control too.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from multiprocessing.pool import ThreadPool
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    host = urlsplit(start_url).hostname
    found = {start_url}
    level = [start_url]

    def links_of(url: str) -> list[str]:
        return list(get_urls(url))

    with ThreadPool(max_workers) as pool:
        while level:
            following = []
            for links in pool.imap_unordered(links_of, level):
                for link in links:
                    if link not in found and urlsplit(link).hostname == host:
                        found.add(link)
                        following.append(link)
            level = following
    return sorted(found)
