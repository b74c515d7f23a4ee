"""The asyncio driver: a real HTTP crawler around the sans-I/O core.

One coordinator coroutine owns the :class:`~crawlsim.core.scheduler.Scheduler`
-- exactly like the thread driver -- and is the only code that calls it.
Each fetch is its own task, which only performs I/O and returns an
*outcome*; the coordinator reports outcomes to the core, asks it what may
start, and sleeps until a fetch finishes or ``sched.next_wakeup()`` (a
politeness gap, Crawl-delay, Retry-After or retry backoff) comes due.  The
clock is ``time.monotonic()`` relative to the start, so a trace written here
has the same shape and meaning as a simulated one.

Fetching is pluggable (:data:`Fetcher`): :class:`HttpFetcher` speaks HTTP
with aiohttp, and :mod:`crawlsim.real.files` reads a folder of HTML files
through the same coordinator.

What :class:`HttpFetcher` does with the web, and why:

* links come from a real HTML parser (selectolax/lexbor): ``<a href>`` and
  ``<area href>`` as written, resolved by the core against ``<base href>``
  when the page has one, else against the URL the page was finally served
  from.  Only 2xx HTML responses yield links (as in Scrapy: an error page's
  links are not followed); any other content type yields none.
* redirects (301/302/303/307/308) on the *same host* are followed inline, up
  to ``max_redirects`` hops, each hop waiting the host's gap and only to
  URLs robots.txt allows; the page is reported with ``final_url``.  A
  redirect to *another* host is not followed inline -- that would bypass
  the other host's politeness, scope and robots.txt -- but reported as the
  page's one link, so the scheduler decides.  A loop, or too many hops,
  fails that page with the chain as its reason.  robots.txt itself follows
  redirects across hosts and, after a loop or too many hops, counts as
  unavailable (no rules), as RFC 9309 asks.
* a timeout, a reset or a refused connection is transient (retried with
  backoff, then recorded); a response that is not HTTP, a body over
  ``max_bytes``, or a redirect to a non-http(s) URL fails that page at once.
  In every case only that page is lost.
* with a host map (``resolve``), a URL's host is looked up there and the
  request goes to the mapped loopback address with ``Host:`` set to the
  URL's host (like ``curl --connect-to``); a host missing from the map is
  an error, never a DNS lookup, so a served scenario is a closed world.
  A mapped host is spoken to in plain HTTP whatever the URL's scheme: the
  loopback server is a simulation and has no certificate.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import aiohttp
from selectolax.lexbor import LexborHTMLParser
from yarl import URL

from crawlsim.core.events import Event, FetchFailed, RobotsLoaded
from crawlsim.core.options import CrawlOptions
from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.scheduler import CrawlStats, Fetch, Scheduler
from crawlsim.core.urls import DEFAULT_PORTS, CanonicalizeError, canonical_or_raise

DEFAULT_USER_AGENT = "crawlsim/0.1 (polite crawler; set --user-agent to add your contact URL)"

REAL_DEFAULTS: dict[str, Any] = {
    "robots": True,
    "per_host": 2,
    "gap": 1.0,
    "scope": "host",
    "user_agent": DEFAULT_USER_AGENT,
}
"""Politeness for crawling real servers unless flags say otherwise: obey
robots.txt under a clear user agent, two requests at a time per host, one
second between request starts to a host, stay on the start host."""

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_AS_WRITTEN: frozenset[str] = frozenset()
_ENCODED_URL = re.compile(
    r"[!#-;=?-\[\]_a-z~]+", re.ASCII
)  # printable ASCII without space, quotes, <, >, \, ^, `, {, |, }


@dataclass(frozen=True)
class HttpLimits:
    """Per-request safety limits of the HTTP fetcher."""

    timeout: float = 10.0
    """Seconds for one request (connect, headers and body)."""
    max_bytes: int = 2_000_000
    """A larger body fails the page (checked on Content-Length and while reading)."""
    max_redirects: int = 5
    """Same-host redirect hops followed inline before the page fails."""


@dataclass(frozen=True, slots=True)
class Page:
    """A fetch that got an HTTP response."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    links: tuple[str, ...] = ()
    """hrefs as written on the page (2xx HTML only)."""
    body: str | None = None
    """robots.txt text (robots fetches only)."""
    content: str | None = None
    """Page text for content fingerprints (only when the crawl asks for it)."""
    final_url: str | None = None
    """Where same-host redirects ended, when not the fetched URL."""
    base: str | None = None
    """What links resolve against: ``<base href>``, else ``final_url``."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A fetch with no usable response."""

    reason: str
    transient: bool


