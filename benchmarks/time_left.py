"""The time left on real crawls: crawlsim's ``crawl`` and Scrapy, on four real doc sets.

The web is ``docs_web.py``'s: four Debian documentation sets on four
loopback hosts (slow, fast, Crawl-delay, 429 with Retry-After), served by
nginx.  Each crawler crawls it whole, recording its trace (``crawlsim crawl
-o``; Scrapy with the ``TraceRecorder``); the trace is then replayed through
:class:`crawlsim.sim.time_left.TimeLeft` exactly as the live crawl computed
it (the latency floor: the fastest fetch seen so far), and set against the
real time left (the finish less ``t``).  For each crawl:

* **bound above truth**: the most the lower bound ever stood above the real
  time left, and its stated margin (what the latency floor adds); the bound
  less the margin is politeness alone and must never be above;
* **estimate's error** at 25%, 50% and 75% of the way, and the worst from
  25% to 75% (the target: within 20%).

    python benchmarks/time_left.py [--pages-per-host 200] [--runs 1] [--png DIR]

Needs what ``docs_web.py`` needs (nginx, its echo module, the doc packages)
and the ``scrapy`` extra.  Not run by CI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_web import Web, docs_web  # noqa: E402
from model_fidelity import SPIDER  # noqa: E402

from crawlsim.core.options import CrawlOptions  # noqa: E402
from crawlsim.trace.jsonl import read_trace  # noqa: E402
from crawlsim.views.time_left import CHECKPOINTS, TimeLeftReport, report_of  # noqa: E402

CRAWL_FLAGS = ["--scope", "any", "--workers", "4", "--per-host", "1", "--gap", "0"]
SCRAPY_SETTINGS = {
    "LOG_LEVEL": "INFO", "LOGSTATS_INTERVAL": 5, "CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 0, "RETRY_HTTP_CODES": [429, 500, 502, 503, 504],
}  # fmt: skip


def crawlsim_crawl(web: Web, tmp: Path) -> Path:
    """``crawlsim crawl`` of the web, its live lines shown; its trace."""
    trace = tmp / "crawlsim.jsonl"
    web.restart()
    subprocess.run([sys.executable, "-m", "crawlsim", "crawl", web.start, *CRAWL_FLAGS, "-o", str(trace),
                    "--progress", "5"], check=True, stdout=sys.stderr)
    return trace


def scrapy_crawl(web: Web, tmp: Path) -> Path:
    """A plain Scrapy crawl of the web with the recorder (its time-left lines in its log); its trace."""
    trace, spider = tmp / "scrapy.jsonl", tmp / "spider.py"
    spider.write_text(SPIDER)
    web.restart()
    done = subprocess.run([sys.executable, str(spider), web.start, str(trace), json.dumps(SCRAPY_SETTINGS)],
                          check=True, capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "crawlsim: time left" in line:
            print("  scrapy log:", line.split("crawlsim: ", 1)[1][:160], file=sys.stderr)
    return trace


def report_of_trace(path: Path) -> TimeLeftReport:
    recorded = read_trace(path)
    names = {f.name for f in fields(CrawlOptions)}
    options = CrawlOptions.from_mapping({k: v for k, v in (recorded.options or {}).items() if k in names})
    report = report_of(options, recorded.events)
    if report is None:
        raise SystemExit(f"{path}: nothing to report")
    return report


def row(name: str, report: TimeLeftReport) -> str:
    errors = " ".join(f"{e:+.0%}" if e is not None else "-" for e in map(report.error_at, CHECKPOINTS))
    worst = report.worst_error()
    return (f"| {name} | {report.finish:.1f} | {report.bound_excess():.3f} | {report.largest_margin():.3f} "
            f"| {report.proven_excess():.3f} | {errors} | {worst if worst is not None else float('nan'):.0%} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages-per-host", type=int, default=200)
    parser.add_argument("--runs", type=int, default=1, help="crawls per crawler")
    parser.add_argument("--png", type=Path, help="folder for each crawl's time-left picture")
    parser.add_argument("--traces", type=Path, help="keep the crawls' traces in this folder")
    args = parser.parse_args()
    rows = ["| crawler | finish (s) | bound above truth (s) | its margin (s) | bound less margin above (s) "
            "| estimate error at 25% 50% 75% | worst 25-75% |", "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    with tempfile.TemporaryDirectory() as folder, docs_web(args.pages_per_host) as web:
        tmp = args.traces or Path(folder)
        for run in range(args.runs):
            for name, crawl in (("crawlsim crawl", crawlsim_crawl), ("Scrapy", scrapy_crawl)):
                report = report_of_trace(crawl(web, tmp))
                rows.append(row(name, report))
                print(rows[-1], file=sys.stderr)
                if args.png is not None:
                    from crawlsim.views.plots import write_time_left_png

                    png = args.png / f"time_left_{name.split()[0].lower()}_{run + 1}.png"
                    write_time_left_png(report, str(png), title=f"{name} on four doc sets: time left",
                                        clock="seconds")
    print(f"{web.pages} pages, {args.pages_per_host} per host; crawlsim crawl {' '.join(CRAWL_FLAGS)}; "
          "Scrapy CONCURRENT_REQUESTS 4, CONCURRENT_REQUESTS_PER_DOMAIN 1")
    print("\n".join(rows))
    print(json.dumps({"runs": args.runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
