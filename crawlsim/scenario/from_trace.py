"""A recorded crawl becomes a scenario the simulator can rerun with other
settings ("how long with 16 workers?"): what ``crawlsim model TRACE -o
SITE.toml`` writes, here below the commands so the app and the widget can
model a trace too.

The model is the web *as recorded*, nothing guessed where the trace knows:

* an explicit web: every page fetched, with the links it really had (the
  link events the crawler logged after fetching it), its last status, and a
  ``Retry-After`` header where a 429/503 answer carried one (a wait that was
  the crawler's own backoff is left to the model's backoff);
* each host's robots.txt rebuilt from what the crawl met: its Crawl-delay,
  ``Disallow: /`` when it shut the host out, a ``Disallow`` line for each
  path it refused;
* latency as measured, **per page**: each page's own fetch time (its last
  attempt, from the FetchStarted to the FetchFinished event, so the
  crawler's own parsing of the page is inside it).  A per-page time beats a
  per-host distribution fitted to the same times whenever the rerun fetches
  the same pages: it reproduces the recorded sum of work exactly instead of
  its average, and a slow page stays slow under any order.  Each host's own
  latency (robots.txt, and any page the recording never fetched) is the
  median of its measured fetch times;
* the recording's options as ``[crawl]`` (from the trace's Done line), so
  ``crawlsim run SITE.toml`` reproduces the recorded finish before any knob
  is turned;
* each host's ``contention`` where its fetch time grew with the fetches
  in flight to it (:func:`learnt_contention`), each page's time brought
  back to what it takes alone; a recording that never had two fetches in
  flight to a host cannot tell, and the model assumes no growth;
* a ``margin``: how far the real site may land from the model's figures,
  from the recording's own spread (:func:`recorded_margin`): the bounds
  ``run`` proves are the model's, and the summary says so with it.  The
  same number is kept as ``recorded_margin``, what the recording measured,
  so a ``margin`` a person changed afterwards is not passed off as measured.

Pages discovered but never fetched (a cap, a time limit, robots) get no
entry: the simulator then answers them 200 with no links and the host's
median time.  The file's description says so, and ``run`` prints it.
"""

from __future__ import annotations

import heapq
import json
import os
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from crawlsim.core.options import RULES, CrawlOptions, OptionError, option_from_value, show_value, with_implied_order
from crawlsim.errors import UsageError
from crawlsim.core.options import MAX_SETTING_SECONDS
from crawlsim.scenario.checks import ScenarioError, key_path, printable
from crawlsim.scenario.writer import scenario_toml
from crawlsim.sim.latency import MAX_LATENCY
from crawlsim.sim.web import rfc3986_identity
from crawlsim.trace.events import Discovered, Done, Event, FetchFailed, FetchFinished, FetchStarted, RetryScheduled
from crawlsim.trace.events import HostDeferred, RobotsLoaded, Skipped
from crawlsim.trace.jsonl import read_trace

BYTES_PER_TRACE_BYTE = 4
"""Memory a trace costs to model, per byte of the file (events, then pages
and links): measured about 3x on a 2,000-page trace, rounded up."""
MAX_MODEL_MEMORY = 2 * 1024**3
"""A trace whose estimate is above this is refused before it is read."""
FAILED_STATUS = 504
"""The status a page that failed with no answer (a timeout, too large) gets in the model."""
LINK_REASONS = frozenset({"seen", "scope", "robots", "depth", "cap"})
"""Skipped events that are links the page really had (malformed and scheme links are not pages)."""
RECORDER_KEY = "recorder"
"""The options' entry naming another crawler that recorded the trace (a Scrapy
crawl's ``TraceRecorder``): its tool, its own settings and where its
scheduler differs from crawlsim's -- said in the model's ``assumes``."""
CLIENT_CPU_KEY = "client_cpu"
"""The options' entry with the CPU seconds the recording crawler itself spent
(``crawlsim crawl -o`` writes it): divided among its fetches, it becomes the
scenario's ``client_cost``, the crawler's serial work per response."""
CLIENT_BUSY_KEY = "client_busy"
"""The wall-clock seconds the recording crawler's event loop was busy; preferred
to :data:`CLIENT_CPU_KEY` when present (it is what the reruns' loop will cost)."""
CLIENT_BUSY_START_KEY = "client_busy_start"
"""The busy seconds before the first page's fetch started: start-up work, left out of
the per-response cost (robots.txt's time in the model holds it, see
:meth:`Recording.robots_time`)."""
SERVER_TIME_KEY = "server_time"
"""The options' entry with each fetch's server time (fetch id -> seconds, from its
requests sent to their answers' arrival, the crawler's delay in noticing them
left out): when present, a fetch's time in the model (see :meth:`Recording.server_time`)."""
RETRY_AFTER_KEY = "retry_after_sent"
"""The options' entry listing the fetch ids whose answer carried a Retry-After
(``crawlsim crawl -o`` writes it when any did): only their retries' waits become a
``Retry-After`` in the model; any other retry waited the crawler's own backoff."""
NOT_CRAWL_OPTIONS = frozenset(
    {"user_agent", RECORDER_KEY, CLIENT_CPU_KEY, CLIENT_BUSY_KEY, CLIENT_BUSY_START_KEY, SERVER_TIME_KEY,
     RETRY_AFTER_KEY}
)
"""Recorded options that mean nothing to the simulator's rerun."""


