"""``crawlsim crawl --max-time T`` holds whatever one page contains.

A page of a few hundred thousand links takes seconds to admit (canonicalize,
scope, seen set, queue), and the time limit could not fire in the middle of
it; now the coordinator hands a page's links to the core a step at a time
(``Scheduler.begin_response``) and looks at its clock between steps.
Checked here through behaviour, not speed: with a clock that moves on every
reading the limit stops the crawl in the middle of a page, the links left
are counted and never queued, and those admitted are the first ones, in the
page's order; on a real loopback server a page of 200,000 links, a page of
hosts 150,000 ``www.`` labels deep and a body that never ends, ``crawlsim
crawl --max-time 2`` ends, says why, and accounts for every link.  The only
timeout is a guard against a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import select
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.core.fetch import Fetch
from crawlsim.trace.events import Discovered, Event, FetchFinished, Skipped, event_to_dict
from crawlsim.real.coordinator import next_step, run_crawl
from crawlsim.real.defaults import ADMIT_FIRST, ADMIT_MOST, ADMIT_SECONDS
from crawlsim.real.results import FetchContext, Outcome, Page
from crawlsim.trace.jsonl import read_trace

GUARD = 300.0
"""Seconds: only a guard against a hang (the crawl itself is limited to 2 s)."""

SEED = "http://a.com/"
MANY = [f"/p{i}" for i in range(50_000)]


class Ticking:
    """A clock that moves on 10 ms every time it is read."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.01
        return self.t


async def _one_big_page(fetch: Fetch, ctx: FetchContext) -> Outcome:
    return Page(200, links=tuple(MANY) if fetch.url == SEED else ())


def _link_events(events: list[Event], parent: str) -> list[dict[str, object]]:
    """The page's link events, without their times (the two runs' clocks differ)."""
    kept = [e for e in events if isinstance(e, (Discovered, Skipped)) and e.parent == parent]
    return [{k: v for k, v in event_to_dict(e).items() if k != "t"} for e in kept]


def test_the_time_limit_stops_a_crawl_in_the_middle_of_a_page() -> None:
    options = CrawlOptions(scope="host", robots=False, gap=0.0)
    events: list[Event] = []
    result = asyncio.run(
        run_crawl([SEED], options, _one_big_page, on_event=events.append, max_time=0.5, clock=Ticking())
    )
    assert result.stopped == "time limit of 0.5 s reached"
    dropped = result.links_dropped[SEED]
    (finished,) = [e for e in events if isinstance(e, FetchFinished) and e.url == SEED]
    admitted = _link_events(events, SEED)
    assert 0 < dropped < len(MANY) and len(admitted) + dropped == len(MANY)  # every link examined or counted
    assert finished.links == len(MANY) and finished.new_links == len(admitted)
    # the links admitted are the page's first, as one on_response call admits them
    whole = Scheduler(options)
    whole.add_seeds([SEED], 0.0)
    (fetch,) = whole.poll(0.0)
    whole.on_response(fetch.id, 1.0, links=MANY)
    assert admitted == _link_events(whole.drain_events(), SEED)[: len(admitted)]
    # the dropped links were never queued nor marked seen: the pages found are the seed and those admitted
    assert len(result.found) == 1 + len(admitted)
    assert not any(e.url == SEED + MANY[-1][1:] for e in events if isinstance(e, Discovered))


async def _one_page_of_seen_links(fetch: Fetch, ctx: FetchContext) -> Outcome:
    return Page(200, links=(SEED,) * 50_000)


def test_a_crawl_cut_in_the_middle_of_its_last_page_is_not_done() -> None:
    """Every link the page had would be seen already: with the rest dropped
    the frontier is empty, yet the crawl did not run to its end."""
    options = CrawlOptions(scope="host", robots=False, gap=0.0)
    events: list[Event] = []
    result = asyncio.run(
        run_crawl([SEED], options, _one_page_of_seen_links, on_event=events.append, max_time=0.5, clock=Ticking())
    )
    assert result.links_dropped[SEED] > 0
    assert result.stopped == "time limit of 0.5 s reached"
    assert not any(type(e).__name__ == "Done" for e in events)


# -- a real loopback server and the command line ------------------------------------------

PAGE_LINKS = 200_000
DEEP = "www." * 150_000


class _Hostile(http.server.BaseHTTPRequestHandler):
    """``/``: links to the three hostile pages.  ``/many``: 200,000 links;
    ``/deep``: three links whose hosts are 150,000 ``www.`` labels deep;
    ``/endless``: a body that never ends (a drip, then nothing)."""

    pages = {
        "/": '<a href="/many">m</a><a href="/deep">d</a><a href="/endless">e</a>',
        "/many": "".join(f"<a href=p{i}></a>" for i in range(PAGE_LINKS)),
        "/deep": "".join(f'<a href="http://{DEEP}h{i}.com/">far</a>' for i in range(3)),
    }

    def do_GET(self) -> None:  # noqa: N802 -- http.server's name
        if self.path == "/endless":
            self._endless()
            return
        body = self.pages.get(self.path, "leaf").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def _endless(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(b"<html><body>" + b"<p>more</p>" * 100)
            self.wfile.flush()
            select.select([], [], [], 120.0)  # ... and the rest never comes

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _serving() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_crawl_max_time_ends_and_accounts_for_every_link(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    with _serving() as root:
        proc = subprocess.run(
            [sys.executable, "-m", "crawlsim", "crawl", root + "/", "--json", "-o", str(trace),
             "--no-robots", "--gap", "0", "--per-host", "4", "--normalize", "rfc3986+www",
             "--max-bytes", "8000000", "--max-time", "2"],
            capture_output=True, text=True, timeout=GUARD, check=False,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert data["stopped"] == "time limit of 2 s reached"
    events = list(read_trace(trace).events)  # the trace is whole and valid
    dropped = data.get("links_not_examined", {})
    not_fetched = data.get("not_fetched", {})
    for page, count in ((root + "/many", PAGE_LINKS), (root + "/deep", 3)):
        finished = [e for e in events if isinstance(e, FetchFinished) and e.url == page]
        if not finished:  # still being fetched or parsed when the limit came: listed so
            assert "in flight when the crawl stopped" in not_fetched[page]
            continue
        linked = [e for e in events if isinstance(e, (Discovered, Skipped)) and e.parent == page]
        assert finished[0].links == count and len(linked) + dropped.get(page, 0) == count
    assert "in flight when the crawl stopped" in not_fetched[root + "/endless"]


def test_a_step_shrinks_to_what_fits_and_grows_back() -> None:
    """A link may cost microseconds, or milliseconds against a robots.txt of
    30,000 rules: a step that took too long is cut to fit, one that was quick
    doubles, within bounds."""
    assert next_step(16, 0.001) == 32 and next_step(ADMIT_MOST, 0.0) == ADMIT_MOST
    assert next_step(1000, 20.0) == 2  # 20 ms a link: two fit in 50 ms
    assert next_step(1, 60.0) == 1  # never none
    size, took_per_link = ADMIT_FIRST, 0.02
    for _ in range(5):
        size = next_step(size, size * took_per_link)
    assert size * took_per_link <= 2 * ADMIT_SECONDS
