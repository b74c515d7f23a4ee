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
  fails that page with the chain as its reason.  "Same host" is the core's
  host key (:func:`~crawlsim.core.urls.host_key` of the URL in the crawl's
  normalization), and with ``scope = "host"`` a redirect to another port of
  a start host is out of scope (that page fails, saying so).  robots.txt
  itself follows redirects across hosts within scope (out of scope it counts
  as unreadable: RFC 9309's complete disallow) and, after a loop or too many
  hops, counts as unavailable (no rules), as RFC 9309 asks.  It is read to
  its first 500 KiB, however long it is.
* requests go only where :class:`AddressPolicy` allows: never to a private,
  link-local or other non-public address unless the crawl starts there or
  ``allow_private`` is set (every refusal is in ``CrawlResult.refused``).
* HTML is parsed on a daemon thread with a deadline, after a linear scan
  that refuses nesting deeper than :data:`MAX_NESTING` (a page that fails
  either is lost alone); the event loop never waits for a parser.
* when ``max_time`` stops the crawl, every page found but not finished is
  in ``CrawlResult.unfinished`` with why.
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
import ipaddress
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, NamedTuple, Self
from urllib.parse import urlsplit

import aiohttp
from selectolax.lexbor import LexborHTMLParser
from yarl import URL

from crawlsim.core.events import Event, FetchFailed, FetchFinished, RobotsLoaded
from crawlsim.core.options import CrawlOptions
from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.scheduler import CrawlStats, Fetch, Scheduler
from crawlsim.core.scope import Scope
from crawlsim.core.urls import DEFAULT_PORTS, CanonicalizeError, canonical_or_raise, host_key

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

ROBOTS_MAX_BYTES = 500 * 1024
"""robots.txt is read to its first 500 KiB and parsed from there (RFC 9309
section 2.5: a crawler must parse at least 500 KiB); the rest is ignored."""
MAX_NESTING = 1024
"""Elements nested deeper than this fail the page before it is parsed: the
HTML parser's time grows with the square of the nesting (300,000 nested
``<div>`` in 1.5 MB would take minutes), and no real page comes near it."""

INLINE_PARSE_CHARS = 65_536
"""Pages up to this size, with few enough tags, are parsed on the event loop
itself (see :func:`parse_html_off_loop`); others on a thread of their own."""
INLINE_PARSE_TAGS = 1024
"""With no nesting cap, the most ``<`` a page parsed on the loop may have."""

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
    parse_timeout: float | None = None
    """Seconds to parse one page (off the event loop); None: same as ``timeout``."""
    max_nesting: int = MAX_NESTING
    """Deeper element nesting fails the page unparsed (see :data:`MAX_NESTING`)."""
    allow_private: bool = False
    """Allow requests to private, link-local and other non-public addresses (see
    :class:`AddressPolicy`); loopback is allowed anyway when a start URL is loopback."""


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


def _origin(url: str) -> tuple[str, int] | None:
    """(lowercase hostname, port or the scheme's default), or None if unparsable."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    return (parts.hostname or "").lower(), port if port is not None else DEFAULT_PORTS.get(scheme, 0)


class RedirectScope:
    """Where a redirect may lead: the core's :class:`~crawlsim.core.scope.Scope`
    (host / domain / any; allow and deny apply to the pages the scheduler
    queues, not to where a page says it moved) and, with ``scope = "host"``,
    the port as well: a redirect to another port of a start host's name is
    another server, so it leaves the site."""

    def __init__(self, kind: str, seeds: Sequence[str]) -> None:
        self.kind = kind
        self._scope = Scope(kind)
        self._origins: set[tuple[str, int]] = set()
        for url in seeds:
            origin = _origin(url)
            if origin is not None:
                self._scope.add_seed(url)
                self._origins.add(origin)
        self._names = {name for name, _ in self._origins}

    def port_refusal(self, url: str) -> str | None:
        """Why ``url`` is out of scope by its port alone, or None."""
        origin = _origin(url)
        if self.kind == "host" and origin is not None and origin[0] in self._names and origin not in self._origins:
            return f"port {origin[1]} is another server than the start URL's (scope=host)"
        return None

    def refusal(self, url: str) -> str | None:
        """Why a redirect to ``url`` is out of scope, or None when it is in scope."""
        if self.kind != "any" and not self._scope.allows(url):
            return f"another host, out of scope (scope={self.kind})"
        return self.port_refusal(url)


class AddressPolicy:
    """Which IP addresses requests may go to.

    Public addresses always; a start URL's own address (an IP literal, or the
    address ``--resolve`` maps its host to) always, since the user asked for
    it; loopback when a start URL is on loopback (``serve``, tests,
    ``localhost``); every other private, link-local (169.254.0.0/16, the cloud
    metadata address), reserved or otherwise non-public address only with
    ``allow_private`` -- so a page or a robots.txt redirect cannot make the
    crawler request an internal service.  Host names looked up in DNS are
    checked by :class:`_CheckedResolver` after the lookup (no second lookup
    to race), IP literals and mapped hosts before connecting.
    """

    def __init__(self, seeds: Sequence[str], resolve: Mapping[str, tuple[str, int]], allow_private: bool) -> None:
        self.allow_private = allow_private
        self.allowed: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        self.seed_names: set[str] = set()
        loopback = False
        for url in seeds:
            origin = _origin(url)
            if origin is None:
                continue
            name, port = origin
            self.seed_names.add(name)
            mapped = resolve.get(f"{name}:{port}") or resolve.get(name)
            ip = _ip(mapped[0] if mapped else name)
            if ip is not None:
                self.allowed.add(ip)
                loopback = loopback or ip.is_loopback
            loopback = loopback or name == "localhost" or name.endswith(".localhost")
        self.loopback_ok = loopback

    def refusal(self, address: str) -> str | None:
        """Why a request must not go to ``address``, or None when it may."""
        ip = _ip(address)
        if ip is None or self.allow_private or ip in self.allowed:
            return None
        if ip.is_loopback:
            return None if self.loopback_ok else "a loopback address"
        if ip.is_link_local:
            return "a link-local address"
        if ip.is_private:
            return "a private address"
        if not ip.is_global or ip.is_multicast:
            return "a reserved (non-public) address"
        return None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip("[]").partition("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class _RefusedAddress(OSError):
    """A DNS answer the address policy refuses (never connected to)."""


class _CheckedResolver(aiohttp.abc.AbstractResolver):
    """aiohttp's default resolver, with each answer checked by an
    :class:`AddressPolicy`: refused addresses are dropped, and a name with
    only refused addresses fails before any connection is made."""

    def __init__(self, policy: AddressPolicy, on_refused: Callable[[str, str], None]) -> None:
        self._inner = aiohttp.DefaultResolver()
        self._policy = policy
        self._on_refused = on_refused

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        answers = await self._inner.resolve(host, port, family)
        if host.lower() in self._policy.seed_names:
            return answers
        kept, why = [], ""
        for answer in answers:
            reason = self._policy.refusal(answer["host"])
            if reason is None:
                kept.append(answer)
            else:
                why = f"{host} resolves to {answer['host']}, {reason}"
        if not kept:
            self._on_refused(host, why)
            raise _RefusedAddress(why)
        return kept

    async def close(self) -> None:
        await self._inner.close()


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
    redirect_scope: RedirectScope | None = None
    """Where a redirect may lead (None: anywhere)."""
    steps: frozenset[str] = frozenset()
    """The crawl's normalization steps, to key a redirect target's host as the core does."""


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
    unfinished: dict[str, str] = field(default_factory=dict)
    """Pages found but not finished when a time limit stopped the crawl (queued,
    in flight, or waiting for a retry or Retry-After), with why: with
    ``results``/``failures`` every page found is accounted for."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """(URL or host, reason) for each request refused before connecting (an
    address the :class:`AddressPolicy` does not allow, a redirect out of scope)."""

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
    coordinator = _Coordinator(options, fetcher, seeds, on_event=on_event, keep_events=keep_events, page_of=page_of)
    return await coordinator.run(max_time)


class _Coordinator:
    """The one owner of the :class:`Scheduler` in a real crawl: it starts the
    fetches the core hands out as tasks, reports their outcomes back in the
    order they finished, and sleeps until a fetch ends or the core's next
    wakeup.  Fetch tasks never touch the scheduler."""

    def __init__(
        self,
        options: CrawlOptions,
        fetcher: Fetcher,
        seeds: Sequence[str],
        *,
        on_event: Callable[[Event], None] | None,
        keep_events: bool,
        page_of: Callable[[str], str] | None,
    ) -> None:
        self.options = options
        self.fetcher = fetcher
        self.seeds = list(seeds)
        self.on_event = on_event
        self.keep_events = keep_events
        self.sched = Scheduler(options, page_of=page_of)
        self.origin = time.monotonic()
        self.last = 0.0
        """The scheduler's clock: the latest time told to it (never goes back)."""
        self.events: list[Event] = []
        self.statuses: dict[str, int] = {}
        self.pending: dict[asyncio.Task[tuple[Outcome, float]], Fetch] = {}
        self.robots_refused: dict[str, str] = {}
        self.finished: set[str] = set()
        """Pages whose fetch ended for good (done, or failed with no retry left)."""
        self.redirect_scope = RedirectScope(options.scope, self.seeds)
        self.max_time: float | None = None
        """The crawl's time limit, checked between responses too."""

    def now(self) -> float:
        return time.monotonic() - self.origin

    async def run(self, max_time: float | None) -> CrawlResult:
        """The crawl loop, then the result (every page accounted for when
        ``max_time`` cut it short)."""
        stopped: str | None = None
        self.max_time = max_time
        self.sched.add_seeds(list(self.seeds), self.now())
        try:
            stopped = await self._loop(max_time)
        finally:
            in_flight = {fetch.url for fetch in self.pending.values() if fetch.kind == "page"}
            await self._cancel_pending()
        finish = self.events[-1].t if self.events else self.last
        found = self.sched.found() if self.options.seen == "exact" else []
        unfinished = self._unfinished(found, in_flight, stopped) if stopped is not None else {}
        return CrawlResult(
            self.options,
            self.sched.stats,
            finish,
            found,
            self.statuses,
            dict(self.sched.failures),
            self.events,
            stopped,
            self.origin,
            robots_refused=self.robots_refused,
            unfinished=unfinished,
        )

    async def _loop(self, max_time: float | None) -> str | None:
        """Start what the core allows, wait, report; until done.  Why the crawl
        stopped early (a time limit), or None when it ran to the end."""
        while True:
            self.last = max(self.last, self.now())
            for fetch in self.sched.poll(self.last):
                self._start(fetch)
            self._flush()
            if self.sched.done:
                return None
            wake = self.sched.next_wakeup()
            timeout = None if wake is None else max(0.0, wake - self.now())
            if max_time is not None:
                left = max_time - self.now()
                if left <= 0:
                    return f"time limit of {max_time:g} s reached"
                timeout = left if timeout is None else min(timeout, left)
            if not self.pending and timeout is None:
                return None  # nothing in flight, nothing scheduled: only possible when done
            if not self.pending:
                await asyncio.sleep(timeout or 0.0)
                continue
            await self._report_finished(timeout)

    async def _report_finished(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` for fetches to end; hand each outcome to the core."""
        done, _ = await asyncio.wait(self.pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        # Report in order of finishing, so the trace's times never go backwards.
        for _, _, task in sorted((task.result()[1], self.pending[task].id, task) for task in done):
            if self.max_time is not None and self.now() >= self.max_time:
                return  # the rest stay pending: listed as in flight when the time limit stopped the crawl
            fetch = self.pending.pop(task)
            outcome, t = task.result()
            self.last = max(self.last, t)
            _report(self.sched, fetch, outcome, self.last, self.statuses)

    async def _cancel_pending(self) -> None:
        """Cancel what is still in flight (a time limit, or an error) and emit
        the core's last events."""
        for task in self.pending:
            task.cancel()
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)
        self._flush()

    def _flush(self) -> None:
        """Pass the core's new events on, noting what the result reports from them."""
        batch = self.sched.drain_events()
        for event in batch:
            self._note(event)
        if self.keep_events:
            self.events.extend(batch)
        if self.on_event is not None:
            for event in batch:
                self.on_event(event)

    def _note(self, event: Event) -> None:
        """Remember why a host's robots.txt shut it out, and which pages ended for good."""
        if isinstance(event, FetchFailed) and event.kind == "robots" and event.final:
            self.robots_refused[event.host] = event.reason
        elif isinstance(event, RobotsLoaded) and event.disallow_all and event.status:
            self.robots_refused[event.host] = f"HTTP {event.status}"
        elif (
            isinstance(event, (FetchFinished, FetchFailed))
            and event.kind == "page"
            and getattr(event, "final", True)  # ended for good, not to be retried
        ):
            self.finished.add(event.url)

    def _start(self, fetch: Fetch) -> None:
        """Start ``fetch`` as a task, with what the fetcher needs from the core's
        state captured now (the host's robots.txt policy and gap)."""
        host = self.sched.host_states().get(fetch.host)
        policy = host.robots if host is not None and isinstance(host.robots, RobotsPolicy) else None
        delay = max(self.options.gap, host.crawl_delay if host is not None else 0.0)
        want_content = self.options.content_dedup != "off"
        ctx = FetchContext(policy, delay, want_content, self.redirect_scope, self.options.normalize_steps)
        task = asyncio.create_task(self._one(fetch, ctx), name=f"fetch {fetch.id} {fetch.url}")
        self.pending[task] = fetch

    async def _one(self, fetch: Fetch, ctx: FetchContext) -> tuple[Outcome, float]:
        """One fetch's outcome and when it ended; a fetcher's bug costs that page only."""
        try:
            outcome = await self.fetcher(fetch, ctx)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a fetcher bug or surprise costs this page only
            outcome = Failure(f"{type(exc).__name__}: {exc}", transient=False)
        return outcome, self.now()

    def _unfinished(self, found: list[str], in_flight: set[str], stopped: str) -> dict[str, str]:
        """Every page found but not finished when the crawl stopped, with why."""
        unfinished: dict[str, str] = {}
        failures = self.sched.failures
        for url in found:
            if url in self.finished or url in failures:
                continue
            if url in in_flight:
                unfinished[url] = f"not fetched: in flight when the crawl stopped ({stopped})"
            elif url in self.statuses:
                unfinished[url] = (
                    f"not fetched: HTTP {self.statuses[url]}, waiting to retry when the crawl stopped ({stopped})"
                )
            else:
                unfinished[url] = f"not fetched: still queued when the crawl stopped ({stopped})"
        return unfinished


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


class ParseError(Exception):
    """A page that cannot be parsed within the limits (the reason is the message)."""


# Start and end tags of elements that can hold others.  Void elements and
# those a parser closes by itself when a sibling starts (p, li, td, option,
# ...) are left out, so ordinary pages that never close them do not count
# as deep.
_NESTING_TAG = re.compile(
    r"<(/?)(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|"
    r"p|li|dt|dd|option|optgroup|tr|td|th|thead|tbody|tfoot|rt|rp)[\s/>])[a-zA-Z]",
    re.IGNORECASE,
)


def nesting_depth(text: str) -> int:
    """The deepest element nesting the tags of ``text`` imply (start tags minus
    end tags, at the worst point): a linear-time pre-scan, an upper bound
    good enough to refuse a nesting bomb before the parser sees it."""
    depth = deepest = 0
    for slash in _NESTING_TAG.findall(text):
        if slash:
            depth = max(0, depth - 1)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def parse_html_checked(
    text: str, url: str, want_content: bool = False, max_nesting: int | None = MAX_NESTING
) -> tuple[list[str], str | None, str | None]:
    """:func:`parse_html` after the nesting pre-scan (:class:`ParseError` when too deep)."""
    if max_nesting is not None:
        depth = nesting_depth(text)
        if depth > max_nesting:
            raise ParseError(f"too deeply nested: elements {depth} deep (at most {max_nesting} are parsed)")
    return parse_html(text, url, want_content)


async def parse_html_off_loop(
    text: str,
    url: str,
    want_content: bool = False,
    *,
    timeout: float | None,
    max_nesting: int | None = MAX_NESTING,
) -> tuple[list[str], str | None, str | None]:
    """:func:`parse_html_checked` on a thread of its own, so the event loop
    (every other fetch, the politeness clock) keeps running while a large
    page is parsed; :class:`ParseError` ``parse took too long`` after
    ``timeout`` seconds.

    A small page with at most ``max_nesting`` ``<`` in it cannot nest deeper
    than that and parses in about a millisecond: it is parsed at once on the
    loop, since handing it to a thread would cost more.

    A parse cannot be interrupted: one that overruns is abandoned and runs to
    its end on its daemon thread (lexbor releases the GIL, so the crawl goes
    on beside it, and the thread never delays interpreter exit).  The
    nesting pre-scan keeps such overruns to pages that are merely huge.
    """
    if len(text) <= INLINE_PARSE_CHARS and text.count("<") <= (max_nesting or INLINE_PARSE_TAGS):
        # Few tags, so shallow: parsed at once, without the scan or a thread hand-off.
        return parse_html(text, url, want_content)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[list[str], str | None, str | None]] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return  # timed out and abandoned
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result, error = None, None
        try:
            result = parse_html_checked(text, url, want_content, max_nesting)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting coroutine
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop has closed: nobody is waiting any more

    threading.Thread(target=work, name=f"crawlsim-parse {url[:80]}", daemon=True).start()
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        raise ParseError(f"parse took too long: over {timeout:g} s (abandoned)") from None


# --------------------------------------------------------------------------- HTTP


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
        return canonical_or_raise(location.strip(), url, _AS_WRITTEN)
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
    ) -> None:
        self.user_agent = user_agent
        self.resolve = {k.lower(): v for k, v in (resolve or {}).items()}
        self.limits = limits
        self.policy = AddressPolicy(seeds, self.resolve, limits.allow_private)
        """Which addresses may be requested (the start URLs' own always)."""
        self.refused: list[tuple[str, str]] = []
        """(URL or host, reason) for every request refused before connecting."""
        self._session: aiohttp.ClientSession | None = None
        self._sent: dict[str, float] = {}
        """When the last request to each host went on the wire (``time.monotonic``)."""
        self._sending: dict[str, asyncio.Future[None]] = {}
        """Per host, the request that has passed its gap hold and is not yet on
        the wire (see :meth:`_claim_wire`); at most one per host."""
        self.wire_log: list[tuple[str, float]] = []
        """Every request's (host, sent time), for checking politeness on the wire."""

    async def __aenter__(self) -> Self:
        # No connection limits here: the scheduler already bounds what is in flight.
        connector = aiohttp.TCPConnector(
            limit=0, limit_per_host=0, ttl_dns_cache=300, resolver=_CheckedResolver(self.policy, self._refuse)
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
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _wire_clock(self) -> aiohttp.TraceConfig:
        """Note when each request's headers are actually sent (see :meth:`_claim_wire`)."""
        trace = aiohttp.TraceConfig()

        async def sent(session: aiohttp.ClientSession, ctx: Any, params: Any) -> None:
            host = (ctx.trace_request_ctx or {}).get("host")
            if host is not None:
                self._sent[host] = at = time.monotonic()
                self.wire_log.append((host, at))
                self._release_wire(host, self._sending.get(host))

        trace.on_request_headers_sent.append(sent)
        return trace

    async def _claim_wire(self, host: str, gap: float) -> asyncio.Future[None] | None:
        """Hold a request until ``gap`` after the host's last request *on the wire*,
        and claim the host's wire until this request's headers are sent.

        The core spaces request *starts*; each request then reaches the wire a
        little later -- ~0.3 ms on a reused keep-alive connection, a few ms (or,
        under load, longer than the gap) when a new connection is opened.  Two
        holds are needed to keep the gap true on the wire too:

        * wait for ``gap`` after the previous request's *sent* time, not its start;
        * while one request to the host has passed that wait but is not yet on
          the wire, the next one waits for it: otherwise it would read a send
          time that is about to change and could overtake it (with ``per_host``
          of 2 or more, two requests to one host can be between start and wire).

        The claim is released when the headers go out (:meth:`_wire_clock`) or
        when the request fails before that (:meth:`_release_wire` in ``_fetch``).
        It only ever holds a request for the few milliseconds the core could not
        see, since the core already waited the gap.
        """
        if gap <= 0:
            return None
        while True:
            pending = self._sending.get(host)
            if pending is not None:
                await asyncio.shield(pending)  # our cancellation must not cancel its claim
                continue
            wait = self._sent.get(host, float("-inf")) + gap - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
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
        try:
            return await self._fetch(fetch, ctx)
        except _Stop as stop:
            return Failure(stop.reason, stop.transient)

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
        fetch may follow inline (each waiting the host's gap on the wire); or
        the :class:`Page` that ends the fetch at a redirect (its target handed
        to the scheduler as a link, or an unusable ``Location``)."""
        wire = host_key(fetch.url)  # the host this fetch's requests count against, hops included
        robots_txt = fetch.kind == "robots"
        url = fetch.url
        chain = [_defrag(url)]
        while True:
            resp = await self._request_on_wire(url, wire, ctx.hop_gap, robots_txt)
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

    async def _request_on_wire(self, url: str, wire: str, gap: float, robots_txt: bool) -> _Response:
        """One request, holding ``wire``'s claim (see :meth:`_claim_wire`) until
        its headers are sent or it fails."""
        claim = await self._claim_wire(wire, gap)
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
        keys = [f"{hostname}:{port}", hostname] if port is not None else [hostname]
        if port is not None and port == DEFAULT_PORTS.get(parts.scheme.lower()):
            keys.append(f"{hostname}:{port}")
        target = next((self.resolve[k] for k in keys if k in self.resolve), None)
        if target is None:
            raise _Stop(f"host {hostname} is not in the host map (--resolve); not looked up in DNS")
        address, mapped_port = target
        self._check_address(address, url)
        request = f"http://{address}:{mapped_port}{path}"
        netloc = parts.netloc.rpartition("@")[2]
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
        try:
            async with self._session.get(
                target,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=self.limits.timeout),
                trace_request_ctx={"host": host},
            ) as resp:
                if not robots_txt and resp.content_length is not None and resp.content_length > limit:
                    raise _Stop(f"too large: Content-Length {resp.content_length} > {limit} bytes")
                body = await _read_body(resp, limit, cut=robots_txt)
                return _Response(resp.status, dict(resp.headers.items()), body, resp.content_type, resp.charset)
        except _Stop:
            raise
        except (TimeoutError, aiohttp.ClientError) as err:
            raise _stop_for(err, self.limits.timeout) from None


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
        if isinstance(err.os_error, _RefusedAddress):
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
    1 s gap, exact-host scope).  Requests go only to public addresses, the
    seeds' own, and loopback when a seed is on loopback, unless
    ``limits.allow_private`` (see :class:`AddressPolicy`).
    """
    opts = options or real_options()
    seed_list = [seeds] if isinstance(seeds, str) else list(seeds)
    async with HttpFetcher(user_agent=opts.user_agent, resolve=resolve, limits=limits, seeds=seed_list) as fetcher:
        result = await run_crawl(
            seed_list, opts, fetcher, on_event=on_event, keep_events=keep_events, max_time=max_time
        )
    result.wire = fetcher.wire_log
    result.refused = fetcher.refused
    return result


__all__ = [
    "DEFAULT_USER_AGENT",
    "REAL_DEFAULTS",
    "AddressPolicy",
    "CrawlResult",
    "Failure",
    "FetchContext",
    "Fetcher",
    "HostMap",
    "HttpFetcher",
    "HttpLimits",
    "Page",
    "ParseError",
    "RedirectScope",
    "crawl_http",
    "nesting_depth",
    "parse_html",
    "parse_html_checked",
    "parse_html_off_loop",
    "real_options",
    "run_crawl",
]