Outcome = Page | Failure


@dataclass(frozen=True, slots=True)
class FetchContext:
    """What a fetcher may need from the scheduler's state, captured by the
    coordinator when the fetch starts (fetch tasks never touch the scheduler)."""

    robots: RobotsPolicy | None
    """The host's robots.txt policy, to check same-host redirect targets."""
    hop_gap: float
    """The host's gap or Crawl-delay: the least time between two requests to it on
    the wire (redirect hops included)."""
    want_content: bool


Fetcher = Callable[[Fetch, FetchContext], Awaitable[Outcome]]


@dataclass
class CrawlResult:
    """Everything one real crawl produced."""

    options: CrawlOptions
    stats: CrawlStats
    finish_time: float
    """Seconds from the start to the last fetch's end (the Done event)."""
    found: list[str]
    statuses: dict[str, int]
    """Final HTTP status by page URL (pages that got a response)."""
    failures: dict[str, str]
    """Pages recorded as failed, with the reason."""
    events: list[Event]
    stopped: str | None = None
    """Why the crawl stopped before it was done (a time limit), or None."""
    origin: float = 0.0
    """``time.monotonic()`` at time 0 of the trace (to line it up with a server's log)."""
    wire: list[tuple[str, float]] = field(default_factory=list)
    """(host, ``time.monotonic()``) each time a request's headers were sent (HTTP only)."""
    robots_refused: dict[str, str] = field(default_factory=dict)
    """Hosts whose robots.txt could not be read (5xx or no answer), with why:
    RFC 9309 has the crawler treat them as wholly disallowed."""

    @property
    def fetched(self) -> set[str]:
        """Page URLs that were requested (whatever came back)."""
        return set(self.statuses) | set(self.failures)


# --------------------------------------------------------------------------- coordinator


