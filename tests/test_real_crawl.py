"""The asyncio HTTP crawler against servers started inside each test, on
loopback only (127.0.0.0/8).

Politeness is asserted where it is decided and recorded: the crawler's own
trace (FetchStarted times, on the same monotonic clock it schedules by) --
exactly, with no tolerance -- and, where one request per host is in flight,
the moments its fetcher put each request on the wire, also exactly.  The server's side (a child process, ``ServerProcess``) is then
checked *against* that trace, since a loaded machine delays the server's
arrival stamps by an amount no fixed tolerance can bound:

* every request the server saw is one the crawler recorded starting, and
  none arrived before the crawler started it (same system-wide clock);
* how late each request arrived after its start is measured in that very
  run; two arrivals on a host can be at most that late-ness closer than
  their starts, so the server's spacing must be at least ``gap`` minus the
  largest lateness measured -- a bound that follows the machine's load
  instead of guessing it;
* in flight per host and in all, as the server saw it, never exceeds the
  limits (a request is in flight at the server only while the crawler has
  it in flight).

Peaks ("reaches 10") are asserted only where the schedule forces them: a
frontier with more startable work than the limits, at an instant the
crawler's trace shows, or a server that holds its answers until enough
requests are in flight together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from crawlsim.trace.events import FetchFailed, FetchFinished, FetchStarted, HostDeferred, event_from_dict
from crawlsim.real.flags import parse_resolve, scenario_flags
from crawlsim.real.crawler import DEFAULT_USER_AGENT, CrawlResult, HttpLimits, crawl_http, parse_html, real_options
from crawlsim.real.server import ServerLog, ServerProcess
from crawlsim.real.timescale import scale_scenario
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.driver import simulate


def crawl_main(argv: list[str]) -> int:
    """``crawlsim crawl ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["crawl", *argv])


CLOCK_EPS = 1e-9  # float rounding of times on one clock, not a timing tolerance
REPO = Path(__file__).resolve().parent.parent


def make_scenario(
    pages: dict[str, Any],
    *,
    latency: float | dict[str, float] = 0.01,
    crawl: dict[str, Any] | None = None,
    hosts: dict[str, dict[str, Any]] | None = None,
    start: str | None = None,
    seed: int | None = None,
) -> Scenario:
    """A scenario from a pages table (quick to write in a test); ``seed`` fixes the
    latency draws (the scenario default when None)."""
    table: dict[str, dict[str, Any]] = {"*": {"latency": latency if isinstance(latency, float) else 0.01}}
    if isinstance(latency, dict):
        for host, value in latency.items():
            table.setdefault(host, {})["latency"] = value
    for host, spec in (hosts or {}).items():
        table.setdefault(host, {}).update(spec)
    data = {"start": start or next(iter(pages)), "crawl": crawl or {}, "hosts": table, "pages": pages}
    if seed is not None:
        data["seed"] = seed
    return scenario_from_dict(data, name="test")


async def crawl_served(scenario: Scenario, **overrides: Any) -> tuple[CrawlResult, ServerProcess]:
    """Serve ``scenario`` on loopback in a child process (see ServerProcess: its
    arrival stamps do not wait behind the crawler's work) and crawl it with
    the scenario's own options plus ``overrides``."""
    options = real_options(overrides, base=scenario.options.as_mapping())
    with ServerProcess(scenario) as server:
        result = await crawl_http(
            scenario.seeds, options, resolve=server.resolve(), limits=HttpLimits(timeout=5.0), max_time=20.0
        )
    assert result.stopped is None, result.stopped
    return result, server


# ------------------------------------------------------------------ the crawler's trace vs the server


def starts_by_host(result: CrawlResult) -> dict[str, list[float]]:
    """FetchStarted times per host, from the crawler's trace."""
    starts: dict[str, list[float]] = defaultdict(list)
    for e in result.events:
        if isinstance(e, FetchStarted):
            starts[e.host].append(e.t)
    return starts


def peaks_in_trace(result: CrawlResult) -> tuple[int, dict[str, int]]:
    """Most fetches in flight at once, in all and per host, replaying the trace."""
    total, peak, per, peak_per = 0, 0, Counter[str](), Counter[str]()
    for e in result.events:
        if isinstance(e, FetchStarted):
            total += 1
            per[e.host] += 1
            peak, peak_per[e.host] = max(peak, total), max(peak_per[e.host], per[e.host])
        elif isinstance(e, FetchFinished | FetchFailed):
            total -= 1
            per[e.host] -= 1
    return peak, dict(peak_per)


