"""Reference answer, sequential: a plain BFS, one fetch at a time.

Correct on every case, and the baseline to write first in an interview;
``crawlsim check`` reports it as correct but with no concurrency and no
speed-up.  ``max_workers`` is accepted (and ignored) so it has the same
signature as the concurrent answers.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit


def host_of(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int = 1) -> list[str]:
    start = start_url.partition("#")[0]
    host = host_of(start)
    found = {start}
    frontier = deque([start])
    while frontier:
        url = frontier.popleft()
        try:
            links = list(get_urls(url))
        except Exception:
            links = []
        for link in links:
            link = link.partition("#")[0]
            if link not in found and host_of(link) == host:
                found.add(link)
                frontier.append(link)
    return sorted(found)
