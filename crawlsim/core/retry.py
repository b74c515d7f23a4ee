"""Retry timing: exponential backoff with jitter, and Retry-After.

Retry-After may be delta-seconds or an HTTP-date.  The core has no clock, so
an HTTP-date is measured against the same response's ``Date`` header; with
no ``Date`` it cannot be interpreted and is ignored (backoff applies).
"""

from __future__ import annotations

import random
from email.utils import parsedate_to_datetime


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """``base * 2**(attempt-1)``, capped, times a uniform jitter in [0.5, 1.5)."""
    return min(cap, base * 2 ** (attempt - 1)) * rng.uniform(0.5, 1.5)


def parse_retry_after(value: str | None, date: str | None = None) -> float | None:
    """Seconds to wait, or None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        return seconds if seconds >= 0 else None
    if date is None:
        return None
    try:
        delta = (parsedate_to_datetime(value) - parsedate_to_datetime(date)).total_seconds()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, delta)
