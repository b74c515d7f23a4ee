"""A correct answer to LeetCode 1242 (Web Crawler Multithreaded), in this signature.

LeetCode's statement never mentions fragments (its URLs are all ``http``, no port)
and guarantees that ``getUrls`` returns within 15 ms, so this answer
handles neither a fragment nor a raising ``get_urls`` -- and is right to by
those rules:

    crawlsim check examples/interview/leetcode_answer.py --rules leetcode    # exit 0
    crawlsim check examples/interview/leetcode_answer.py                     # interview rules: exit 1

Under the interview's rules it fails ``fragments`` and
``fetch-error``, and the report says those rules are the interview's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urlsplit


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    host = urlsplit(start_url).hostname
    seen = {start_url}
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[Iterable[str]]] = {pool.submit(get_urls, start_url)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(get_urls, link))
    return list(seen)