def check_server_against_trace(result: CrawlResult, log: ServerLog, gap: float) -> float:
    """What the server saw, checked against the crawler's trace (module
    docstring); returns the largest lateness measured (seconds)."""
    started: dict[str, list[float]] = defaultdict(list)
    for e in result.events:
        if isinstance(e, FetchStarted):
            started[e.url].append(result.origin + e.t)
    arrived: dict[str, list[float]] = defaultdict(list)
    for r in sorted(log.records, key=lambda r: r.start):
        arrived[f"http://{r.host}{r.path}"].append(r.start)
    # every request the server saw is one the crawler started, and the other way round
    assert {u: len(ts) for u, ts in arrived.items()} == {u: len(ts) for u, ts in started.items()}
    lateness = [a - s for url in started for s, a in zip(started[url], arrived[url], strict=True)]
    assert min(lateness) >= -CLOCK_EPS, "the server saw a request before the crawler started it"
    jitter = max(lateness)
    if gap:
        for host in log.peak_per_host:
            spacing = log.min_spacing(host)
            assert spacing is None or spacing >= gap - jitter - CLOCK_EPS, (host, spacing, jitter)
    return jitter


# ------------------------------------------------------------------ concurrency limits


async def test_a_global_limit_of_10_and_per_host_2_are_never_exceeded() -> None:
    """The crawling guide's exercise: global limit 10, per-host limit 2.  The start page
    links to all 64 pages of 8 hosts, so when it is done the frontier holds
    far more startable work than the limits allow: the crawler's trace must
    show exactly 10 in flight (2 per host), and the server never more."""
    hosts = [f"h{i}.test" for i in range(8)]
    every = [f"http://{h}/" for h in hosts] + [f"http://{h}/p{j}" for h in hosts for j in range(7)]
    pages: dict[str, Any] = {url: [] for url in every}
    pages["http://h0.test/"] = every
    scenario = make_scenario(pages, latency=0.03, crawl={"workers": 10, "per_host": 2, "scope": "any"})
    result, server = await crawl_served(scenario, gap=0.0, robots=False)
    assert result.stats.pages_fetched == 8 * 8
    peak, peak_per_host = peaks_in_trace(result)
    assert peak == 10 and result.stats.peak_in_flight == 10  # forced by the schedule
    assert max(peak_per_host.values()) == 2
    assert server.log.peak_total <= 10
    assert max(server.log.peak_per_host.values()) <= 2
    check_server_against_trace(result, server.log, gap=0.0)


@st.composite
def small_sites(draw: st.DrawFn) -> tuple[dict[str, list[str]], dict[str, float]]:
    n_hosts = draw(st.integers(2, 4))
    hosts = [f"s{i}.test" for i in range(n_hosts)]
    urls = [f"http://{h}/" for h in hosts] + [
        f"http://{draw(st.sampled_from(hosts))}/p{i}" for i in range(draw(st.integers(2, 14)))
    ]
    graph = {u: [urls[j] for j in draw(st.lists(st.integers(0, len(urls) - 1), max_size=5))] for u in urls}
    graph[urls[0]] += urls[1:n_hosts]  # every host is reachable
    latency = {h: draw(st.sampled_from([0.0, 0.005, 0.02])) for h in hosts}
    return graph, latency


