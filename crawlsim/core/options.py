"""Crawler options: one frozen record, validated once, shared by every driver.

Names follow Scrapy where Scrapy has one (``CONCURRENT_REQUESTS`` ->
``workers``, ``CONCURRENT_REQUESTS_PER_DOMAIN`` -> ``per_host``,
``DOWNLOAD_DELAY`` -> ``gap``, ``RANDOMIZE_DOWNLOAD_DELAY`` ->
``randomize_gap``, ``DEPTH_LIMIT`` -> ``depth_limit``, ``ROBOTSTXT_OBEY`` ->
``robots``, ``RETRY_TIMES`` -> ``max_retries``, ``RETRY_HTTP_CODES`` ->
``retry_statuses``, ``USER_AGENT`` -> ``user_agent``).

Bad values raise :class:`OptionError`, whose message names the key, what was
given and what was expected, and suggests the nearest known key for a typo.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from crawlsim.core.urls import MODES, STEPS, parse_steps

ORDERS = ("bfs", "dfs", "best")
FRONTIERS = ("per-host", "fifo")
SCOPES = ("host", "domain", "any")
SEEN_KINDS = ("exact", "hash", "bloom")
CONTENT_DEDUP = ("off", "exact", "simhash")

Priority = Callable[[str, int], float]
"""Best-first priority: ``priority(url, depth)``; lower values go first."""


class OptionError(ValueError):
    """A crawler option has a bad name or value.  ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class CrawlOptions:
    """Every knob of the scheduler.  See README "Options" for the prose."""

    workers: int = 8
    """Global cap on fetches in flight."""
    per_host: int | None = None
    """Cap on fetches in flight to one host; ``None`` means only ``workers``."""
    gap: float = 0.0
    """Minimum seconds between request *starts* to one host."""
    randomize_gap: bool = False
    """Multiply each gap by a seeded uniform factor in [0.5, 1.5] (Scrapy's default when a delay is set)."""
    order: str = "bfs"
    """``bfs`` (queue), ``dfs`` (stack; a page's first link is expanded first) or ``best`` (``priority``)."""
    priority: Priority | None = None
    frontier: str = "per-host"
    """``per-host``: one queue per host plus a heap of host ready times (no head-of-line blocking).
    ``fifo``: one queue whose blocked head stalls everyone (for teaching)."""
    normalize: str | frozenset[str] = "rfc3986"
    """A mode (``off``, ``fragment``, ``rfc3986``, ``aggressive``), or steps such as
    ``"rfc3986-dot_segments"`` / ``"fragment+www"`` / a set of step names."""
    scope: str = "host"
    """``host``: a seed's exact hostname; ``domain``: a seed's host or its subdomains
    (a leading ``www.`` ignored); ``any``: everything."""
    allow: tuple[str, ...] = ()
    """Regexes; when given, a URL must match one of them."""
    deny: tuple[str, ...] = ()
    """Regexes; a URL matching any of them is out of scope."""
    depth_limit: int | None = None
    max_pages: int | None = None
    max_pages_per_host: int | None = None
    robots: bool = False
    """Fetch each host's /robots.txt first, through the same fetch path, and obey it."""
    user_agent: str = "crawlsim"
    max_crawl_delay: float = 10.0
    """Crawl-delay is honoured up to this many seconds."""
    max_retries: int = 2
    retry_statuses: tuple[int, ...] = (429, 503)
    backoff_base: float = 1.0
    """First retry waits about this long; each further retry doubles it (with jitter)."""
    backoff_max: float = 60.0
    seen: str = "exact"
    """Seen set: ``exact`` strings, ``hash`` (64-bit digests) or ``bloom``."""
    bloom_capacity: int = 1_000_000
    bloom_error_rate: float = 0.001
    content_dedup: str = "off"
    """``off``, ``exact`` fingerprints, or ``simhash`` near-duplicates."""
    simhash_distance: int = 3
    seed: int = 0
    """Seeds the jitter and gap randomisation, so runs are reproducible."""
    record_events: bool = True
    """Turn off to skip building event objects (large simulations); counters still run."""

    normalize_steps: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_int(self, "workers", 1)
        if self.per_host is not None:
            _check_int(self, "per_host", 1)
        _check_number(self, "gap", 0.0)
        _check_choice(self, "order", ORDERS)
        if self.order == "best" and self.priority is None:
            raise OptionError("priority", "order = 'best' needs a priority function")
        _check_choice(self, "frontier", FRONTIERS)
        _check_choice(self, "scope", SCOPES)
        for key in ("depth_limit", "max_pages", "max_pages_per_host"):
            if getattr(self, key) is not None:
                _check_int(self, key, 0 if key == "depth_limit" else 1)
        _check_int(self, "max_retries", 0)
        _check_number(self, "backoff_base", 0.0)
        _check_number(self, "backoff_max", 0.0)
        _check_number(self, "max_crawl_delay", 0.0)
        _check_choice(self, "seen", SEEN_KINDS)
        _check_int(self, "bloom_capacity", 1)
        if not (0.0 < float(self.bloom_error_rate) < 1.0):
            raise OptionError("bloom_error_rate", f"expected a number between 0 and 1, got {self.bloom_error_rate!r}")
        _check_choice(self, "content_dedup", CONTENT_DEDUP)
        _check_int(self, "simhash_distance", 0)
        if not isinstance(self.user_agent, str) or not self.user_agent.strip():
            raise OptionError("user_agent", "expected a non-empty string")
        for key in ("allow", "deny"):
            value = getattr(self, key)
            if isinstance(value, str):
                object.__setattr__(self, key, (value,))
            elif not all(isinstance(p, str) for p in value):
                raise OptionError(key, "expected a list of regular expressions")
            else:
                object.__setattr__(self, key, tuple(value))
        try:
            steps = parse_steps(self.normalize)
        except ValueError as exc:
            raise OptionError("normalize", str(exc)) from None
        object.__setattr__(self, "normalize_steps", steps)
        object.__setattr__(self, "retry_statuses", tuple(int(s) for s in self.retry_statuses))

    def with_(self, **changes: Any) -> CrawlOptions:
        """A copy with ``changes`` applied (validated, unknown keys rejected)."""
        return CrawlOptions.from_mapping({**self.as_mapping(), **changes})

    def as_mapping(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> CrawlOptions:
        """Build from a plain mapping (a TOML table, CLI flags); unknown keys
        are an :class:`OptionError` that suggests the nearest known key."""
        known = option_names()
        for key in values:
            if key not in known:
                raise OptionError(key, f"unknown crawler option{did_you_mean(key, known)}")
        return cls(**dict(values))


def option_names() -> list[str]:
    """Every key :meth:`CrawlOptions.from_mapping` accepts."""
    return [f.name for f in fields(CrawlOptions) if f.init]


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """``"; did you mean 'workers'?"`` or ``""``."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_int(opts: CrawlOptions, key: str, minimum: int) -> None:
    value = getattr(opts, key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise OptionError(key, f"expected a whole number >= {minimum}, got {value!r}")


def _check_number(opts: CrawlOptions, key: str, minimum: float) -> None:
    value = getattr(opts, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < minimum:
        raise OptionError(key, f"expected a number >= {minimum:g}, got {value!r}")


def _check_choice(opts: CrawlOptions, key: str, choices: tuple[str, ...]) -> None:
    value = getattr(opts, key)
    if value not in choices:
        raise OptionError(key, f"expected one of {', '.join(choices)}; got {value!r}")


__all__ = [
    "CONTENT_DEDUP",
    "FRONTIERS",
    "MODES",
    "ORDERS",
    "SCOPES",
    "SEEN_KINDS",
    "STEPS",
    "CrawlOptions",
    "OptionError",
    "did_you_mean",
    "option_names",
]
