"""When a recorded fetch's answer arrived: the crawler's event loop's own record.

A crawler is one event loop, and an answer that arrives while the loop is
busy is noticed only when the loop next waits in its selector.  Each wait
says, within bounds, when the data it found readable came (:func:`arrival_span`);
:func:`watch_waits` is the one wrapper put on a loop's selector to hear of
them.  Both recorders of real crawls use it, below every layer that
records: ``crawlsim crawl -o`` (:mod:`crawlsim.real.loopwatch`, per
socket) and Scrapy's ``TraceRecorder`` (:mod:`crawlsim.integrations.scrapy`);
stdlib only, as the rest of the trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

WAITED = 0.00005
"""A selector wait at least this long blocked: nothing it returned was ready when it began."""


def arrival_span(called: float, returned: float, previous: float | None) -> tuple[float, float]:
    """When data a selector wait (``called`` .. ``returned``) found readable came, as
    (earliest, latest): at ``returned`` if the wait blocked, else in the loop's busy
    stretch since the ``previous`` wait returned (``called`` alone when there was none)."""
    if returned - called >= WAITED:
        return returned, returned
    return (called if previous is None else min(previous, called)), called


def estimate(span: tuple[float, float], sent: float) -> float:
    """The middle of ``span``, cut to after ``sent`` (data cannot come before its request)."""
    low, high = span
    low = max(low, sent)
    high = max(high, low)
    return (low + high) / 2


def watch_waits(selector: Any, noted: Callable[[float, float, Any], None]) -> Callable[[], None]:
    """Wrap ``selector.select`` so that each wait is reported to ``noted(called,
    returned, events)``; returns the undo.  The one place the crawler's loop
    selector is wrapped (the server-time log, the busy-time stamp, the Scrapy
    recorder): the undo leaves a wrapper put on since in place."""
    select = selector.select

    def timed(timeout: float | None = None) -> Any:
        called = time.monotonic()
        events: Any = None
        try:
            events = select(timeout)
            return events
        finally:
            noted(called, time.monotonic(), events)

    selector.select = timed

    def undo() -> None:
        if selector.select is timed:
            selector.select = select

    return undo


__all__ = ["WAITED", "arrival_span", "estimate", "watch_waits"]
