"""What does generating one page's links cost on the million-page web?

    python benchmarks/link_generation.py              # 5,000 pages, one per host, best of 5
    python benchmarks/link_generation.py --repeat 10

``PowerLawWeb(1_000_000, 10_000)`` (the ``million`` scenario's web) builds no
page in advance: ``web.links(url)`` derives a page's links from hashes each
time it is asked.  This times that call over pages spread across all hosts.
A measurement, not a test (the tests check laziness by memory, not time).
The last line is one JSON object with ``us_per_page`` (best run).
"""

from __future__ import annotations

import argparse
import json
import time

from crawlsim.sim.generated import PowerLawWeb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    web = PowerLawWeb(1_000_000, 10_000, seed=1)
    urls = [PowerLawWeb.url(h, (h * 7919) % web.size_of(h)) for h in range(5000)]
    runs = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        for url in urls:
            web.links(url)
        runs.append((time.perf_counter() - started) / len(urls) * 1e6)
    print(f"link generation: best {min(runs):.1f} us per page (runs: {', '.join(f'{r:.1f}' for r in runs)})")
    print(json.dumps({"pages": len(urls), "us_per_page": round(min(runs), 2)}))


if __name__ == "__main__":
    main()
