"""How much faster is ``crawlsim.crawl`` than a sequential BFS when fetches block?

    python benchmarks/drop_in_speedup.py                     # 100 pages, 50 ms each, 10 workers
    python benchmarks/drop_in_speedup.py --pages 200 --delay 0.02 --workers 16

The web is the interview's slow-fetch case: a root linking to ``--pages`` pages,
each ``get_urls`` call sleeping ``--delay`` seconds (a stand-in for network
latency).  The sequential crawler is the textbook loop (a list as queue, a
set as seen set); the concurrent one is ``crawlsim.crawl`` with
``--workers`` threads.  The ideal speed-up is about ``workers`` (the root is
fetched alone first).  This is a measurement, not a test: the tests show
concurrency by overlap (tests/test_crawl_interview_cases.py), never by wall time.

The last line is one JSON object: ``sequential_s``, ``concurrent_s``, ``speedup``.
"""

from __future__ import annotations

import argparse
import json
import time
from urllib.parse import urljoin

import crawlsim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=10)
    args = parser.parse_args()
    pages = [f"http://a.com/{i}" for i in range(args.pages)]
    graph = {"http://a.com/": pages} | {p: [] for p in pages}

    def get_urls(url: str) -> list[str]:
        time.sleep(args.delay)
        return [urljoin(url, link) for link in graph.get(url, [])]

    t0 = time.perf_counter()
    seen, queue = {"http://a.com/"}, ["http://a.com/"]
    while queue:
        for link in get_urls(queue.pop(0)):
            if link not in seen:
                seen.add(link)
                queue.append(link)
    t1 = time.perf_counter()
    found = crawlsim.crawl("http://a.com/", get_urls, max_workers=args.workers)
    t2 = time.perf_counter()
    assert found == sorted(seen), "the two crawls found different pages"
    seq, par = t1 - t0, t2 - t1
    print(f"sequential {seq:.2f} s, crawlsim.crawl with {args.workers} workers {par:.2f} s: {seq / par:.1f}x")
    print(json.dumps({"pages": len(found), "sequential_s": round(seq, 3), "concurrent_s": round(par, 3),
                      "speedup": round(seq / par, 2)}))


if __name__ == "__main__":
    main()
