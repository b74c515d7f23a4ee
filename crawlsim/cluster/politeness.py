"""Politeness across the cluster, measured.

Each node's scheduler keeps ``per_host`` and ``gap`` for the requests *it*
makes.  When one host's URLs are spread over several nodes (``url-hash``),
nobody keeps them for the host as a whole.  :class:`PolitenessWatch` sees
every request start in the cluster and counts a **violation** when a
request to host ``h`` starts

* while ``per_host`` (when set) requests to ``h`` are already in flight,
  summed over all nodes, or
* before the time the last request to ``h`` made ready again -- the
  ``ready_at`` (gap, Crawl-delay, Retry-After, randomised gap as drawn) that
  the starting node's core set, taken as the latest over all nodes.

On one node these are exactly the rules its core enforces, so a partition
that gives each host one node (host-hash, consistent-hash, round-robin)
has no violations -- a property ``tests/test_cluster.py`` checks.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from crawlsim.core.options import CrawlOptions

if TYPE_CHECKING:
    from crawlsim.core.fetch import Fetch
    from crawlsim.core.scheduler import Scheduler


class PolitenessWatch:
    def __init__(self, opts: CrawlOptions) -> None:
        self.per_host = opts.per_host
        self.in_flight: dict[str, int] = {}
        self.ready_at: dict[str, float] = {}
        self.violations = 0
        self.by_host: Counter[str] = Counter()

    def started(self, sched: Scheduler, fetch: Fetch, now: float) -> None:
        """``fetch`` started at ``now`` on the node whose scheduler is ``sched``."""
        host = fetch.host
        busy = self.in_flight.get(host, 0)
        early = now < self.ready_at.get(host, now)
        if early or (self.per_host is not None and busy >= self.per_host):
            self.violations += 1
            self.by_host[host] += 1
        self.in_flight[host] = busy + 1
        ready = sched.host_states()[host].ready_at
        if ready > self.ready_at.get(host, ready - 1):
            self.ready_at[host] = ready

    def finished(self, fetch: Fetch) -> None:
        self.in_flight[fetch.host] -= 1


__all__ = ["PolitenessWatch"]