@dataclass
class _PageRecord:
    status: int = 200
    took: float = 0.0
    wire: float = 0.0
    """From its FetchStarted to its FetchFinished: ``took`` without the crawler's delay before it started."""
    fetch_id: int = -1
    links: list[str] = field(default_factory=list)
    retried: bool = False
    """Whether a retry of its last answer was scheduled."""
    retry_after: float | None = None
    """The seconds until that retry, when the server asked for them (a Retry-After)."""
    earlier: list[tuple[int, float | None]] = field(default_factory=list)
    """The answers to its attempts before the last (status, the Retry-After the server sent, if any)."""


@dataclass
class Recording:
    """What one trace says about the web it crawled."""

    seeds: list[str] = field(default_factory=list)
    pages: dict[str, _PageRecord] = field(default_factory=dict)
    discovered: set[str] = field(default_factory=set)
    host_times: dict[str, list[float]] = field(default_factory=dict)
    crawl_delay: dict[str, float | None] = field(default_factory=dict)
    disallow_all: set[str] = field(default_factory=set)
    disallowed: dict[str, set[str]] = field(default_factory=dict)
    finish: float = 0.0
    fetches: int = 0
    robots_took: dict[str, float] = field(default_factory=dict)
    """Host -> its robots.txt fetch's measured time."""
    client_cost: float = 0.0
    """The crawler's own CPU seconds per fetch, when the recording says its CPU time
    (see :meth:`server_time`); 0 when it does not (a Scrapy trace, an older trace)."""
    host_wire: dict[str, list[float]] = field(default_factory=dict)
    robots_wire: dict[str, float] = field(default_factory=dict)
    host_ids: dict[str, list[int]] = field(default_factory=dict)
    robots_id: dict[str, int] = field(default_factory=dict)
    served: dict[int, float] = field(default_factory=dict)
    """Fetch id -> the server's time the recording measured for it (:data:`SERVER_TIME_KEY`)."""
    work_in_fetch: bool = True
    """Whether a fetch's measured time holds the crawler's own work on its response
    (crawlsim parses a page inside its fetch; Scrapy's callbacks run after its transfer)."""
    robots_hold: dict[str, float] = field(default_factory=dict)
    """Host -> from its robots.txt fetch's start to its first page fetch's start: how long
    robots.txt held the host's pages (see :meth:`robots_time`)."""
    robots_start: dict[str, float] = field(default_factory=dict)
    before_pages: int | None = None
    """How many fetches started before the first page's (robots.txt, the start-up's)."""
    pending: dict[str, list[str]] = field(default_factory=dict)
    """Parent URL -> its links, logged just before its fetch's FetchFinished."""
    lag: dict[int, float] = field(default_factory=dict)
    """Fetch id -> the crawler's own delay before it started (see :meth:`_started`)."""
    last_t: float = 0.0
    wakes: list[float] = field(default_factory=list)
    """The hosts' wake-up times not yet passed by a fetch's start: a min-heap."""
    told: frozenset[int] | None = None
    """The fetch ids whose answer carried a Retry-After (:data:`RETRY_AFTER_KEY`); None when
    the trace does not say, and then a host held for ``retry-after`` at the retry's time tells."""
    held: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Host -> its last ``retry-after`` hold (when, until)."""
    open: dict[str, int] = field(default_factory=dict)
    """Host -> its fetches in flight now."""
    crowd: dict[int, int] = field(default_factory=dict)
    """Fetch id -> the other fetches in flight to its host when it started (those that
    started at the same instant included, as the simulator starts a batch)."""
    batch: dict[str, tuple[float, list[int]]] = field(default_factory=dict)
    """Host -> its latest start time and the fetches that started then, no fetch to it ending between."""

    source: str = "the trace"
    """The trace's name, for messages."""

    @classmethod
    def of(cls, events: Iterable[Event], told: frozenset[int] | None = None, source: str = "the trace") -> Recording:
        """What ``events`` say, in one pass: O(events + W log W) for W host deferrals."""
        rec = cls(told=told, source=source)
        started: dict[int, FetchStarted] = {}
        for e in events:
            if isinstance(e, FetchStarted):
                started[e.fetch_id] = e
                rec._started(e)
            elif isinstance(e, (FetchFinished, FetchFailed)):
                rec._ended(e, started.pop(e.fetch_id, None))
            elif isinstance(e, (Discovered, Skipped)):
                rec._link(e)
            else:
                rec._other(e)
            if not isinstance(e, FetchStarted):
                rec.last_t = e.t
        return rec

    def _started(self, e: FetchStarted) -> None:
        """The crawler's own time before a fetch started: from the moment the
        core could have started it (the last event before it, or a host's
        wake-up time that passed since) to its start -- the client's share,
        which grows with concurrency and is not the server's.  The pending
        wake-ups are a heap, so a trace of F fetches and W deferrals costs
        O(F + W log W), not a scan of every wake-up per fetch."""
        self.fetches += 1
        self.crowd[e.fetch_id] = self.open.get(e.host, 0)
        self.open[e.host] = self.crowd[e.fetch_id] + 1
        same = self.batch.get(e.host)
        if same is not None and same[0] == e.t:
            for other in same[1]:
                self.crowd[other] += 1
            same[1].append(e.fetch_id)
        else:
            self.batch[e.host] = (e.t, [e.fetch_id])
        if e.kind == "robots":
            self.robots_start.setdefault(e.host, e.t)
        else:
            if self.before_pages is None:
                self.before_pages = self.fetches - 1
            if e.host in self.robots_start and e.host not in self.robots_hold:
                self.robots_hold[e.host] = e.t - self.robots_start[e.host]
        ready = self.last_t
        while self.wakes and self.wakes[0] <= e.t:  # each wake-up is pushed once and popped once
            ready = max(ready, heapq.heappop(self.wakes))
        self.lag[e.fetch_id] = max(0.0, e.t - ready)

    def _ended(self, e: FetchFinished | FetchFailed, start: FetchStarted | None) -> None:
        """A fetch ended: its time (to its host's list) and, for a page, its
        answer and the links logged for it (its last attempt's)."""
        if start is not None and e.t < start.t:
            raise UsageError(f"{self.source}: fetch {e.fetch_id} of {show_value(e.url)} ends at {e.t:g} s, before "
                             f"it started at {start.t:g} s: a fetch's time cannot be measured backwards")
        wire = e.t - start.t if start is not None else 0.0
        if start is not None:
            self.open[e.host] -= 1
            self.batch.pop(e.host, None)  # a start after this one is not of the same batch
        took = wire + self.lag.pop(e.fetch_id, 0.0)
        self.host_times.setdefault(e.host, []).append(took)
        self.host_wire.setdefault(e.host, []).append(wire)
        self.host_ids.setdefault(e.host, []).append(e.fetch_id)
        if e.kind != "page":
            self.robots_took[e.host], self.robots_wire[e.host] = took, wire
            self.robots_id[e.host] = e.fetch_id
            return
        page = self.pages.get(e.url)
        if page is None:
            page = self.pages[e.url] = _PageRecord()
        elif page.retried:  # retried: its earlier answer replays as it came
            if page.status != FAILED_STATUS:  # a network failure has no answer to replay
                page.earlier.append((page.status, page.retry_after))
            page.retried, page.retry_after = False, None
        page.took, page.wire, page.links = took, wire, self.pending.pop(e.url, [])
        page.fetch_id = e.fetch_id
        page.status = e.status if isinstance(e, FetchFinished) else _failed_status(e.reason)
        if not 100 <= page.status <= 599:
            raise UsageError(f"{self.source}: fetch {e.fetch_id} of {show_value(e.url)} was answered {page.status}; "
                             "a scenario's pages answer an HTTP status 100-599")

    def _link(self, e: Discovered | Skipped) -> None:
        if e.parent is None:
            if isinstance(e, Discovered):
                self.seeds.append(e.url)
            return
        self.discovered.add(e.url)
        if isinstance(e, Skipped):
            if e.reason == "robots":
                self._disallowed(e.url)
            if e.reason not in LINK_REASONS:
                return
        self.pending.setdefault(e.parent, []).append(e.url)

    def _disallowed(self, url: str) -> None:
        """A link robots.txt refused: its path becomes a ``Disallow`` line of its host's robots.txt."""
        found = _host_and_path(url)
        if found is not None:
            self.disallowed.setdefault(found[0], set()).add(found[1])

    def server_time(self, took: float, wire: float, fetch_id: int = -1) -> float:
        """A fetch's time in the model.  When the recording measured the
        server's own time for it (:data:`SERVER_TIME_KEY`): that, since the
        crawler's work around it (starting it, noticing its answer late while
        busy with others', parsing it) is the simulation's serial client, at
        the rerun's own concurrency.  Otherwise, without a client cost: as measured,
        the crawler's delay before it started included (its own share of the
        time, as it was at the recorded concurrency).  With one: the
        crawler's work is the simulation's serial client, so the fetch keeps
        only what the crawler did not spend on it -- its start-to-finish time
        less its own response's work, the delay before it started left out;
        the simulation adds the work back at the rerun's own concurrency.
        (Subtracting the work of every response handled while it was in
        flight was tried: it over-corrects when the server's time overlaps
        that work, 25 % fast at one worker on a server-bound site.)"""
        if fetch_id in self.served:
            return self.served[fetch_id]
        if self.client_cost and not self.work_in_fetch:
            return wire  # another crawler's transfer: its own work came after
        if not self.client_cost:
            return took
        return max(0.0, wire - self.client_cost)

    def robots_time(self, host: str) -> float:
        """A host's robots.txt fetch in the model.  With server times recorded: what it
        held the host's pages in the recording (its fetch's start to the first page's,
        less the crawler's work on its answer, which the simulation adds back), since a
        crawl's first request also pays for its first connection and the crawler's
        first-time work, which no other fetch does; else :meth:`server_time`."""
        fetch_id = self.robots_id[host]
        if fetch_id in self.served and host in self.robots_hold:
            return max(self.served[fetch_id], self.robots_hold[host] - self.client_cost)
        return self.server_time(self.robots_took[host], self.robots_wire[host], fetch_id)

    def _server_asked(self, e: RetryScheduled, fetch_id: int) -> bool:
        """Whether the retry's wait was the server's Retry-After, not the crawler's own
        backoff: the recording's list says so, or (a trace without one) the host was
        held for ``retry-after`` until the retry's time when it was scheduled."""
        if self.told is not None:
            return fetch_id in self.told
        return self.held.get(e.host) == (e.t, e.at)

    def _other(self, e: Event) -> None:
        if isinstance(e, HostDeferred):
            heapq.heappush(self.wakes, e.until)
        if isinstance(e, RobotsLoaded):
            self.crawl_delay[e.host] = e.crawl_delay
            if e.disallow_all:
                self.disallow_all.add(e.host)
        elif isinstance(e, HostDeferred) and e.reason == "retry-after":
            self.held[e.host] = (e.t, e.until)
        elif isinstance(e, RetryScheduled) and e.url in self.pages:
            page = self.pages[e.url]
            page.retried = True
            page.retry_after = max(0.0, e.at - e.t) if self._server_asked(e, page.fetch_id) else None
        elif isinstance(e, Done):
            self.finish = e.t


