"""Typed, frozen events emitted by the crawl scheduler.

Every driver (SimPy, threads, asyncio) and every view (terminal app, notebook)
consumes these and nothing else, so that what a view draws is exactly what the
scheduler decided.  Each event carries the time ``t`` the driver passed in;
the core never reads a clock.

Events serialise to flat JSON objects (``event_to_dict``/``event_from_dict``)
and a trace is one such object per line (JSONL).  The ``type`` key names the
class.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

SkipReason = Literal["seen", "scope", "robots", "depth", "cap", "malformed", "scheme"]
"""Why a link was not added to the frontier.

``seen``: its canonical form was already discovered; ``scope``: outside the
configured scope or allow/deny patterns; ``robots``: disallowed by the host's
robots.txt; ``depth``: beyond ``depth_limit``; ``cap``: ``max_pages`` or
``max_pages_per_host`` reached; ``malformed``: could not be parsed as a URL;
``scheme``: not http(s) (mailto:, javascript:, ...).
"""

FetchKind = Literal["page", "robots"]
DeferReason = str
"""The politeness rule that holds a host: one of
:data:`crawlsim.core.politeness.DEFER_REASONS` (the part that owns the rules
lists them, so a new rule needs no change here)."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base class: ``t`` is the driver's time (seconds) when it happened."""

    t: float


@dataclass(frozen=True, slots=True)
class Discovered(Event):
    """A new canonical URL entered the frontier (and the seen set)."""

    url: str
    host: str
    depth: int
    parent: str | None


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """A link found on ``parent`` (or a seed) was not queued, and why."""

    url: str
    parent: str | None
    reason: SkipReason
    href: str = ""


@dataclass(frozen=True, slots=True)
class FetchStarted(Event):
    """A fetch was handed to the driver.

    ``slot`` is the lowest free worker slot (0 .. workers-1): views draw one
    lane per slot.  ``page`` is the page's true identity (the driver's
    ``page_of``); ``duplicate`` is true when that page was already fetched
    under another spelling -- wasted work that only weak normalization allows.
    """

    fetch_id: int
    url: str
    host: str
    kind: FetchKind
    depth: int
    attempt: int
    slot: int
    page: str
    duplicate: bool


@dataclass(frozen=True, slots=True)
class FetchFinished(Event):
    """A fetch returned a response (any status that is not retried)."""

    fetch_id: int
    url: str
    host: str
    kind: FetchKind
    status: int
    links: int
    new_links: int
    duplicate_of: str | None = None


@dataclass(frozen=True, slots=True)
class FetchFailed(Event):
    """A fetch failed.  ``final`` means no retry follows: the page is recorded
    as failed with ``reason`` and still counts as found."""

    fetch_id: int
    url: str
    host: str
    kind: FetchKind
    reason: str
    final: bool


@dataclass(frozen=True, slots=True)
class RetryScheduled(Event):
    """A failed or throttled fetch will be retried at ``at``."""

    url: str
    host: str
    attempt: int
    at: float
    reason: str


@dataclass(frozen=True, slots=True)
class HostDeferred(Event):
    """No request may start on ``host`` before ``until``, and why."""

    host: str
    until: float
    reason: DeferReason


@dataclass(frozen=True, slots=True)
class RobotsLoaded(Event):
    """A host's robots.txt was applied (``crawl_delay`` after the cap)."""

    host: str
    status: int
    crawl_delay: float | None
    disallow_all: bool


@dataclass(frozen=True, slots=True)
class Done(Event):
    """Frontier empty, nothing in flight, no retry pending."""

    pages: int
    fetches: int


# -- a cluster's own events ------------------------------------------------------
# The scheduler never emits these: the cluster driver (crawlsim.cluster) adds
# them to its trace, so views replay messages and failures from the same
# stream as fetches.  They live here so that every trace reader knows them.


@dataclass(frozen=True, slots=True)
class MessageSent(Event):
    """Node ``src`` sent ``links`` links (``size`` bytes) owned by node ``dst``."""

    src: int
    dst: int
    links: int
    size: int


@dataclass(frozen=True, slots=True)
class MessageDelivered(Event):
    """A message from ``src`` reached ``dst``; ``lost`` when ``dst`` was down
    (its links are gone with it)."""

    src: int
    dst: int
    links: int
    lost: bool


@dataclass(frozen=True, slots=True)
class NodeFailed(Event):
    """Node ``node`` stopped: its queued, in-flight and outgoing URLs (``lost``) are gone."""

    node: int
    lost: int


@dataclass(frozen=True, slots=True)
class NodeRecovered(Event):
    """Node ``node`` came back, from its checkpoint taken at ``restored_from``
    (None: with an empty frontier)."""

    node: int
    restored_from: float | None


CLUSTER_EVENTS: tuple[type[Event], ...] = (MessageSent, MessageDelivered, NodeFailed, NodeRecovered)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        Discovered,
        Skipped,
        FetchStarted,
        FetchFinished,
        FetchFailed,
        RetryScheduled,
        HostDeferred,
        RobotsLoaded,
        Done,
        *CLUSTER_EVENTS,
    )
}


_FIELDS: dict[type, tuple[str, ...]] = {}
"""Each event class's field names, in order (looked up once per class)."""


def event_to_dict(event: Event) -> dict[str, Any]:
    """Flat JSON-ready dict with a ``type`` key naming the event class.

    (``asdict``'s deep copy, but flat: every field is a str, number, bool or
    None; this runs once per line of a trace file, 800,000 times at 100,000 pages.)"""
    cls = type(event)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    data = {name: getattr(event, name) for name in names}
    data["type"] = cls.__name__
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`; raises ``ValueError`` on an unknown
    type or missing field, so a corrupt trace fails with a clear message."""
    name = data.get("type")
    cls = EVENT_TYPES.get(str(name))
    if cls is None:
        raise ValueError(f"unknown event type {name!r}")
    names = {f.name for f in fields(cls)}
    missing = names - data.keys()
    if missing:
        raise ValueError(f"{name} event is missing {sorted(missing)}")
    return cls(**{k: data[k] for k in names})
