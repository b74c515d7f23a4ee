"""A real crawl's time left, said as it runs (``crawlsim crawl``).

:class:`LiveTimeLeft` stands between the crawl and its trace writer: it feeds
each event to a :class:`~crawlsim.sim.time_left.TimeLeft` and, every
``every`` seconds of wall-clock time, says the two figures -- the lower bound
over the pages known now and the estimate -- through ``say``.  It says them
once an instant's events are all in (a start's hold comes before the start),
at the crawl's own clock (the events' ``t``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from crawlsim.core.options import CrawlOptions
from crawlsim.sim.time_left import TimeLeft
from crawlsim.trace.events import Done, Event

PROGRESS_SECONDS = 5.0
"""How often a crawl says its time left by default (wall-clock seconds)."""


class LiveTimeLeft:
    """Feeds the crawl's events to its time left; ``say(left, t)`` every ``every`` seconds."""

    def __init__(
        self,
        options: CrawlOptions,
        say: Callable[[TimeLeft, float], None],
        every: float = PROGRESS_SECONDS,
        then: Callable[[Event], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.left = TimeLeft(options)
        self._say = say
        self._every = every
        self._then = then
        self._clock = clock
        self._said_at = clock()
        self._latest: float | None = None

    def __call__(self, event: Event) -> None:
        latest = self._latest
        if latest is not None and event.t != latest and self._every > 0 and self._clock() - self._said_at >= self._every:
            self._said_at = self._clock()
            self._say(self.left, latest)  # every event of that instant is in
        self.left.see(event)
        self._latest = event.t
        if self._then is not None:
            self._then(event)
        if isinstance(event, Done) and self._every > 0:
            self._say(self.left, event.t)


__all__ = ["PROGRESS_SECONDS", "LiveTimeLeft"]
