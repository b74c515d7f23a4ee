"""``crawl()``: seed 001's function shape, driven by the sans-I/O core.

The calling thread is the coordinator: only it touches the scheduler.  Worker
threads only call ``get_urls`` and hand back the result, so the seen set and
frontier need no lock.  The clock is ``time.monotonic`` relative to the start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from crawlsim.core.events import Event
from crawlsim.core.options import CrawlOptions, OptionError
from crawlsim.core.scheduler import Fetch, Scheduler

GetUrls = Callable[[str], Iterable[str]]
GetRobots = Callable[[str], "str | None"]

DROP_IN_DEFAULTS: dict[str, Any] = {"normalize": "fragment", "scope": "host"}
"""Seed 001's rules: drop the fragment only; stay on the start URL's exact host."""

TRANSIENT = (TimeoutError, ConnectionError)
"""Exceptions from ``get_urls`` that are retried (with backoff); any other
exception fails the page at once -- it still counts as found."""


def crawl(
    start_url: str,
    get_urls: GetUrls,
    max_workers: int = 8,
    *,
    get_robots: GetRobots | None = None,
    on_event: Callable[[Event], None] | None = None,
    **options: Any,
) -> list[str]:
    """Every page reachable from ``start_url``, sorted, fetching each once.

    ``get_urls(url)`` is a blocking function returning the links on a page;
    up to ``max_workers`` run at once in a thread pool.  Any crawler option
    may be given (``normalize=``, ``scope=``, ``per_host=``, ``gap=``,
    ``max_pages=``, ...); the defaults reproduce seed 001's rules.  With
    ``robots=True``, ``get_robots(url)`` returns a robots.txt body or None
    (no file).  ``on_event`` sees every scheduler event as it happens.
    """
    merged = {**DROP_IN_DEFAULTS, **options, "workers": max_workers}
    if merged.get("robots") and get_robots is None:
        raise OptionError("robots", "crawl(robots=True) needs get_robots=... to read robots.txt")
    sched = Scheduler(CrawlOptions.from_mapping(merged))
    origin = time.monotonic()

    def now() -> float:
        return time.monotonic() - origin

    def run(fetch: Fetch) -> list[str] | str | None:
        if fetch.kind == "robots":
            assert get_robots is not None
            return get_robots(fetch.url)
        return list(get_urls(fetch.url))

    def flush() -> None:
        events = sched.drain_events()
        if on_event is not None:
            for event in events:
                on_event(event)

    sched.add_seeds([start_url], now())
    pending: dict[Future[Any], Fetch] = {}
    with ThreadPoolExecutor(max_workers=max_workers) as pool:
        while True:
            for fetch in sched.poll(now()):
                pending[pool.submit(run, fetch)] = fetch
            flush()
            if sched.done:
                break
            wake = sched.next_wakeup()
            timeout = None if wake is None else max(0.0, wake - now())
            if not pending and timeout is None:
                break  # nothing in flight and nothing scheduled: cannot happen unless done
            finished, _ = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            for future in finished:
                fetch = pending.pop(future)
                _report(sched, fetch, future, now())
    flush()
    return sched.found()


def _report(sched: Scheduler, fetch: Fetch, future: Future[Any], t: float) -> None:
    """Hand one finished future's outcome to the scheduler."""
    exc = future.exception()
    if exc is not None:
        sched.on_error(fetch.id, t, f"{type(exc).__name__}: {exc}", transient=isinstance(exc, TRANSIENT))
    elif fetch.kind == "robots":
        body = future.result()
        sched.on_response(fetch.id, t, status=404 if body is None else 200, body=body)
    else:
        sched.on_response(fetch.id, t, status=200, links=future.result())
