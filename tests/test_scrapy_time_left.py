"""A plain ``scrapy crawl`` with the TraceRecorder says its time left in Scrapy's
own log at ``LOGSTATS_INTERVAL`` and keeps the two figures in Scrapy's stats.

Real Scrapy in a child process, on crawlsim's scenario server on loopback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crawlsim.real.server import ServerProcess
from tests.test_real_crawl import make_scenario
from tests.test_scrapy_recorder import free_port

SPIDER = """
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

class Site(scrapy.Spider):
    name = "site"
    start_urls = [sys.argv[1]]

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)

process = CrawlerProcess({
    "EXTENSIONS": {"crawlsim.integrations.scrapy.TraceRecorder": 500},
    "CRAWLSIM_TRACE": sys.argv[2],
    "CRAWLSIM_TRACE_FLUSH": 0,
    "LOGSTATS_INTERVAL": 0.2,
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": False,
    "ROBOTSTXT_OBEY": False,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 0.1,
})
crawler = process.create_crawler(Site)
process.crawl(crawler)
process.start()
stats = crawler.stats.get_stats()
print(json.dumps({k: v for k, v in stats.items() if k.startswith("crawlsim/")}))
"""


def test_scrapy_logs_and_keeps_the_time_left(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pages = {f"{base}/": [f"/p{i}" for i in range(12)], **{f"{base}/p{i}": [f"/q{i}"] for i in range(12)}}
    pages.update({f"{base}/q{i}": [] for i in range(12)})
    scenario = make_scenario(pages, latency=0.02)
    spider = tmp_path / "spider.py"
    spider.write_text(SPIDER)
    with ServerProcess(scenario):
        done = subprocess.run(
            [sys.executable, str(spider), base + "/", str(tmp_path / "crawl.jsonl")],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "crawlsim: time left:" in line]
    assert any("at least" in line and "known pages only" in line for line in said), done.stderr[-3000:]
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(stats) == {"crawlsim/time_left_lower", "crawlsim/time_left_estimate"}
    assert 0 <= stats["crawlsim/time_left_lower"] <= stats["crawlsim/time_left_estimate"]