def _failed_status(reason: str) -> int:
    """A failed fetch's status in the model: the HTTP status it failed with ("HTTP 429",
    a retryable answer), else :data:`FAILED_STATUS` (no answer: a timeout, too large)."""
    code = reason[5:8] if reason.startswith("HTTP ") else ""
    return int(code) if code.isdigit() and len(reason) == len("HTTP 429") else FAILED_STATUS


def _host_and_path(url: str) -> tuple[str, str] | None:
    """The host as the trace's events name it (with a port that is not the
    scheme's default) and the path as a robots.txt rule may spell it (no
    space or line break to split its line), or None for a URL no host can
    have (a port past 65535, an unclosed IPv6 bracket)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    default = {"http": 80, "https": 443}.get(parts.scheme)
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    return (host if port in (None, default) else f"{host}:{port}"), path


_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
"""The characters of a path left as they are in a robots.txt rule (RFC 3986's
path characters); anything else is percent-encoded, as a crawler requests it."""


# --------------------------------------------------------------------------- writing the scenario


def _robots(rec: Recording, host: str) -> str | None:
    if host in rec.disallow_all:
        return "User-agent: *\nDisallow: /\n"
    lines = [f"Disallow: {path}" for path in sorted(rec.disallowed.get(host, ()))]
    delay = rec.crawl_delay.get(host)
    if delay:
        lines.append(f"Crawl-delay: {delay:g}")
    if host not in rec.crawl_delay or not lines:
        return None
    return "User-agent: *\n" + "\n".join(lines) + "\n"


def _description(rec: Recording) -> str:
    return f"A model of a recorded crawl: {len(rec.pages):,} pages fetched, recorded finish {rec.finish:.3f} s."


def _assumptions(rec: Recording, recorder: Mapping[str, Any] | None = None) -> str:
    """What the model assumes beyond the recording (``assumes``: ``run`` prints it),
    and, for another crawler's recording, where its scheduler differs."""
    unfetched = len(rec.discovered.difference(rec.pages))
    text = _page_time_assumption(rec)
    if rec.client_cost:
        text += (
            f"; the crawler's own work is {1000 * rec.client_cost:.2f} ms per response, one at a time "
            "(the recording's busy event loop over its fetches), on a machine as loaded as the recording's"
        )
    text += _contention_assumption(rec)
    if recorder:
        said = [str(d) for d in recorder.get("differences", ()) if isinstance(d, str)]
        text += f"; recorded by {recorder.get('tool', 'another crawler')}" + "".join(f"; {d}" for d in said)
    if unfetched:
        text += (
            f"; {unfetched:,} pages discovered but never fetched (a cap, a time limit, robots.txt or scope) "
            "answer 200 with no links in their host's median time"
        )
    return text


