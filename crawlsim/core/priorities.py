"""Named best-first priorities: ``order = "best"`` with ``priority = "shallowest"``.

A best-first crawl asks ``priority(url, depth)`` once, when a URL joins the
frontier, and fetches lower values first (ties in discovery order).  Any
function of that shape can be passed from Python; these have names, so a
scenario file, ``--priority NAME`` and ``--set priority=NAME`` can choose
them, and ``run --json`` can say which was used (``options.priority``).

``shallowest``
    the URL's depth: every page of depth d before any of depth d + 1, across
    all hosts (BFS by levels, whatever order the responses come back in).
``host-round-robin``
    how many URLs of the same host were queued before this one: each host's
    first URL, then each host's second, ... -- hosts take turns, so one big
    host cannot fill the frontier's head.  This one keeps state (a count per
    host): it is fixed when the URL is queued, which is the only moment the
    core asks.
``shortest-url``
    the URL's length: short URLs (site sections, index pages) before long ones
    (deep paths, query strings).

A priority with state must start empty for every crawl, or a second run with
the same options would be ordered by the first run's counts.  So a
:class:`NamedPriority` is a *recipe*: :class:`crawlsim.core.options.CrawlOptions`
hands each reader of ``options.priority`` a fresh copy (:meth:`NamedPriority.fresh`),
and each scheduler reads it once.  The same options therefore give the same
order on every run, in any process.

Why no ``fewest-fetched-host``: a URL's priority is computed once, when it is
queued, from ``(url, depth)`` only; how many pages of its host have been
*fetched* changes after that, and the core does not re-key a queued URL.
``host-round-robin`` is the ordering that can be decided at queueing time.
"""

from __future__ import annotations

from collections.abc import Callable

from crawlsim.core.urls import host_key


def _shallowest(url: str, depth: int, state: dict[str, int]) -> float:
    return depth


def _shortest_url(url: str, depth: int, state: dict[str, int]) -> float:
    return len(url)


def _host_round_robin(url: str, depth: int, state: dict[str, int]) -> float:
    host = host_key(url)  # the scheduler's own notion of a host
    rank = state.get(host, 0)
    state[host] = rank + 1
    return rank


class NamedPriority:
    """A best-first priority known by name: call it as ``priority(url, depth)``.

    Equal (and hashed) by name, so options that name the same priority are
    equal whatever state a copy has gathered."""

    __slots__ = ("_rule", "_state", "description", "name")

    def __init__(self, name: str, description: str, rule: Callable[[str, int, dict[str, int]], float]) -> None:
        self.name = name
        self.description = description
        self._rule = rule
        self._state: dict[str, int] = {}

    def __call__(self, url: str, depth: int) -> float:
        return self._rule(url, depth, self._state)

    def fresh(self) -> NamedPriority:
        """The same priority with empty state (one per crawl)."""
        return NamedPriority(self.name, self.description, self._rule)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NamedPriority) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("NamedPriority", self.name))

    def __repr__(self) -> str:
        return f"NamedPriority({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Callable[[str], NamedPriority], tuple[str]]:
        return (priority_named, (self.name,))  # pickled by name (sweep's worker processes)


PRIORITIES: dict[str, NamedPriority] = {
    p.name: p
    for p in (
        NamedPriority("shallowest", "lowest depth first (levels, across all hosts)", _shallowest),
        NamedPriority(
            "host-round-robin", "hosts take turns: each host's n-th URL after every host's (n-1)-th", _host_round_robin
        ),
        NamedPriority("shortest-url", "shortest URL first", _shortest_url),
    )
}
"""Every named priority, by name (what ``--priority`` accepts)."""


def priority_named(name: str) -> NamedPriority:
    """A fresh copy of the priority called ``name`` (``KeyError`` if none is)."""
    return PRIORITIES[name].fresh()


def priority_name(priority: object) -> str | None:
    """The name of a named priority, else None (a Python function has none)."""
    return priority.name if isinstance(priority, NamedPriority) else None


__all__ = ["PRIORITIES", "NamedPriority", "priority_name", "priority_named"]
