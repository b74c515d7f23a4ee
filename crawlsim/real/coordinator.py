"""The coordinator: the one owner of the scheduler in a real crawl.

It starts the fetches the core hands out as tasks, reports their outcomes
back in the order they finished, and sleeps until a fetch ends or the
core's next wakeup (a politeness hold or a retry backoff).  Fetch tasks
never touch the scheduler: what they need of its state (the host's
robots.txt policy and politeness) is captured in a
:class:`~crawlsim.real.results.FetchContext` when the fetch starts.

The time limit is a promise whatever the pages contain, so nothing the
coordinator does on the event loop is unbounded: a page's links are handed
to the core in steps of about :data:`ADMIT_SECONDS`
(``Scheduler.begin_response``; a step's size follows what the last one
cost, since one link may cost microseconds or, against a robots.txt of
thousands of rules, milliseconds), the new events passed on after each
step, and the clock looked at between steps.  Stepping changes nothing in the crawl (the same links admitted in
the same order at the response's time, ``FetchFinished`` last, so a trace
is the same as one ``on_response`` call's); between steps the loop lets the
other fetches read their sockets, but no other response is reported and
nothing new starts.  When the limit comes in the middle of a page, the
admission is closed: the links not yet examined are dropped, never
queued, and counted in ``CrawlResult.links_dropped`` under their page.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from crawlsim.trace.events import Event, FetchFailed, FetchFinished, RobotsLoaded, Skipped
from crawlsim.core.options import CrawlOptions
from crawlsim.core.robots import RobotsPolicy
from crawlsim.core.fetch import Fetch
from crawlsim.core.scheduler import Scheduler
from crawlsim.sim.found import LOST_SKIPS
from crawlsim.real.defaults import ADMIT_FIRST, ADMIT_MOST, ADMIT_SECONDS
from crawlsim.real.redirect_scope import RedirectScope
from crawlsim.real.results import CrawlResult, Failure, FetchContext, Fetcher, Outcome


async def run_crawl(
    seeds: Sequence[str],
    options: CrawlOptions,
    fetcher: Fetcher,
    *,
    on_event: Callable[[Event], None] | None = None,
    keep_events: bool = True,
    max_time: float | None = None,
    page_of: Callable[[str], str] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> CrawlResult:
    """Crawl from ``seeds`` with ``fetcher`` until the core says done (or
    ``max_time`` seconds pass, when in-flight fetches are cancelled).
    ``clock`` is read for every time told to the core and for the limit."""
    coordinator = _Coordinator(
        options, fetcher, seeds, on_event=on_event, keep_events=keep_events, page_of=page_of, clock=clock
    )
    return await coordinator.run(max_time)


class _Coordinator:
    """The one owner of the :class:`Scheduler` in a real crawl: it starts the
    fetches the core hands out as tasks, reports their outcomes back in the
    order they finished, and sleeps until a fetch ends or the core's next
    wakeup.  Fetch tasks never touch the scheduler."""

    def __init__(
        self,
        options: CrawlOptions,
        fetcher: Fetcher,
        seeds: Sequence[str],
        *,
        on_event: Callable[[Event], None] | None,
        keep_events: bool,
        page_of: Callable[[str], str] | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.options = options
        self.fetcher = fetcher
        self.seeds = list(seeds)
        self.on_event = on_event
        self.keep_events = keep_events
        self.sched = Scheduler(options, page_of=page_of)
        self.clock = clock
        self.origin = clock()
        self.last = 0.0
        """The scheduler's clock: the latest time told to it (never goes back)."""
        self.events: list[Event] = []
        self.statuses: dict[str, int] = {}
        self.pending: dict[asyncio.Task[tuple[Outcome, float]], Fetch] = {}
        self.robots_refused: dict[str, str] = {}
        self.finished: set[str] = set()
        self.skipped: dict[str, str] = {}
        """URL -> why a link to it was not followed (robots, scope, cap, depth), first reason."""
        """Pages whose fetch ended for good (done, or failed with no retry left)."""
        self.redirect_scope = RedirectScope(options.scope, self.seeds)
        self.max_time: float | None = None
        """The crawl's time limit, checked between responses and between the steps of one page's links."""
        self.links_dropped: dict[str, int] = {}
        """Page URL -> links on it never examined: the time limit came while they were admitted."""

    def now(self) -> float:
        return self.clock() - self.origin

    def out_of_time(self) -> bool:
        return self.max_time is not None and self.now() >= self.max_time

    async def run(self, max_time: float | None) -> CrawlResult:
        """The crawl loop, then the result (every page accounted for when
        ``max_time`` cut it short)."""
        stopped: str | None = None
        self.max_time = max_time
        self.sched.add_seeds(list(self.seeds), self.now())
        try:
            stopped = await self._loop(max_time)
            stopped_at = self.now()
        finally:
            in_flight = {fetch.url for fetch in self.pending.values() if fetch.kind == "page"}
            await self._cancel_pending()
        # a crawl the time limit stopped ends when it stopped, not at its last response
        finish = stopped_at if stopped is not None else self.events[-1].t if self.events else self.last
        found = self.sched.found() if self.options.seen == "exact" else []
        unfinished = self._unfinished(found, in_flight, stopped) if stopped is not None else {}
        return CrawlResult(
            self.options,
            self.sched.stats,
            finish,
            found,
            self.statuses,
            dict(self.sched.failures),
            self.events,
            stopped,
            self.origin,
            robots_refused=self.robots_refused,
            unfinished=unfinished,
            skipped=self.skipped,
            links_dropped=self.links_dropped,
        )

    async def _loop(self, max_time: float | None) -> str | None:
        """Start what the core allows, wait, report; until done.  Why the crawl
        stopped early (a time limit), or None when it ran to the end."""
        while True:
            if self.out_of_time() and (self.links_dropped or not self.sched.done):
                return f"time limit of {max_time:g} s reached"  # nothing new starts once it has come
            self.last = max(self.last, self.now())
            for fetch in self.sched.poll(self.last):
                self._start(fetch)
            self._flush()
            if self.sched.done:
                return None
            wake = self.sched.next_wakeup()
            timeout = None if wake is None else max(0.0, wake - self.now())
            if max_time is not None:
                left = max_time - self.now()
                if left <= 0:
                    return f"time limit of {max_time:g} s reached"
                timeout = left if timeout is None else min(timeout, left)
            if not self.pending and timeout is None:
                return None  # nothing in flight, nothing scheduled: only possible when done
            if not self.pending:
                await asyncio.sleep(timeout or 0.0)
                continue
            await self._report_finished(timeout)

    async def _report_finished(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` for fetches to end; hand each outcome to the core."""
        done, _ = await asyncio.wait(self.pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        # Report in order of finishing, so the trace's times never go backwards.
        for _, _, task in sorted((task.result()[1], self.pending[task].id, task) for task in done):
            if self.out_of_time():
                return  # the rest stay pending: listed as in flight when the time limit stopped the crawl
            fetch = self.pending.pop(task)
            outcome, t = task.result()
            self.last = max(self.last, t)
            await self._report(fetch, outcome, self.last)

    async def _report(self, fetch: Fetch, outcome: Outcome, t: float) -> None:
        """Hand one outcome to the core; a page's links in steps of about
        :data:`ADMIT_SECONDS`, with the clock looked at between steps (see the
        module docstring)."""
        if isinstance(outcome, Failure):
            self.sched.on_error(fetch.id, t, outcome.reason, transient=outcome.transient)
            return
        if fetch.kind == "robots":
            self.sched.on_response(fetch.id, t, status=outcome.status, headers=outcome.headers, body=outcome.body)
            return
        self.statuses[fetch.url] = outcome.status
        admission = self.sched.begin_response(
            fetch.id,
            t,
            status=outcome.status,
            links=outcome.links,
            headers=outcome.headers,
            content=outcome.content,
            final_url=outcome.base or outcome.final_url,
        )
        size = ADMIT_FIRST
        try:
            while True:
                began = self.clock()
                if admission.step(size):
                    break
                size = next_step(size, self.clock() - began)
                self._flush()
                await asyncio.sleep(0)  # the other fetches read their sockets meanwhile
                if self.out_of_time():
                    break
        finally:  # the time limit, or the crawl cancelled (Ctrl-C, the app closed) between steps
            if not admission.finished:
                self.links_dropped[fetch.url] = admission.close()

    async def _cancel_pending(self) -> None:
        """Cancel what is still in flight (a time limit, or an error) and emit
        the core's last events."""
        for task in self.pending:
            task.cancel()
        if self.pending:
            await asyncio.gather(*self.pending, return_exceptions=True)
        self._flush()

    def _flush(self) -> None:
        """Pass the core's new events on, noting what the result reports from them."""
        batch = self.sched.drain_events()
        for event in batch:
            self._note(event)
        if self.keep_events:
            self.events.extend(batch)
        if self.on_event is not None:
            for event in batch:
                self.on_event(event)

    def _note(self, event: Event) -> None:
        """Remember why a host's robots.txt shut it out, and which pages ended for good."""
        if isinstance(event, FetchFailed) and event.kind == "robots" and event.final:
            self.robots_refused[event.host] = event.reason
        elif isinstance(event, RobotsLoaded) and event.disallow_all and event.status:
            self.robots_refused[event.host] = f"HTTP {event.status}"
        elif isinstance(event, Skipped) and event.reason in LOST_SKIPS:
            self.skipped.setdefault(event.url, event.reason)
        elif (
            isinstance(event, (FetchFinished, FetchFailed))
            and event.kind == "page"
            and getattr(event, "final", True)  # ended for good, not to be retried
        ):
            self.finished.add(event.url)

    def _start(self, fetch: Fetch) -> None:
        """Start ``fetch`` as a task, with what the fetcher needs from the core's
        state captured now (the host's robots.txt policy and politeness)."""
        host = self.sched.host_states().get(fetch.host)
        policy = host.robots if host is not None and isinstance(host.robots, RobotsPolicy) else None
        pace = self.sched.politeness.pace(host)
        want_content = self.options.content_dedup != "off"
        ctx = FetchContext(policy, pace, want_content, self.redirect_scope, self.options.normalize_steps)
        task = asyncio.create_task(self._one(fetch, ctx), name=f"fetch {fetch.id} {fetch.url}")
        self.pending[task] = fetch

    async def _one(self, fetch: Fetch, ctx: FetchContext) -> tuple[Outcome, float]:
        """One fetch's outcome and when it ended; a fetcher's bug costs that page only."""
        try:
            outcome = await self.fetcher(fetch, ctx)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a fetcher bug or surprise costs this page only
            outcome = Failure(f"{type(exc).__name__}: {exc}", transient=False)
        return outcome, self.now()

    def _unfinished(self, found: list[str], in_flight: set[str], stopped: str) -> dict[str, str]:
        """Every page found but not finished when the crawl stopped, with why."""
        unfinished: dict[str, str] = {}
        failures = self.sched.failures
        for url in found:
            if url in self.finished or url in failures:
                continue
            if url in in_flight:
                unfinished[url] = f"not fetched: in flight when the crawl stopped ({stopped})"
            elif url in self.statuses:
                unfinished[url] = (
                    f"not fetched: HTTP {self.statuses[url]}, waiting to retry when the crawl stopped ({stopped})"
                )
            else:
                unfinished[url] = f"not fetched: still queued when the crawl stopped ({stopped})"
        return unfinished


def next_step(size: int, took: float) -> int:
    """How many links the next step of a page's admission takes, after
    ``size`` links took ``took`` seconds: twice as many while steps stay
    under :data:`ADMIT_SECONDS` (up to :data:`ADMIT_MOST`), else as many as
    would fit in it (at least one)."""
    if took <= ADMIT_SECONDS:
        return min(ADMIT_MOST, size * 2)
    return max(1, int(size * ADMIT_SECONDS / took))
