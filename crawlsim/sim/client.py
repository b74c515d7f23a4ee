"""The crawler's own work per response, as one serial resource (a model of a
recorded crawl, ``client_cost`` in the scenario file).

A real crawler is one event loop: parsing a page, admitting its links and
starting the next fetches happen one response at a time, however many
fetches are in flight.  Where pages come back faster than the crawler can
handle them (a loopback server, or many workers), that serial work -- not
the server -- holds the crawl, and a simulation that lets every fetch's
time overlap would predict a finish the real crawler cannot reach.

:class:`SerialClient` makes a fetch's answer wait for the client: when the
server's part of a fetch ends, the response is handled once the client is
free, for ``cost`` seconds, first come first served.  The lane (and the
host's slot) stays held meanwhile, as in the real crawler, where a fetch is
reported only when its response has been handled.  With no ``client_cost``
the simulation never builds one, so ordinary runs are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SerialClient:
    """One client handling responses one at a time, ``cost`` seconds each."""

    __slots__ = ("cost", "free_at", "queued", "schedule")

    def __init__(self, cost: float, schedule: Callable[[Any, float], None]) -> None:
        self.cost = cost
        self.free_at = 0.0
        """When the client has handled every response that reached it so far."""
        self.queued: set[int] = set()
        """Lanes whose fetch was re-armed to end when the client has handled its response."""
        self.schedule = schedule
        """``schedule(lane, delay)``: the driver ends ``lane``'s fetch again ``delay`` seconds from now."""

    def holds(self, lane: Any) -> bool:
        """True when ``lane``'s fetch (its server time just ran out) was re-armed
        to end once the client has handled the response; False when it has
        been handled now and the fetch is to be reported."""
        key = id(lane)
        if key in self.queued:
            self.queued.discard(key)
            return False
        now = lane.started + lane.took
        done = max(now, self.free_at) + self.cost
        self.free_at = done
        lane.took = done - lane.started
        self.queued.add(key)
        self.schedule(lane, done - now)
        return True


__all__ = ["SerialClient"]
