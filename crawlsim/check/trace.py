"""The user's run of one case as crawlsim events, so the terminal app and
the notebook can replay it like any simulated crawl.

The checker sees only the calls to ``get_urls``, so the trace holds fetch
events and a final ``Done``: ``Discovered`` just before each fetch starts
(the crawler's seen set is out of sight; a URL it fetches it had seen, and
one it fetches again it took for new, so the views' seen set and page count
hold no false alarm), ``FetchStarted`` (lane = the lowest free slot
the service tracked, ``duplicate`` = that page was fetched before, ``depth``
= BFS depth in the case's web), ``FetchFinished`` or ``FetchFailed``.
``new_links`` counts links to on-host pages that no earlier fetch had
returned -- the checker's view of discovery, since it cannot see the user's
seen set.  Times are seconds since the crawl was called.

An event's ``host`` is :func:`crawlsim.core.urls.host_key`, as in every
simulated trace, so the views group the user's fetches by server the way
they group the simulator's (``a.com:8080`` is a server of its own).  What
is *in scope* stays the interview's rule, the same hostname
(``cases.hostname``).
"""

from __future__ import annotations

from crawlsim.check.cases import depths, hostname, page_of
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.trace.events import Discovered, Done, Event, FetchFailed, FetchFinished, FetchStarted
from crawlsim.core.urls import host_key


def run_events(run: CaseRun) -> list[Event]:
    """Events of ``run`` in time order, ending with ``Done``."""
    moments: list[tuple[float, int, int]] = []
    for r in run.records:
        moments.append((r.start, STARTED, r.fetch_id))
        if r.end is not None:
            moments.append((r.end, ENDED, r.fetch_id))
    moments.sort()
    tracer = _Tracer(run)
    by_id = {r.fetch_id: r for r in run.records}
    events = [e for t, phase, fetch_id in moments for e in tracer.events(round(t, 6), phase, by_id[fetch_id])]
    result = run.result if run.error is None and not run.timed_out else None
    last = events[-1].t if events else 0.0
    events.append(Done(t=round(max(run.wall, last), 6), pages=len(set(result or ())), fetches=len(run.records)))
    return events


STARTED, ENDED = 0, 1
"""A fetch's two moments; a start sorts before an end at the same instant."""


class _Tracer:
    """Turns a run's fetch moments, in time order, into events.  It keeps what
    an event needs from earlier moments: which pages were fetched already (a
    second fetch is a duplicate), how often each page failed (the attempt
    number), which on-host pages some fetch had linked (``new_links``)."""

    def __init__(self, run: CaseRun) -> None:
        self.depth = {page_of(page): d for page, d in depths(run.case).items()}
        self.start_host = hostname(run.case.start)
        self.fetched: set[str] = set()
        self.duplicates: set[int] = set()
        self.failures: dict[str, int] = {}
        self.linked: set[str] = {page_of(run.case.start)}
        self.parent: dict[str, str] = {}
        """The page that first linked each page: its parent when discovered."""

    def events(self, t: float, phase: int, r: FetchRecord) -> list[Event]:
        """The events of ``r`` at this moment: discovered and started, finished or failed."""
        if phase == STARTED:
            found = Discovered(t=t, url=r.url, host=host_key(r.url), depth=self.depth.get(r.page, 0),
                               parent=self.parent.get(r.page))
            return [found, self.started(t, r)]
        if r.outcome == "ok":
            return [self.finished(t, r)]
        return [self.failed(t, r)]

    def started(self, t: float, r: FetchRecord) -> Event:
        duplicate = r.page in self.fetched
        if duplicate:
            self.duplicates.add(r.fetch_id)
        self.fetched.add(r.page)
        return FetchStarted(
            t=t,
            fetch_id=r.fetch_id,
            url=r.url,
            host=host_key(r.url),
            kind="page",
            depth=self.depth.get(r.page, 0),
            attempt=self.failures.get(r.page, 0) + 1,
            slot=r.slot,
            page=r.page,
            duplicate=duplicate,
        )

    def finished(self, t: float, r: FetchRecord) -> Event:
        fresh = {page_of(link) for link in r.links if hostname(link) == self.start_host} - self.linked
        self.linked |= fresh
        for page in fresh:
            self.parent[page] = r.page
        return FetchFinished(
            t=t,
            fetch_id=r.fetch_id,
            url=r.url,
            host=host_key(r.url),
            kind="page",
            status=200,
            links=len(r.links),
            new_links=len(fresh),
            duplicate_of=r.page if r.fetch_id in self.duplicates else None,
        )

    def failed(self, t: float, r: FetchRecord) -> Event:
        self.failures[r.page] = self.failures.get(r.page, 0) + 1
        return FetchFailed(
            t=t,
            fetch_id=r.fetch_id,
            url=r.url,
            host=host_key(r.url),
            kind="page",
            reason=r.error or r.outcome,
            final=True,
        )