def _contention_assumption(rec: Recording) -> str:
    """Whether a host's fetch time grows with the fetches in flight to it, as learnt (or not)."""
    if not shared_hosts(rec):
        return ("; no two fetches were in flight to one host at once, so how a host's fetch time grows "
                "with connections to it cannot be learnt: the model assumes it does not")
    return "".join(f"; {host}'s fetches take {share:.0%} longer per other fetch in flight to it (learnt)"
                   for host, share in sorted(learnt_contention(rec).items()))


def _page_time_assumption(rec: Recording) -> str:
    """What a fetched page's time in the model is: its server's measured time where the
    recording has one, else its measured time (less the crawler's work, with a client
    cost) -- said as a count when only some pages have one (a fetch on a connection the
    server closed has none)."""
    served = sum(1 for page in rec.pages.values() if page.fetch_id in rec.served)
    rest = "their measured time less client_cost" if rec.client_cost else "their measured time"
    if not served:
        return "each fetched page takes its measured time again, whatever the settings"
    if served < len(rec.pages):
        return (f"{served:,} of {len(rec.pages):,} fetched pages take their server's measured time (from the "
                f"request sent to the answer's arrival); the rest {rest}, whatever the settings")
    return ("each fetched page takes its server's measured time again (from its request sent to its "
            "answer's arrival), whatever the settings")


