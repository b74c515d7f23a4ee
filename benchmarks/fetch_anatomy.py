"""Where does a recorded fetch's time go?  Each page's recorded time against
its server's own time, part by part.

Serves the generated site of :mod:`model_fidelity` from nginx with each page
delayed by its own think time, nginx logging ``$request_time`` per request
(the server's own time: ground truth), records one ``crawlsim crawl`` in
this process with the fetch path instrumented (aiohttp's request hooks, the
event loop's selector, the coordinator's fetch tasks), and prints, averaged
over the pages, how the recorded fetch time (FetchStarted to FetchFinished)
splits:

* ``start``: FetchStarted to the fetch task's first run (the loop busy with
  other work before the task could begin);
* ``connect``: the task's start to the request's headers sent (a new
  connection, or taking a pooled one);
* ``server``: nginx's ``$request_time``;
* ``noticed``: headers sent to the response's headers read, less the server's
  time -- the loop busy with other responses when this one arrived, and the
  operating system waking the crawler;
* ``loop_late``: a lower bound of the loop's part of ``noticed`` (since the
  loop last looked at its sockets);
* ``rec_server``: the server time ``crawlsim crawl -o`` recorded for the fetch
  (``server_time`` on the Done line), and ``rec-nginx`` its excess over nginx's;
* ``body``: response headers to the body read;
* ``parse``: body read to the task's end (parsing the links, on the loop; the
  trace's FetchFinished time is the task's end).

    python benchmarks/fetch_anatomy.py [--workers 4] [--pages 80] [--think 0.03]

Also prints the trace's ``client_busy`` per fetch, and the time ``crawlsim
model`` gives each page against nginx's.  Needs ``/usr/sbin/nginx`` and ``libnginx-mod-http-echo``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import model_fidelity as mf  # noqa: E402

MARKS: dict[str, dict[str, float]] = defaultdict(dict)
"""URL path -> mark name -> time.monotonic()."""
SELECTS: list[tuple[float, float]] = []
"""(called, returned) of every wait of the event loop in its selector."""
BLOCKED = 0.0002
"""A selector wait longer than this blocked: nothing was ready when it was called."""


def watch_selector() -> None:
    """Note each selector wait of the running loop in :data:`SELECTS`."""
    selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    select = selector.select

    def timed(timeout: float | None = None) -> Any:
        began = time.monotonic()
        try:
            return select(timeout)
        finally:
            SELECTS.append((began, time.monotonic()))

    selector.select = timed


def instrument() -> None:
    """Wrap the fetch path so each request's moments are noted in :data:`MARKS`."""
    import aiohttp

    from crawlsim.real import coordinator, fetcher

    one = coordinator._Coordinator._one

    async def timed_one(self: Any, fetch: Any, ctx: Any) -> Any:
        if not SELECTS:
            watch_selector()
        path = _path(fetch.url)
        MARKS[path]["task"] = time.monotonic()
        result = await one(self, fetch, ctx)
        MARKS[path]["end"] = time.monotonic()
        return result

    coordinator._Coordinator._one = timed_one
    read_body = fetcher._read_body

    async def timed_body(resp: Any, limit: int, *, cut: bool) -> bytes:
        path = resp.url.path
        MARKS[path]["headers"] = time.monotonic()
        body = await read_body(resp, limit, cut=cut)
        MARKS[path]["body"] = time.monotonic()
        return body

    fetcher._read_body = timed_body
    wire_clock = fetcher.HttpFetcher._wire_clock

    def traced(self: Any) -> aiohttp.TraceConfig:
        trace = wire_clock(self)

        async def sent(session: Any, ctx: Any, params: Any) -> None:
            MARKS[params.url.path]["sent"] = time.monotonic()

        trace.on_request_headers_sent.append(sent)
        return trace

    fetcher.HttpFetcher._wire_clock = traced


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path or "/"


