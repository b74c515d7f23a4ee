"""One run, replayed once, as the plain data the page draws.

The page's JavaScript never replays anything: for every instant of the
trace (each distinct event time) this module seeks the run's
:class:`~crawlsim.views.replay.Replay` there and writes down what the views show
-- every URL's state and note, the counters in the app's words, the seen
set and its check, each host's politeness state -- plus what does not
depend on time (the worker lanes' fetch spans, the frontier and in-flight
series, the event log's lines, the links as edges).  The page looks up the
last instant at or before its clock and draws it.

Every string goes through one :class:`Strings` table shared by all runs of
a page, and every URL through one :class:`Urls` table, so a few hundred
what-if runs of one web cost little more than their differences.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    Skipped,
)
from crawlsim.page.layout import Layout, Place, lay_out
from crawlsim.views.replay import (
    HostStatus,
    PageState,
    Replay,
    describe_event,
    duplicates_text,
    fetched_text,
    host_and_path,
    short_url,
)

LOST = 7
"""The page's state code for "never fetched, and the crawl is over": a
page the replay leaves undiscovered whose note gives the reason it was lost."""
LOG_HIDES_SEEN = 60
"""Above this many pages the event log leaves out ``seen`` skips, as the app does."""
MAX_FRAMES = 600
"""At most this many instants of one run are kept (evenly spread, the last
always): a 5,000-page crawl has thousands, and the page steps between these."""
MAX_HOSTS = 12
"""Hosts drawn per run (the largest first when there are more, as the app orders them)."""
MAX_LOG = 3_000
LOG_LINES = 8
"""The event log's lines shown at once; a long run keeps only these before each instant kept."""


_NOTED = (PageState.FAILED, PageState.SKIPPED, PageState.UNDISCOVERED)
"""States whose note the page writes beside the URL (undiscovered: lost, with its reason)."""


def kept_instants(instants: list[float], most: int) -> list[float]:
    """``instants`` when there are at most ``most``, else ``most`` of them
    evenly spread, the first and the last included."""
    if len(instants) <= most:
        return instants
    step = (len(instants) - 1) / (most - 1)
    return [instants[round(i * step)] for i in range(most)]


class Strings:
    """Each distinct string once; data refers to it by its index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        at = self._index.get(text)
        if at is None:
            at = self._index[text] = len(self.items)
            self.items.append(text)
        return at


@dataclass
class Url:
    """A URL (one spelling) some run of the page drew, and where it belongs."""

    url: str
    host: str
    label: str


@dataclass
class Urls:
    """Every URL drawn by any run of the page, in order of first sight."""

    items: list[Url] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def add(self, url: str, host: str) -> int:
        at = self.index.get(url)
        if at is None:
            at = self.index[url] = len(self.items)
            self.items.append(Url(url, host, short_url(url, host)))
        return at


def _log_class(e: Event) -> str:
    """The CSS class of an event's log line (the app colours them the same way)."""
    if isinstance(e, FetchStarted):
        return "dup" if e.duplicate else "start"
    if isinstance(e, FetchFinished):
        return "dup" if e.duplicate_of else "ok"
    if isinstance(e, (FetchFailed, RetryScheduled)):
        return "fail"
    if isinstance(e, Discovered):
        return "found"
    if isinstance(e, Skipped):
        return "seen" if e.reason == "seen" else "skip"
    if isinstance(e, HostDeferred):
        return "wait"
    return "end" if isinstance(e, Done) else ""


def _used_lanes(lanes: list[list[Any]]) -> list[list[Any]]:
    """The lanes up to the last that fetched anything: workers a crawl could
    not use are drawn idle from the run's worker count, so two runs that
    differ only in unused workers share their frames."""
    while lanes and not lanes[-1]:
        lanes.pop()
    return lanes


def host_cells(host: HostStatus, t: float, limit: int | None, finished: bool) -> list[str]:
    """A host's politeness state in the app's words: ``busy 1/1`` (at its
    limit), ``open 1/2``, ``idle``; then ``wait→3.0 s gap`` while a gap,
    Crawl-delay or Retry-After holds it, else its queue and pages fetched."""
    cap = f"/{limit}" if limit else ""
    if host.in_flight and (limit is None or host.in_flight >= limit):
        slots = f"busy {host.in_flight}{cap}"
    elif host.in_flight:
        slots = f"open {host.in_flight}{cap}"
    else:
        slots = "idle"
    if host.waiting(t) and not finished:
        wait = f"wait→{host.deferred_until:.1f} s {host.deferred_reason}"
    else:
        wait = f"queue {host.counts[PageState.FRONTIER]} fetched {host.counts[PageState.DONE]}/{host.total}"
    robots = ""
    if host.robots:
        robots = f"robots {host.robots}" + (f" delay {host.crawl_delay:g}" if host.crawl_delay else "")
    return [slots, wait, robots]


