"""Buggy ``politeness`` answer: per_host caps the whole crawl's calls in flight, not each host's.

The reference's coordinator, comparing the calls in flight on *every* host
with ``per_host``: the hosts share one allowance, so the crawl never has
more than ``per_host`` calls in flight (``polite-cap``) and with
``per_host=1`` fetches one page at a time (``polite-speed``).

    crawlsim check examples/interview/buggy_politeness_global_cap.py --follow-up politeness    # exit 1
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
            while pages and sum(in_flight.values()) < per_host and len(running) < max_workers:  # BUG: one count
                now = time.monotonic()
                if now < next_start[host]:
                    wait_s = next_start[host] - now
                    soonest = wait_s if soonest is None else min(soonest, wait_s)
                    break
                next_start[host] = now + gap  # from this call's start
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
                in_flight[running.pop(future)] -= 1
                for link in future.result():
                    link = urldefrag(link)[0]
                    if in_scope(link, domain) and link not in seen:
                        seen.add(link)
                        queue(link)
    return sorted(seen)
