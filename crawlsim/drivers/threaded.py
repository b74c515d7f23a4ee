"""``crawl()``: the interview question's function shape, driven by the sans-I/O core.

The calling thread is the coordinator: only it touches the scheduler.  Each
``get_urls`` call runs on a daemon thread of its own and only hands its
result back through a queue, so the seen set and frontier need no lock.  The
clock is ``time.monotonic`` relative to the start.

``get_urls`` is someone else's code, so nothing it does may hang the crawl or
lose its results: a call that does not return within ``timeout`` fails its
page (reason ``timeout: ...``) and is *abandoned* -- a Python thread cannot
be killed, so it runs on, but as a daemon thread it never delays interpreter
exit and its late answer is ignored; a result is read (in that thread, under
the same deadline) up to ``max_links`` links; a ``str``, ``bytes``, ``None``
or other non-iterable result fails the page with a reason instead of
crawling one page per character; entries that are not ``str`` are skipped
and noted.  Every such page is listed in ``failures=`` with its reason.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

from crawlsim.core.fetch import Fetch
from crawlsim.core.options import CrawlOptions, OptionError
from crawlsim.core.scheduler import Scheduler
from crawlsim.core.urls import host_key
from crawlsim.trace.events import Event, Skipped

GetUrls = Callable[[str], Iterable[str]]
GetRobots = Callable[[str], "str | None"]

DROP_IN_DEFAULTS: dict[str, Any] = {"normalize": "fragment", "scope": "host"}
"""The interview's rules: drop the fragment only; stay on the start URL's exact host."""

DEFAULT_TIMEOUT = 60.0
"""Seconds one ``get_urls`` call may take before its page fails: far above any
real fetch (whose own timeouts are usually 10-30 s), so only a call that is
stuck reaches it, and the crawl still ends."""
DEFAULT_MAX_LINKS = 100_000
"""Links read from one ``get_urls`` result: far above any real page, so only a
runaway (an endless generator) reaches it."""

TRANSIENT = (TimeoutError, ConnectionError)
"""Exceptions from ``get_urls`` that are retried (with backoff); any other
exception fails the page at once -- it still counts as found."""


class _BadResult(Exception):
    """``get_urls`` returned something that is not a list of links."""


class _Links:
    """What one page's call produced."""

    __slots__ = ("links", "skipped", "truncated")

    def __init__(self, links: list[str], skipped: int, truncated: bool) -> None:
        self.links = links
        self.skipped = skipped
        self.truncated = truncated


def _check_limits(timeout: float | None, max_links: int) -> None:
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout)
    ):
        raise OptionError("timeout", f"expected seconds (a finite number) or None, got {timeout!r}")
    if timeout is not None and timeout <= 0:
        raise OptionError("timeout", f"expected seconds > 0 or None, got {timeout!r}")
    if isinstance(max_links, bool) or not isinstance(max_links, int) or max_links < 1:
        raise OptionError("max_links", f"expected a whole number >= 1, got {max_links!r}")


