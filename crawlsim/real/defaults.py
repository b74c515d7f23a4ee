"""The real crawler's defaults and limits: the politeness it starts from,
and the safety limits of one request (the numbers RFC 9309 and a hostile
page ask for)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crawlsim.core.options import CrawlOptions

DEFAULT_USER_AGENT = "crawlsim/0.1 (polite crawler; set --user-agent to add your contact URL)"

REAL_DEFAULTS: dict[str, Any] = {
    "robots": True,
    "per_host": 2,
    "gap": 1.0,
    "scope": "host",
    "user_agent": DEFAULT_USER_AGENT,
}
"""Politeness for crawling real servers unless flags say otherwise: obey
robots.txt under a clear user agent, two fetches at a time per host, one
second between fetch starts to a host, stay on the start host."""

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

ADMIT_SECONDS = 0.05
"""A page's links are handed to the scheduler in steps of about this long, the
clock looked at between steps, so the time limit holds on a page of a million
links (see :mod:`crawlsim.real.coordinator`)."""
ADMIT_FIRST = 16
"""Links in a page's first step; each next step doubles while steps stay under
:data:`ADMIT_SECONDS` and shrinks to fit when one takes longer (a link costs
microseconds, or milliseconds against a robots.txt of 30,000 rules)."""
ADMIT_MOST = 4096
"""The most links in one step."""

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
AS_WRITTEN: frozenset[str] = frozenset()
"""No normalization steps: a URL resolved as written (a ``<base href>``, a ``Location``)."""


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


def real_options(overrides: Mapping[str, Any] | None = None, base: Mapping[str, Any] | None = None) -> CrawlOptions:
    """Options for crawling real servers: :data:`REAL_DEFAULTS` under ``base``
    (e.g. a scenario's options) under ``overrides`` (the user's flags)."""
    return CrawlOptions.from_mapping({**REAL_DEFAULTS, **(base or {}), **(overrides or {})})
