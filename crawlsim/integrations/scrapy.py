"""Record a real Scrapy crawl as a crawlsim trace.

In a Scrapy project's ``settings.py`` (or a spider's ``custom_settings``)::

    EXTENSIONS = {"crawlsim.integrations.scrapy.TraceRecorder": 500}
    CRAWLSIM_TRACE = "crawl.jsonl"

then ``scrapy crawl SPIDER`` writes ``crawl.jsonl`` as it crawls (whole lines,
flushed every ``CRAWLSIM_TRACE_FLUSH`` seconds, default 1; a crawl that is
killed leaves a trace of its first part, with no ``Done`` line):
``crawlsim tui --trace crawl.jsonl`` replays the crawl and
``crawlsim model crawl.jsonl -o site.toml`` makes it a scenario, with
Scrapy's settings read into ``[crawl]`` (:mod:`.scrapy_settings`).

The extension listens to Scrapy's signals only (``spider_opened``,
``request_scheduled``, ``request_dropped``, ``request_reached_downloader``,
``headers_received``, ``response_downloaded``, ``request_left_downloader``,
``spider_closed``) and
:class:`~crawlsim.integrations.scrapy_log.ScrapyLog` turns them into events.
One moment has no signal: a request that reached the downloader may wait in
its download slot's queue (``DOWNLOAD_DELAY``, the per-domain limit) before
its transfer starts.  The fetch's measured time must not include that wait,
so the extension watches each slot's ``transferring`` set (the downloader
adds a request to it as the transfer starts); where a Scrapy version has no
such set, the reach time stands in and the wait is counted as fetch time.
Two more moments are watched the same way: a request leaving the scraper's
``active`` set (its callback is done, so the page's links are all known and
its answer can be written), and Scrapy's depth middleware returning None for
a link beyond ``DEPTH_LIMIT`` (dropped with no signal: recorded as skipped,
reason ``depth``).  Where a Scrapy version has neither, answers are written
one flush after they end, and the dropped links' count is logged at the end.

Scrapy's own work per response (its callbacks, scheduler and middlewares,
one at a time on its reactor) is measured as in ``crawlsim crawl -o``: the
reactor's asyncio loop's time outside its selector, written as the trace's
``client_busy`` (only under Scrapy's default asyncio reactor), so the model
gets a ``client_cost``.  The same selector waits say how long the server
took (:class:`crawlsim.trace.arrival.Exchanges`): Twisted writes a request
only in a turn after a wait found its socket writable, and reads the answer
in the turn after the first wait that found the socket readable, where
``headers_received`` is sent; on Linux the kernel's own record of that
socket's last send and receive gives the server's time, so neither the
turns the loop was busy before writing nor those before it noticed the
answer count as the server's (``server_time``).  Measured against nginx's
own log on a docs web at 16 concurrent requests: see
``benchmarks/scrapy_server_time.py``.

This module is the only one that imports Scrapy (the ``scrapy`` extra).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from crawlsim.errors import UsageError
from crawlsim.extras import needs
from crawlsim.integrations.scrapy_log import ScrapyLog
from crawlsim.integrations.scrapy_settings import RECORDER_KEY, crawl_options, differences, scrapy_settings
from crawlsim.trace.arrival import Exchanges, watch_waits
from crawlsim.trace.jsonl import trace_line, trace_line_with_options
from crawlsim.integrations.scrapy_time_left import ScrapyTimeLeft

with needs("scrapy", "crawlsim.integrations.scrapy (the Scrapy TraceRecorder)"):
    import scrapy
    from scrapy import signals
    from scrapy.exceptions import NotConfigured

logger = logging.getLogger(__name__)

FETCH_META = "crawlsim_fetch"
"""The request meta key holding the fetch id of the request's latest download."""
ROBOTS_PATH = "/robots.txt"
STALE_SECONDS = 60.0
"""An answer still unsettled this long after it ended is written anyway (a
response some middleware swallowed would otherwise hold back the whole
trace); a link its callback yields later is written at its own time."""
FLUSH_SECONDS = 1.0
"""How often the trace file is written to (``CRAWLSIM_TRACE_FLUSH``): a killed
crawl loses at most this much of its end."""
MAX_FLUSH_SECONDS = 86_400.0
"""Longest ``CRAWLSIM_TRACE_FLUSH`` (a day): longer is a typo, not a choice."""