def _describe(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


def read_links(result: object, max_links: int) -> _Links:
    """A ``get_urls`` result as links (see the module docstring)."""
    if isinstance(result, (str, bytes, bytearray)) or result is None:
        raise _BadResult(f"get_urls returned {_describe(result)}, expected a list of URLs")
    try:
        items = iter(result)  # type: ignore[call-overload]
    except TypeError:
        raise _BadResult(f"get_urls returned {_describe(result)}, expected a list of URLs") from None
    taken = list(islice(items, max_links + 1))
    truncated = len(taken) > max_links
    links = [x for x in taken[:max_links] if isinstance(x, str)]
    return _Links(links, min(len(taken), max_links) - len(links), truncated)


def crawl(
    start_url: str,
    get_urls: GetUrls,
    max_workers: int = 8,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    max_links: int = DEFAULT_MAX_LINKS,
    get_robots: GetRobots | None = None,
    on_event: Callable[[Event], None] | None = None,
    failures: dict[str, str] | None = None,
    **options: Any,
) -> list[str]:
    """Every page reachable from ``start_url``, sorted, fetching each once.

    ``get_urls(url)`` is a blocking function returning the links on a page;
    up to ``max_workers`` calls run at once, each on its own thread.  Any
    crawler option may be given (``normalize=``, ``scope=``, ``per_host=``,
    ``gap=``, ``max_pages=``, ...); the defaults reproduce the interview's rules.
    With ``robots=True``, ``get_robots(url)`` returns a robots.txt body or
    None (no file).  ``on_event`` sees every scheduler event as it happens.

    Limits on ``get_urls`` (see the module docstring): a call running longer
    than ``timeout`` seconds (default 60; None: no limit) fails its page and
    is abandoned -- it cannot be killed and may keep running beside the
    crawl, so more than ``max_workers`` threads can exist, though the crawl
    never waits on more than ``max_workers`` calls; at most ``max_links``
    links (default 100,000) are read from one result.  ``failures``, when
    given a dict, receives every page that failed or was cut short, with why.
    """
    _check_limits(timeout, max_links)
    merged = {**DROP_IN_DEFAULTS, **options, "workers": max_workers}
    if merged.get("robots") and get_robots is None:
        raise OptionError("robots", "crawl(robots=True) needs get_robots=... to read robots.txt")
    run = _ThreadedCrawl(
        Scheduler(CrawlOptions.from_mapping(merged)), get_urls, get_robots, timeout, max_links, on_event
    )
    run.crawl(start_url)
    if failures is not None:
        failures.update(run.notes)
        failures.update(run.sched.failures)
    return run.sched.found()


class _ThreadedCrawl:
    """One :func:`crawl`: the calling thread coordinates (only it touches the
    scheduler); each call of the user's functions runs on a daemon thread of
    its own and hands its answer back through ``results``, so the seen set
    and frontier need no lock."""

    def __init__(
        self,
        sched: Scheduler,
        get_urls: GetUrls,
        get_robots: GetRobots | None,
        timeout: float | None,
        max_links: int,
        on_event: Callable[[Event], None] | None,
    ) -> None:
        self.sched = sched
        self.get_urls = get_urls
        self.get_robots = get_robots
        self.timeout = timeout
        self.max_links = max_links
        self.on_event = on_event
        self.origin = time.monotonic()
        self.results: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
        self.pending: dict[int, tuple[Fetch, float]] = {}
        """fetch id -> (fetch, deadline) for calls the crawl still waits for."""
        self.notes: dict[str, str] = {}
        """Pages whose links were cut short or partly skipped, or that robots.txt
        left unfetched because ``get_robots`` failed, with why."""
        self.robots_failed: dict[str, str] = {}
        """Host -> why its ``get_robots`` call failed (its pages are then disallowed)."""
        self.last = 0.0

    def now(self) -> float:
        self.last = max(self.last, time.monotonic() - self.origin)  # the scheduler's clock never goes back
        return self.last

    def crawl(self, start_url: str) -> None:
        """Run until the core says done: start what it allows, wait for an
        answer, a deadline or its next wakeup, report, repeat."""
        sched = self.sched
        sched.add_seeds([start_url], self.now())
        while True:
            t = self.now()
            for fetch in sched.poll(t):
                self._start(fetch, t)
            self._flush()
            if sched.done:
                break
            wake = sched.next_wakeup()
            if not self.pending and wake is None:
                break  # nothing in flight and nothing scheduled: cannot happen unless done
            self._wait_and_report(wake)
            self._expire(self.now())
        self._flush()

    def _wait_and_report(self, wake: float | None) -> None:
        """Report every answer that arrives before the nearest deadline or wakeup."""
        nearest = min((deadline for _, deadline in self.pending.values()), default=math.inf)
        if wake is not None:
            nearest = min(nearest, wake)
        wait = None if math.isinf(nearest) else max(0.0, nearest - self.now())
        try:
            self._report(*self.results.get(timeout=wait))
            while True:
                self._report(*self.results.get_nowait())
        except queue.Empty:
            pass

    def _call(self, fetch: Fetch) -> None:
        """A worker thread's body: the user's function, its answer queued."""
        try:
            if fetch.kind == "robots":
                assert self.get_robots is not None
                body = self.get_robots(fetch.url)
                if body is not None and not isinstance(body, str):
                    raise _BadResult(f"get_robots returned {_describe(body)}, expected a str or None")
                value: Any = body
            else:
                value = read_links(self.get_urls(fetch.url), self.max_links)
        except BaseException as exc:  # noqa: BLE001 - handed to the coordinator
            self.results.put((fetch.id, None, exc))
            return
        self.results.put((fetch.id, value, None))

    def _start(self, fetch: Fetch, t: float) -> None:
        deadline = math.inf if self.timeout is None else t + self.timeout
        self.pending[fetch.id] = (fetch, deadline)
        threading.Thread(target=self._call, args=(fetch,), name=f"crawlsim get_urls {fetch.id}", daemon=True).start()

    def _flush(self) -> None:
        events = self.sched.drain_events()
        if self.robots_failed:
            self._note_robots_skips(events)
        if self.on_event is not None:
            for event in events:
                self.on_event(event)

    def _note_robots_skips(self, events: list[Event]) -> None:
        """A page skipped because its host's ``get_robots`` failed is a failure
        the caller sees in ``failures=``, not a page that silently vanished."""
        for event in events:
            if isinstance(event, Skipped) and event.reason == "robots":
                why = self.robots_failed.get(host_key(event.url))
                if why is not None:
                    self.notes[event.url] = (
                        f"not fetched: get_robots failed ({why}), and RFC 9309 treats a robots.txt that cannot "
                        "be read as disallowing the whole host"
                    )

    def _report(self, fetch_id: int, value: Any, exc: BaseException | None) -> None:
        """Hand one answer to the scheduler (an abandoned call's late answer is ignored)."""
        entry = self.pending.pop(fetch_id, None)
        if entry is None:
            return  # an abandoned call answered after its page failed: ignored
        fetch, t = entry[0], self.now()
        if exc is not None and not isinstance(exc, Exception):
            raise exc  # Ctrl-C or sys.exit() in the caller's function ends the crawl, as outside it
        if exc is not None:
            reason = str(exc) if isinstance(exc, _BadResult) else f"{type(exc).__name__}: {exc}"
            if fetch.kind == "robots":
                self.robots_failed[fetch.host] = reason
            self.sched.on_error(fetch.id, t, reason, transient=isinstance(exc, TRANSIENT))
        elif fetch.kind == "robots":
            self.sched.on_response(fetch.id, t, status=404 if value is None else 200, body=value)
        else:
            self._note_cut_short(fetch.url, value)
            self.sched.on_response(fetch.id, t, status=200, links=value.links)

    def _note_cut_short(self, url: str, value: _Links) -> None:
        """Say so when a page's result was truncated or had entries that are not links."""
        if value.truncated:
            self.notes[url] = (
                f"get_urls returned more than {self.max_links} links; the first {self.max_links} were read"
            )
        if value.skipped:
            note = f"{value.skipped} {'entry' if value.skipped == 1 else 'entries'} not a str, skipped"
            self.notes[url] = f"{self.notes[url]}; {note}" if url in self.notes else note

    def _expire(self, t: float) -> None:
        """Fail (and abandon) every call past its deadline."""
        for fetch_id, (fetch, deadline) in list(self.pending.items()):
            if deadline <= t:
                del self.pending[fetch_id]
                called = "get_robots" if fetch.kind == "robots" else "get_urls"
                reason = f"timeout: {called} did not return within {self.timeout:g} s (the call was abandoned)"
                self.sched.on_error(fetch.id, t, reason, transient=False)