# Few, fixed examples: real sockets are slow, and a timing test must fail the same way twice.
@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    site=small_sites(),
    workers=st.integers(1, 6),
    per_host=st.integers(1, 2),
    gap=st.sampled_from([0.0, 0.02, 0.04]),
)
def test_limits_and_gap_hold_on_random_sites(
    site: tuple[dict[str, list[str]], dict[str, float]], workers: int, per_host: int, gap: float
) -> None:
    graph, latency = site
    scenario = make_scenario(
        dict(graph), latency=latency, crawl={"workers": workers, "per_host": per_host, "gap": gap, "scope": "any"}
    )
    result, server = asyncio.run(crawl_served(scenario, robots=False))
    log = server.log
    # on the crawler's own clock, exactly: limits, and starts (decided and on the wire) a gap apart
    peak, peak_per_host = peaks_in_trace(result)
    assert peak <= workers and all(n <= per_host for n in peak_per_host.values()), peak_per_host
    for ts in starts_by_host(result).values():
        assert all(b - a >= gap - CLOCK_EPS for a, b in pairwise(ts))
    # on the wire too, for any per-host limit: a request waits for the host's previous request
    # to reach the wire before it reads that send time (HttpFetcher._claim_wire)
    wire: dict[str, list[float]] = defaultdict(list)
    for host, at in result.wire:
        wire[host].append(at)
    for ts in wire.values():
        assert all(b - a >= gap - CLOCK_EPS for a, b in pairwise(ts))
    # ... and the server's view, checked against that trace
    assert log.peak_total <= workers
    assert all(n <= per_host for n in log.peak_per_host.values()), log.peak_per_host
    check_server_against_trace(result, log, gap)
    # the real crawl fetches exactly the pages the simulation does
    sim = simulate(scenario.with_options(gap=gap, robots=False))
    assert result.fetched == {e.url for e in sim.trace if isinstance(e, FetchStarted) and e.kind == "page"}


class HoldingServer:
    """``/`` links to ``/p0`` .. ``/p{n-1}``; the first ``hold`` of those are not
    answered until ``hold`` requests are in flight together (a request that
    waits longer than 30 s gets a 503), so the overlap is forced, not hoped for."""

    def __init__(self, pages: int, hold: int) -> None:
        self.pages, self.hold = pages, hold
        self.arrivals: list[tuple[str, float]] = []
        self.in_flight = self.peak = 0
        self._held = 0
        self._all_there = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: one connection may carry several requests
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ")[1].decode()
                self.arrivals.append((path, time.monotonic()))
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
                status, body = 200, b"<p>page</p>"
                if path == "/":
                    body = "".join(f'<a href="/p{i}">p</a>' for i in range(self.pages)).encode()
                elif self._held < self.hold:
                    self._held += 1
                    if self._held == self.hold:
                        self._all_there.set()
                    try:
                        await asyncio.wait_for(self._all_there.wait(), 30)
                    except TimeoutError:
                        status = 503
                self.in_flight -= 1
                writer.write(BadServer._response(status, body).replace(b"Connection: close", b"Connection: keep-alive"))
                await writer.drain()
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            writer.close()


async def test_gap_holds_under_concurrency() -> None:
    """Four requests in flight on one host (the server holds its first four
    answers until all four have arrived), yet starts stay a gap apart."""
    holding = HoldingServer(pages=12, hold=4)
    async with raw_server(holding.handle) as port:
        options = real_options({"robots": False, "gap": 0.05, "workers": 8, "per_host": 4, "max_retries": 0})
        result = await crawl_http(
            "http://g.test/", options, resolve={"g.test": ("127.0.0.9", port)}, limits=HttpLimits(timeout=60.0)
        )
    assert result.stats.pages_fetched == 13 and result.failures == {}
    assert holding.peak == 4  # concurrency was used (forced) ...
    assert peaks_in_trace(result)[1] == {"g.test": 4}
    starts = starts_by_host(result)["g.test"]
    assert all(b - a >= 0.05 - CLOCK_EPS for a, b in pairwise(starts))  # ... and the gap held, exactly
    # every arrival came after its start; none closer to the previous than the gap minus measured lateness
    started = {e.url: result.origin + e.t for e in result.events if isinstance(e, FetchStarted)}
    assert sorted(f"http://g.test{path}" for path, _ in holding.arrivals) == sorted(started)
    lateness = [at - started[f"http://g.test{path}"] for path, at in holding.arrivals]
    assert min(lateness) >= -CLOCK_EPS
    arrived = sorted(at for _, at in holding.arrivals)
    assert all(b - a >= 0.05 - max(lateness) - CLOCK_EPS for a, b in pairwise(arrived))


# ------------------------------------------------------------------ politeness