def loop_late(at: float) -> float:
    """How long before ``at`` the loop last looked for ready sockets, as a lower bound on how
    late it noticed a response it handled at ``at``: from the last wait's return when that wait
    blocked (the response woke it), else from that wait's call (the response was already there)."""
    called = [c for c, _ in SELECTS]
    i = bisect.bisect_right(called, at) - 1
    if i < 0:
        return 0.0
    began, returned = SELECTS[i]
    return at - (returned if returned - began > BLOCKED else began)


def nginx_times(log: Path) -> dict[str, float]:
    times: dict[str, float] = {}
    for line in log.read_text().splitlines():
        path, took = line.split()
        times[path] = float(took)
    return times


def report(rec: Path, log: Path, think: dict[str, float]) -> None:
    from crawlsim.scenario.from_trace import model_from_trace
    from crawlsim.trace.events import FetchFinished, FetchStarted
    from crawlsim.trace.jsonl import read_trace

    trace = read_trace(rec)
    started = {e.fetch_id: e.t for e in trace.events if isinstance(e, FetchStarted)}
    origin = min(m["task"] for m in MARKS.values()) - min(started.values())
    served = nginx_times(log)
    parts: dict[str, list[float]] = defaultdict(list)
    for e in trace.events:
        if not isinstance(e, FetchFinished) or e.kind != "page":
            continue
        path, m = _path(e.url), MARKS[_path(e.url)]
        s = started[e.fetch_id] + origin
        server = served.get(path, 0.0)
        parts["recorded"].append(e.t - started[e.fetch_id])
        parts["start"].append(m["task"] - s)
        parts["connect"].append(m["sent"] - m["task"])
        parts["server"].append(server)
        parts["assigned"].append(think.get(path, 0.0))
        parts["noticed"].append(m["headers"] - m["sent"] - server)
        parts["loop_late"].append(loop_late(m["headers"]))
        recorded_server = (trace.options or {}).get("server_time", {}).get(str(e.fetch_id))
        if recorded_server is not None:
            parts["rec_server"].append(recorded_server)
            parts["rec-nginx"].append(recorded_server - server)
        parts["body"].append(m["body"] - m["headers"])
        parts["parse"].append(m["end"] - m["body"])
    for name, values in parts.items():
        print(f"{name:>9}: mean {1000 * statistics.mean(values):7.2f} ms  median {1000 * statistics.median(values):7.2f}"
              f"  max {1000 * max(values):7.2f}")
    busy = (trace.options or {}).get("client_busy", 0.0)
    print(f"client_busy {busy:.3f} s over {len(started)} fetches: {1000 * busy / len(started):.2f} ms per fetch")
    import tomllib

    model = tomllib.loads(model_from_trace(str(rec)))
    modelled = {_path(u): p["latency"] for u, p in model["pages"].items()}
    diffs = [modelled[p] - served[p] for p in modelled if p in served]
    print(f"model page latency - nginx time: mean {1000 * statistics.mean(diffs):.2f} ms, "
          f"median {1000 * statistics.median(diffs):.2f} ms (client_cost {1000 * model.get('client_cost', 0):.2f} ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--think", type=float, default=0.03)
    parser.add_argument("--server", choices=["think", "loopback"], default="think")
    args = parser.parse_args()
    from crawlsim.commands import crawl

    with tempfile.TemporaryDirectory(prefix="crawlsim-anatomy-") as name:
        tmp = Path(name)
        site = tmp / "site"
        site.mkdir()
        mf.make_site(site, args.pages)
        port = mf.free_port()
        log = tmp / "access.log"
        proc = mf.start_nginx(tmp, site, port, args.server, args.think, access_log=log)
        try:
            url = f"http://127.0.0.1:{port}/index.html"
            flags = ["--workers", str(args.workers), "--per-host", str(args.workers), "--gap", "0", "--json"]
            crawl.main([url, *flags, "-o", str(tmp / "warm.jsonl")])
            instrument()
            MARKS.clear()  # nginx's log keeps both crawls: the last line of each path is this one's
            crawl.main([url, *flags, "-o", str(tmp / "rec.jsonl")])
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        think = mf.think_times(site, args.think) if args.server == "think" else {}
        report(tmp / "rec.jsonl", log, think)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