def scenario_text(rec: Recording, options: Mapping[str, Any] | None, source: str) -> str:
    """The scenario file for ``rec`` (see the module docstring), written by the
    one scenario writer, which loads it back as ``run`` would: a ``UsageError``
    naming ``source`` if the recording holds what a scenario cannot."""
    recorder = (options or {}).get(RECORDER_KEY)
    recorder = recorder if isinstance(recorder, Mapping) else None
    comments = [
        f"Written by `crawlsim model {source}`.",
        "Latency model: each page's own measured fetch time (`latency` in [pages]); each host's latency is the",
        "median of its fetch times (robots.txt and pages never fetched).  Per page predicts better than a",
        "per-host distribution when a rerun fetches the same pages: the recorded work is kept page by page.",
    ]
    if recorder and isinstance(recorder.get("settings"), Mapping):
        comments.append(f"[crawl] read from {recorder.get('tool', 'the recorder')}'s settings: "
                        f"{json.dumps(recorder['settings'])}")
    contention = learnt_contention(rec)
    pages = _page_tables(rec, source, contention)
    margin = recorded_margin(pages)
    data: dict[str, Any] = {
        "title": "Model of " + printable(Path(source).name),
        "description": _description(rec),
        "assumes": _assumptions(rec, recorder),
        "start": _start(rec),
        **({"client_cost": round(rec.client_cost, 6)} if rec.client_cost else {}),
        **({"margin": margin, "recorded_margin": margin} if margin is not None else {}),
        "crawl": _crawl_table(options or {}, source),
        "hosts": _host_tables(rec, source, contention),
        "pages": pages,
    }
    try:
        return scenario_toml(data, comments, path="the model")
    except ScenarioError as err:
        raise UsageError(f"{source}: cannot model this trace: {err}") from None


