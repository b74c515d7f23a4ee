"""How far past ``--max-time`` a real crawl runs on hostile pages.

    python benchmarks/max_time_overrun.py [--limit 3] [--links 200000]

A loopback server (``http.server`` on a thread) serves, per probe, a start
page linking to one hostile page:

* ``many``: a page of ``--links`` links (``<a href=pN></a>``);
* ``robots``: a robots.txt of 30,000 rules (500 KiB, the most read) and a
  page of 20,000 links, each checked against them;
* ``simhash``: a 2 MB page of distinct words, crawled with
  ``content_dedup = "simhash"``.

For each, ``crawl_http(..., max_time=LIMIT)`` runs in this process with a
trace writer (as ``crawl -o`` does): printed are the seconds from the start
to the crawl's return past the limit (the overrun), the seconds to build the
``--json`` summary after it, and what the result says (stopped, links not
examined).  Figures, not assertions (``tests/hostile/test_max_time.py``
asserts the behaviour).  The machine's load shows in every figure: run it
twice.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import tempfile
import threading
import time
from pathlib import Path

from crawlsim.commands.crawl import _web_json
from crawlsim.real.crawler import HttpLimits, crawl_http, real_options
from crawlsim.trace.jsonl import TraceWriter


def pages(links: int) -> dict[str, dict[str, str]]:
    words = " ".join(f"w{i}" for i in range(250_000))
    return {
        "many": {"/": '<a href="/big">b</a>', "/big": "".join(f"<a href=p{i}></a>" for i in range(links))},
        "robots": {
            "/robots.txt": "User-agent: *\n" + "".join(f"Disallow: /x{i}*y$\n" for i in range(30_000)),
            "/": '<a href="/big">b</a>',
            "/big": "".join(f"<a href=p{i}></a>" for i in range(20_000)),
        },
        "simhash": {"/": '<a href="/big">b</a>', "/big": f"<main>{words}</main>"},
    }


def serve(site: dict[str, str]) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = site.get(self.path, "leaf").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain" if self.path == "/robots.txt" else "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def probe(name: str, site: dict[str, str], limit: float) -> None:
    server, url = serve(site)
    flags = {"robots": "/robots.txt" in site, "gap": 0.0}
    if name == "simhash":
        flags["content_dedup"] = "simhash"
    with tempfile.TemporaryDirectory() as folder:
        writer = TraceWriter(str(Path(folder) / "trace.jsonl"))
        began = time.monotonic()
        result = asyncio.run(
            crawl_http(
                [url], real_options(flags), limits=HttpLimits(max_bytes=8_000_000), keep_events=False,
                max_time=limit, on_event=writer,
            )
        )  # fmt: skip
        crawled = time.monotonic() - began
        writer.close()
        text = json.dumps(_web_json(result, url))
        summed = time.monotonic() - began - crawled
    server.shutdown()
    print(
        f"{name:8} crawl returned {crawled - limit:+.2f} s past the {limit:g} s limit; summary {summed:.2f} s "
        f"({len(text) / 1e6:.1f} MB); stopped: {result.stopped}; links not examined: "
        f"{sum(getattr(result, 'links_dropped', {}).values()):,}; pages found {len(result.found):,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=3.0)
    parser.add_argument("--links", type=int, default=200_000)
    args = parser.parse_args()
    for name, site in pages(args.links).items():
        probe(name, site, args.limit)


if __name__ == "__main__":
    main()