async def test_retry_after_slows_the_whole_host() -> None:
    """A 429 with Retry-After: 1 on one page holds back every page of that host
    (not only the refused one), and no other host."""
    pages: dict[str, Any] = {
        "http://a.test/": ["/t", *[f"/p{i}" for i in range(6)], "http://b.test/"],
        "http://a.test/t": {"status": 429, "headers": {"Retry-After": "1"}},
        "http://b.test/": [f"/q{i}" for i in range(6)],
    }
    scenario = make_scenario(
        pages,
        latency={"a.test": 0.05, "b.test": 0.1},
        crawl={"workers": 4, "per_host": 2, "scope": "any", "max_retries": 1},
    )
    result, server = await crawl_served(scenario, gap=0.0, robots=False)
    assert result.failures == {"http://a.test/t": "HTTP 429"}
    # on the crawler's trace, exactly: no a.test start within 1 s after the 429 came back
    refused_t = next(e.t for e in result.events if isinstance(e, FetchFinished | FetchFailed) and e.url.endswith("/t"))
    later = [t for t in starts_by_host(result)["a.test"] if t > refused_t]
    assert later, "a.test had pages left after the 429"
    assert min(later) >= refused_t + 1.0 - CLOCK_EPS
    # the server saw the same for those requests, with no tolerance: it stamps the 429's end
    # before the crawler reads it, and a request's arrival only after the crawler started it.
    # (A request the crawler started before the 429 reached it may arrive just after the
    # server sent the 429: on a busy machine the crawler reads responses late.)
    later_urls = {
        e.url for e in result.events if isinstance(e, FetchStarted) and e.host == "a.test" and e.t > refused_t
    }
    records = sorted(server.log.records, key=lambda r: r.start)
    refused = min(r.end for r in records if r.status == 429)
    later_a = [r.start for r in records if f"http://{r.host}{r.path}" in later_urls and r.start > refused]
    assert len(later_a) == len(later)
    assert min(later_a) >= refused + 1.0 - CLOCK_EPS
    check_server_against_trace(result, server.log, gap=0.0)
    # only a.test was held: the trace defers no other host for Retry-After (whether b.test's
    # fetches happen to fall inside the hold is timing, not asserted); all of b.test was fetched
    held = {e.host for e in result.events if isinstance(e, HostDeferred) and e.reason == "retry-after"}
    assert held == {"a.test"}
    assert {u for u in result.statuses if u.startswith("http://b.test/")} == {"http://b.test/"} | {
        f"http://b.test/q{i}" for i in range(6)
    }


async def test_disallowed_pages_are_never_requested() -> None:
    robots_a = "User-agent: crawlsim\nDisallow: /private/\n\nUser-agent: *\nDisallow:\n"
    pages: dict[str, Any] = {
        "http://a.test/": ["/public", "/private/a", "/private/b?x=1", "/go", "http://b.test/"],
        "http://a.test/public": ["/private/c"],
        "http://a.test/go": {"status": 302, "headers": {"Location": "/private/d"}},
        "http://b.test/": ["/anything"],
    }
    scenario = make_scenario(
        pages,
        crawl={"workers": 4, "scope": "any"},
        hosts={"a.test": {"robots": robots_a}, "b.test": {"robots": "User-agent: *\nDisallow: /\n"}},
    )
    result, server = await crawl_served(
        scenario, gap=0.0, robots=True, user_agent=DEFAULT_USER_AGENT
    )  # matched as "crawlsim"
    assert not [p for p in server.log.paths("a.test") if p.startswith("/private")]
    assert server.log.paths("b.test") == ["/robots.txt"]
    assert set(server.log.paths("a.test")) == {"/robots.txt", "/", "/public", "/go"}
    assert result.stats.skipped["robots"] >= 4


# ------------------------------------------------------------------ misbehaving servers


