"""Buggy ``politeness`` answer: the gap is counted from each call's return, not its start.

The reference's coordinator, moving a host's next start time on when a call
returns: two calls that may overlap (``per_host=2``) start together, neither
having returned (``polite-gap``), and with ``per_host=1`` each host waits a
whole call longer than it has to (``polite-speed``).

    crawlsim check examples/interview/buggy_politeness_gap_from_end.py --follow-up politeness    # exit 1
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def in_scope(url: str, domain: str) -> bool:
    """The start's hostname or one of its subdomains (``xa.com`` is not ``a.com``'s)."""
    host = urlsplit(url).hostname or ""
    return host == domain or host.endswith("." + domain)


def crawl(
    start_url: str,
    get_urls: Callable[[str], Iterable[str]],
    max_workers: int = 8,
    per_host: int = 2,
    gap: float = 0.1,
) -> list[str]:
    start = urldefrag(start_url)[0]
    domain = urlsplit(start).hostname or ""
    seen = {start}
    queues: dict[str, deque[str]] = defaultdict(deque)
    in_flight: dict[str, int] = defaultdict(int)
    next_start: dict[str, float] = defaultdict(float)  # monotonic time each host may start its next call
    running: dict[Future[list[str]], str] = {}

    def fetch(url: str) -> list[str]:
        try:
            return list(get_urls(url))
        except Exception:
            return []  # a failing page: found, no links

    def queue(url: str) -> None:
        queues[urlsplit(url).hostname or ""].append(url)

    def start_due(pool: ThreadPoolExecutor) -> float | None:
        """Submit every page whose host may start now; the seconds until the next host comes due."""
        soonest = None
        for host, pages in queues.items():
            while pages and in_flight[host] < per_host and len(running) < max_workers:
                now = time.monotonic()
                if now < next_start[host]:
                    wait_s = next_start[host] - now
                    soonest = wait_s if soonest is None else min(soonest, wait_s)
                    break
                in_flight[host] += 1
                running[pool.submit(fetch, pages.popleft())] = host
        return soonest

    queue(start)
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        while running or any(queues.values()):
            timeout = start_due(pool)
            if not running:
                time.sleep(timeout or 0.0)
                continue
            done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
            for future in done:
                host = running.pop(future)
                in_flight[host] -= 1
                next_start[host] = time.monotonic() + gap  # BUG: counted from the return, not the start
                for link in future.result():
                    link = urldefrag(link)[0]
                    if in_scope(link, domain) and link not in seen:
                        seen.add(link)
                        queue(link)
    return sorted(seen)
