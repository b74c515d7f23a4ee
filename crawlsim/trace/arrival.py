"""When a recorded fetch's answer arrived: the crawler's event loop's own record.

A crawler is one event loop, and an answer that arrives while the loop is
busy is noticed only when the loop next waits in its selector.  Each wait
says, within bounds, when the data it found readable came (:func:`arrival_span`);
:func:`watch_waits` is the one wrapper put on a loop's selector to hear of
them.  Both recorders of real crawls use it, below every layer that
records: ``crawlsim crawl -o`` (:mod:`crawlsim.real.loopwatch`, per
socket) and Scrapy's ``TraceRecorder`` (:mod:`crawlsim.integrations.scrapy`);
stdlib only, as the rest of the trace.

A loop whose transport writes only when the selector says the socket is
writable (Twisted's, under Scrapy) adds a second blind spot: the request
leaves in some turn after the crawler handed it over.  :class:`Exchanges`
follows each socket from the wait that found it writable (its request
written) to the first wait that found it readable (its answer come) and,
where Linux keeps the socket's own record (:func:`kernel_gap`), takes the
server's time from the kernel's clock: the loop's busy stretches then hide
nothing.
"""

from __future__ import annotations

import selectors
import socket
import struct
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


TCP_INFO_TIMES = struct.Struct("=I4xI")
"""Linux's ``struct tcp_info`` from ``tcpi_last_data_sent``: milliseconds since the
socket last sent data, (``tcpi_last_ack_sent``,) since it last received data."""
TCP_INFO_TIMES_AT = 44
"""The byte offset of ``tcpi_last_data_sent`` (``linux/tcp.h``: 8 one-byte fields, 9 u32s)."""


def kernel_gap(fd: int) -> float | None:
    """Seconds from the last data the TCP socket ``fd`` sent to the last it received,
    by the kernel's clock (``TCP_INFO``, counted in jiffies: 1-10 ms steps that the
    two ends of the gap share, so the steps cancel on average): below 0 when nothing
    came since the last send; None where there is no such record (not Linux, not a
    TCP socket)."""
    option = getattr(socket, "TCP_INFO", None)
    if option is None:
        return None
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, option, TCP_INFO_TIMES_AT + TCP_INFO_TIMES.size)
    except OSError:
        return None
    finally:
        sock.detach()  # the socket is the crawler's: looked at, never closed
    if len(raw) < TCP_INFO_TIMES_AT + TCP_INFO_TIMES.size:
        return None
    sent_ago, received_ago = TCP_INFO_TIMES.unpack_from(raw, TCP_INFO_TIMES_AT)
    return (sent_ago - received_ago) / 1000


class Exchanges:
    """Each socket's request and answer as a loop's selector waits show them
    (see the module docstring), for a loop that writes a socket only after a wait
    reported it writable.  :meth:`noted` hears each wait; :meth:`answer`, called
    while the loop's turn reads an answer's headers, gives that answer's server time."""

    def __init__(self, gap: Callable[[int], float | None] = kernel_gap) -> None:
        self.gap = gap
        """The kernel's send-to-receive gap of a socket (:func:`kernel_gap`)."""
        self.previous: float | None = None
        self.written: dict[int, float] = {}
        """Socket -> when the wait that let its latest request be written returned
        (until its answer comes)."""
        self.answers: list[tuple[float, float]] = []
        """The answers the latest wait found, in the order the loop reads them: (when
        their request was written, the server's time)."""

    def noted(self, called: float, returned: float, events: Any) -> None:
        """One selector wait and the (key, mask) pairs it returned."""
        span = arrival_span(called, returned, self.previous)
        self.previous = returned
        self.answers = []
        for key, mask in events or ():
            written = self.written.get(key.fd)
            if mask & selectors.EVENT_READ and written is not None:
                served = self._served(key.fd, span, written)
                if served is not None:
                    self.answers.append((written, served))
                    del self.written[key.fd]
            if mask & selectors.EVENT_WRITE:
                self.written[key.fd] = returned

    def _served(self, fd: int, span: tuple[float, float], written: float) -> float | None:
        """The server's time of the answer socket ``fd`` just showed: the kernel's gap,
        else the selector's ``span`` from ``written``; None when nothing came since the
        request (the peer closed the socket: no answer).  The kernel counts in clock
        ticks, so its gap may overshoot by one; it is cut to what the waits allow: the
        request went after ``written``, and the answer came by the span's end."""
        gap = self.gap(fd)
        if gap is None:
            return max(0.0, estimate(span, written) - written)
        return min(gap, max(0.0, span[1] - written)) if gap >= 0 else None

    def answer(self, sent: float) -> float | None:
        """The server's time for the answer this turn of the loop is reading, to a
        request handed to the crawler's transport at ``sent``: the first answer of the
        latest wait whose request was written since (each answer is given once); None
        when the wait found none."""
        for i, (written, served) in enumerate(self.answers):
            if written >= sent:
                del self.answers[i]
                return served
        return None


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


__all__ = ["WAITED", "Exchanges", "arrival_span", "estimate", "kernel_gap", "watch_waits"]
