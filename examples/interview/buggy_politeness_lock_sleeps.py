"""Buggy ``politeness`` answer: one lock held while sleeping for a host's gap, so every host waits.

Workers keep the limits themselves: a semaphore of ``per_host`` per host,
and one table of next start times behind one lock.  A worker sleeps until
its host's time *inside* that lock, so while it waits for its own host every
other worker -- whatever its host -- waits for the lock: the crawl starts
about one call per ``gap`` in all, as if every page were on one host
(``polite-speed``).  The limits themselves are kept.

    crawlsim check examples/interview/buggy_politeness_lock_sleeps.py --follow-up politeness    # exit 1
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from urllib.parse import urldefrag, urlsplit


def in_scope(url: str, domain: str) -> bool:
    """The start's hostname or one of its subdomains (``xa.com`` is not ``a.com``'s)."""
    host = urlsplit(url).hostname or ""
    return host == domain or host.endswith("." + domain)


class Politeness:
    """Per host: a semaphore of per_host slots and the time its next call may start."""

    def __init__(self, per_host: int, gap: float) -> None:
        self.gap = gap
        self.lock = threading.Lock()
        self.next_start: dict[str, float] = defaultdict(float)
        self.slots: dict[str, threading.Semaphore] = defaultdict(lambda: threading.Semaphore(per_host))
        self.slots_lock = threading.Lock()  # held only to find a host's semaphore

    def slot(self, host: str) -> threading.Semaphore:
        with self.slots_lock:
            return self.slots[host]

    def wait_turn(self, host: str) -> None:
        with self.lock:
            wait_s = self.next_start[host] - time.monotonic()
            if wait_s > 0:
                time.sleep(wait_s)  # BUG: sleeps holding the lock every host's worker needs
            self.next_start[host] = time.monotonic() + self.gap


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
    polite = Politeness(per_host, gap)

    def fetch(url: str) -> list[str]:
        host = urlsplit(url).hostname or ""
        polite.wait_turn(host)
        with polite.slot(host):
            try:
                return list(get_urls(url))
            except Exception:
                return []  # a failing page: found, no links

    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        pending: set[Future[list[str]]] = {pool.submit(fetch, start)}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                for link in future.result():
                    link = urldefrag(link)[0]
                    if in_scope(link, domain) and link not in seen:
                        seen.add(link)
                        pending.add(pool.submit(fetch, link))
    return sorted(seen)