class BadServer:
    """A raw asyncio server whose paths misbehave: reset, stall, garbage,
    redirect loops, an oversized body, non-HTML; ``/`` links to all of them
    and to good pages."""

    BODY = (
        b'<a href="/reset">r</a> <a href="/stall">s</a> <a href="/garbage">g</a> <a href="/loop-a">l</a> '
        b'<a href="/big">b</a> <a href="/data.json">j</a> <a href="/self">self</a> <a href="/ok">ok</a> '
        b'<a href="/moved/here">m</a> <a href="/far">far</a> <a href="/hop/0">hops</a>'
    )

    def __init__(self) -> None:
        self.requests: list[str] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ")[1].decode()
            self.requests.append(path)
            if path == "/reset":
                sock = writer.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()
                return
            if path == "/stall":
                await asyncio.sleep(3)
            elif path == "/garbage":
                writer.write(b"\x00\xff\xfe NOT HTTP \x01\x02\r\n\r\n")
            elif path in ("/loop-a", "/loop-b", "/self"):
                target = {"/loop-a": "/loop-b", "/loop-b": "/loop-a", "/self": "/self"}[path]
                writer.write(self._response(302, b"", f"Location: {target}\r\n"))
            elif path.startswith("/hop/"):
                writer.write(self._response(302, b"", f"Location: /hop/{int(path[5:]) + 1}\r\n"))
            elif path == "/robots.txt":
                writer.write(self._response(301, b"", "Location: /robots.txt\r\n"))  # a loop
            elif path == "/moved/here":
                writer.write(self._response(301, b"", "Location: /new/place\r\n"))
            elif path == "/far":
                writer.write(self._response(301, b"", "Location: http://other.test/landing\r\n"))
            elif path == "/big":
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n" + b"x" * 200_000
                )
            elif path == "/data.json":
                writer.write(self._response(200, b'{"a": "<a href=\\"/secret\\">"}', "", "application/json"))
            elif path == "/new/place":
                writer.write(self._response(200, b'<a href="sibling">relative to the final URL</a>'))
            elif path == "/":
                writer.write(self._response(200, self.BODY))
            else:
                writer.write(self._response(200, b"<p>fine</p>"))
            await writer.drain()
            writer.close()
        except (asyncio.CancelledError, ConnectionError, asyncio.IncompleteReadError):
            writer.close()

    @staticmethod
    def _response(status: int, body: bytes, extra: str = "", ctype: str = "text/html") -> bytes:
        head = (
            f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n{extra}\r\n"
        )
        return head.encode() + body


@contextlib.asynccontextmanager
async def raw_server(
    handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]], address: str = "127.0.0.9"
) -> AsyncIterator[int]:
    server = await asyncio.start_server(handler, address, 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 1.0)


async def test_a_misbehaving_server_costs_only_that_page() -> None:
    bad = BadServer()
    async with raw_server(bad.handle) as port:
        options = real_options({"robots": False, "gap": 0.0, "max_retries": 1, "backoff_base": 0.05, "workers": 4})
        result = await crawl_http(
            "http://bad.test/",
            options,
            resolve={"bad.test": ("127.0.0.9", port)},
            # 1 s: /stall (3 s) times out; on a loaded machine no other page comes near it
            limits=HttpLimits(timeout=1.0, max_bytes=100_000),
            max_time=60.0,
        )
    assert result.stopped is None
    f = result.failures
    assert f["http://bad.test/reset"] == "connection reset"
    assert f["http://bad.test/stall"] == "timeout after 1 s"
    assert f["http://bad.test/garbage"].startswith("not a valid HTTP response")
    assert f["http://bad.test/loop-a"].startswith("redirect loop: http://bad.test/loop-a -> http://bad.test/loop-b")
    assert f["http://bad.test/self"].startswith("redirect loop")
    assert f["http://bad.test/big"] == "too large: more than 100000 bytes"
    assert f["http://bad.test/hop/0"].startswith("more than 5 redirects: http://bad.test/hop/0 -> ")
    assert "/hop/5" in bad.requests and "/hop/6" not in bad.requests  # the sixth redirect is not followed
    assert len(f) == 7
    # transient failures were retried once; the rest failed at once
    assert bad.requests.count("/reset") == 2 and bad.requests.count("/stall") == 2
    assert bad.requests.count("/garbage") == 1
    # the good pages all came through
    assert result.statuses["http://bad.test/ok"] == 200
    assert result.statuses["http://bad.test/data.json"] == 200
    assert "/secret" not in bad.requests  # non-HTML content has no links
    # a same-host redirect was followed and its page's links resolved against the final URL
    assert result.statuses["http://bad.test/moved/here"] == 200
    assert "/new/sibling" in bad.requests
    # a redirect to another host is handed to the scheduler (scope host: not followed)
    assert result.statuses["http://bad.test/far"] == 301
    assert result.stats.skipped["scope"] >= 1


