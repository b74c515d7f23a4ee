"""Throughput: pages per second against a zero-latency local site, crawlsim's
asyncio crawler and Scrapy measured in the same run against the same server.

The site is a generated tree (``site_tree``, 12 children per page, 3 levels:
1,885 pages) on one host named by its loopback address, so both crawlers
fetch ``http://127.0.0.2:PORT/...`` directly with no host map.  It is
served by ``crawlsim serve`` in its own process with zero latency: what is
measured is each crawler's own cost per page (request, parse, dedupe,
schedule), until the server saturates.

Both crawlers get the same settings: 16 requests in flight, all on the one
host, no delay, no robots.txt, no retries; each run is timed from its first
request to its last response.  Runs alternate (crawlsim, Scrapy, crawlsim,
...) so that machine noise hits both.

Scrapy is only a benchmark opponent, never a crawlsim dependency: it is
installed into a throwaway virtualenv (``--install`` creates one), and the
spider runs in that interpreter as a child process::

    /work/venv/bin/python benchmarks/throughput_vs_scrapy.py --install
    /work/venv/bin/python benchmarks/throughput_vs_scrapy.py --scrapy-python /path/to/venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from crawlsim.core.options import CrawlOptions
from crawlsim.real.crawler import HttpLimits, crawl_http

REPO = Path(__file__).resolve().parent.parent
DEFAULT_VENV = Path(tempfile.gettempdir()) / "crawlsim-scrapy-venv"
ADDRESS = "127.0.0.2"

SCENARIO = """\
title = "Zero-latency site for the throughput benchmark"
start = "http://{host}/"
[crawl]
workers = {workers}
per_host = {workers}
scope = "host"
[hosts."*"]
latency = 0.0
[web]
kind = "site_tree"
host = "{host}"
branching = {branching}
depth = {depth}
"""

SPIDER = textwrap.dedent("""\
    import json, sys, time
    import scrapy
    from scrapy.crawler import CrawlerProcess

    START, WORKERS = sys.argv[1], int(sys.argv[2])
    times = {}

    class Tree(scrapy.Spider):
        name = "tree"
        start_urls = [START]

        def parse(self, response):
            times.setdefault("first", time.monotonic())
            times["last"] = time.monotonic()
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, self.parse)

    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": WORKERS, "CONCURRENT_REQUESTS_PER_DOMAIN": WORKERS, "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": False, "RETRY_ENABLED": False, "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "ERROR", "USER_AGENT": "scrapy-benchmark", "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    })
    crawler = process.create_crawler(Tree)
    started = {}

    def on_scheduled(request, spider):  # a named function: signals hold receivers weakly
        started.setdefault("t", time.monotonic())

    crawler.signals.connect(on_scheduled, signal=scrapy.signals.request_scheduled)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    pages = stats.get("response_received_count", 0)
    print(json.dumps({"pages": pages, "seconds": times["last"] - started["t"]}))
""")


def free_port(address: str) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return int(sock.getsockname()[1])


def ensure_scrapy(python: str | None, install: bool) -> str:
    """The interpreter that has Scrapy (creating the throwaway venv with --install)."""
    if python:
        return python
    candidate = DEFAULT_VENV / "bin" / "python"
    if not candidate.exists():
        if not install:
            raise SystemExit(f"Scrapy not found: pass --install (creates {DEFAULT_VENV}) or --scrapy-python PATH")
        subprocess.run([sys.executable, "-m", "venv", str(DEFAULT_VENV)], check=True)
        subprocess.run([str(candidate), "-m", "pip", "install", "-q", "scrapy"], check=True)
    return str(candidate)


def scrapy_version(python: str) -> str:
    out = subprocess.run(
        [python, "-c", "import scrapy; print(scrapy.__version__)"], capture_output=True, text=True, check=False
    )
    return out.stdout.strip() or "?"


async def crawlsim_run(start: str, workers: int) -> tuple[int, float]:
    options = CrawlOptions(
        workers=workers,
        per_host=workers,
        gap=0.0,
        robots=False,
        max_retries=0,
        scope="host",
        user_agent="crawlsim-benchmark",
        record_events=False,
    )
    result = await crawl_http(start, options, limits=HttpLimits(timeout=30), max_time=300, keep_events=False)
    return result.stats.pages_fetched, result.finish_time


def scrapy_run(python: str, spider: Path, start: str, workers: int) -> tuple[int, float]:
    out = subprocess.run(
        [python, str(spider), start, str(workers)], capture_output=True, text=True, timeout=600, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"scrapy failed: {out.stderr[-2000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return int(data["pages"]), float(data["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scrapy-python", help="a Python interpreter that has Scrapy installed")
    parser.add_argument("--install", action="store_true", help=f"create {DEFAULT_VENV} with Scrapy if missing")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--branching", type=int, default=12)
    parser.add_argument("--depth", type=int, default=3)
    args = parser.parse_args()
    python = ensure_scrapy(args.scrapy_python, args.install)
    port = free_port(ADDRESS)
    host = f"{ADDRESS}:{port}"
    with tempfile.TemporaryDirectory(prefix="crawlsim-throughput-") as tmp:
        scenario = Path(tmp) / "zero.toml"
        scenario.write_text(
            SCENARIO.format(host=host, workers=args.workers, branching=args.branching, depth=args.depth)
        )
        spider = Path(tmp) / "spider.py"
        spider.write_text(SPIDER)
        server = subprocess.Popen(
            [sys.executable, "-m", "crawlsim", "serve", str(scenario)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=str(REPO),
        )
        try:
            assert server.stdout is not None
            start = server.stdout.readline().split()[2]  # serve's first line: `crawlsim crawl START ...`
            time.sleep(0.3)
            ours: list[tuple[int, float]] = []
            theirs: list[tuple[int, float]] = []
            for _ in range(args.rounds):
                ours.append(asyncio.run(crawlsim_run(start, args.workers)))
                theirs.append(scrapy_run(python, spider, start, args.workers))
        finally:
            server.terminate()
            server.wait(timeout=10)
    rate_ours = statistics.median(p / s for p, s in ours)
    rate_theirs = statistics.median(p / s for p, s in theirs)
    print(f"site: {ours[0][0]} pages on {host}, zero latency, {args.workers} in flight; {args.rounds} rounds each")
    print(f"machine: {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; Scrapy {scrapy_version(python)}")
    print("crawlsim: " + ", ".join(f"{p} pages in {s:.2f} s" for p, s in ours) + f"  -> median {rate_ours:.0f} pages/s")
    print(
        "Scrapy:   "
        + ", ".join(f"{p} pages in {s:.2f} s" for p, s in theirs)
        + f"  -> median {rate_theirs:.0f} pages/s"
    )
    print(f"ratio crawlsim / Scrapy: {rate_ours / rate_theirs:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
