"""The sans-I/O crawl core: no clock, no I/O, no threads, no asyncio.

Everything that schedules a crawl lives here; drivers and views only feed it
time and results, and replay its events.
"""

from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
    event_from_dict,
    event_to_dict,
)
from crawlsim.core.fetch import CrawlStats, Fetch
from crawlsim.core.options import CrawlOptions, OptionError
from crawlsim.core.scheduler import Scheduler
from crawlsim.core.urls import MODES, STEPS, canonicalize

__all__ = [
    "MODES",
    "STEPS",
    "CrawlOptions",
    "CrawlStats",
    "Discovered",
    "Done",
    "Event",
    "Fetch",
    "FetchFailed",
    "FetchFinished",
    "FetchStarted",
    "HostDeferred",
    "OptionError",
    "RetryScheduled",
    "RobotsLoaded",
    "Scheduler",
    "Skipped",
    "canonicalize",
    "event_from_dict",
    "event_to_dict",
]
