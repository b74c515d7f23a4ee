"""Retry timing: exponential backoff with jitter, Retry-After, and the queue
of fetches waiting to be retried.

Retry-After may be delta-seconds or an HTTP-date.  The core has no clock, so
an HTTP-date is measured against the same response's ``Date`` header; with
no ``Date`` it cannot be interpreted and is ignored (backoff applies).
"""

from __future__ import annotations

import math
import random
from email.utils import parsedate_to_datetime
from heapq import heappop, heappush

from crawlsim.core.frontier import Entry
from crawlsim.core.plain import check_headers, plain_str


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


class RetryQueue:
    """Fetches waiting to be tried again, each with the time it may.

    Invariant: a heap of ``(at, fetch_id, host, entry)``; :meth:`due`
    releases entries in time order (ties by the failed fetch's id, so
    releases are deterministic), each exactly once, and only once ``at``
    has come.  The crawl is not done while this queue holds anything.
    """

    __slots__ = ("heap",)

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, str, Entry]] = []
        """Earliest first."""

    def __len__(self) -> int:
        return len(self.heap)

    def add(self, at: float, fetch_id: int, host: str, entry: Entry) -> None:
        """``entry`` (of host ``host``, failed as fetch ``fetch_id``) may go again at ``at``."""
        heappush(self.heap, (at, fetch_id, host, entry))

    def next_at(self) -> float | None:
        """When the earliest retry is due, or None."""
        return self.heap[0][0] if self.heap else None

    def due(self, now: float) -> list[tuple[str, Entry]]:
        """Remove and return ``(host, entry)`` of every retry due at ``now``, earliest first."""
        heap = self.heap
        out = []
        while heap and heap[0][0] <= now:
            _, _, host, entry = heappop(heap)
            out.append((host, entry))
        return out

    def entries(self) -> list[Entry]:
        """Every waiting entry (for views and tests)."""
        return [item[3] for item in self.heap]


def retry_after_of(headers: object) -> float | None:
    """Seconds of a response's ``Retry-After`` (measured against its ``Date``
    when it is an HTTP-date), or None when absent or unusable.  Raises
    TypeError when ``headers`` is not a mapping; junk inside it is ignored."""
    if headers is None:
        return None
    found: dict[str, object] = {}
    for k, v in check_headers(headers).items():
        name = plain_str(k)
        if name is not None and name.lower() in ("retry-after", "date"):
            found[name.lower()] = plain_str(v)
    value, date = found.get("retry-after"), found.get("date")
    if not isinstance(value, str):
        return None
    return parse_retry_after(value, date if isinstance(date, str) else None)
