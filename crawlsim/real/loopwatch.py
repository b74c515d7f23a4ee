"""When did a response really arrive?  The event loop's own record of when
it found each socket readable, so a recorded fetch can say how long the
*server* took, apart from how long the crawler took to notice.

A crawler is one event loop: a response that arrives while the loop is busy
with another one is read only when the loop next looks at its sockets.
Timing a fetch from the request sent to the response read therefore counts
the crawler's own busy time as the server's -- at the recording's
concurrency, which is the wrong one for any other setting.  Measured on a
loopback nginx at 16 workers: 8.6 ms from a fetch's start to its request on
the wire and 6.2 ms from the server's answer to its reading, against a
server time of 0.

:class:`ReadyLog` wraps the running loop's selector.  Each wait in it that
returns a socket as readable says when its data came, within bounds:

* a wait that *blocked* (it returned after :data:`WAITED` seconds or more)
  was woken by the data: it came when the wait returned;
* a wait that returned at once found the data already there: it came while
  the loop was busy since its previous wait returned, and the middle of that
  stretch is the estimate (never before the request was sent).

:meth:`ReadyLog.arrival` gives a request's arrival from its socket's record;
the fetcher takes ``arrival - sent`` as the server's time for that request.
A loop without a selector (uvloop) records nothing, and the fetch then has
no server time of its own: ``crawlsim model`` falls back to its measured
time less the crawler's work.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable
from typing import Any

from crawlsim.trace.arrival import WAITED, arrival_span, estimate, watch_waits

KEPT = 16
"""Readiness spans kept per socket (older ones are from answers long read)."""


class ReadyLog:
    """Per socket, the spans in which its data came (see the module docstring)."""

    def __init__(self) -> None:
        self.spans: dict[int, list[tuple[float, float]]] = {}
        self.previous: float | None = None
        """When the loop's last selector wait returned."""
        self._undo: Callable[[], None] | None = None

    def noted(self, called: float, returned: float, events: list[tuple[Any, int]]) -> None:
        """One selector wait and what it returned."""
        span = arrival_span(called, returned, self.previous)
        self.previous = returned
        for key, mask in events:
            if mask & selectors.EVENT_READ:
                kept = self.spans.setdefault(key.fd, [])
                kept.append(span)
                del kept[:-KEPT]

    def arrival(self, fd: int, sent: float, read: float) -> float | None:
        """When the last data that the request sent at ``sent`` read by ``read`` came
        on socket ``fd``; None when the log saw none.  The socket's record is cleared
        up to ``read`` (the next request on a kept-alive connection starts afresh)."""
        spans = self.spans.get(fd, [])
        mine = [s for s in spans if s[1] >= sent and s[0] <= read]
        self.spans[fd] = [s for s in spans if s[0] > read]
        return estimate(mine[-1], sent) if mine else None

    def install(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Watch ``loop``'s selector (asyncio's selector loops keep it as
        ``_selector``); False when it has none."""
        selector = getattr(loop, "_selector", None)
        if selector is None or self._undo is not None:
            return False
        self._undo = watch_waits(selector, lambda called, returned, events: self.noted(called, returned, events or []))
        return True

    def uninstall(self) -> None:
        if self._undo is not None:
            undo, self._undo = self._undo, None
            undo()


def socket_fd(resp: Any) -> int | None:
    """The file descriptor an aiohttp response is read from, or None.  Its connection
    may already be back in the pool (the whole answer was read with its headers),
    so the response's protocol is asked when the connection is gone."""
    holder = getattr(resp, "connection", None) or getattr(resp, "_protocol", None)
    transport = getattr(holder, "transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    try:
        return int(sock.fileno()) if sock is not None else None
    except (OSError, ValueError):
        return None


__all__ = ["WAITED", "ReadyLog", "arrival_span", "estimate", "socket_fd", "watch_waits"]