class RunExport:
    """One run's frames and spans, written against the page's shared tables."""

    def __init__(
        self, replay: Replay, urls: Urls, strings: Strings, per_host: int | None,
        layouts: dict[tuple[Place, ...], Layout] | None = None,
    ) -> None:
        self.replay = replay
        self.layouts = {} if layouts is None else layouts
        """Layouts already made, by their places: the page's runs of one web
        mostly draw the same URLs at the same depths, and share the table."""
        self.urls = urls
        self.s = strings
        self.per_host = per_host
        self.own = [urls.add(page.url, page.host) for page in replay.page_list]
        self._seen: set[str] = set()
        self._seen_at = 0

    def places(self) -> list[Place]:
        """Each of the run's URLs as the layout needs it: its host, the page
        it spells (from the fetches), its depth (from the discoveries) and
        what is written beside it at the replay's time (the end, once the
        frames are written: a failed, skipped or lost page's reason too)."""
        page: dict[str, str] = {}
        depth: dict[str, int] = {}
        for e in self.replay.events:
            if isinstance(e, FetchStarted) and e.kind == "page":
                page.setdefault(e.url, e.page)
            elif isinstance(e, Discovered):
                depth.setdefault(e.url, e.depth)
        items = self.urls.items
        return [
            Place(p.host, page.get(p.url, p.url), depth.get(p.url), page.get(p.url, p.url) == p.url,
                  items[at].label + (f" ({p.note})" if p.note and p.state in _NOTED else ""))
            for p, at in zip(self.replay.page_list, self.own, strict=True)
        ]

    def data(self) -> dict[str, Any]:
        """Everything the page draws of this run."""
        replay = self.replay
        instants = kept_instants(sorted(set(replay.times)), MAX_FRAMES)
        self._last: dict[int, tuple[int, int]] = {}
        frames = [self._frame(t) for t in instants]
        hosts = replay.host_order()[:MAX_HOSTS]
        return {
            "end": replay.end,
            "own": self.own,
            "times": instants,
            "changes": [f[0] for f in frames],
            "counters": [f[1] for f in frames],
            "seen": [f[2] for f in frames],
            "hosts": [f[3] for f in frames],
            "hostNames": [self.s(h.name) for h in hosts],
            "moreHosts": len(replay.hosts) - len(hosts),
            "lanes": _used_lanes([[self._span(span) for span in lane] for lane in replay.lanes]),
            "series": [[t, frontier, flight] for t, frontier, flight in replay.series],
            "log": self._log(instants),
            "edges": self._edges() if not replay.large else [],
            "layout": self._layout().data() if not replay.large else None,
        }

    def _layout(self) -> Layout:
        places = tuple(self.places())
        layout = self.layouts.get(places)
        if layout is None:
            layout = self.layouts[places] = lay_out(places)
        return layout

    def _frame(self, t: float) -> tuple[list[list[int]], list[Any], list[int], list[list[int]]]:
        """The instant ``t``: the URLs whose state or note changed since the
        last instant kept, the counters, the seen set and the hosts."""
        replay = self.replay
        replay.seek(t)
        changes: list[list[int]] = []
        seen = self._seen_up_to(replay.cursor)
        outside = 0
        last = self._last
        for page, at in zip(replay.page_list, self.own, strict=True):
            state = int(page.state)
            if page.state == PageState.UNDISCOVERED and page.note.startswith("lost"):
                state = LOST
            if page.state in (PageState.FRONTIER, PageState.IN_FLIGHT) and page.url not in seen:
                outside += 1
            now = (state, self.s(page.note) if page.note else -1)
            if last.get(at, (0, -1)) != now:
                last[at] = now
                changes.append([at, *now])
        c = replay.counters()
        counters = [
            self.s(fetched_text(c)), self.s(duplicates_text(c)), round(c.wasted, 3), c.failed,
            c.frontier, c.in_flight, c.retries, c.skipped, c.capped, c.content_duplicates, c.fetches,
        ]
        hosts = [
            [*(self.s(cell) for cell in host_cells(h, t, self.per_host, c.done)), *h.counts]
            for h in replay.host_order()[:MAX_HOSTS]
        ]
        return changes, counters, [len(seen), outside], hosts

    def _seen_up_to(self, cursor: int) -> set[str]:
        """The seen set after the first ``cursor`` events: every URL a
        ``Discovered`` announced, and every URL robots.txt refused as it was
        discovered (the scheduler marks it seen before asking the gate)."""
        seen = self._seen
        if cursor < self._seen_at:
            seen, self._seen_at = set(), 0
        for e in self.replay.events[self._seen_at : cursor]:
            if isinstance(e, Discovered) or (isinstance(e, Skipped) and e.reason == "robots"):
                seen.add(e.url)
        self._seen, self._seen_at = seen, cursor
        return seen

    def _span(self, span: Any) -> list[Any]:
        label = "robots.txt" if span.kind == "robots" else host_and_path(span.url, span.host)
        end = span.end if span.end != float("inf") else -1
        return [span.start, end, self.s(label), self.s(span.outcome)]

    def _log(self, instants: list[float]) -> list[list[Any]]:
        """The event log's lines with their times; on a long run only the
        last few before each instant kept (the page shows the last few)."""
        hide_seen = len(self.replay.page_list) > LOG_HIDES_SEEN
        events = [e for e in self.replay.events if not (hide_seen and _log_class(e) == "seen")]
        if len(events) > MAX_LOG:
            times = [e.t for e in events]
            keep: set[int] = set()
            for t in instants:
                stop = bisect_right(times, t)
                keep.update(range(max(0, stop - LOG_LINES), stop))
            events = [events[i] for i in sorted(keep)]
        return [[e.t, self.s(describe_event(e)), self.s(_log_class(e))] for e in events]

    def _edges(self) -> list[list[Any]]:
        """Links as edges: ``0`` a discovery (the link that put a URL in the
        frontier), ``1`` discarded (a link to a URL already seen), with the
        time the link was read."""
        index = self.urls.index
        edges = []
        for e in self.replay.events:
            if isinstance(e, Discovered) and e.parent in index:
                edges.append([index[e.parent], index[e.url], 0, e.t])
            elif isinstance(e, Skipped) and e.reason == "seen" and e.parent in index and e.url in index:
                edges.append([index[e.parent], index[e.url], 1, e.t])
        return edges


__all__ = ["LOST", "MAX_FRAMES", "RunExport", "Strings", "Url", "Urls", "host_cells", "kept_instants"]
