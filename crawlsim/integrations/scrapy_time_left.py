"""A Scrapy crawl's time left, in Scrapy's own log and stats.

The :class:`~crawlsim.integrations.scrapy.TraceRecorder` hands every event it
writes to :class:`ScrapyTimeLeft` too; at Scrapy's ``LOGSTATS_INTERVAL`` it
logs the two figures of :class:`~crawlsim.sim.time_left.TimeLeft` -- a lower
bound over the pages known now, and an estimate -- and sets them in the
crawl's stats as ``crawlsim/time_left_lower`` and
``crawlsim/time_left_estimate`` (seconds), so a Scrapy user sees them with no
other change.  The events reach it once their answers are settled (about one
``CRAWLSIM_TRACE_FLUSH`` late), so the figures are that much behind.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from crawlsim.core.options import CrawlOptions
from crawlsim.sim.time_left import TimeLeft
from crawlsim.trace.events import Event

logger = logging.getLogger("crawlsim.integrations.scrapy")

STATS_KEYS = ("crawlsim/time_left_lower", "crawlsim/time_left_estimate")
"""The two figures' names in Scrapy's stats (seconds)."""


class ScrapyTimeLeft:
    """Feeds a :class:`TimeLeft` the recorder's events; :meth:`say` logs and stores the figures."""

    def __init__(self, options: CrawlOptions, stats: Any, now: Callable[[], float]) -> None:
        self.left = TimeLeft(options)
        self.stats = stats
        self.now = now
        self.loop: Any = None
        """The ``LoopingCall`` that calls :meth:`say` (None: ``LOGSTATS_INTERVAL`` is 0)."""
        self._latest: float | None = None

    def see(self, event: Event) -> None:
        self.left.see(event)
        self._latest = event.t

    def say(self) -> None:
        """Log the figures and set them in the stats, at the latest event's time
        (the state then is whole: later events are not written yet)."""
        if self._latest is None:
            return
        t = self._latest
        lower, estimate = self.left.lower(t), self.left.estimate(t)
        if self.stats is not None:
            self.stats.set_value(STATS_KEYS[0], round(lower.seconds, 3))
            self.stats.set_value(STATS_KEYS[1], round(estimate.seconds, 3))
        logger.info("crawlsim: %s", self.left.line(t))

    def stop(self) -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        self.loop = None


__all__ = ["STATS_KEYS", "ScrapyTimeLeft"]
