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
  in ``CrawlResult.unfinished`` with why.  The limit holds in the middle of
  a page too: its links are admitted in steps with the clock looked at
  between them, and those it left unexamined are counted in
  ``CrawlResult.links_dropped`` (see :mod:`~crawlsim.real.coordinator`).
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

The parts, one module each: :mod:`~crawlsim.real.results` (outcomes, the
fetch context, the crawl's result), :mod:`~crawlsim.real.redirect_scope`,
:mod:`~crawlsim.real.addresses` (address policy and the checked resolver),
:mod:`~crawlsim.real.coordinator` (the scheduler's one owner),
:mod:`~crawlsim.real.parsing` (HTML, the nesting pre-scan, the parser
thread), :mod:`~crawlsim.real.fetcher` (HTTP) and
:mod:`~crawlsim.real.defaults`.  This module is the entry point,
:func:`crawl_http`, and re-exports their public names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from crawlsim.trace.events import Event
from crawlsim.core.options import CrawlOptions
from crawlsim.real.addresses import AddressPolicy
from crawlsim.real.coordinator import run_crawl
from crawlsim.real.defaults import (
    DEFAULT_USER_AGENT,
    HTML_TYPES,
    INLINE_PARSE_CHARS,
    INLINE_PARSE_TAGS,
    MAX_NESTING,
    REAL_DEFAULTS,
    REDIRECT_STATUSES,
    ROBOTS_MAX_BYTES,
    HttpLimits,
    real_options,
)
from crawlsim.real.fetcher import HostMap, HttpFetcher
from crawlsim.real.parsing import ParseError, nesting_depth, parse_html, parse_html_checked, parse_html_off_loop
from crawlsim.real.redirect_scope import RedirectScope
from crawlsim.real.results import CrawlResult, Failure, FetchContext, Fetcher, Outcome, Page


async def crawl_http(
    seeds: Sequence[str] | str,
    options: CrawlOptions | None = None,
    *,
    resolve: HostMap | None = None,
    limits: HttpLimits = HttpLimits(),
    on_event: Callable[[Event], None] | None = None,
    keep_events: bool = True,
    max_time: float | None = None,
    server_times: dict[int, float] | None = None,
    retry_after_sent: set[int] | None = None,
) -> CrawlResult:
    """Crawl real HTTP servers from ``seeds`` (see the module docstring).

    With ``server_times``, each fetch's server time (its requests sent to their
    answers' arrival, the crawler's own delays in noticing them left out: see
    :mod:`crawlsim.real.loopwatch`) is put there by fetch id as the crawl goes;
    with ``retry_after_sent``, the id of each fetch answered with a Retry-After.

    ``options`` default to :func:`real_options` (robots obeyed, 2 per host,
    1 s gap, exact-host scope).  Requests go only to public addresses, the
    seeds' own, and loopback when a seed is on loopback, unless
    ``limits.allow_private`` (see :class:`AddressPolicy`).
    """
    opts = options or real_options()
    seed_list = [seeds] if isinstance(seeds, str) else list(seeds)
    async with HttpFetcher(
        user_agent=opts.user_agent, resolve=resolve, limits=limits, seeds=seed_list, server_times=server_times,
        retry_after_sent=retry_after_sent,
    ) as fetcher:
        result = await run_crawl(
            seed_list, opts, fetcher, on_event=on_event, keep_events=keep_events, max_time=max_time
        )
    result.wire = fetcher.wire_log
    result.refused = fetcher.refused
    return result


__all__ = [
    "DEFAULT_USER_AGENT",
    "HTML_TYPES",
    "INLINE_PARSE_CHARS",
    "INLINE_PARSE_TAGS",
    "MAX_NESTING",
    "REAL_DEFAULTS",
    "REDIRECT_STATUSES",
    "ROBOTS_MAX_BYTES",
    "AddressPolicy",
    "CrawlResult",
    "Failure",
    "FetchContext",
    "Fetcher",
    "HostMap",
    "HttpFetcher",
    "HttpLimits",
    "Outcome",
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
