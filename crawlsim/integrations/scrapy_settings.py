"""Scrapy's settings as crawlsim's ``[crawl]`` options, and where the two
schedulers differ (no Scrapy import here: ``settings`` is anything with
Scrapy's ``get``/``getint``/``getfloat``/``getbool``/``getlist``).

The names map one to one where both have the knob (see
:mod:`crawlsim.core.options`).  What crawlsim's scheduler does differently
is not hidden: :func:`differences` writes one sentence per difference that
touched this crawl, the trace carries them, and ``crawlsim model`` puts them
in the scenario's ``assumes`` line, which ``crawlsim run`` prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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
        "max_retries": settings.getint("RETRY_TIMES") if settings.getbool("RETRY_ENABLED") else 0,
        "retry_statuses": sorted({int(s) for s in settings.getlist("RETRY_HTTP_CODES")}),
        "backoff_base": 0.0,  # Scrapy asks again at once, whatever Retry-After says
        "order": "bfs" if _fifo(settings) else "dfs",
        "scope": "any",
        "user_agent": str(settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT") or "Scrapy"),
    }
    if allowed_domains:
        names = "|".join(re.escape(d.lower().strip(".")) for d in allowed_domains if d)
        options["allow"] = [rf"^https?://([^/?#@]*\.)?({names})(:\d+)?([/?#]|$)"]
    return options


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
    waiting: tuple[int, float],
    refetched: int = 0,
    host_peaks: dict[str, int] | None = None,
) -> list[str]:
    """One sentence for each way crawlsim's rerun of this crawl differs from Scrapy's."""
    out: list[str] = []
    host, peak = max((host_peaks or {}).items(), key=lambda kv: kv[1], default=("", 0))
    if options["per_host"] and peak > options["per_host"] and not options["gap"]:
        out.append(
            f"this Scrapy started up to {peak} transfers at once to {host} although CONCURRENT_REQUESTS_PER_DOMAIN "
            f"is {options['per_host']} (requests that reach a download slot together all start: with no "
            "DOWNLOAD_DELAY its limit is checked before the transfers it let through have begun); the model "
            "holds the limit, so it predicts a per-domain limit's effect that this Scrapy does not have"
        )
    if refetched:
        out.append(
            f"Scrapy fetched {refetched} page(s) a second time (its start requests skip the duplicate filter, "
            "so a start URL linked again is fetched again); the model fetches each page once"
        )
    if options["order"] == "dfs":
        out.append(
            "Scrapy's default queue is last-in first-out (the request yielded last goes first); the model's "
            "dfs expands a page's first link first, so the order differs and a cap or time limit may keep other pages"
        )
    peak, waited = waiting
    if peak:
        out.append(
            f"in Scrapy a request waiting for its host's delay or per-domain limit holds one of CONCURRENT_REQUESTS "
            f"(up to {peak} at once here, {waited:.2f} s in all); crawlsim's workers are held only while fetching, "
            "so at more hosts or a longer delay the model's crawl can finish sooner than Scrapy's"
        )
    if "downloaderaware" not in str(settings.get("SCHEDULER_PRIORITY_QUEUE", "")).lower():
        out.append(
            "Scrapy's priority queue here does not spread requests over hosts; crawlsim's per-host frontier does"
        )
    if settings.getbool("AUTOTHROTTLE_ENABLED"):
        out.append("AutoThrottle changed Scrapy's delays during the crawl; the model keeps DOWNLOAD_DELAY fixed")
    if options["robots"]:
        out.append("Scrapy ignores robots.txt Crawl-delay, and so does the model (its robots.txt keeps only Disallow)")
    if settings.getint("CONCURRENT_REQUESTS_PER_IP"):
        out.append("Scrapy limited per IP address (CONCURRENT_REQUESTS_PER_IP); the model limits per host")
    return out


__all__ = ["RECORDER_KEY", "crawl_options", "differences", "scrapy_settings"]