def _start(rec: Recording) -> list[str]:
    """The recording's seeds that are URLs a scenario can start from (else its first page)."""
    seeds = [url for url in rec.seeds if rfc3986_identity(url) is not None]
    return seeds or list(rec.pages)[:1]


def _crawl_table(options: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``[crawl]``: the recording's options (those that mean something to a
    rerun, and not ``None``: no limit), each checked by the core's own rules
    as a scenario's ``[crawl]`` is; one the rules refuse is the trace's
    mistake, named in one line."""
    table = {key: value for key, value in options.items() if value is not None and key not in NOT_CRAWL_OPTIONS}
    try:
        checked = {key: option_from_value(key, value) for key, value in table.items()}
        CrawlOptions.from_mapping(with_implied_order(checked))
    except OptionError as err:
        name = f"options.{err.key}" if err.key.split("[", 1)[0] in RULES else key_path("options", err.key)
        raise UsageError(f"{source}: the Done line's {name}: {err.message}") from None
    return table


def _seconds(seconds: float, what: str, source: str) -> float:
    """A fetch time the model writes, rounded to the microsecond: one a
    scenario cannot hold (over :data:`MAX_LATENCY`) is the trace's mistake,
    named here rather than by the model's ``run``."""
    if not 0.0 <= seconds <= MAX_LATENCY:
        raise UsageError(f"{source}: {what} takes {seconds:,.6g} s in the model; a scenario's fetch times are "
                         f"0 to {MAX_LATENCY:,.0f} s")
    return round(seconds, 6)


def _host_tables(rec: Recording, source: str, contention: Mapping[str, float]) -> dict[str, dict[str, Any]]:
    out = {}
    for host, times in sorted(rec.host_times.items()):
        served = [
            _seconds(rec.server_time(t, w, i), f"fetch {i} (of host {show_value(host)})", source)
            for t, w, i in zip(times, rec.host_wire[host], rec.host_ids[host], strict=True)
        ]
        table: dict[str, Any] = {"latency": round(statistics.median(served), 6)}
        if host in rec.robots_took:
            what = f"the robots.txt fetch of host {show_value(host)}"
            table["robots_latency"] = _seconds(rec.robots_time(host), what, source)
        robots = _robots(rec, host)
        if robots is not None:
            table["robots"] = robots
        if contention.get(host):
            table["contention"] = contention[host]
        out[host] = table
    return out


def _answer(status: int, retry_after: float | None) -> dict[str, Any]:
    """An earlier answer of a page (``before``): its status, and the server's wait
    before the retry as ``Retry-After`` where it sent one with a status that may."""
    if retry_after is not None and status in (429, 503):
        return {"status": status, "headers": {"Retry-After": f"{retry_after:g}"}}
    return {"status": status}


