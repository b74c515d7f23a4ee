"""Scrapy's settings as crawlsim's ``[crawl]`` options, and where the two
schedulers differ (no Scrapy import here: ``settings`` is anything with
Scrapy's ``get``/``getint``/``getfloat``/``getbool``/``getlist``).

The names map one to one where both have the knob (see
:mod:`crawlsim.core.options`), and Scrapy's scheduling is the core's own,
set by name: ``order = "lifo"`` (its ``LifoMemoryQueue``; ``bfs`` for the
FIFO queues), ``frontier = "download-slots"`` (its downloader-aware queue and
download slots: :mod:`crawlsim.core.download_slots`),
``max_crawl_delay = 0`` (its robots.txt middleware reads no Crawl-delay) and
``backoff_base = 0`` (its retry middleware asks again at once).  What the
model still does differently is not hidden: :func:`differences` writes one
sentence per difference that touched this crawl, the trace carries them, and
``crawlsim model`` puts them in the scenario's ``assumes`` line, which
``crawlsim run`` prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

RECORDER_KEY = "recorder"
"""The trace's options key (on its Done line) for what recorded it: the tool,
its own settings and the differences; ``crawlsim model`` keeps it out of ``[crawl]``."""


def crawl_options(settings: Any, allowed_domains: Sequence[str] | None, jitter: float) -> dict[str, Any]:
    """The ``[crawl]`` table that makes crawlsim's scheduler run as this Scrapy crawl did.

    ``jitter`` is the downloader's own (Scrapy's ``DOWNLOAD_DELAY_JITTER``, or
    0.5 when the older ``RANDOMIZE_DOWNLOAD_DELAY`` is on); ``allowed_domains``
    the spider's (None: every host, as Scrapy's offsite filter allows)."""
    per_ip = settings.getint("CONCURRENT_REQUESTS_PER_IP")
    options: dict[str, Any] = {
        "workers": settings.getint("CONCURRENT_REQUESTS") or 16,
        "per_host": per_ip or settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN"),
        "gap": settings.getfloat("DOWNLOAD_DELAY"),
        "randomize_gap": bool(jitter) and settings.getfloat("DOWNLOAD_DELAY") > 0,
        "robots": settings.getbool("ROBOTSTXT_OBEY"),
        "depth_limit": settings.getint("DEPTH_LIMIT") or None,
        "max_crawl_delay": 0.0,  # Scrapy's robots.txt middleware reads Disallow only, never Crawl-delay
        "max_retries": settings.getint("RETRY_TIMES") if settings.getbool("RETRY_ENABLED") else 0,
        "retry_statuses": sorted({int(s) for s in settings.getlist("RETRY_HTTP_CODES")}),
        "backoff_base": 0.0,  # Scrapy asks again at once, whatever Retry-After says
        "order": "bfs" if _fifo(settings) else "lifo",
        "frontier": "download-slots" if _downloader_aware(settings) else "download-slots-one-queue",
        "scope": "any",
        "user_agent": str(settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT") or "Scrapy"),
    }
    if allowed_domains:
        names = "|".join(re.escape(d.lower().strip(".")) for d in allowed_domains if d)
        options["allow"] = [rf"^https?://([^/?#@]*\.)?({names})(:\d+)?([/?#]|$)"]
    return options


def _downloader_aware(settings: Any) -> bool:
    """Whether Scrapy's queue gives the next request of its least busy download slot
    (``DownloaderAwarePriorityQueue``, the default since Scrapy 2.13)."""
    return "downloaderaware" in str(settings.get("SCHEDULER_PRIORITY_QUEUE", "")).lower()


def _fifo(settings: Any) -> bool:
    """Whether Scrapy pops the oldest request first (its breadth-first recipe:
    FIFO queues, with ``DEPTH_PRIORITY`` > 0 for depth order)."""
    return "fifo" in str(settings.get("SCHEDULER_MEMORY_QUEUE", "")).lower()


def scrapy_settings(settings: Any) -> dict[str, Any]:
    """The Scrapy settings the ``[crawl]`` table was read from, by their Scrapy names."""
    names = (
        "CONCURRENT_REQUESTS", "CONCURRENT_REQUESTS_PER_DOMAIN", "CONCURRENT_REQUESTS_PER_IP", "DOWNLOAD_DELAY",
        "RANDOMIZE_DOWNLOAD_DELAY", "ROBOTSTXT_OBEY", "DEPTH_LIMIT", "DEPTH_PRIORITY", "RETRY_ENABLED",
        "RETRY_TIMES", "SCHEDULER_MEMORY_QUEUE", "SCHEDULER_PRIORITY_QUEUE", "AUTOTHROTTLE_ENABLED",
    )  # fmt: skip
    out: dict[str, Any] = {}
    for name in names:
        value = settings.get(name)
        out[name] = value if isinstance(value, (bool, int, float, str)) or value is None else str(value)
    return out


def differences(
    settings: Any,
    options: dict[str, Any],
    refetched: int = 0,
    host_peaks: dict[str, int] | None = None,
) -> list[str]:
    """One sentence for each way crawlsim's rerun of this crawl differs from Scrapy's
    (Scrapy's queue, download slots, delays, robots.txt and retries it runs as Scrapy does)."""
    out: list[str] = []
    if refetched:
        out.append(
            f"Scrapy fetched {refetched} page(s) a second time (its start requests skip the duplicate filter, "
            "so a start URL linked again is fetched again); the model fetches each page once"
        )
    if settings.getint("DEPTH_PRIORITY") and options["order"] != "bfs":
        out.append(
            "Scrapy's DEPTH_PRIORITY reorders its last-in first-out queue by depth; the model's lifo order does "
            "not, so a cap or time limit may keep other pages"
        )
    if settings.getbool("AUTOTHROTTLE_ENABLED"):
        out.append("AutoThrottle changed Scrapy's delays during the crawl; the model keeps DOWNLOAD_DELAY fixed")
    if settings.getint("CONCURRENT_REQUESTS_PER_IP"):
        out.append("Scrapy limited per IP address (CONCURRENT_REQUESTS_PER_IP); the model limits per host")
    ported = _hosts_by_name(host_peaks or {})
    if ported:
        out.append(
            f"Scrapy keys a download slot by host name, so {', '.join(ported)} shared one slot; the model "
            "gives each port its own"
        )
    return out


def _hosts_by_name(hosts: Iterable[str]) -> list[str]:
    """The host keys that share a host name with another (``a.test:8001``, ``a.test:8002``)."""
    names: dict[str, list[str]] = {}
    for host in hosts:
        names.setdefault(host.rsplit(":", 1)[0] if not host.endswith("]") else host, []).append(host)
    return sorted(h for group in names.values() if len(group) > 1 for h in group)


__all__ = ["RECORDER_KEY", "crawl_options", "differences", "scrapy_settings"]