async def test_a_robots_txt_redirect_loop_means_no_rules() -> None:
    """RFC 9309: robots.txt that cannot be reached through redirects is
    "unavailable", which allows everything (unlike a 5xx, which forbids)."""
    bad = BadServer()
    async with raw_server(bad.handle) as port:
        options = real_options({"gap": 0.0, "max_retries": 0})
        result = await crawl_http(
            "http://bad.test/ok",
            options,
            resolve={"bad.test": ("127.0.0.9", port)},
            limits=HttpLimits(timeout=30.0),  # no page here stalls: only a guard, which a stopped machine must not reach
            max_time=60.0,
        )
    assert result.statuses == {"http://bad.test/ok": 200}
    assert bad.requests == ["/robots.txt", "/ok"]  # the loop is seen without asking again


async def test_a_host_missing_from_the_map_is_an_error_not_a_dns_lookup() -> None:
    bad = BadServer()
    async with raw_server(bad.handle) as port:
        options = real_options({"robots": False, "gap": 0.0, "scope": "any", "max_retries": 0})
        result = await crawl_http(
            "http://bad.test/far",
            options,
            resolve={"bad.test": ("127.0.0.9", port)},
            limits=HttpLimits(timeout=30.0),  # no page here stalls: only a guard, which a stopped machine must not reach
            max_time=60.0,
        )
    assert result.failures == {
        "http://other.test/landing": ("host other.test is not in the host map (--resolve); not looked up in DNS")
    }


def test_parse_html_reads_links_as_written_and_base_href() -> None:
    text = (
        '<html><head><base href="/docs/v2/"></head><body><main>Main text</main>'
        '<a href="a&amp;b">1</a><area href="../up"><a name="x">no href</a><a href="">empty</a></body></html>'
    )
    links, base, content = parse_html(text, "http://h.test/page", want_content=True)
    assert links == ["a&b", "../up", ""]
    assert base == "http://h.test/docs/v2/"
    assert content == "Main text"


# ------------------------------------------------------------------ fidelity and the CLI


@pytest.mark.parametrize(("name", "scale"), [("see-it", 0.04), ("interview-scope", 0.4)])
async def test_a_served_scenario_crawls_like_its_simulation(name: str, scale: float) -> None:
    scenario = scale_scenario(load_scenario(name), scale)  # shortest latency 40 ms
    result, _ = await crawl_served(scenario)
    sim = simulate(scenario)
    assert result.fetched == {e.url for e in sim.trace if isinstance(e, FetchStarted) and e.kind == "page"}
    assert result.failures == sim.failures
    # Never faster than the simulation: the served latencies are real sleeps.  How close
    # it comes (within 10%) is measured by benchmarks/fidelity.py, never asserted here.
    assert result.finish_time >= sim.finish_time * 0.98


