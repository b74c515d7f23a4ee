"""One response's links admitted a bounded number at a time
(:meth:`crawlsim.core.scheduler.Scheduler.begin_response`).

Why: a page of a few hundred thousand links takes seconds to admit
(canonicalize, scope, seen set, queue), and a driver with a deadline -- the
real crawler's time limit -- can only look at its clock between calls.  The
design keeps one meaning for the events:

* stepping an :class:`Admission` to its end *is* ``on_response``: the same
  links in the same order and batch, the same events at the same time
  ``now`` (the response's), and the response's ``FetchFinished`` is still
  its last event, after its links' ``Discovered``/``Skipped``.  So a trace
  does not depend on the step, nor on whether the driver steps at all;
* while an admission is open the scheduler takes no call that would change
  it (:class:`~crawlsim.core.refusals.SchedulerBusy`, nothing changed): nothing else happens inside
  a response, as in the simulator, where a response takes no time;
* :meth:`Admission.close` ends one early.  The links not yet examined are
  dropped -- never queued, never marked seen, never announced one by one
  (at a time limit, writing a hundred thousand events would cost what the
  limit is there to stop) -- and counted in :attr:`Admission.dropped`, for
  the driver to report.  ``FetchFinished`` then counts every link the page
  had (``links``) and the new ones among those examined (``new_links``),
  and no ``Done`` follows, even when nothing is left to fetch: the crawl
  was cut short, not finished.

A per-page link cap (Nutch's ``db.max.outlinks.per.page`` of 100,
Heritrix's ``maxOutlinks`` of 6,000) would bound the work too, but changes
what is crawled on every large page, limit or no limit; stepping changes
nothing unless the time limit comes in the middle of a page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from crawlsim.core.plain import short

__all__ = ["Admission"]


class Admission:
    """The links of one response, examined :meth:`step` by step.

    ``expand(part, first)`` admits ``part`` (the next links, in page order;
    ``first`` on the first part, which opens the page's batch) and returns
    how many were queued; ``end(new, cut)`` reports the response (its
    ``FetchFinished``; ``cut`` when links were dropped, so the crawl is not
    announced as done) and frees the scheduler.  Both are the scheduler's;
    ``follow`` None means there is nothing to admit (``end`` still runs),
    ``end`` None that the response was wholly handled already (a retry, a
    robots.txt)."""

    __slots__ = ("_end", "_expand", "_follow", "dropped", "examined", "finished", "links", "new", "url")

    def __init__(
        self,
        url: str,
        links: int,
        follow: Sequence[object] | None,
        expand: Callable[[Sequence[object], bool], int] | None,
        end: Callable[[int, bool], None] | None,
    ) -> None:
        self.url = url
        """The fetched page's URL."""
        self.links = links
        """How many links the page had (its ``FetchFinished`` counts them)."""
        self._follow = follow
        self._expand = expand
        self._end = end
        self.examined = 0
        """Links examined so far (queued, or skipped with their reason)."""
        self.new = 0
        """Links queued so far."""
        self.dropped = 0
        """Links never examined because :meth:`close` came first."""
        self.finished = end is None
        """True once the response is wholly reported (its ``FetchFinished`` emitted)."""
        if not self.finished and follow is None:
            self._finish()  # a content duplicate: no link is followed

    @property
    def remaining(self) -> int:
        """Links not yet examined."""
        return 0 if self.finished or self._follow is None else len(self._follow) - self.examined

    def step(self, limit: int) -> bool:
        """Examine up to ``limit`` (an int >= 1) more links; True once the
        response is finished (and from then on)."""
        if type(limit) is not int or limit < 1:
            raise ValueError(f"limit: expected an int >= 1, got {short(limit)}")
        if self.finished:
            return True
        follow, expand = self._follow, self._expand
        assert follow is not None and expand is not None
        start = self.examined
        part = follow if not start and len(follow) <= limit else follow[start : start + limit]
        self.new += expand(part, not start)
        self.examined = start + len(part)
        if self.examined >= len(follow):
            self._finish()
        return self.finished

    def close(self) -> int:
        """End the admission now, dropping the links not yet examined;
        how many were dropped (0 once it had finished)."""
        if not self.finished:
            self.dropped = self.remaining
            self._finish(cut=self.dropped > 0)
        return self.dropped

    def _finish(self, cut: bool = False) -> None:
        self.finished = True
        assert self._end is not None
        self._end(self.new, cut)
