"""The errors a scheduler call raises when it refuses to run: the call
names no fetch in flight (:class:`UnknownFetch`), or it came while a
response's links were still being admitted (:class:`SchedulerBusy`).
Either way nothing changed; bad argument values are ``TypeError`` /
``ValueError`` (see :mod:`crawlsim.core.plain`)."""

from __future__ import annotations

from crawlsim.core.plain import plain_number, short
from crawlsim.errors import CrawlsimError

__all__ = ["SchedulerBusy", "UnknownFetch"]


class UnknownFetch(CrawlsimError, KeyError):
    """``on_response``/``on_error`` named a fetch that is not in flight
    (never started, or already answered).  A ``KeyError``, so callers that
    caught the old error still do; ``str()`` is the plain message."""

    def __init__(self, fetch_id: object) -> None:
        plain = plain_number(fetch_id)
        super().__init__(fetch_id if plain is None else plain)
        self.fetch_id = fetch_id if plain is None else plain

    def __str__(self) -> str:
        return f"fetch_id: no fetch {short(self.fetch_id)} is in flight (unknown, or already answered)"


class SchedulerBusy(CrawlsimError, RuntimeError):
    """A call that would change the scheduler came while a response's links
    were still being admitted: step the
    :class:`~crawlsim.core.admission.Admission` to its end, or
    close it, first.  Nothing changed."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url

    def __str__(self) -> str:
        return f"the links of {short(self.url)} are still being admitted: step or close that admission first"
