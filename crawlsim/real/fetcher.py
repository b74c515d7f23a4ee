"""The HTTP fetcher: one fetch's requests with aiohttp -- same-host
redirects inline, politeness kept on the wire, addresses checked, bodies
capped -- and its outcome (see :mod:`crawlsim.real.crawler` for what it
does with the web, and why)."""

from __future__ import annotations

import asyncio
import contextvars
import re
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, NamedTuple, Self
from urllib.parse import urlsplit

import aiohttp
from yarl import URL

from crawlsim.core.plain import HTTP_STATUSES
from crawlsim.core.politeness import Pace, WireClock
from crawlsim.core.retry import retry_after_of
from crawlsim.core.fetch import Fetch
from crawlsim.core.urls import CanonicalizeError, canonical_or_raise, host_key
from crawlsim.real.addresses import AddressPolicy, CheckedResolver, RefusedAddress, map_key
from crawlsim.real.defaults import AS_WRITTEN, DEFAULT_USER_AGENT, HTML_TYPES, REDIRECT_STATUSES, ROBOTS_MAX_BYTES, HttpLimits
from crawlsim.real.loopwatch import ReadyLog, socket_fd
from crawlsim.real.parsing import ParseError, parse_html_off_loop
from crawlsim.real.results import Failure, FetchContext, Outcome, Page

_FETCH_ID: contextvars.ContextVar[int] = contextvars.ContextVar("crawlsim_fetch_id", default=-1)
"""The fetch a request belongs to (each fetch is its own task, so its own context)."""

_ENCODED_URL = re.compile(
    r"[!#-;=?-\[\]_a-z~]+", re.ASCII
)  # printable ASCII without space, quotes, <, >, \, ^, `, {, |, }


class _Response(NamedTuple):
    """One HTTP response, its body read (within the limits)."""

    status: int
    headers: dict[str, str]
    body: bytes
    content_type: str
    charset: str | None


def _redirect_target(location: str, url: str, robots_txt: bool) -> str | None:
    """Where a ``Location`` header points, resolved against ``url`` as written;
    None when it is unusable (the redirect itself is then the answer).  A
    page redirected to a non-http(s) URL fails (robots.txt: unusable)."""
    try:
        return canonical_or_raise(location.strip(), url, AS_WRITTEN)
    except CanonicalizeError as err:
        if err.reason == "scheme" and not robots_txt:
            raise _Stop(f"redirect to a non-http(s) URL: {location}") from None
        return None