def _page_tables(rec: Recording, source: str, contention: Mapping[str, float]) -> dict[str, dict[str, Any]]:
    """Each fetched page's table; its time is what it takes alone on its host (the
    recorded time over its host's contention at the fetches it shared the host with)."""
    out = {}
    for url, page in rec.pages.items():
        what = f"fetch {page.fetch_id} (of {show_value(url)})"
        took = rec.server_time(page.took, page.wire, page.fetch_id)
        found = _host_and_path(url)
        if found is not None and contention.get(found[0]):
            took /= 1.0 + contention[found[0]] * rec.crowd.get(page.fetch_id, 0)
        spec: dict[str, Any] = {"links": page.links, "latency": _seconds(took, what, source)}
        if page.status != 200:
            spec["status"] = page.status
        if page.retry_after is not None and page.status in (429, 503):
            spec["headers"] = {"Retry-After": f"{page.retry_after:g}"}
        if 300 <= page.status < 400 and len(page.links) == 1:  # a redirect the crawler followed (Scrapy's)
            spec["headers"] = {"Location": page.links[0]}
        if page.earlier:
            spec["before"] = [_answer(status, after) for status, after in page.earlier]
        out[url] = spec
    return out


MIN_CONTENTION = 0.05
"""A learnt contention below this (5% longer per other fetch in flight) is not written."""
SURE = 5.0
"""Standard errors the rise must stand above zero: pages whose times differ for good can line up
with the fetches in flight by chance, and a slope that chance explains is not learnt."""
LEAST_PAGES = 40
"""Page fetches a host needs before its contention is learnt (a few pages that happen to be
slower when fetched together are the pages, not the host)."""


def learnt_contention(rec: Recording) -> dict[str, float]:
    """Per host, how much longer its page fetches took per other fetch in flight to it
    when they started: the least-squares line ``time = a + b * others`` over its page
    fetches, as ``b / a`` (the slowdown per other fetch, relative to a fetch alone).
    A host whose fetches all started with as many others in flight (every one alone,
    at 1 per host) cannot tell, and is left out, as is a host with fewer than
    :data:`LEAST_PAGES` pages or a line that does not rise by :data:`MIN_CONTENTION`
    and by :data:`SURE` standard errors of its slope."""
    pairs: dict[str, list[tuple[float, float]]] = {}
    for url, page in rec.pages.items():
        found = _host_and_path(url)
        if found is not None and page.fetch_id in rec.crowd:
            took = rec.server_time(page.took, page.wire, page.fetch_id)
            pairs.setdefault(found[0], []).append((float(rec.crowd[page.fetch_id]), took))
    learnt = {}
    for host, points in pairs.items():
        others, times = [k for k, _ in points], [t for _, t in points]
        if len(points) < LEAST_PAGES or len(set(others)) < 2:
            continue
        fit = statistics.linear_regression(others, times)
        spread = sum((k - statistics.fmean(others)) ** 2 for k in others)
        misfit = sum((t - fit.intercept - fit.slope * k) ** 2 for k, t in points) / (len(points) - 2)
        sure = fit.slope > SURE * (misfit / spread) ** 0.5
        if sure and fit.intercept > 0 and fit.slope / fit.intercept >= MIN_CONTENTION:
            learnt[host] = round(fit.slope / fit.intercept, 4)
    return learnt


def shared_hosts(rec: Recording) -> bool:
    """Whether any two fetches were ever in flight to one host at once (else no contention can be learnt)."""
    return any(rec.crowd.values())


def recorded_margin(pages: Mapping[str, Mapping[str, Any]]) -> float | None:
    """How far a rerun of the real site may land from the model's figures, as a share:
    twice the relative standard error of the summed page times of the host whose
    summed time is largest (``2 * stdev / mean / sqrt(n)`` of its pages' times).

    The recording saw each page once; a rerun fetches it again and its time comes out
    otherwise, while the model replays the recorded time.  If a page's next time is
    as far from its last as the host's pages are from each other (an upper end: on a
    server whose pages differ for good, less), the host's sum -- what holds the
    crawl when that host does -- is off by this much or less 19 times in 20.  None
    when that host has fewer than two pages, or took no time."""
    times: dict[str, list[float]] = {}
    for url, spec in pages.items():
        found = _host_and_path(url)
        if found is not None:
            times.setdefault(found[0], []).append(float(spec["latency"]))
    busiest = max(times.values(), key=sum, default=[])
    if len(busiest) < 2 or sum(busiest) <= 0:
        return None
    return round(2 * statistics.stdev(busiest) / statistics.mean(busiest) / len(busiest) ** 0.5, 4)


