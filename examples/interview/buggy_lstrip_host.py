"""Deliberately buggy: finds the host with ``url.lstrip("http://")``.

``str.lstrip`` removes any of the given *characters* from the left, not a
prefix: ``"http://pa.com/".lstrip("http://")`` is ``"a.com/"``, so pa.com,
ta.com and hta.com all look like a.com.  `crawlsim check`'s ``host-scope``
case links such hosts.  (``str.removeprefix`` would remove the prefix; the
right tool is ``urlsplit(url).hostname``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait


def host_of(url: str) -> str:
    return url.lstrip("http://").split("/")[0]  # BUG: strips the characters h, t, p, :, / -- not the prefix


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 8) -> list[str]:
    start = start_url.partition("#")[0]
    host = host_of(start)
    seen = {start}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = link.partition("#")[0]
                    if host_of(link) == host and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
