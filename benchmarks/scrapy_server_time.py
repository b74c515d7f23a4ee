"""Is a Scrapy recording's server time the server's?  Checked against nginx's own log.

Records real Scrapy crawls of the docs web (``docs_web.py``) with crawlsim's
``TraceRecorder`` and puts each fetch's recorded ``server_time`` (the trace's
Done line) beside the time nginx logged for the same request
(``$request_time``: first byte of the request read to last byte of the answer
written).  Per host: how many fetches were matched, the median and 90th
percentile of each, and of the error (recorded minus nginx's).  The fetch's
time as Scrapy saw it (its trace's start to end) is shown too: what a model
would take without the recorder's server time.

    python benchmarks/scrapy_server_time.py                      # 4 and 16 requests, 1 per domain
    python benchmarks/scrapy_server_time.py --requests 16 --per-domain 2 --pages-per-host 100

A recorder that times its crawler's own queueing as the server's shows here
as an error that grows with ``--requests`` on the fast host (whose static
pages take nginx well under a millisecond).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_web import Served, Web, docs_web  # noqa: E402
from model_fidelity import scrapy_crawl  # noqa: E402

from crawlsim.trace.events import FetchFinished, FetchStarted  # noqa: E402
from crawlsim.trace.jsonl import read_trace  # noqa: E402


def _key(address: str, path: str) -> tuple[str, str]:
    return address, unquote(path)


def matched(trace: Path, served: list[Served]) -> list[tuple[str, float, float, float]]:
    """Per fetch with a recorded server time: (its host's address, recorded server time,
    nginx's time, Scrapy's fetch time).  A fetch is matched to nginx's request for the
    same host and path, the n-th fetch of a path to its n-th request (a retry after 429)."""
    recorded = read_trace(trace)
    server_time = {int(k): float(v) for k, v in (recorded.options or {}).get("server_time", {}).items()}
    queues: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in served:
        queues[_key(row.address, row.path)].append(row.took)
    started: dict[int, tuple[float, tuple[str, str]]] = {}
    out = []
    for event in recorded.events:
        if isinstance(event, FetchStarted):
            url = urlsplit(event.url)
            started[event.fetch_id] = (event.t, _key(url.hostname or "", url.path + (f"?{url.query}" if url.query
                                                                                     else "")))
        elif isinstance(event, FetchFinished) and event.fetch_id in started:
            t0, key = started.pop(event.fetch_id)
            took = queues[key].pop(0) if queues[key] else None
            if took is not None and event.fetch_id in server_time:
                out.append((key[0], server_time[event.fetch_id], took, event.t - t0))
    return out


def _q(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(web: Web, rows: list[tuple[str, float, float, float]]) -> None:
    names = {host.role.address: host.role.name for host in web.hosts}
    print("| host | fetches | recorded median / p90 | nginx median / p90 | error median / p90 | Scrapy's fetch time "
          "median |")
    print("|---|---|---|---|---|---|")
    by_host: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for address, recorded, nginx, seen in rows:
        by_host[address].append((recorded, nginx, seen))
    for address in sorted(by_host):
        got = by_host[address]
        rec, ngx, seen = ([row[i] for row in got] for i in range(3))
        errors = [r - n for r, n in zip(rec, ngx, strict=True)]
        print(f"| {names.get(address, address)} | {len(got)} | {1000 * statistics.median(rec):.1f} / "
              f"{1000 * _q(rec, 0.9):.1f} ms | {1000 * statistics.median(ngx):.1f} / {1000 * _q(ngx, 0.9):.1f} ms "
              f"| {1000 * statistics.median(errors):+.1f} / {1000 * _q(errors, 0.9):+.1f} ms "
              f"| {1000 * statistics.median(seen):.1f} ms |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, action="append", help="CONCURRENT_REQUESTS (repeatable; "
                        "default 4 and 16)")
    parser.add_argument("--per-domain", type=int, default=1, help="CONCURRENT_REQUESTS_PER_DOMAIN (default 1)")
    parser.add_argument("--delay", type=float, default=0.0, help="DOWNLOAD_DELAY (default 0)")
    parser.add_argument("--pages-per-host", type=int, default=200, help="pages copied from each documentation set")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crawlsim-server-time-") as name, docs_web(args.pages_per_host) as web:
        tmp = Path(name)
        for requests in args.requests or [4, 16]:
            setting = {"CONCURRENT_REQUESTS": requests, "CONCURRENT_REQUESTS_PER_DOMAIN": args.per_domain,
                       "DOWNLOAD_DELAY": args.delay}
            web.restart()
            scrapy_crawl(tmp, web.start, setting, f"c{requests}")
            web.stop()  # every answer logged
            print(f"\nScrapy at {setting}:")
            report(web, matched(tmp / f"c{requests}.jsonl", web.served()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
