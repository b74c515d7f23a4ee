"""Hostile servers, hostile flags and hostile ``get_urls`` against the real
crawler, ``serve`` and ``crawlsim.crawl`` (the hostile-input probes, kept as tests).

Every server here listens on 127.0.0.1 at port 0.  Addresses the crawler must
refuse (169.254.x, 10.x, ...) are never contacted: the tests read the
crawler's own record of what it refused *before connecting*.  No assertion
is about speed: each test checks an outcome (the page failed with its reason,
the crawl returned, nothing was lost), and time limits given to the crawler
are only guards against a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.core.options import OptionError
from crawlsim.drivers.threaded import crawl
from crawlsim.real import server as server_module
from crawlsim.real.crawler import (
    ROBOTS_MAX_BYTES,
    AddressPolicy,
    CrawlResult,
    HttpLimits,
    ParseError,
    crawl_http,
    nesting_depth,
    parse_html_off_loop,
    real_options,
)
from crawlsim.real.server import ScenarioServer
from crawlsim.real.timescale import scale_scenario
from crawlsim.scenario import load_scenario


def crawl_main(argv: list[str]) -> int:
    """``crawlsim crawl ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["crawl", *argv])


def serve_main(argv: list[str]) -> int:
    """``crawlsim serve ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["serve", *argv])


GUARD = 60.0  # seconds: a crawl's max_time here only stops a hang; no test relies on reaching it

Route = Callable[[web.BaseRequest], web.StreamResponse]


def html(body: str) -> web.Response:
    return web.Response(text=body, content_type="text/html")


def redirect(location: str, status: int = 302) -> web.Response:
    return web.Response(status=status, headers={"Location": location})


class Hostile:
    """An aiohttp server on 127.0.0.1 (port 0) answering from ``routes``
    (path -> function of the request); ``seen`` lists the paths requested."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.seen: list[str] = []
        self.port = 0
        self._runner: web.ServerRunner | None = None

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        self.seen.append(request.path)
        route = self.routes.get(request.path)
        return route(request) if route is not None else web.Response(status=404)

    async def start(self) -> int:
        self._runner = web.ServerRunner(web.Server(self._handle), handle_signals=False, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.asynccontextmanager
async def hostile(routes: dict[str, Route]) -> AsyncIterator[Hostile]:
    server = Hostile(routes)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@contextlib.contextmanager
def hostile_in_thread(routes: dict[str, Route]) -> Iterator[Hostile]:
    """:class:`Hostile` on an event loop of its own thread (for the CLI, which
    runs its own loop)."""
    server = Hostile(routes)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(server.stop())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(GUARD)
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(GUARD)


async def crawl_of(server: Hostile, **options: Any) -> CrawlResult:
    limits = options.pop("limits", HttpLimits(timeout=10.0))
    opts = real_options({"gap": 0.0, "max_retries": 0, **options})
    return await crawl_http(server.url + "/", opts, limits=limits, max_time=GUARD)


# --------------------------------------------------------------------------- parsing


async def test_a_nested_div_bomb_fails_its_page_and_the_rest_is_crawled() -> None:
    """300,000 nested <div> in 1.5 MB (under the 2 MB cap): the page fails
    with a reason before the parser sees it; its siblings are crawled."""
    bomb = "<div>" * 300_000
    assert len(bomb) < HttpLimits().max_bytes
    routes = {
        "/": lambda r: html('<a href="/bomb">b</a> <a href="/ok">ok</a>'),
        "/bomb": lambda r: html(bomb),
        "/ok": lambda r: html('<a href="/deeper">d</a>'),
        "/deeper": lambda r: html("fine"),
    }
    async with hostile(routes) as server:
        result = await crawl_of(server, robots=False)
    assert result.stopped is None
    assert result.failures[server.url + "/bomb"].startswith("too deeply nested")
    assert result.statuses[server.url + "/deeper"] == 200
    assert set(result.failures) == {server.url + "/bomb"}


async def test_a_parse_over_its_deadline_fails_and_is_abandoned() -> None:
    """Without the nesting cap, a slow parse is cut off by its deadline (the
    document needs seconds; the deadline is a thousandth of one)."""
    deep = "<div>" * 30_000
    with pytest.raises(ParseError, match="parse took too long"):
        await parse_html_off_loop(deep, "http://a.test/", timeout=0.001, max_nesting=None)


async def test_parsing_does_not_block_the_event_loop() -> None:
    """While a large page is parsed, other coroutines keep running."""
    ticks = 0
    parse = asyncio.create_task(
        parse_html_off_loop("<div>" * 10_000 + '<a href="/x">x</a>', "http://a.test/", timeout=None, max_nesting=None)
    )
    while not parse.done():
        ticks += 1
        await asyncio.sleep(0)
    links, _, _ = await parse
    assert links == ["/x"]
    assert ticks > 10  # a parse on the loop itself would let the ticker run about once


@st.composite
def element_trees(draw: st.DrawFn, depth: int = 0) -> tuple[str, int]:
    """(HTML of nested div/span/section elements, their true nesting depth)."""
    if depth >= 6 or not draw(st.booleans()):
        return draw(st.sampled_from(["", "text", "<br>", "<img src=x>", "<p>para"])), 0
    tag = draw(st.sampled_from(["div", "span", "section", "DIV"]))
    children = draw(st.lists(element_trees(depth + 1), max_size=3))
    inner = "".join(c for c, _ in children)
    return f"<{tag} class=x>{inner}</{tag}>", 1 + max((d for _, d in children), default=0)


@given(element_trees())
def test_the_nesting_prescan_measures_well_formed_nesting_exactly(tree: tuple[str, int]) -> None:
    text, depth = tree
    assert nesting_depth(text) == depth


# --------------------------------------------------------------------------- Retry-After and time limits


@pytest.mark.parametrize("retry_after", ["1000000000", "1e999", "Fri, 31 Dec 9999 23:59:59 GMT"])
async def test_a_huge_retry_after_never_loses_the_page(retry_after: str) -> None:
    """Either the core refuses the wait (the page fails, 'retry-after too
    long') or the time limit stops the crawl: in both cases every page found
    is in the results, the failures or the not-fetched list, with a reason."""
    routes = {
        "/": lambda r: html('<a href="/busy">b</a> <a href="/later">l</a>'),
        "/busy": lambda r: web.Response(status=503, headers={"Retry-After": retry_after}),
        "/later": lambda r: html("fine"),
    }
    async with hostile(routes) as server:
        opts = real_options({"gap": 0.0, "robots": False, "max_retries": 3, "per_host": 1, "workers": 1})
        result = await crawl_http(server.url + "/", opts, limits=HttpLimits(timeout=10.0), max_time=3.0)
    done = {u for u, s in result.statuses.items() if s < 400}
    accounted = done | set(result.failures) | set(result.unfinished)
    assert set(result.found) <= accounted
    assert server.url + "/busy" in set(result.failures) | set(result.unfinished)
    for reason in (*result.failures.values(), *result.unfinished.values()):
        assert reason


def test_crawl_max_time_lists_what_it_did_not_fetch(capsys: pytest.CaptureFixture[str]) -> None:
    routes = {
        "/": lambda r: html('<a href="/busy">b</a> <a href="/later">l</a>'),
        "/busy": lambda r: web.Response(status=503, headers={"Retry-After": "1000000000"}),
        "/later": lambda r: html("fine"),
    }
    with hostile_in_thread(routes) as server:
        code = crawl_main(
            [server.url + "/", "--json", "--no-robots", "--gap", "0", "--per-host", "1", "--max-time", "3"]
        )
    out = capsys.readouterr().out
    data = json.loads(out)
    assert code == 0
    failed, not_fetched = data["failures"], data.get("not_fetched", {})
    # every page found is fetched, failed or listed as not fetched, once
    assert data["found"] == data["pages_fetched"] + len(failed) + len(not_fetched)
    assert not set(failed) & set(not_fetched)
    assert server.url + "/busy" in {**failed, **not_fetched}


HELD_ROUTES = {
    "/": lambda r: html('<a href="/held">h</a>'),
    "/held": lambda r: web.Response(status=503, headers={"Retry-After": "100"}),
}
"""A site whose second page holds its host for 100 s (Retry-After under the crawler's most,
so the page waits): a crawl of it with a time limit of seconds is stopped by the limit."""


@pytest.mark.parametrize("as_json", [False, True])
def test_a_crawl_the_time_limit_stopped_finishes_when_it_stopped(
    as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # --max-time 5 printed "finish time 4.0 s" (its last response) and then that
    # time left was not measured because "the crawl recorded no events"
    argv = ["--no-robots", "--gap", "0", "--per-host", "1", "--max-time", "2", *(["--json"] if as_json else [])]
    with hostile_in_thread(HELD_ROUTES) as server:
        assert crawl_main([server.url + "/", *argv]) == 0
    out = capsys.readouterr().out
    if as_json:
        data = json.loads(out)
        assert data["stopped"] == "time limit of 2 s reached" and data["time_left"] is None
        assert data["finish_time"] >= 2.0
        return
    finish = re.search(r"finish time +([\d.,]+) s  \(wall; stopped: time limit of 2 s reached\)", out)
    assert finish is not None and float(finish.group(1).replace(",", "")) >= 2.0, out
    assert "stopped early: time limit of 2 s reached" in out
    assert "not measured: the crawl was stopped (time limit of 2 s reached)" in out
    assert "recorded no events" not in out


# --------------------------------------------------------------------------- robots.txt and redirects

PRIVATE_TARGETS = [
    "http://169.254.169.254/robots.txt",
    "http://10.0.0.1/robots.txt",
    "http://192.168.1.1:8080/robots.txt",
    "http://[fe80::1]/robots.txt",
    "http://[::ffff:10.1.2.3]/robots.txt",
]


@pytest.mark.parametrize("target", PRIVATE_TARGETS)
async def test_robots_txt_redirect_to_a_private_address_is_refused_before_connecting(target: str) -> None:
    """scope=any, so only the address policy stands between the redirect and
    the internal address; the crawler refuses it without connecting, and the
    host counts as having an unreadable robots.txt (nothing fetched)."""
    routes = {"/robots.txt": lambda r: redirect(target), "/": lambda r: html("secret")}
    async with hostile(routes) as server:
        result = await crawl_of(server, scope="any")
    assert any(reason.startswith("refused before connecting") for reason in result.robots_refused.values())
    assert result.refused and all(what == target for what, _ in result.refused)
    assert server.seen == ["/robots.txt"]  # the page itself was not fetched: robots.txt unreadable


@pytest.mark.parametrize("target", PRIVATE_TARGETS[:2])
async def test_robots_txt_redirect_out_of_scope_is_not_followed(target: str) -> None:
    routes = {"/robots.txt": lambda r: redirect(target), "/": lambda r: html("x")}
    async with hostile(routes) as server:
        result = await crawl_of(server)  # scope=host
    (reason,) = result.robots_refused.values()
    assert "not followed" in reason and "out of scope" in reason
    assert [what for what, _ in result.refused] == [target]


async def test_a_page_redirect_to_a_private_address_fails_that_page_only() -> None:
    routes = {
        "/": lambda r: html('<a href="/go">g</a> <a href="/ok">ok</a>'),
        "/go": lambda r: redirect("http://10.0.0.1/admin"),
        "/ok": lambda r: html("fine"),
    }
    async with hostile(routes) as server:
        result = await crawl_of(server, robots=False, scope="any")
    assert result.failures["http://10.0.0.1/admin"].startswith("refused before connecting: 10.0.0.1")
    assert result.statuses[server.url + "/ok"] == 200
    assert [what for what, _ in result.refused] == ["http://10.0.0.1/admin"]


@pytest.mark.parametrize("status", [600, 999])
async def test_a_status_outside_100_to_599_fails_that_page_and_the_crawl_goes_on(status: int) -> None:
    """``HTTP/1.1 999 Weird`` is a malformed response: that page fails with
    the reason, its siblings are crawled (the core never sees the status)."""
    routes = {
        "/": lambda r: html('<a href="/weird">w</a> <a href="/ok">ok</a>'),
        "/weird": lambda r: web.Response(status=status, text='<a href="/behind">b</a>', content_type="text/html"),
        "/ok": lambda r: html("fine"),
    }
    async with hostile(routes) as server:
        result = await crawl_of(server, robots=False)
    assert result.failures[server.url + "/weird"] == f"not a valid HTTP response (status {status}, expected 100-599)"
    assert result.statuses[server.url + "/ok"] == 200
    assert "/behind" not in server.seen


def test_crawl_command_survives_a_status_999_and_prints_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    routes = {"/": lambda r: html('<a href="/weird">w</a>'), "/weird": lambda r: web.Response(status=999)}
    with hostile_in_thread(routes) as server:
        assert crawl_main([server.url + "/", "--no-robots", "--gap", "0", "--max-time", str(GUARD)]) == 0
    captured = capsys.readouterr()
    assert "not a valid HTTP response (status 999" in captured.out
    assert "internal error" not in captured.err


@pytest.mark.parametrize(
    ("start", "key", "normalize"),
    [
        ("http://bücher.de/", "bücher.de", "rfc3986"),  # the URL is IDNA-encoded, the key was not
        ("http://bücher.de/", "xn--bcher-kva.de", "off"),  # the key is encoded, the URL as written is not
        ("http://xn--bcher-kva.de/", "BÜCHER.de", "rfc3986"),
    ],
)
def test_resolve_maps_an_internationalized_host_in_either_spelling(
    start: str, key: str, normalize: str, capsys: pytest.CaptureFixture[str]
) -> None:
    routes = {"/": lambda r: html('<a href="/x">x</a>'), "/x": lambda r: html("fine")}
    with hostile_in_thread(routes) as server:
        argv = [start, "--resolve", f"{key}=127.0.0.1:{server.port}", "--no-robots", "--gap", "0",
                "--normalize", normalize, "--max-time", str(GUARD), "--json"]
        assert crawl_main(argv) == 0, capsys.readouterr().err
    assert sorted(server.seen) == ["/", "/x"]


class FakeDns:
    """Stands in for aiohttp's resolver: ``internal.test`` resolves to a private
    address, anything else to 127.0.0.1 (no real lookup is made)."""

    async def resolve(self, host: str, port: int = 0, family: int = socket.AF_INET) -> list[dict[str, Any]]:
        address = "192.0.2.1" if host == "internal.test" else "127.0.0.1"  # TEST-NET-1: routes nowhere
        return [{"hostname": host, "host": address, "port": port, "family": socket.AF_INET, "proto": 0, "flags": 0}]

    async def close(self) -> None:
        pass


async def test_a_name_that_resolves_to_a_private_address_is_refused_after_the_lookup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import crawlsim.real.addresses as addresses_module

    monkeypatch.setattr(addresses_module.aiohttp, "DefaultResolver", FakeDns)
    routes = {"/": lambda r: html(f'<a href="http://internal.test:{r.url.port}/admin">a</a> <a href="/ok">o</a>')}
    routes["/ok"] = lambda r: html("fine")
    async with hostile(routes) as server:
        result = await crawl_of(server, robots=False, scope="any")
    reason = result.failures[f"http://internal.test:{server.port}/admin"]
    assert reason.startswith("refused before connecting: internal.test resolves to 192.0.2.1, a private address")
    assert result.statuses[server.url + "/ok"] == 200
    assert server.seen == ["/", "/ok"]


def test_the_address_policy() -> None:
    loop_seed = AddressPolicy(["http://127.0.0.1:8000/"], {}, allow_private=False)
    assert loop_seed.refusal("127.0.0.5") is None  # loopback start: loopback allowed
    assert loop_seed.refusal("169.254.169.254") == "a link-local address"
    assert loop_seed.refusal("10.0.0.1") == "a private address"
    assert loop_seed.refusal("93.184.216.34") is None
    public = AddressPolicy(["http://example.com/"], {}, allow_private=False)
    assert public.refusal("127.0.0.1") == "a loopback address"
    mapped = AddressPolicy(["http://a.com/"], {"a.com": ("127.0.0.2", 80)}, allow_private=False)
    assert mapped.refusal("127.0.0.3") is None
    intranet = AddressPolicy(["http://10.0.0.7/"], {}, allow_private=False)
    assert intranet.refusal("10.0.0.7") is None and intranet.refusal("10.0.0.8") == "a private address"
    assert AddressPolicy([], {}, allow_private=True).refusal("169.254.169.254") is None


async def test_scope_host_includes_the_port_on_redirects() -> None:
    other_routes = {"/x": lambda r: html("other server"), "/robots.txt": lambda r: web.Response(text="")}
    async with hostile(other_routes) as other:
        routes = {
            "/": lambda r: html('<a href="/away">a</a> <a href="/ok">ok</a>'),
            "/away": lambda r: redirect(f"http://127.0.0.1:{other.port}/x"),
            "/robots.txt": lambda r: redirect(f"http://127.0.0.1:{other.port}/robots.txt"),
            "/ok": lambda r: html("fine"),
        }
        async with hostile(routes) as server:
            refused = await crawl_of(server)  # scope=host, robots obeyed
            no_robots = await crawl_of(server, robots=False)
            anywhere = await crawl_of(server, robots=False, scope="any")
    (reason,) = refused.robots_refused.values()
    assert "not followed" in reason and f"port {other.port}" in reason
    assert (
        no_robots.failures == {server.url + "/away": no_robots.failures[server.url + "/away"]}
        and "not followed" in no_robots.failures[server.url + "/away"]
    )
    assert no_robots.statuses[server.url + "/ok"] == 200
    # only the scope=any crawl reached the other port
    assert other.seen == ["/x"]
    assert anywhere.statuses[f"http://127.0.0.1:{other.port}/x"] == 200


async def test_a_redirect_is_inline_only_to_the_cores_own_host_key() -> None:
    """With normalize=fragment the URLs keep ``A.test:80`` and ``a.test`` as
    written, but both reach one server: the one host key
    (:func:`crawlsim.core.urls.host_key`, which drops the scheme's default
    port) files them under ``a.test``, so the redirect between them is followed inline, under that
    host's politeness, rather than handed to the scheduler as another host's
    link.  (Keyed as two hosts, ``a.test:80`` and ``a.test``, this redirect
    would be handed over.)"""
    routes = {"/": lambda r: redirect("http://a.test/x"), "/x": lambda r: html("here")}
    async with hostile(routes) as server:
        opts = real_options({"gap": 0.0, "robots": False, "normalize": "fragment"})
        result = await crawl_http(
            "http://A.test:80/",
            opts,
            resolve={"a.test": ("127.0.0.1", server.port)},
            limits=HttpLimits(timeout=10.0),
            max_time=GUARD,
        )
    assert result.statuses == {"http://A.test:80/": 200}


async def test_robots_txt_over_500_kib_is_read_to_its_first_500_kib() -> None:
    """A 2.5 MB robots.txt (over the 2 MB page cap): the rule in its first KiB
    is obeyed, one after 500 KiB ignored, and the host is not shut out."""
    padding = "# padding line\n" * (2_500_000 // 15)
    text = f"User-agent: *\nDisallow: /private\n{padding}Disallow: /late\n"
    assert text.index("/late") > ROBOTS_MAX_BYTES
    routes = {
        "/robots.txt": lambda r: web.Response(text=text),
        "/": lambda r: html('<a href="/private">p</a> <a href="/public">q</a> <a href="/late">l</a>'),
        "/public": lambda r: html("ok"),
        "/late": lambda r: html("ok"),
    }
    async with hostile(routes) as server:
        result = await crawl_of(server)
    assert result.robots_refused == {}
    assert "/private" not in server.seen
    assert result.statuses[server.url + "/public"] == 200 and result.statuses[server.url + "/late"] == 200


# --------------------------------------------------------------------------- serve


async def test_serve_closes_half_sent_requests() -> None:
    """Slow-headers clients: 50 connections that never finish their request
    are all closed by the server (header timeout 0.5 s here)."""
    async with ScenarioServer(load_scenario("see-it"), header_timeout=0.5) as server:
        endpoint = next(iter(server.endpoints.values()))
        opened = []
        for _ in range(50):
            reader, writer = await asyncio.open_connection(endpoint.address, endpoint.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: a.com\r\nX-Slow: ")
            await writer.drain()
            opened.append((reader, writer))
        closed = 0
        for reader, writer in opened:
            data = await asyncio.wait_for(reader.read(), GUARD)  # b"" once the server closes
            closed += data == b"" or b"408" in data or b"400" in data
            writer.close()
        assert closed == 50
        assert server.log.total == 0


async def test_serve_keeps_a_bounded_request_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "ATTEMPTS_KEPT", 8)
    async with ScenarioServer(scale_scenario(load_scenario("see-it"), 0.001), max_log=10) as server:
        endpoint = server.endpoints["a.com"]
        for i in range(30):
            reader, writer = await asyncio.open_connection(endpoint.address, endpoint.port)
            writer.write(f"GET /nope-{i}-{'x' * 1000} HTTP/1.1\r\nHost: a.com\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            await asyncio.wait_for(reader.read(), GUARD)
            writer.close()
        assert server.log.total == 30
        assert len(server.log.records) == 10
        assert all(len(r.path) <= server_module.MAX_RECORDED_PATH for r in server.log.records)
        assert len(server._attempts) <= 8


# --------------------------------------------------------------------------- CLI flags


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("crawlsim: error: ") and "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "flags",
    [
        ["--timeout", "inf"],
        ["--timeout", "nan"],
        ["--timeout", "-1"],
        ["--timeout", "1e300"],
        ["--max-time", "inf"],
        ["--max-time", "0"],
        ["--max-bytes", "0"],
        ["--max-bytes", str(2**40)],
        ["--max-redirects", "-1"],
        ["--max-redirects", "1000000"],
        ["--hosts-file", "/dev/zero"],
        ["--hosts-file", "."],
        ["--hosts-file", "/no/such/file.json"],
        ["-o", f"{__file__}/trace.jsonl"],  # a file where the trace's folder would be made
    ],
)
def test_crawl_refuses_absurd_values_in_one_line(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert crawl_main(["http://127.0.0.1:9/", *flags]) == 2
    _one_line_error(capsys)


def test_crawl_refuses_a_huge_or_wrong_hosts_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(50_000_000)  # sparse: refused by its size, never read
    assert crawl_main(["http://a.com/", "--hosts-file", str(huge)]) == 2
    assert "larger than" in _one_line_error(capsys)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    assert crawl_main(["http://a.com/", "--hosts-file", str(deep)]) == 2
    _one_line_error(capsys)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"start": [5], "hosts": []}')
    assert crawl_main(["--hosts-file", str(wrong)]) == 2
    _one_line_error(capsys)


@pytest.mark.parametrize(
    "flags",
    [
        ["--time-scale", "inf"],
        ["--time-scale", "nan"],
        ["--time-scale", "1e9"],
        ["--duration", "inf"],
        ["--duration", "-5"],
        ["--header-timeout", "0"],
        ["--header-timeout", "inf"],
        ["--port", "70000"],
        ["--hosts-file", f"{__file__}/hosts.json"],  # a file where the folder would be made
    ],
)
def test_serve_refuses_absurd_values_in_one_line(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert serve_main(["see-it", *flags]) == 2
    _one_line_error(capsys)


# --------------------------------------------------------------------------- crawlsim.crawl

SITE = "http://a.com"


def site_graph() -> dict[str, list[str]]:
    return {
        f"{SITE}/": [f"{SITE}/1", f"{SITE}/2", f"{SITE}/3"],
        f"{SITE}/1": [f"{SITE}/4"],
        f"{SITE}/2": [f"{SITE}/4", f"{SITE}/"],
        f"{SITE}/3": [],
        f"{SITE}/4": [f"{SITE}/5"],
        f"{SITE}/5": [],
    }


def test_a_get_urls_that_blocks_forever_fails_its_page_and_the_crawl_returns() -> None:
    graph = site_graph()
    never = threading.Event()

    def get_urls(url: str) -> list[str]:
        if url == f"{SITE}/1":
            never.wait()  # stuck until the test releases it
        return graph[url]

    failures: dict[str, str] = {}
    try:
        found = crawl(f"{SITE}/", get_urls, 4, timeout=0.5, failures=failures)
    finally:
        never.set()
    assert failures[f"{SITE}/1"].startswith("timeout")
    assert set(failures) == {f"{SITE}/1"}
    # /4 is still found through /2; everything else reachable is there
    assert found == sorted(graph)


def test_an_endless_generator_is_read_up_to_max_links() -> None:
    graph = site_graph()

    def get_urls(url: str) -> Any:
        if url == f"{SITE}/":
            return (f"{SITE}/{i % 6 or ''}" for i in itertools.count())  # endless, six distinct links
        return graph[url]

    failures: dict[str, str] = {}
    found = crawl(f"{SITE}/", get_urls, 4, max_links=1000, failures=failures)
    assert found == sorted(graph)
    assert "more than 1000 links" in failures[f"{SITE}/"]


@pytest.mark.parametrize("bad", ["http://a.com/3", b"http://a.com/3", None, 42, object()])
def test_a_result_that_is_not_a_list_fails_that_page(bad: object) -> None:
    graph = site_graph()

    def get_urls(url: str) -> Any:
        return bad if url == f"{SITE}/1" else graph[url]

    failures: dict[str, str] = {}
    found = crawl(f"{SITE}/", get_urls, 4, failures=failures)
    assert "expected a list of URLs" in failures[f"{SITE}/1"]
    assert found == sorted(graph)  # /4 through /2; no page per character
    assert all(len(u) > 1 for u in found)


def test_a_none_inside_the_list_is_skipped_not_an_abort() -> None:
    graph = site_graph()
    graph[f"{SITE}/"] = [f"{SITE}/1", None, 7, f"{SITE}/2", f"{SITE}/3"]  # type: ignore[list-item]
    failures: dict[str, str] = {}
    found = crawl(f"{SITE}/", graph.__getitem__, 4, failures=failures)
    assert found == sorted(site_graph())
    assert failures == {f"{SITE}/": "2 entries not a str, skipped"}


@pytest.mark.parametrize(
    ("arg", "value"),
    [("timeout", float("inf")), ("timeout", 0), ("timeout", "5"), ("max_links", 0), ("max_links", True)],
)
def test_crawl_limits_are_validated(arg: str, value: object) -> None:
    with pytest.raises(OptionError, match=arg):
        crawl(f"{SITE}/", lambda url: [], 2, **{arg: value})


HOSTILE_RESULTS: dict[str, Callable[[list[str]], Any]] = {
    "str": lambda links: links[0] if links else "x",
    "none": lambda links: None,
    "int": lambda links: 7,
    "raise": lambda links: (_ for _ in ()).throw(RuntimeError("boom")),
    "endless": lambda links: itertools.cycle(links or [f"{SITE}/0"]),
    "none-inside": lambda links: [None, *links, None],
}


@settings(max_examples=60)
@given(
    st.integers(2, 12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
            st.dictionaries(st.integers(0, n - 1), st.sampled_from(sorted(HOSTILE_RESULTS)), max_size=n),
        )
    ),
    st.integers(1, 6),
)
def test_hostile_get_urls_never_loses_a_reachable_page(case: Any, workers: int) -> None:
    """On random graphs where random pages answer with a str, None, an int,
    an exception, an endless iterator or Nones in the list: the crawl returns
    exactly the pages a BFS reaches through the links that *are* readable,
    and every hostile page is in ``failures`` with a reason."""
    n, edges, hostile_pages = case
    links = {i: sorted({f"{SITE}/{b}" for a, b in edges if a == i}) for i in range(n)}
    url_of = {f"{SITE}/{i}": i for i in range(n)}

    def readable(i: int) -> list[str]:
        mode = hostile_pages.get(i)
        if mode is None:
            return links[i]
        if mode in ("endless", "none-inside"):
            return links[i] if mode == "none-inside" or links[i] else [f"{SITE}/0"]
        return []

    reach, queue_ = {0}, [0]
    while queue_:
        for target in readable(queue_.pop()):
            j = url_of.get(target, 0)
            if j not in reach:
                reach.add(j)
                queue_.append(j)

    def get_urls(url: str) -> Any:
        i = url_of[url]
        mode = hostile_pages.get(i)
        return links[i] if mode is None else HOSTILE_RESULTS[mode](links[i])

    failures: dict[str, str] = {}
    found = crawl(f"{SITE}/0", get_urls, workers, max_links=50, failures=failures)
    assert found == sorted(f"{SITE}/{i}" for i in reach)
    for i in reach:
        mode = hostile_pages.get(i)
        if mode in ("str", "none", "int", "raise"):
            assert failures.get(f"{SITE}/{i}"), (mode, failures)
        if mode == "none-inside":
            assert "not a str, skipped" in failures[f"{SITE}/{i}"]


def test_get_urls_threads_never_hold_up_interpreter_exit(tmp_path: Path) -> None:
    """A get_urls stuck forever: the crawl returns and the program exits (the
    abandoned call runs on a daemon thread)."""
    import subprocess
    import sys

    script = tmp_path / "stuck.py"
    script.write_text(
        "import threading\n"
        "from crawlsim import crawl\n"
        "def get_urls(url):\n"
        "    if url.endswith('/1'):\n"
        "        threading.Event().wait()\n"
        "    return ['http://a.com/1', 'http://a.com/2'] if url.endswith('.com/') else []\n"
        "print(crawl('http://a.com/', get_urls, 2, timeout=0.2))\n"
    )
    done = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=GUARD * 2)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['http://a.com/', 'http://a.com/1', 'http://a.com/2']"


def test_a_folder_crawl_fails_a_bomb_or_huge_file_and_keeps_the_rest(tmp_path: Path) -> None:
    from crawlsim.real.files import MAX_FILE_BYTES, crawl_folder

    (tmp_path / "index.html").write_text('<a href="bomb.html">b</a> <a href="huge.html">h</a> <a href="ok.html">o</a>')
    (tmp_path / "bomb.html").write_text("<div>" * 300_000)
    with (tmp_path / "huge.html").open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse
    (tmp_path / "ok.html").write_text("fine")
    report = crawl_folder(tmp_path)
    failures = report.result.failures
    assert failures["http://site.invalid/bomb.html"].startswith("too deeply nested")
    assert failures["http://site.invalid/huge.html"].startswith("too large")
    assert "ok.html" in report.reachable
