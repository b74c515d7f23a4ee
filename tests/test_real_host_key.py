"""The real crawler files every request under the core's one host key.

A URL's host can be spelled many ways -- upper case, user info, the scheme's
default port written out, an IPv6 literal -- and each spelling reaches the
same server.  The asyncio crawler holds a per-host claim on the wire (so a
host's gap holds between requests as sent, redirect hops included) and
decides whether a redirect stays on the fetch's host; both must key the host
exactly as :func:`crawlsim.core.urls.host_key` does, or two spellings of one
server would get two politeness budgets, or a same-host redirect would be
handed back to the scheduler as another host's link.

A loopback server (port 0) answers ``/`` with a redirect to ``/p`` spelled
another way on the same host; the crawl goes there through a host map, as
``crawlsim crawl --resolve`` does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.core.urls import MODES, canonical_or_raise, host_key
from crawlsim.real.crawler import CrawlResult, crawl_http, real_options

NAMES = ("a.com", "www.a.com", "[::1]", "127.0.0.1")


@st.composite
def spelling(draw: Any, name: str, port: int | None) -> str:
    """One way to write ``http://name[:port]/``: any case, with or without
    user info, and the default port written out or left off."""
    scheme = draw(st.sampled_from(["http", "HTTP", "Http"]))
    userinfo = draw(st.sampled_from(["", "user@", "user:secret@"]))
    host = draw(st.sampled_from([name, name.upper(), name.title()]))
    if port is None:
        written = draw(st.sampled_from(["", ":80"]))
    else:
        written = f":{port}"
    return f"{scheme}://{userinfo}{host}{written}/"


@st.composite
def two_spellings(draw: Any) -> tuple[str, str]:
    name = draw(st.sampled_from(NAMES))
    port = draw(st.sampled_from([None, 8080]))
    return draw(spelling(name, port)), draw(spelling(name, port))


async def _crawl(seed: str, redirect_to: str, mode: str) -> CrawlResult:
    async def start(request: web.Request) -> web.Response:
        return web.Response(status=301, headers={"Location": redirect_to + "p"})

    async def page(request: web.Request) -> web.Response:
        return web.Response(text="<html><body>p</body></html>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/", start)
    app.router.add_get("/p", page)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        everywhere = ("127.0.0.1", port)
        resolve = {"a.com": everywhere, "www.a.com": everywhere, "::1": everywhere, "127.0.0.1": everywhere}
        options = real_options({"robots": False, "gap": 0.0, "scope": "any", "normalize": mode})
        return await crawl_http([seed], options, resolve=resolve)
    finally:
        await runner.cleanup()


@settings(max_examples=30)
@given(spellings=two_spellings(), mode=st.sampled_from(sorted(MODES)))
def test_wire_claim_and_redirect_use_the_core_host_key(spellings: tuple[str, str], mode: str) -> None:
    seed, redirect_to = spellings
    start = canonical_or_raise(seed, None, MODES[mode])
    key = host_key(start)
    assert key == host_key(canonical_or_raise(redirect_to, None, MODES[mode]))  # one server, two spellings
    result = asyncio.run(_crawl(seed, redirect_to, mode))
    # both requests (the page and its redirect hop) held the same wire claim, the core's key
    assert [host for host, _ in result.wire] == [key, key]
    # the redirect stayed on the fetch's host, so it was followed inline: one page, answered 200
    assert result.statuses == {start: 200}
    assert result.failures == {}