@contextlib.contextmanager
def served_see_it(tmp_path: Path, time_scale: str) -> Iterator[tuple[str, Path]]:
    """`crawlsim serve see-it` in a child process: (the start URL of its first line, its hosts file)."""
    hosts_file = tmp_path / "hosts.json"
    command = [sys.executable, "-m", "crawlsim", "serve", "see-it", "--port", "0"]
    command += ["--time-scale", time_scale, "--hosts-file", str(hosts_file), "--duration", "30"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().split()[2]  # the first line is `crawlsim crawl START ...`
        for line in proc.stdout:  # blocks until serve has written the map (no polling, no deadline)
            if line.startswith("host map written to"):
                break
        assert hosts_file.exists(), f"serve exited without writing {hosts_file}"
        yield first, hosts_file
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_prints_the_start_url_first_and_crawl_follows_its_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl"
    with served_see_it(tmp_path, "0.02") as (first, hosts_file):
        assert first == "http://a.com/"
        resolve = parse_resolve([], str(hosts_file))
        assert set(resolve) == {"a.com", "b.com"}
        assert all(ip.startswith("127.") for ip, _ in resolve.values())
        code = crawl_main(
            [
                first,
                "--hosts-file",
                str(hosts_file),
                "--json",
                "-o",
                str(trace),
                "--workers",
                "4",
                "--per-host",
                "1",
                "--gap",
                "0",
                "--scope",
                "any",
                "--no-robots",
                "--max-time",
                "20",
            ]
        )
    out = capsys.readouterr()
    assert code == 0
    summary = json.loads(out.out)
    assert summary["pages_fetched"] == 14 and summary["clock"] == "wall" and summary["failures"] == {}
    assert "politeness: robots.txt NOT read" in out.err
    events = [event_from_dict(json.loads(line)) for line in trace.read_text().splitlines()]
    assert type(events[-1]).__name__ == "Done"
    assert sum(isinstance(e, FetchStarted) for e in events) == 14


def test_crawl_cli_states_its_polite_defaults_and_rejects_mistakes(capsys: pytest.CaptureFixture[str]) -> None:
    assert crawl_main(["http://a.test/", "--workers", "0"]) == 2
    assert "crawlsim: error: workers" in capsys.readouterr().err
    assert crawl_main(["http://a.test/", "--resolve", "a.test"]) == 2
    assert "--resolve: expected HOST=ADDR:PORT" in capsys.readouterr().err
    assert crawl_main(["ftp://a.test/"]) == 2
    # an unmapped host fails fast (no DNS), so nothing is fetched (exit 1);
    # the output still states the politeness in force
    assert crawl_main(["http://a.test/", "--resolve", "b.test=127.0.0.9:9", "--max-time", "5"]) == 1
    out = capsys.readouterr().out
    assert f"as {DEFAULT_USER_AGENT!r}" in out
    assert "politeness: robots.txt obeyed; per host at most 2 fetches at a time, starts 1 s apart" in out
    assert "scope: host" in out


def test_scenario_flags_reproduce_the_scenario_options() -> None:
    scenario = load_scenario("see-it")
    flags = scenario_flags(scenario.options, list(scenario.data["crawl"]))
    assert flags == ["--workers", "4", "--per-host", "1", "--gap", "0", "--scope", "any", "--no-robots"]


def test_an_unreachable_host_is_named_and_the_exit_code_says_nothing_was_fetched(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A crawl that fetched nothing must not look like a success: the robots.txt
    failure is named (RFC 9309 then disallows the host) and the exit code is 1."""
    import socket

    with socket.socket() as probe:  # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = crawl_main([f"http://127.0.0.1:{port}/", "--timeout", "1", "--set", "backoff_base=0.05"])
    out, err = capsys.readouterr()
    assert code == 1
    assert f"robots.txt of 127.0.0.1:{port} could not be read" in out
    assert "no page could be fetched" in err
    code = crawl_main([f"http://127.0.0.1:{port}/", "--no-robots", "--timeout", "1", "--set", "backoff_base=0.05"])
    out, _ = capsys.readouterr()
    assert code == 1 and "cannot connect" in out


def test_crawl_tui_watches_a_real_crawl_while_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`crawlsim crawl --tui`: the crawl runs on its own thread while the app
    follows its events; the app sees the event list grow before the crawl ends."""
    import crawlsim.tui.app as tui_app

    seen_sizes: list[int] = []

    class WatchingApp:  # stands in for the terminal app: records what it could draw
        def __init__(self, *, live: Any) -> None:
            self.feed = live

        def run(self) -> None:
            deadline = time.monotonic() + 20
            while not self.feed.done and time.monotonic() < deadline:
                seen_sizes.append(len(self.feed.events))
                time.sleep(0.02)
            seen_sizes.append(len(self.feed.events))

    monkeypatch.setattr(tui_app, "CrawlApp", WatchingApp)
    monkeypatch.setenv("CRAWLSIM_TUI_FORCE", "1")
    with served_see_it(tmp_path, "0.05") as (first, hosts_file):
        code = crawl_main(
            [
                first,
                "--hosts-file",
                str(hosts_file),
                "--tui",
                "-o",
                str(tmp_path / "t.jsonl"),
                "--workers",
                "4",
                "--per-host",
                "1",
                "--gap",
                "0",
                "--scope",
                "any",
                "--no-robots",
            ]
        )
    assert code == 0
    growing = sorted(set(seen_sizes))
    assert len(growing) >= 3 and growing[0] < growing[-1]  # watched while it ran, not after
    assert re.search(r"pages fetched +14\s", capsys.readouterr().out)  # the label column widened ("failed fetches")