def _check_size(path: str) -> None:
    """Refuse a trace too large to model in memory, with the estimate."""
    try:
        size = os.path.getsize(path)
    except OSError as err:
        raise UsageError(f"{path}: cannot read: {err.strerror or err}") from None
    estimate = size * BYTES_PER_TRACE_BYTE
    if estimate > MAX_MODEL_MEMORY:
        raise UsageError(
            f"{path}: too large to model in memory: about {estimate / 1024**3:.1f} GiB for a "
            f"{size / 1024**2:,.0f} MiB trace (limit {MAX_MODEL_MEMORY / 1024**3:.0f} GiB)"
        )


def model_from_trace(path: str) -> str:
    """The scenario text for the trace at ``path`` (``UsageError`` naming the file and line)."""
    _check_size(path)
    try:
        trace = read_trace(path)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if trace.nodes is not None:
        raise UsageError(f"{path}: a cluster's trace (node keys): model one crawler process's trace")
    options = trace.options or {}
    rec = Recording.of(trace.events, _told_retry_after(options, path), path)
    rec.client_cost = _client_cost(options, rec.fetches, path, rec.before_pages or 0)
    rec.work_in_fetch = RECORDER_KEY not in options
    rec.served = _server_times(options, path)
    if not rec.pages:
        raise UsageError(f"{path}: no page was fetched in this trace; nothing to model")
    return scenario_text(rec, trace.options, path)


def _client_cost(options: Mapping[str, Any], fetches: int, path: str | Path, before_pages: int = 0) -> float:
    """The crawler's own work per response, from the Done line's busy (or CPU)
    seconds -- the start-up's busy time and fetches left out when the trace says
    them (:data:`CLIENT_BUSY_START_KEY`); a figure the scenario could not hold
    (over a day per response) is the trace's mistake, said here rather than by
    the model's ``run``."""
    cpu = options.get(CLIENT_BUSY_KEY, options.get(CLIENT_CPU_KEY))
    if not isinstance(cpu, (int, float)) or isinstance(cpu, bool) or not cpu > 0 or not fetches:
        return 0.0
    start = options.get(CLIENT_BUSY_START_KEY)
    if CLIENT_BUSY_KEY in options and isinstance(start, (int, float)) and 0 <= start < cpu and before_pages < fetches:
        cpu, fetches = cpu - start, fetches - before_pages
    cost = float(cpu) / fetches
    if not cost <= MAX_SETTING_SECONDS:
        key = CLIENT_BUSY_KEY if CLIENT_BUSY_KEY in options else CLIENT_CPU_KEY
        raise UsageError(f"{path}: the Done line's options.{key} ({cpu:g} s over {fetches} fetches) is "
                         f"{cost:g} s of the crawler's own work per response; expected at most {MAX_SETTING_SECONDS:g}")
    return cost


def _server_times(options: Mapping[str, Any], path: str | Path) -> dict[int, float]:
    """Each fetch's server time from the Done line (none in an older trace, or
    another crawler's); an entry that is not fetch id -> seconds is the trace's
    mistake, said in one line."""
    given = options.get(SERVER_TIME_KEY)
    if given is None:
        return {}
    expected = f"expected fetch ids mapped to seconds between 0 and {MAX_SETTING_SECONDS:g}"
    if not isinstance(given, Mapping):
        raise UsageError(f"{path}: the Done line's options.{SERVER_TIME_KEY} is not a table; {expected}")
    served: dict[int, float] = {}
    for key, value in given.items():
        fine = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= MAX_SETTING_SECONDS
        if not (str(key).isdigit() and fine):
            raise UsageError(f"{path}: the Done line's options.{SERVER_TIME_KEY}[{json.dumps(str(key))}] is "
                             f"{json.dumps(value)}; {expected}")
        served[int(key)] = float(value)
    return served


def _told_retry_after(options: Mapping[str, Any], path: str | Path) -> frozenset[int] | None:
    """The fetch ids the Done line says were answered with a Retry-After (None when it
    does not say: an older trace, a simulated one, another crawler's)."""
    given = options.get(RETRY_AFTER_KEY)
    if given is None:
        return None
    if not isinstance(given, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in given):
        raise UsageError(f"{path}: the Done line's options.{RETRY_AFTER_KEY} is {json.dumps(given)[:80]}; "
                         "expected a list of fetch ids")
    return frozenset(given)


__all__ = ["Recording", "learnt_contention", "model_from_trace", "recorded_margin", "scenario_text"]
