"""The ``pages`` follow-up: ``crawl(start_url, get_urls, max_workers, max_pages)``.

The base answer's coordinator loop, counting pages when they are
*submitted*: ``seen`` holds every page submitted, so no new page is
submitted once it holds ``max_pages``; the loop still waits for the
fetches in flight, which are part of the result.

    crawlsim check examples/interview/reference_pages.py --follow-up pages    # exit 0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def crawl(
    start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8, max_pages: int = 10**9
) -> list[str]:
    start = urldefrag(start_url)[0]
    host = urlsplit(start).hostname
    seen = {start}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []  # a failed page still counts as found; it has no links

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:  # drains what is in flight after the cap
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = urldefrag(link)[0]
                    if len(seen) >= max_pages:
                        break
                    if urlsplit(link).hostname == host and link not in seen:
                        seen.add(link)  # counted when submitted
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