async def run_crawl(
    seeds: Sequence[str],
    options: CrawlOptions,
    fetcher: Fetcher,
    *,
    on_event: Callable[[Event], None] | None = None,
    keep_events: bool = True,
    max_time: float | None = None,
    page_of: Callable[[str], str] | None = None,
) -> CrawlResult:
    """Crawl from ``seeds`` with ``fetcher`` until the core says done (or
    ``max_time`` seconds pass, when in-flight fetches are cancelled)."""
    sched = Scheduler(options, page_of=page_of)
    origin = time.monotonic()
    last = 0.0
    events: list[Event] = []
    statuses: dict[str, int] = {}
    pending: dict[asyncio.Task[tuple[Outcome, float]], Fetch] = {}
    stopped: str | None = None
    robots_refused: dict[str, str] = {}

    def now() -> float:
        return time.monotonic() - origin

    def flush() -> None:
        batch = sched.drain_events()
        for event in batch:  # remember why a host's robots.txt shut it out
            if isinstance(event, FetchFailed) and event.kind == "robots" and event.final:
                robots_refused[event.host] = event.reason
            elif isinstance(event, RobotsLoaded) and event.disallow_all and event.status:
                robots_refused[event.host] = f"HTTP {event.status}"
        if keep_events:
            events.extend(batch)
        if on_event is not None:
            for event in batch:
                on_event(event)

    async def one(fetch: Fetch, ctx: FetchContext) -> tuple[Outcome, float]:
        try:
            outcome = await fetcher(fetch, ctx)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a fetcher bug or surprise costs this page only
            outcome = Failure(f"{type(exc).__name__}: {exc}", transient=False)
        return outcome, now()

    def start(fetch: Fetch) -> None:
        host = sched.host_states().get(fetch.host)
        policy = host.robots if host is not None and isinstance(host.robots, RobotsPolicy) else None
        delay = max(options.gap, host.crawl_delay if host is not None else 0.0)
        ctx = FetchContext(policy, delay, options.content_dedup != "off")
        pending[asyncio.create_task(one(fetch, ctx), name=f"fetch {fetch.id} {fetch.url}")] = fetch

    sched.add_seeds(list(seeds), now())
    try:
        while True:
            last = max(last, now())
            for fetch in sched.poll(last):
                start(fetch)
            flush()
            if sched.done:
                break
            wake = sched.next_wakeup()
            timeout = None if wake is None else max(0.0, wake - now())
            if max_time is not None:
                left = max_time - now()
                if left <= 0:
                    stopped = f"time limit of {max_time:g} s reached"
                    break
                timeout = left if timeout is None else min(timeout, left)
            if not pending and timeout is None:
                break  # nothing in flight, nothing scheduled: only possible when done
            if not pending:
                await asyncio.sleep(timeout or 0.0)
                continue
            done, _ = await asyncio.wait(pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            # Report in order of finishing, so the trace's times never go backwards.
            for _, _, task in sorted((task.result()[1], pending[task].id, task) for task in done):
                fetch = pending.pop(task)
                outcome, t = task.result()
                last = max(last, t)
                _report(sched, fetch, outcome, last, statuses)
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        flush()
    finish = events[-1].t if events else last
    found = sched.found() if options.seen == "exact" else []
    return CrawlResult(
        options, sched.stats, finish, found, statuses, dict(sched.failures), events, stopped, origin,
        robots_refused=robots_refused,
    )


def _report(sched: Scheduler, fetch: Fetch, outcome: Outcome, t: float, statuses: dict[str, int]) -> None:
    """Hand one outcome to the scheduler."""
    if isinstance(outcome, Failure):
        sched.on_error(fetch.id, t, outcome.reason, transient=outcome.transient)
        return
    if fetch.kind == "robots":
        sched.on_response(fetch.id, t, status=outcome.status, headers=outcome.headers, body=outcome.body)
        return
    statuses[fetch.url] = outcome.status
    sched.on_response(
        fetch.id,
        t,
        status=outcome.status,
        links=outcome.links,
        headers=outcome.headers,
        content=outcome.content,
        final_url=outcome.base or outcome.final_url,
    )


# --------------------------------------------------------------------------- HTML


def parse_html(text: str, url: str, want_content: bool = False) -> tuple[list[str], str | None, str | None]:
    """(hrefs as written, base URL from ``<base href>`` or None, page text or None).

    The text is ``<main>``'s when the page has one, else ``<body>``'s: the
    part that identifies the page, not its navigation.
    """
    tree = LexborHTMLParser(text)
    base = None
    node = tree.css_first("base[href]")
    if node is not None:
        href = node.attributes.get("href")
        if href:
            try:
                base = canonical_or_raise(href.strip(), url, _AS_WRITTEN)
            except CanonicalizeError:
                base = None
    links = [h for a in tree.css("a[href], area[href]") if (h := a.attributes.get("href")) is not None]
    content = None
    if want_content:
        main = tree.css_first("main") or tree.body
        content = main.text(separator=" ", strip=True) if main is not None else ""
    return links, base, content


# --------------------------------------------------------------------------- HTTP


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
    ) -> None:
        self.user_agent = user_agent
        self.resolve = {k.lower(): v for k, v in (resolve or {}).items()}
        self.limits = limits
        self._session: aiohttp.ClientSession | None = None
        self._sent: dict[str, float] = {}
        """When the last request to each host went on the wire (``time.monotonic``)."""
        self.wire_log: list[tuple[str, float]] = []
        """Every request's (host, sent time), for checking politeness on the wire."""

    async def __aenter__(self) -> Self:
        # No connection limits here: the scheduler already bounds what is in flight.
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, ttl_dns_cache=300)
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
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _wire_clock(self) -> aiohttp.TraceConfig:
        """Note when each request's headers are actually sent (see :meth:`_wait_gap`)."""
        trace = aiohttp.TraceConfig()

        async def sent(session: aiohttp.ClientSession, ctx: Any, params: Any) -> None:
            host = (ctx.trace_request_ctx or {}).get("host")
            if host is not None:
                self._sent[host] = at = time.monotonic()
                self.wire_log.append((host, at))

        trace.on_request_headers_sent.append(sent)
        return trace

    async def _wait_gap(self, host: str, gap: float) -> None:
        """Hold a request until ``gap`` after the host's last request *on the wire*.

        The core spaces request *starts*; each request then reaches the wire a
        little later -- ~0.3 ms on a reused keep-alive connection, a few ms when
        a new connection is opened -- so two starts exactly ``gap`` apart can
        arrive up to that difference closer.  Waiting here on the sent time of
        the previous request keeps the gap true on the wire too; it only ever
        waits those few milliseconds, since the core already waited the gap.
        """
        if gap <= 0:
            return
        wait = self._sent.get(host, float("-inf")) + gap - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)

    async def __call__(self, fetch: Fetch, ctx: FetchContext) -> Outcome:
        try:
            return await self._fetch(fetch, ctx)
        except _Stop as stop:
            return Failure(stop.reason, stop.transient)

    async def _fetch(self, fetch: Fetch, ctx: FetchContext) -> Outcome:
        url = fetch.url
        chain = [_defrag(url)]
        home = _host_name(url)
        robots_txt = fetch.kind == "robots"
        hops = 0
        while True:
            await self._wait_gap(fetch.host, ctx.hop_gap)
            status, headers, data, ctype, charset = await self._get(url, fetch.host)
            location = headers.get("Location") or headers.get("location")
            if status not in REDIRECT_STATUSES or not location:
                break
            try:
                target = canonical_or_raise(location.strip(), url, _AS_WRITTEN)
            except CanonicalizeError as err:
                if err.reason == "scheme" and not robots_txt:
                    raise _Stop(f"redirect to a non-http(s) URL: {location}") from None
                return Page(status, headers)  # an unusable Location: the 3xx is the answer
            looped = _defrag(target) in chain
            if looped or hops >= self.limits.max_redirects:
                if robots_txt:
                    # RFC 9309 2.3.1.2: after too many redirects robots.txt is "unavailable" (4xx: no rules).
                    return Page(404, headers)
                what = "redirect loop" if looped else f"more than {self.limits.max_redirects} redirects"
                raise _Stop(f"{what}: " + " -> ".join([*chain, _defrag(target)]))
            if not robots_txt and (
                _host_name(target) != home or (ctx.robots is not None and not ctx.robots.allowed(target))
            ):
                # Not ours to follow inline: the scheduler applies scope, robots and politeness.
                # (robots.txt itself follows redirects across hosts, as RFC 9309 asks.)
                return Page(status, headers, links=(target,), final_url=None if url == fetch.url else url)
            hops += 1
            chain.append(_defrag(target))
            url = target
        final = None if url == fetch.url else url
        if fetch.kind == "robots":
            body = _decode(data, charset) if 200 <= status < 300 else None
            return Page(status, headers, body=body, final_url=final)
        if not (200 <= status < 300 and _is_html(ctype, data)):
            return Page(status, headers, final_url=final)
        links, base, content = parse_html(_decode(data, charset), url, ctx.want_content)
        return Page(status, headers, links=tuple(links), content=content, final_url=final, base=base or final)

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
            plain = url.split("#", 1)[0]
            return (URL(plain, encoded=True) if _ENCODED_URL.fullmatch(plain) else plain), {}
        keys = [f"{hostname}:{port}", hostname] if port is not None else [hostname]
        if port is not None and port == DEFAULT_PORTS.get(parts.scheme.lower()):
            keys.append(f"{hostname}:{port}")
        target = next((self.resolve[k] for k in keys if k in self.resolve), None)
        if target is None:
            raise _Stop(f"host {hostname} is not in the host map (--resolve); not looked up in DNS")
        address, mapped_port = target
        request = f"http://{address}:{mapped_port}{path}"
        netloc = parts.netloc.rpartition("@")[2]
        return (URL(request, encoded=True) if _ENCODED_URL.fullmatch(request) else request), {"Host": netloc}

    async def _get(self, url: str, host: str) -> tuple[int, dict[str, str], bytes, str, str | None]:
        """One request: (status, headers, body, content type, charset); ``host``
        is the scheduler's host the request counts against."""
        assert self._session is not None, "use HttpFetcher as an async context manager"
        target, headers = self._route(url)
        limit = self.limits.max_bytes
        try:
            async with self._session.get(
                target,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=self.limits.timeout),
                trace_request_ctx={"host": host},
            ) as resp:
                if resp.content_length is not None and resp.content_length > limit:
                    raise _Stop(f"too large: Content-Length {resp.content_length} > {limit} bytes")
                body = bytearray()
                async for chunk in resp.content.iter_chunked(65536):
                    body += chunk
                    if len(body) > limit:
                        raise _Stop(f"too large: more than {limit} bytes")
                return resp.status, dict(resp.headers.items()), bytes(body), resp.content_type, resp.charset
        except _Stop:
            raise
        except (TimeoutError, aiohttp.ServerTimeoutError):
            raise _Stop(f"timeout after {self.limits.timeout:g} s", transient=True) from None
        except aiohttp.ClientConnectorError as err:
            raise _Stop(f"cannot connect: {err.os_error.strerror or err}", transient=True) from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError) as err:
            raise _Stop(f"connection closed mid-response: {_brief(err)}", transient=True) from None
        except aiohttp.ClientResponseError as err:
            what = (err.message or "").strip().splitlines()[0].rstrip(":") if err.message else _brief(err)
            raise _Stop(f"not a valid HTTP response ({what})") from None
        except aiohttp.ClientOSError as err:
            reason = "connection reset" if err.errno in (104, 54, 10054) else f"network error: {_brief(err)}"
            raise _Stop(reason, transient=True) from None
        except aiohttp.ClientError as err:
            raise _Stop(f"HTTP client error: {_brief(err)}") from None


