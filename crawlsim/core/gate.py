"""The robots gate: a host's robots.txt is asked for first, then obeyed."""

from __future__ import annotations

from collections.abc import Callable

from crawlsim.trace.events import Emit, RobotsLoaded, SkipReason
from crawlsim.core.download_slots import Frontier
from crawlsim.core.frontier import ROBOTS_KEY, ROBOTS_NUMBER, HostState, Key
from crawlsim.core.options import CrawlOptions
from crawlsim.core.politeness import Politeness
from crawlsim.core.robots import RobotsPolicy, policy_from_response, unreachable_policy
from crawlsim.core.states import RobotsEntry, RobotsStatus

Skip = Callable[[float, str, "str | None", SkipReason], None]


class RobotsGate:
    """robots.txt per host, as the scheduler obeys it.

    Invariant: with ``robots`` on, a host's first fetch is its robots.txt,
    and while that is ``PENDING`` none of its pages starts (the frontier
    holds them); once ``LOADED``, no URL the policy disallows is queued,
    started or reported found -- each is skipped with reason ``robots`` and
    kept in :attr:`blocked`.  With ``robots`` off every host stays
    ``NOT_ASKED`` and the gate allows everything.
    """

    def __init__(
        self,
        options: CrawlOptions,
        frontier: Frontier,
        emit: Emit,
        skip: Skip,
        politeness: Politeness,
    ) -> None:
        self.enabled = options.robots
        self._user_agent = options.user_agent
        self._politeness = politeness
        """Honours the Crawl-delay (capped)."""
        # Integer keys for bfs/dfs/lifo (see frontier.py); best-first compares tuples.
        self._key: Key = ROBOTS_KEY if options.order == "best" else ROBOTS_NUMBER
        self._frontier = frontier
        self._emit = emit
        self._skip = skip
        self.blocked: set[str] = set()
        """URLs the robots.txt of their host disallows (found, never fetched)."""

    def first_sight(self, host: HostState, scheme: str, now: float) -> None:
        """A new host: queue its robots.txt ahead of everything else of it."""
        if self.enabled:
            host.robots_status = RobotsStatus.PENDING
            url = f"{scheme}://{host.name}/robots.txt"
            self._frontier.push(host, RobotsEntry((self._key, url, 0)), now)

    def refuses(self, host: HostState, url: str, parent: str | None, now: float) -> bool:
        """Whether ``host``'s loaded robots.txt disallows ``url``; if it does,
        ``url`` is recorded as blocked and skipped (an event)."""
        policy = host.policy
        if policy is None or policy.allowed(url):
            return False
        self.blocked.add(url)
        self._skip(now, url, parent, "robots")
        return True

    def answered(self, host: HostState, status: int, body: str | None, now: float) -> None:
        """The robots.txt fetch got a response (RFC 9309 decides what it means)."""
        self._load(host, policy_from_response(status, body, self._user_agent), status, now)

    def unreachable(self, host: HostState, now: float) -> None:
        """The robots.txt fetch failed for good: assume complete disallow."""
        self._load(host, unreachable_policy(self._user_agent), 0, now)

    def _load(self, host: HostState, policy: RobotsPolicy, status: int, now: float) -> None:
        """The host's policy is known: hand its Crawl-delay to politeness, drop the
        queued URLs it disallows, and let the host start again."""
        host.policy = policy
        host.robots_status = RobotsStatus.LOADED
        delay = self._politeness.crawl_delay(host, policy.crawl_delay, now)
        self._emit(RobotsLoaded, now, host.name, status, delay, policy.disallow_all)
        for _, url, _ in self._frontier.purge(host, lambda e: not policy.allowed(e[1]), now):
            self.blocked.add(url)
            self._skip(now, url, None, "robots")
        self._frontier.reconsider(host, now)