class _Transfers(set):  # type: ignore[type-arg]
    """A download slot's ``transferring`` set that says when a transfer starts."""

    def __init__(self, items: Iterable[Any], on_add: Callable[[Any], None]) -> None:
        super().__init__(items)
        self.on_add = on_add

    def add(self, request: Any) -> None:
        super().add(request)
        self.on_add(request)


CLIENT_BUSY_KEY = "client_busy"
"""The options' entry ``crawlsim model`` reads as the crawler's busy seconds."""
SERVER_TIME_KEY = "server_time"
"""The options' entry ``crawlsim model`` reads as each fetch's server time (fetch id -> seconds)."""


class _Loop:
    """The asyncio loop under Scrapy's reactor, heard through its selector waits
    (:func:`~crawlsim.trace.arrival.watch_waits`): the seconds it waited, so its busy
    time is known, and each socket's request and answer, so the server's time is."""

    def __init__(self) -> None:
        self.idle = 0.0
        self.undo: Callable[[], None] | None = None
        self.exchanges = Exchanges()

    def watch(self) -> None:
        """Wrap the loop's selector wait (no asyncio reactor: nothing is measured)."""
        try:
            from twisted.internet import reactor

            selector = reactor._asyncioEventloop._selector  # type: ignore[attr-defined]
        except (ImportError, AttributeError):
            return
        self.undo = watch_waits(selector, self._noted)

    def _noted(self, called: float, returned: float, events: Any) -> None:
        self.idle += returned - called
        self.exchanges.noted(called, returned, events)

    def stop(self) -> bool:
        """Stop watching; True when the loop was watched."""
        if self.undo is None:
            return False
        self.undo()
        self.undo = None
        return True


class _Active(set):  # type: ignore[type-arg]
    """The scraper slot's ``active`` set that says when a request's callback is done."""

    def __init__(self, items: Iterable[Any], on_remove: Callable[[Any], None]) -> None:
        super().__init__(items)
        self.on_remove = on_remove

    def remove(self, request: Any) -> None:
        super().remove(request)
        self.on_remove(request)

    def discard(self, request: Any) -> None:
        if request in self:
            self.remove(request)


class _TraceFile:
    """The trace file, written as the crawl goes: whole lines, one write and
    one flush per batch, so a killed crawl leaves whole lines behind."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lines: list[str] = []
        self._file: Any = open(path, "w", encoding="utf-8")  # noqa: SIM115 - open for the whole crawl

    def __call__(self, event: Any) -> None:
        self._lines.append(trace_line(event))

    def flush(self) -> None:
        if self._lines and self._file is not None:
            self._file.write("".join(self._lines))
            self._lines.clear()
            self._file.flush()

    def close(self, last_line: str | None = None) -> None:
        if last_line is not None:
            self._lines.append(last_line)
        try:
            self.flush()
        finally:
            file, self._file = self._file, None
            if file is not None:
                file.close()

    def abandon(self) -> None:
        """Writing failed (a full disk): drop what is pending and let go of the file
        (its own close tries the failed write once more; that error is the one said)."""
        self._lines.clear()
        file, self._file = self._file, None
        try:
            if file is not None:
                file.close()
        except OSError:
            pass


def flush_seconds(value: object) -> float:
    """``CRAWLSIM_TRACE_FLUSH`` as seconds, or a :class:`UsageError` naming
    the setting: Scrapy would otherwise stop the crawl with a ``ValueError``
    from deep inside its start-up that never says which setting was wrong."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0 <= seconds <= MAX_FLUSH_SECONDS:  # also refuses nan
        raise UsageError(f"CRAWLSIM_TRACE_FLUSH: expected seconds from 0 to {MAX_FLUSH_SECONDS:g} such as 1 or 0.5, "
                         f"got {str(value)[:60]!r}")
    return seconds


