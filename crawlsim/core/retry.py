"""Retry timing: exponential backoff with jitter, and Retry-After.

Retry-After may be delta-seconds or an HTTP-date.  The core has no clock, so
an HTTP-date is measured against the same response's ``Date`` header; with
no ``Date`` it cannot be interpreted and is ignored (backoff applies).
"""

from __future__ import annotations

import math
import random
from email.utils import parsedate_to_datetime


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """``base * 2**(attempt-1)``, capped, times a uniform jitter in [0.5, 1.5)."""
    return min(cap, base * 2 ** (attempt - 1)) * rng.uniform(0.5, 1.5)


def parse_retry_after(value: str | None, date: str | None = None) -> float | None:
    """Seconds to wait, or None when absent or unusable (not text, negative,
    NaN, infinite, an HTTP-date without a ``Date`` to measure it from).  A
    huge but finite value is returned as is: the scheduler compares it with
    ``max_retry_after`` and fails the fetch rather than hold its host."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        return seconds if 0 <= seconds < math.inf else None
    if not isinstance(date, str):
        return None
    try:
        delta = (parsedate_to_datetime(value) - parsedate_to_datetime(date)).total_seconds()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, delta) if math.isfinite(delta) else None
