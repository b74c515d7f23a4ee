"""The user's run of one case as crawlsim events, so the terminal app and
the notebook can replay it like any simulated crawl.

The checker sees only the calls to ``get_urls``, so the trace holds fetch
events and a final ``Done``: ``FetchStarted`` (lane = the lowest free slot
the service tracked, ``duplicate`` = that page was fetched before, ``depth``
= BFS depth in the case's web), ``FetchFinished`` or ``FetchFailed``.
``new_links`` counts links to on-host pages that no earlier fetch had
returned -- the checker's view of discovery, since it cannot see the user's
seen set.  Times are seconds since the crawl was called.
"""

from __future__ import annotations

from crawlsim.check.cases import depths, hostname, page_of
from crawlsim.check.runner import CaseRun
from crawlsim.core.events import Done, Event, FetchFailed, FetchFinished, FetchStarted


def run_events(run: CaseRun) -> list[Event]:
    """Events of ``run`` in time order, ending with ``Done``."""
    depth = {page_of(page): d for page, d in depths(run.case).items()}
    start_host = hostname(run.case.start)
    moments: list[tuple[float, int, int]] = []
    by_id = {r.fetch_id: r for r in run.records}
    for r in run.records:
        moments.append((r.start, 0, r.fetch_id))
        if r.end is not None:
            moments.append((r.end, 1, r.fetch_id))
    moments.sort()
    events: list[Event] = []
    fetched: set[str] = set()
    duplicates: set[int] = set()
    failures: dict[str, int] = {}
    linked: set[str] = {page_of(run.case.start)}
    for t, phase, fetch_id in moments:
        r = by_id[fetch_id]
        host = hostname(r.url) or ""
        if phase == 0:
            events.append(
                FetchStarted(
                    t=round(t, 6),
                    fetch_id=r.fetch_id,
                    url=r.url,
                    host=host,
                    kind="page",
                    depth=depth.get(r.page, 0),
                    attempt=failures.get(r.page, 0) + 1,
                    slot=r.slot,
                    page=r.page,
                    duplicate=r.page in fetched,
                )
            )
            if r.page in fetched:
                duplicates.add(r.fetch_id)
            fetched.add(r.page)
        elif r.outcome == "ok":
            fresh = {page_of(link) for link in r.links if hostname(link) == start_host} - linked
            linked |= fresh
            events.append(
                FetchFinished(
                    t=round(t, 6),
                    fetch_id=r.fetch_id,
                    url=r.url,
                    host=host,
                    kind="page",
                    status=200,
                    links=len(r.links),
                    new_links=len(fresh),
                    duplicate_of=r.page if r.fetch_id in duplicates else None,
                )
            )
        else:
            failures[r.page] = failures.get(r.page, 0) + 1
            events.append(
                FetchFailed(
                    t=round(t, 6),
                    fetch_id=r.fetch_id,
                    url=r.url,
                    host=host,
                    kind="page",
                    reason=r.error or r.outcome,
                    final=True,
                )
            )
    result = run.result if run.error is None and not run.timed_out else None
    last = events[-1].t if events else 0.0
    events.append(Done(t=round(max(run.wall, last), 6), pages=len(set(result or ())), fetches=len(run.records)))
    return events