class TraceRecorder:
    """A Scrapy extension writing the crawl to ``CRAWLSIM_TRACE`` (off when unset)."""

    def __init__(self, crawler: Any, path: str) -> None:
        self.crawler = crawler
        self.path = path
        self.file: _TraceFile | None = None
        self.failed: str | None = None
        """Why writing the trace stopped mid-crawl (the OS error), if it did."""
        self.log = ScrapyLog(self._write)
        self.log.obey_robots = crawler.settings.getbool("ROBOTSTXT_OBEY")
        self.t0 = time.monotonic()
        self.allowed: list[str] | None = None
        self.every = flush_seconds(crawler.settings.get("CRAWLSIM_TRACE_FLUSH", FLUSH_SECONDS))
        self.flushed_at = self.t0
        self.settle_before = 0.0
        self.scraper_watched = False
        self.depth_watched = False
        self.loop = _Loop()
        self.served: dict[int, float] = {}
        """Fetch id -> its server time, where the loop's waits tell it."""
        self.busy: float | None = None
        """Seconds Scrapy's loop was busy from the spider's opening to its last fetch's
        end, when it was watched."""
        self.time_left: ScrapyTimeLeft | None = None
        """The crawl's time left, logged and put in Scrapy's stats every ``LOGSTATS_INTERVAL``."""

    @classmethod
    def from_crawler(cls, crawler: Any) -> TraceRecorder:
        path = crawler.settings.get("CRAWLSIM_TRACE")
        if not path:
            raise NotConfigured("CRAWLSIM_TRACE is not set")
        ext = cls(crawler, str(path))
        for name in (
            "spider_opened", "request_scheduled", "request_dropped", "request_reached_downloader",
            "headers_received", "response_downloaded", "request_left_downloader", "spider_closed",
        ):  # fmt: skip
            crawler.signals.connect(getattr(ext, name), signal=getattr(signals, name))
        return ext

    def now(self) -> float:
        return time.monotonic() - self.t0

    # -- signals --------------------------------------------------------------------

    def spider_opened(self, spider: Any) -> None:
        self.t0 = self.flushed_at = time.monotonic()
        self.loop.watch()
        domains = getattr(spider, "allowed_domains", None)
        self.allowed = [str(d) for d in domains] if domains else None
        self.log.in_scope = self._in_scope
        try:
            self.file = _TraceFile(self.path)
        except OSError as err:
            logger.error("crawlsim: cannot write trace %s: %s; not recording", self.path, err.strerror or err)
        self._watch_scraper()
        self._watch_depth()
        self._start_time_left()

    def request_scheduled(self, request: Any) -> None:
        fid = request.meta.get(FETCH_META)
        if request.meta.get("retry_times"):
            self.log.retried(fid)  # another attempt of a request already recorded
            return
        redirects = request.meta.get("redirect_urls")
        referer = redirects[-1] if redirects else _header(request, "Referer")
        self.log.scheduled(self.now(), request.url, referer, int(request.meta.get("depth", 0)))
        if redirects:
            self.log.settle(fid)  # the redirect's one link is known: its answer is done
        self._maybe_flush()

    def request_dropped(self, request: Any) -> None:
        self.log.dropped(request.url)

    def request_reached_downloader(self, request: Any) -> None:
        robots = bool(request.meta.get("dont_obey_robotstxt")) and _path(request.url) == ROBOTS_PATH
        attempt = 1 + int(request.meta.get("retry_times", 0))
        depth = int(request.meta.get("depth", 0))
        request.meta[FETCH_META] = self.log.reached(
            self.now(), request.url, "robots" if robots else "page", depth, attempt
        )
        self._watch_slot(request)
        self._watch_scraper()
        self._maybe_flush()

    def headers_received(self, headers: Any, body_length: Any, request: Any, spider: Any) -> None:
        """An answer's headers are read, in the turn of the loop that read them: its
        server time is the one the loop's latest wait found (see the module docstring)."""
        fid = request.meta.get(FETCH_META)
        started = self.log.fetches[fid].started if fid in self.log.fetches else None
        if started is not None and self.loop.undo is not None:
            served = self.loop.exchanges.answer(self.t0 + started)
            if served is not None:
                self.served[fid] = served

    def response_downloaded(self, response: Any, request: Any) -> None:
        fid = request.meta.get(FETCH_META)
        if fid is None:
            return
        self.log.downloaded(self.now(), fid, int(response.status))
        if self.log.fetches[fid].kind == "robots":
            body = response.body.decode("utf-8", errors="replace")
            self.log.robots(self.log.fetches[fid].host, body, self._user_agent())

    def request_left_downloader(self, request: Any) -> None:
        fid = request.meta.get(FETCH_META)
        if fid is not None:
            self.log.left(self.now(), fid)
        if self.loop.undo is not None:  # busy up to the crawl's last fetch, not its closing
            self.busy = max(0.0, self.now() - self.loop.idle)
        self._maybe_flush()

    def spider_closed(self, spider: Any, reason: str) -> None:
        self.loop.stop()
        done = self.log.close()
        if self.time_left is not None:
            self.time_left.stop()
        if self.failed is not None:
            logger.error("crawlsim: trace %s is cut short: writing it failed: %s", self.path, self.failed)
        if self.file is None:
            return
        self._say_depth_drops()
        try:
            self.file.close(trace_line_with_options(done, self.options()))
        except OSError as err:
            logger.error("crawlsim: cannot write trace %s: %s", self.path, err.strerror or err)
            return
        logger.info("crawlsim trace written to %s (%s)", self.path, reason)

    # -- writing as the crawl goes ----------------------------------------------------

    def _write(self, event: Any) -> None:
        if self.time_left is not None:
            self.time_left.see(event)
        if self.file is not None:
            self.file(event)

    def _start_time_left(self) -> None:
        """Say the time left at Scrapy's ``LOGSTATS_INTERVAL`` (its own log line's pace)."""
        from twisted.internet import task

        from crawlsim.core.options import CrawlOptions

        every = self.crawler.settings.getfloat("LOGSTATS_INTERVAL")
        options = CrawlOptions.from_mapping(crawl_options(self.crawler.settings, self.allowed, self._jitter()))
        self.time_left = ScrapyTimeLeft(options, self.crawler.stats, self.now)
        if every > 0 and getattr(self.crawler, "engine", None) is not None:  # a crawl Scrapy runs
            self.time_left.loop = task.LoopingCall(self.time_left.say)
            self.time_left.loop.start(every, now=False)

    def _maybe_flush(self) -> None:
        """Write what has settled, at most every ``CRAWLSIM_TRACE_FLUSH`` seconds."""
        if self.file is None or time.monotonic() - self.flushed_at < self.every:
            return
        self.flushed_at = time.monotonic()
        # what nothing else settles (robots.txt; every answer where the scraper
        # cannot be watched) is settled once it ended a whole flush ago
        self.log.settle_ended(self.settle_before, ("robots",) if self.scraper_watched else None)
        self.log.settle_ended(self.log.clock - STALE_SECONDS)  # an answer no callback ever took
        self.settle_before = self.log.clock
        self.log.flush()
        try:
            self.file.flush()
        except OSError as err:
            self.failed = str(err.strerror or err)
            logger.error("crawlsim: cannot write trace %s: %s; recording stopped", self.path, self.failed)
            file, self.file = self.file, None
            file.abandon()

    # -- helpers --------------------------------------------------------------------

    def _transfer(self, request: Any) -> None:
        fid = request.meta.get(FETCH_META)
        if fid is not None:
            self.log.started(self.now(), fid)

    def _watch_slot(self, request: Any) -> None:
        """Wrap the request's download slot's ``transferring`` set (see the module docstring)."""
        downloader = getattr(self.crawler.engine, "downloader", None)
        slot = getattr(downloader, "slots", {}).get(request.meta.get("download_slot"))
        transfers = getattr(slot, "transferring", None)
        if isinstance(transfers, set) and not isinstance(transfers, _Transfers):
            slot.transferring = _Transfers(transfers, self._transfer)  # type: ignore[union-attr]

    def _scraped(self, request: Any) -> None:
        self.log.settle(request.meta.get(FETCH_META))
        self._maybe_flush()

    def _watch_scraper(self) -> None:
        """Wrap the scraper slot's ``active`` set (see the module docstring)."""
        slot = getattr(getattr(self.crawler.engine, "scraper", None), "slot", None)
        active = getattr(slot, "active", None)
        if isinstance(active, set) and not isinstance(active, _Active):
            slot.active = _Active(active, self._scraped)  # type: ignore[union-attr]
            self.scraper_watched = True

    def _watch_depth(self) -> None:
        """Record the links Scrapy's depth middleware drops (it sends no signal for them)."""
        spidermw = getattr(getattr(self.crawler.engine, "scraper", None), "spidermw", None)
        for mw in getattr(spidermw, "middlewares", ()):
            processed = getattr(mw, "get_processed_request", None)
            if type(mw).__name__ != "DepthMiddleware" or processed is None or not getattr(mw, "maxdepth", 0):
                continue

            def watched(request: Any, response: Any, _processed: Callable[..., Any] = processed) -> Any:
                out = _processed(request, response)
                if out is None and response is not None:
                    depth = int(request.meta.get("depth", 0))
                    self.log.beyond_depth(self.now(), request.url, response.url, depth)
                return out

            mw.get_processed_request = watched
            self.depth_watched = True

    def _say_depth_drops(self) -> None:
        dropped = self.crawler.stats.get_value("depth/request_ignored_count") if self.crawler.stats else None
        if dropped and not self.depth_watched:
            logger.warning("crawlsim: %s links beyond DEPTH_LIMIT were dropped by Scrapy and are not in the trace",
                           dropped)

    def _user_agent(self) -> str:
        settings = self.crawler.settings
        return str(settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT") or "Scrapy")

    def _in_scope(self, url: str) -> bool:
        """Scrapy's offsite rule: a host in ``allowed_domains`` or under one."""
        if self.allowed is None:
            return True
        host = _host(url)
        return any(host == d.lower() or host.endswith("." + d.lower()) for d in self.allowed)

    def _jitter(self) -> float:
        downloader = getattr(self.crawler.engine, "downloader", None)
        jitter = getattr(downloader, "_jitter", None)
        if jitter is None:
            return 0.5 if self.crawler.settings.getbool("RANDOMIZE_DOWNLOAD_DELAY") else 0.0
        return float(jitter)

    def options(self) -> dict[str, Any]:
        """The trace's options: ``[crawl]`` for the model, and what recorded it."""
        settings = self.crawler.settings
        options = crawl_options(settings, self.allowed, self._jitter())
        options[RECORDER_KEY] = {
            "tool": f"Scrapy {scrapy.__version__}",
            "settings": scrapy_settings(settings),
            "differences": differences(settings, options, self.log.refetched(), self.log.host_peaks()),
        }
        if self.busy:
            options[CLIENT_BUSY_KEY] = round(self.busy, 6)
        if self.served:
            options[SERVER_TIME_KEY] = {str(fid): round(t, 6) for fid, t in sorted(self.served.items())}
        return options


def _header(request: Any, name: str) -> str | None:
    value = request.headers.get(name)
    return value.decode("latin-1") if value else None


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "").lower()


__all__ = ["FETCH_META", "TraceRecorder"]
