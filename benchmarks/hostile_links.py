"""What hostile input costs the URL layer and the scheduler's per-link loop.

    python benchmarks/hostile_links.py

Three measurements, each the best of five runs (CPU time):

* ``www``: stripping the leading ``www.`` labels of a host ``n`` and ``4n``
  labels deep (``_without_www`` itself, below the length bounds, so the step's
  own growth shows: about 4x from n to 4n means linear, 16x quadratic);
* ``refused``: ``canonicalize`` of a link longer than ``MAX_URL_LENGTH``
  (a 600 KB host), refused by its length before any step runs;
* ``hot path``: nanoseconds per link of ``Scheduler._expand`` on plain ``str``
  links, all already seen (the common case of a large crawl) and all new --
  the cost that turning hostile ``str`` subclasses into plain strings must
  not raise.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.core.urls import _without_www, canonicalize


def best(fn: Callable[[], object], runs: int = 5) -> float:
    """The least CPU seconds of ``runs`` calls of ``fn``."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def www(n: int) -> float:
    netloc = "www." * n + "a.com"
    return best(lambda: _without_www(netloc))


def hot_path(links: int, seen: bool) -> float:
    """ns per link of one page's links through ``_expand`` (rfc3986)."""
    sched = Scheduler(CrawlOptions(scope="any", record_events=False))
    hrefs = [f"http://h{i % 97}.com/p{i}" for i in range(links)]
    if seen:
        sched.add_seeds(hrefs, 0.0)

    def run() -> None:
        s = sched
        if not seen:  # a fresh seen set each time, so every link is new
            s = Scheduler(CrawlOptions(scope="any", record_events=False))
        s._expand("http://h0.com/", hrefs, 0, 0.0)

    return best(run) / links * 1e9


def main() -> None:
    for n in (50_000, 200_000):
        print(f"www: {n:>7,} labels {www(n) * 1e3:8.2f} ms")
    long = "http://" + "www." * 150_000 + "a.com/"
    print(f"refused: {len(long):,}-character link {best(lambda: canonicalize(long, mode='aggressive')) * 1e6:.1f} us")
    for seen in (True, False):
        print(f"hot path: 100,000 {'seen' if seen else 'new'} links {hot_path(100_000, seen):.0f} ns/link")


if __name__ == "__main__":
    main()