def _brief(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text.splitlines()[0][:200]


def _defrag(url: str) -> str:
    return url.split("#", 1)[0]


def _host_name(url: str) -> str:
    """Lowercase host, with the port only when it is not the scheme's default."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    return f"{host}:{port}" if port is not None and port != DEFAULT_PORTS.get(parts.scheme.lower()) else host


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


# --------------------------------------------------------------------------- entry point


def real_options(overrides: Mapping[str, Any] | None = None, base: Mapping[str, Any] | None = None) -> CrawlOptions:
    """Options for crawling real servers: :data:`REAL_DEFAULTS` under ``base``
    (e.g. a scenario's options) under ``overrides`` (the user's flags)."""
    return CrawlOptions.from_mapping({**REAL_DEFAULTS, **(base or {}), **(overrides or {})})


async def crawl_http(
    seeds: Sequence[str] | str,
    options: CrawlOptions | None = None,
    *,
    resolve: HostMap | None = None,
    limits: HttpLimits = HttpLimits(),
    on_event: Callable[[Event], None] | None = None,
    keep_events: bool = True,
    max_time: float | None = None,
) -> CrawlResult:
    """Crawl real HTTP servers from ``seeds`` (see the module docstring).

    ``options`` default to :func:`real_options` (robots obeyed, 2 per host,
    1 s gap, exact-host scope).
    """
    opts = options or real_options()
    seed_list = [seeds] if isinstance(seeds, str) else list(seeds)
    async with HttpFetcher(user_agent=opts.user_agent, resolve=resolve, limits=limits) as fetcher:
        result = await run_crawl(
            seed_list, opts, fetcher, on_event=on_event, keep_events=keep_events, max_time=max_time
        )
    result.wire = fetcher.wire_log
    return result


__all__ = [
    "DEFAULT_USER_AGENT",
    "REAL_DEFAULTS",
    "CrawlResult",
    "Failure",
    "FetchContext",
    "Fetcher",
    "HostMap",
    "HttpFetcher",
    "HttpLimits",
    "Page",
    "crawl_http",
    "parse_html",
    "real_options",
    "run_crawl",
]