class _Stop(Exception):
    """A fetch ends with this failure (raised inside the fetcher)."""

    def __init__(self, reason: str, transient: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


HostMap = Mapping[str, tuple[str, int]]
"""``{"a.com": ("127.0.0.2", 8000)}``; keys are ``host`` or ``host:port``, lowercase."""


class HttpFetcher:
    """Fetch with aiohttp; use ``async with HttpFetcher(...) as fetcher``."""

    def __init__(
        self,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        resolve: HostMap | None = None,
        limits: HttpLimits = HttpLimits(),
        seeds: Sequence[str] = (),
        server_times: dict[int, float] | None = None,
        retry_after_sent: set[int] | None = None,
    ) -> None:
        self.user_agent = user_agent
        self.resolve = {map_key(k): v for k, v in (resolve or {}).items()}
        self.limits = limits
        self.policy = AddressPolicy(seeds, self.resolve, limits.allow_private)
        """Which addresses may be requested (the start URLs' own always)."""
        self.refused: list[tuple[str, str]] = []
        """(URL or host, reason) for every request refused before connecting."""
        self._session: aiohttp.ClientSession | None = None
        self._wire: dict[str, WireClock] = {}
        """Per host, when its requests went on the wire (``time.monotonic``), kept
        against its politeness by the core's own :class:`WireClock`."""
        self._sending: dict[str, asyncio.Future[None]] = {}
        """Per host, the request that has passed its politeness hold and is not yet on
        the wire (see :meth:`_claim_wire`); at most one per host."""
        self.wire_log: list[tuple[str, float]] = []
        """Every request's (host, sent time), for checking politeness on the wire."""
        self.server_times = server_times
        """When given: fetch id -> the server's time for it, from each request sent to its
        answer's arrival as the event loop saw it (see :mod:`crawlsim.real.loopwatch`)."""
        self._ready = ReadyLog() if server_times is not None else None
        self.retry_after_sent = retry_after_sent
        """When given: the id of every fetch whose answer carried a Retry-After the core can read."""

    async def __aenter__(self) -> Self:
        # No connection limits here: the scheduler already bounds what is in flight.
        connector = aiohttp.TCPConnector(
            limit=0, limit_per_host=0, ttl_dns_cache=300, resolver=CheckedResolver(self.policy, self._refuse)
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": self.user_agent, "Accept": "text/html,application/xhtml+xml,*/*;q=0.5"},
            auto_decompress=True,
            cookie_jar=aiohttp.DummyCookieJar(),
            trace_configs=[self._wire_clock()],
        )
        # aiohttp silently re-sends an idempotent request once when a connection
        # breaks; retries are the core's decision (counted, backed off, traced),
        # so that hidden second request is switched off.
        if hasattr(self._session, "_retry_connection"):
            self._session._retry_connection = False
        if self._ready is not None and not self._ready.install(asyncio.get_running_loop()):
            self._ready = None  # a loop without a selector: no server times, said by their absence
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._ready is not None:
            self._ready.uninstall()

    def _wire_clock(self) -> aiohttp.TraceConfig:
        """Note when each request's headers are actually sent (see :meth:`_claim_wire`)."""
        trace = aiohttp.TraceConfig()

        async def sent(session: aiohttp.ClientSession, ctx: Any, params: Any) -> None:
            request = ctx.trace_request_ctx or {}
            host = request.get("host")
            if host is not None:
                at = request["sent"] = time.monotonic()
                self._wire.setdefault(host, WireClock()).sent(at)
                self.wire_log.append((host, at))
                self._release_wire(host, self._sending.get(host))

        trace.on_request_headers_sent.append(sent)
        return trace

    async def _claim_wire(self, host: str, pace: Pace) -> asyncio.Future[None] | None:
        """Hold a request until the host's politeness (``pace``: the gap, a token
        bucket) allows it counted from the host's requests *on the wire*, and
        claim the host's wire until this request's headers are sent.

        The core spaces request *starts*; each request then reaches the wire a
        little later -- ~0.3 ms on a reused keep-alive connection, a few ms (or,
        under load, longer than the gap) when a new connection is opened.  Two
        holds are needed to keep politeness true on the wire too:

        * wait until the rules allow it counted from the previous requests' *sent*
          times (:class:`~crawlsim.core.politeness.WireClock`), not their starts;
        * while one request to the host has passed that wait but is not yet on
          the wire, the next one waits for it: otherwise it would read a send
          time that is about to change and could overtake it (with ``per_host``
          of 2 or more, two requests to one host can be between start and wire).

        The claim is released when the headers go out (:meth:`_wire_clock`) or
        when the request fails before that (:meth:`_release_wire` in ``_fetch``).
        It only ever holds a request for the few milliseconds the core could not
        see (and the redirect hops it never sees), since the core already held
        the host.
        """
        if pace.free:
            return None
        clock = self._wire.setdefault(host, WireClock())
        while True:
            pending = self._sending.get(host)
            if pending is not None:
                await asyncio.shield(pending)  # our cancellation must not cancel its claim
                continue
            wait = clock.earliest(pace) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            clock.claim(pace)
            claim: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._sending[host] = claim
            return claim

    def _release_wire(self, host: str, claim: asyncio.Future[None] | None) -> None:
        """End ``claim`` on ``host``'s wire (idempotent): the next request may go."""
        if claim is None:
            return
        if self._sending.get(host) is claim:
            del self._sending[host]
        if not claim.done():
            claim.set_result(None)

    def _refuse(self, what: str, reason: str) -> None:
        self.refused.append((what, reason))

    async def __call__(self, fetch: Fetch, ctx: FetchContext) -> Outcome:
        _FETCH_ID.set(fetch.id)
        try:
            outcome = await self._fetch(fetch, ctx)
        except _Stop as stop:
            return Failure(stop.reason, stop.transient)
        if self.retry_after_sent is not None and isinstance(outcome, Page) and retry_after_of(outcome.headers) is not None:
            self.retry_after_sent.add(fetch.id)
        return outcome

    async def _fetch(self, fetch: Fetch, ctx: FetchContext) -> Outcome:
        """Request ``fetch``, following same-host redirects inline, then read
        the final answer (a robots.txt body, or a page's links)."""
        followed = await self._follow_redirects(fetch, ctx)
        if isinstance(followed, Page):
            return followed
        url, resp = followed
        final = None if url == fetch.url else url
        if fetch.kind == "robots":
            body = _decode(resp.body, resp.charset) if 200 <= resp.status < 300 else None
            return Page(resp.status, resp.headers, body=body, final_url=final)
        if not (200 <= resp.status < 300 and _is_html(resp.content_type, resp.body)):
            return Page(resp.status, resp.headers, final_url=final)
        try:
            links, base, content = await parse_html_off_loop(
                _decode(resp.body, resp.charset),
                url,
                ctx.want_content,
                timeout=self.limits.parse_timeout or self.limits.timeout,
                max_nesting=self.limits.max_nesting,
            )
        except ParseError as err:
            raise _Stop(str(err)) from None
        return Page(resp.status, resp.headers, links=tuple(links), content=content, final_url=final, base=base or final)

    async def _follow_redirects(self, fetch: Fetch, ctx: FetchContext) -> Page | tuple[str, _Response]:
        """The URL that answered and its response, after the redirect hops this
        fetch may follow inline (each held by the host's politeness on the wire); or
        the :class:`Page` that ends the fetch at a redirect (its target handed
        to the scheduler as a link, or an unusable ``Location``)."""
        wire = host_key(fetch.url)  # the host this fetch's requests count against, hops included
        robots_txt = fetch.kind == "robots"
        url = fetch.url
        chain = [_defrag(url)]
        while True:
            resp = await self._request_on_wire(url, wire, ctx.pace, robots_txt)
            location = resp.headers.get("Location") or resp.headers.get("location")
            if resp.status not in REDIRECT_STATUSES or not location:
                return url, resp
            target = _redirect_target(location, url, robots_txt)
            if target is None:
                return Page(resp.status, resp.headers)  # an unusable Location: the 3xx is the answer
            if _defrag(target) in chain or len(chain) > self.limits.max_redirects:
                return self._too_many_hops(chain, target, robots_txt, resp.headers)
            same_host = _host_key(target, ctx.steps) == wire
            if not same_host:
                self._check_redirect_scope(ctx, url, target, robots_txt)
            if not robots_txt and (not same_host or (ctx.robots is not None and not ctx.robots.allowed(target))):
                # Not ours to follow inline: the scheduler applies scope, robots and politeness.
                return Page(resp.status, resp.headers, links=(target,), final_url=None if url == fetch.url else url)
            chain.append(_defrag(target))
            url = target

    async def _request_on_wire(self, url: str, wire: str, pace: Pace, robots_txt: bool) -> _Response:
        """One request, holding ``wire``'s claim (see :meth:`_claim_wire`) until
        its headers are sent or it fails."""
        claim = await self._claim_wire(wire, pace)
        try:
            return await self._get(url, wire, robots_txt=robots_txt)
        finally:
            self._release_wire(wire, claim)  # already released if the headers went out

    def _too_many_hops(self, chain: list[str], target: str, robots_txt: bool, headers: Mapping[str, str]) -> Page:
        """A redirect loop or more than ``max_redirects`` hops: a page fails with
        the chain as its reason; robots.txt counts as unavailable instead."""
        if robots_txt:
            # RFC 9309 2.3.1.2: after too many redirects robots.txt is "unavailable" (4xx: no rules).
            return Page(404, headers)
        looped = _defrag(target) in chain
        what = "redirect loop" if looped else f"more than {self.limits.max_redirects} redirects"
        raise _Stop(f"{what}: " + " -> ".join([*chain, _defrag(target)]))

    def _check_redirect_scope(self, ctx: FetchContext, url: str, target: str, robots_txt: bool) -> None:
        """Fail the fetch (noting the refusal) when a redirect to another host
        leaves the crawl's scope: robots.txt follows redirects across hosts
        (RFC 9309), but only within scope; a page's redirect to another port
        of a start host is another server under ``scope = "host"``."""
        if ctx.redirect_scope is None:
            return
        if robots_txt:
            why = ctx.redirect_scope.refusal(target)
            if why is not None:
                self._refuse(target, f"robots.txt redirect to {target} not followed: {why}")
                raise _Stop(f"robots.txt redirects to {target}, not followed: {why}")
            return
        why = ctx.redirect_scope.port_refusal(target)
        if why is not None:
            self._refuse(target, f"redirect from {url} not followed: {why}")
            raise _Stop(f"redirect to {target} not followed: {why}")

    def _route(self, url: str) -> tuple[str | URL, dict[str, str]]:
        """The URL to request and extra headers (``Host`` when mapped)."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            raise _Stop(f"malformed URL: {url}") from None
        hostname = (parts.hostname or "").lower()
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        if not self.resolve:
            self._check_address(hostname, url)
            plain = url.split("#", 1)[0]
            return (URL(plain, encoded=True) if _ENCODED_URL.fullmatch(plain) else plain), {}
        netloc = parts.netloc.rpartition("@")[2]
        keys = (map_key(netloc), map_key(hostname))  # host:port first, then the host on any port
        target = next((self.resolve[k] for k in keys if k in self.resolve), None)
        if target is None:
            raise _Stop(f"host {hostname} is not in the host map (--resolve); not looked up in DNS")
        address, mapped_port = target
        self._check_address(address, url)
        request = f"http://{address}:{mapped_port}{path}"
        return (URL(request, encoded=True) if _ENCODED_URL.fullmatch(request) else request), {"Host": netloc}

    def _check_address(self, address: str, url: str) -> None:
        """Refuse, before connecting, an IP address the policy does not allow
        (names looked up in DNS are checked by the resolver)."""
        reason = self.policy.refusal(address)
        if reason is not None:
            self._refuse(url, f"{address} is {reason}")
            raise _Stop(f"refused before connecting: {address} is {reason} (--allow-private allows it)")

    async def _get(
        self, url: str, host: str, *, robots_txt: bool = False
    ) -> _Response:
        """One request: (status, headers, body, content type, charset); ``host``
        is the scheduler's host the request counts against.  A page over
        ``max_bytes`` fails; robots.txt is cut at :data:`ROBOTS_MAX_BYTES` (at its
        last whole line) instead, whatever the file's size (RFC 9309 section 2.5)."""
        assert self._session is not None, "use HttpFetcher as an async context manager"
        target, headers = self._route(url)
        limit = ROBOTS_MAX_BYTES if robots_txt else self.limits.max_bytes
        request: dict[str, Any] = {"host": host}
        try:
            async with self._session.get(
                target,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=self.limits.timeout),
                trace_request_ctx=request,
            ) as resp:
                if resp.status not in HTTP_STATUSES:  # (aiohttp reads any three digits: 099, 999)
                    raise _Stop(f"not a valid HTTP response (status {resp.status}, expected 100-599)")
                if not robots_txt and resp.content_length is not None and resp.content_length > limit:
                    raise _Stop(f"too large: Content-Length {resp.content_length} > {limit} bytes")
                fd = socket_fd(resp)
                body = await _read_body(resp, limit, cut=robots_txt)
                self._note_server_time(fd, request.get("sent"))
                return _Response(resp.status, dict(resp.headers.items()), body, resp.content_type, resp.charset)
        except _Stop:
            raise
        except (TimeoutError, aiohttp.ClientError) as err:
            raise _stop_for(err, self.limits.timeout) from None

    def _note_server_time(self, fd: int | None, sent: float | None) -> None:
        """Add this request's server time (sent to its last data's arrival) to its fetch's."""
        if self._ready is None or self.server_times is None or fd is None or sent is None:
            return
        came = self._ready.arrival(fd, sent, time.monotonic())
        fetch_id = _FETCH_ID.get()
        if came is not None and fetch_id >= 0:
            self.server_times[fetch_id] = self.server_times.get(fetch_id, 0.0) + max(0.0, came - sent)


async def _read_body(resp: aiohttp.ClientResponse, limit: int, *, cut: bool) -> bytes:
    """The response body, read in chunks up to ``limit`` bytes: past it, a
    body is cut at its last whole line within the limit (``cut``, robots.txt)
    or the request fails as too large."""
    body = bytearray()
    async for chunk in resp.content.iter_chunked(65536):
        body += chunk
        if len(body) > limit:
            if not cut:
                raise _Stop(f"too large: more than {limit} bytes")
            del body[body.rfind(b"\n", 0, limit) + 1 :]
            break
    return bytes(body)


def _stop_for(err: BaseException, timeout: float) -> _Stop:
    """One failed request as the reason the core records (and whether to retry).

    Shared by page and robots.txt requests, so both fail with the same words."""
    if isinstance(err, (TimeoutError, aiohttp.ServerTimeoutError)):
        return _Stop(f"timeout after {timeout:g} s", transient=True)
    if isinstance(err, aiohttp.ClientConnectorError):
        if isinstance(err.os_error, RefusedAddress):
            return _Stop(f"refused before connecting: {err.os_error} (--allow-private allows it)")
        return _Stop(f"cannot connect: {err.os_error.strerror or err}", transient=True)
    if isinstance(err, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError)):
        return _Stop(f"connection closed mid-response: {_brief(err)}", transient=True)
    if isinstance(err, aiohttp.ClientResponseError):
        what = (err.message or "").strip().splitlines()[0].rstrip(":") if err.message else _brief(err)
        return _Stop(f"not a valid HTTP response ({what})")
    if isinstance(err, aiohttp.ClientOSError):
        reason = "connection reset" if err.errno in (104, 54, 10054) else f"network error: {_brief(err)}"
        return _Stop(reason, transient=True)
    return _Stop(f"HTTP client error: {_brief(err)}")

def _brief(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text.splitlines()[0][:200]


def _defrag(url: str) -> str:
    return url.split("#", 1)[0]


def _host_key(url: str, steps: frozenset[str]) -> str:
    """The host ``url`` counts against: the one
    :func:`~crawlsim.core.urls.host_key` of its canonical form in the crawl's
    normalization, as the core derives it, so a redirect is inline exactly
    when it stays on the server whose wire the fetch holds ("" when ``url``
    cannot be canonicalized)."""
    try:
        return host_key(canonical_or_raise(url, None, steps))
    except CanonicalizeError:
        return ""


def _decode(data: bytes, charset: str | None) -> str:
    try:
        return data.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return data.decode("utf-8", errors="replace")


def _is_html(content_type: str, data: bytes) -> bool:
    if content_type in HTML_TYPES:
        return True
    # No (or a generic) type: sniff the way browsers do for a leading tag.
    return content_type in ("", "application/octet-stream") and data.lstrip()[:1] == b"<"
