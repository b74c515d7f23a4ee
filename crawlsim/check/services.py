"""Simulated ``get_urls`` services: the only window the checker has onto a
user's crawler.

A :class:`SimService` serves one :class:`~crawlsim.check.cases.Case` and
records every call: when it started and finished (monotonic seconds since
the run started), on which lane, what it returned or raised.  From those
records the checker sees duplicate fetches, fetches still in flight when the
crawl returned, peak concurrency and wall time -- without instrumenting the
user's code.

Why races show on every run: latency is injected per page (fixed numbers,
not random), and pages in a *rendezvous group* are held at the door until
every page of the group is in flight (or a short timeout passes, so a crawl
that fetches one page at a time is slowed, not hung).  The forced overlap
turns "two fetches that happen to finish close together" into "two fetches
that always finish together".

There is a blocking ``get_urls`` for thread-based crawlers and an ``async``
one (``aget_urls``) for ``async def`` crawlers; both share the bookkeeping.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from crawlsim.check.cases import Case, page_of
from crawlsim.errors import CrawlsimError

Outcome = Literal["running", "ok", "error", "cancelled", "abandoned"]

RENDEZVOUS_TIMEOUT = 0.2
"""How long a page in a rendezvous group waits for its partners.  Long
enough that any crawler with two fetches in flight meets it; short enough
that a sequential crawler only loses a fifth of a second per page."""


HOLD_TIMEOUT = 0.3
"""How long a held page (``Case.held_until``) waits for the page it is held
for to be called.  A crawl that fetches both at once meets it at once; one
that needs the held page's answer first (level by level) loses this much
once.  The latency is taken after the door, so a whole process that a loaded
machine stops for a while cannot reorder the two: the held page's clock
starts only when the other page has been called."""


HANG_POLL = 0.005
"""How often a hung ``async`` call looks whether the run was abandoned."""


class SimulatedFetchError(CrawlsimError, ConnectionError):
    """Raised by ``get_urls`` for a page the case marks as failing.  A
    ``ConnectionError`` (an ``OSError``) like a real network failure, so
    ``except OSError`` and ``except Exception`` both catch it."""


class SimulatedBadPage(CrawlsimError, ValueError):
    """Raised by ``get_urls`` for a page the case marks as permanently broken
    (not a network error: retrying it cannot help)."""


class CheckAbandoned(CrawlsimError, RuntimeError):
    """Raised by ``get_urls`` once the checker has given up on a run (it did
    not return in time), so that a stuck crawl can unwind instead of
    fetching on in the background."""


@dataclass
class FetchRecord:
    """One call of ``get_urls``.  Times are seconds since the run started."""

    fetch_id: int
    url: str
    page: str
    start: float
    slot: int
    end: float | None = None
    outcome: Outcome = "running"
    links: tuple[str, ...] = ()
    error: str | None = None
    thread: str = ""
    """Name of the thread that called ``get_urls`` (which worker fetched it)."""


class SimService:
    """Serves one case to one run of a crawler and records every fetch."""

    def __init__(self, case: Case, rendezvous_timeout: float = RENDEZVOUS_TIMEOUT) -> None:
        self.case = case
        self.rendezvous_timeout = rendezvous_timeout
        self._links = {page_of(page): links for page, links in case.links.items()}
        self._latency = {page_of(page): seconds for page, seconds in case.latency.items()}
        self._failing = frozenset(page_of(page) for page in case.failing)
        self._transient = {page_of(page): n for page, n in case.transient.items()}
        self._permanent = frozenset(page_of(page) for page in case.permanent)
        self._hung = frozenset(page_of(page) for page in case.hung)
        self._calls: dict[str, int] = {}
        self._group_of = {page_of(page): group for group in case.groups for page in group}
        self._held = {page_of(page): page_of(until) for page, until in case.held_until.items()}
        self._called: set[str] = set()
        """Pages called at least once (what a held page waits for)."""
        self._arrived: dict[frozenset[str], set[str]] = {group: set() for group in case.groups}
        """Pages of each group in flight now."""
        self._met: set[frozenset[str]] = set()
        """Groups whose pages have all been in flight at the same moment."""
        self._cond = threading.Condition()
        self._records: list[FetchRecord] = []
        self._running: dict[int, FetchRecord] = {}
        self._busy_slots: set[int] = set()
        self._abandoned = False
        self._t0 = time.perf_counter()
        self._last_activity = 0.0
        """When a fetch last started or ended (seconds since the run started)."""
        self.peak = 0

    # ------------------------------------------------------------ clock

    def start_clock(self) -> None:
        """Make t=0 the moment the crawl is called."""
        self._t0 = time.perf_counter()

    def now(self) -> float:
        return time.perf_counter() - self._t0

    # ------------------------------------------------------------ the two get_urls

    def get_urls(self, url: str) -> list[str]:
        """Blocking ``get_urls`` for thread-based crawlers."""
        record = self._begin(url)
        outcome: Outcome = "cancelled"
        try:
            self._wait_for_partners_blocking(record.page)
            self._wait_until_blocking(lambda: self._hold_released(record.page), HOLD_TIMEOUT)
            self._hang_blocking(record.page)
            delay = self._latency.get(record.page, self.case.default_latency)
            if delay > 0:
                time.sleep(delay)
            links = self._respond(record)
            outcome = "ok"
            return list(links)
        except (SimulatedFetchError, SimulatedBadPage):
            outcome = "error"
            raise
        except CheckAbandoned:
            outcome = "abandoned"
            raise
        finally:
            self._end(record, outcome)

    async def aget_urls(self, url: str) -> list[str]:
        """``async`` ``get_urls`` for ``async def`` crawlers: the same pages,
        latencies and rendezvous, waited for with ``asyncio.sleep``."""
        record = self._begin(url)
        outcome: Outcome = "cancelled"
        try:
            await self._wait_for_partners_async(record.page)
            await self._wait_until_async(lambda: self._hold_released(record.page), HOLD_TIMEOUT)
            while record.page in self._hung and not self._abandoned:
                await asyncio.sleep(HANG_POLL)
            delay = self._latency.get(record.page, self.case.default_latency)
            await asyncio.sleep(delay)
            links = self._respond(record)
            outcome = "ok"
            return list(links)
        except (SimulatedFetchError, SimulatedBadPage):
            outcome = "error"
            raise
        except CheckAbandoned:
            outcome = "abandoned"
            raise
        finally:
            self._end(record, outcome)

    # ------------------------------------------------------------ bookkeeping

    def _begin(self, url: object) -> FetchRecord:
        if not isinstance(url, str):
            raise TypeError(f"get_urls() expects a URL string, got {type(url).__name__}: {url!r}")
        with self._cond:
            if self._abandoned:
                raise CheckAbandoned("crawlsim check gave up on this run; stop crawling")
            slot = 0
            while slot in self._busy_slots:
                slot += 1
            self._busy_slots.add(slot)
            record = FetchRecord(
                len(self._records) + 1, url, page_of(url), self.now(), slot, thread=threading.current_thread().name
            )
            self._last_activity = record.start
            self._records.append(record)
            self._called.add(record.page)
            self._running[record.fetch_id] = record
            self.peak = max(self.peak, len(self._running))
            group = self._group_of.get(record.page)
            if group is not None:
                self._arrived[group].add(record.page)
                if self._arrived[group] >= group:  # every page of the group in flight right now
                    self._met.add(group)
            if group is not None or record.page in self._held.values():
                self._cond.notify_all()
            return record

    def _end(self, record: FetchRecord, outcome: Outcome) -> None:
        with self._cond:
            record.end = self.now()
            self._last_activity = record.end
            record.outcome = outcome
            self._running.pop(record.fetch_id, None)
            group = self._group_of.get(record.page)
            if group is not None and not any(r.page == record.page for r in self._running.values()):
                self._arrived[group].discard(record.page)
            self._busy_slots.discard(record.slot)
            self._cond.notify_all()

    def _respond(self, record: FetchRecord) -> tuple[str, ...]:
        if self._abandoned:
            raise CheckAbandoned("crawlsim check gave up on this run; stop crawling")
        with self._cond:
            calls = self._calls[record.page] = self._calls.get(record.page, 0) + 1
        if record.page in self._permanent:
            record.error = f"SimulatedBadPage: simulated malformed page {record.url}"
            raise SimulatedBadPage(f"simulated malformed page {record.url}")
        if record.page in self._failing or calls <= self._transient.get(record.page, 0):
            message = f"simulated network failure fetching {record.url}"
            record.error = f"SimulatedFetchError: {message}"
            raise SimulatedFetchError(message)
        links = self._links.get(record.page, ())
        record.links = links
        return links

    # ------------------------------------------------------------ hung calls

    def _hang_blocking(self, page: str) -> None:
        """A hung page's call waits here until the run is abandoned (then
        ``_respond`` raises ``CheckAbandoned``): the thread that made it is
        released when the checker is done with the run, not before."""
        if page not in self._hung:
            return
        with self._cond:
            while not self._abandoned:
                self._cond.wait()

    # ------------------------------------------------------------ rendezvous

    def _partners_ready(self, page: str) -> bool:
        group = self._group_of.get(page)
        return group is None or group in self._met or self._abandoned

    def _hold_released(self, page: str) -> bool:
        until = self._held.get(page)
        return until is None or until in self._called or self._abandoned

    def _wait_for_partners_blocking(self, page: str) -> None:
        self._wait_until_blocking(lambda: self._partners_ready(page), self.rendezvous_timeout)

    async def _wait_for_partners_async(self, page: str) -> None:
        await self._wait_until_async(lambda: self._partners_ready(page), self.rendezvous_timeout)

    def _wait_until_blocking(self, ready: Callable[[], bool], timeout: float) -> None:
        """Wait (on the service's condition) until ``ready()`` or ``timeout`` seconds pass."""
        deadline = time.perf_counter() + timeout
        with self._cond:
            while not ready():
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)

    async def _wait_until_async(self, ready: Callable[[], bool], timeout: float) -> None:
        deadline = time.perf_counter() + timeout
        while not ready() and time.perf_counter() < deadline:
            await asyncio.sleep(0.001)

    # ------------------------------------------------------------ for the runner

    def groups_met(self) -> set[frozenset[str]]:
        """Rendezvous groups whose pages were all in flight together."""
        with self._cond:
            return set(self._met)

    def idle_for(self, now: float) -> float:
        """Seconds with no fetch in flight and none started or ended: how long
        the crawl has shown no sign of progress (0 while a fetch is in flight:
        every simulated fetch ends on its own, but for a hung one, which ends
        when the run is abandoned, so a crawl waiting for it runs to its deadline)."""
        with self._cond:
            return 0.0 if self._running else max(0.0, now - self._last_activity)

    def in_flight(self) -> list[FetchRecord]:
        with self._cond:
            return sorted(self._running.values(), key=lambda r: r.fetch_id)

    def records(self) -> list[FetchRecord]:
        with self._cond:
            return list(self._records)

    def abandon(self) -> None:
        """Make every further or waiting fetch raise :class:`CheckAbandoned`."""
        with self._cond:
            self._abandoned = True
            self._cond.notify_all()

    def settle(self, timeout: float) -> bool:
        """Wait until no fetch is in flight (fetches a crawl left behind when
        it returned), so they do not disturb the next run's timing."""
        deadline = time.perf_counter() + timeout
        with self._cond:
            while self._running:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True
