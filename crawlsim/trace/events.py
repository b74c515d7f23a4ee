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

from collections.abc import Callable, Collection
from dataclasses import dataclass, fields
from typing import Any, Literal, get_args

from crawlsim.errors import UsageError

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
"""The politeness rule that holds a host: one of :data:`DEFER_REASONS`."""

DEFER_REASONS: tuple[str, ...] = ("gap", "crawl-delay", "retry-after", "token-bucket")
"""Every ``HostDeferred.reason`` the core emits, one per politeness rule
(:mod:`crawlsim.core.politeness` owns the rules; the words are the trace's,
here below the core, and the event log's codes follow this order)."""
Emit = Callable[..., None]
"""``emit(EventType, *fields)``: how the scheduler and its parts announce an
event.  It builds ``EventType(now, *fields)`` only when events are recorded:
an untraced crawl skips millions of links, and a frozen event costs a
``__setattr__`` per field."""


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


class TraceError(UsageError):
    """A trace record that is not one of these events (a wrong type, a value
    out of range, an unknown or missing field).  A user-input error: the CLI
    prints it on one line and exits 2."""


MAX_TRACE_TIME = 1e9
"""The latest time (seconds, about 32 years) a trace event may carry: a
replay draws and plays up to its last time, so an absurd one (1e308) would
leave the clock nothing to show for every frame."""
MAX_TRACE_SLOTS = 100_000
"""Worker slots a trace may use (the options' workers limit): a view
draws one lane per slot."""
MAX_TRACE_COUNT = 2**53
"""Any other count or id (pages, links, bytes): a JSON number that is still exact."""
MAX_TRACE_STATUS = 999
"""HTTP status codes have three digits (0: no answer)."""

_INT_BOUNDS: dict[str, tuple[int, int]] = {
    "slot": (0, MAX_TRACE_SLOTS - 1),
    "status": (0, MAX_TRACE_STATUS),
    "fetch_id": (-MAX_TRACE_COUNT, MAX_TRACE_COUNT),  # a cluster's trace numbers orphan answers below 0
    "src": (0, MAX_TRACE_SLOTS - 1),
    "dst": (0, MAX_TRACE_SLOTS - 1),
    "node": (0, MAX_TRACE_SLOTS - 1),
}
_ALIASES: dict[str, Any] = {"SkipReason": SkipReason, "FetchKind": FetchKind, "DeferReason": DeferReason}
"""The annotations that name a set of words: a ``Literal`` is checked
against its words, an alias of plain ``str`` (a set another module owns) as text."""


@dataclass(frozen=True, slots=True)
class _Schema:
    """One event class's fields grouped by how each is checked (built once
    from its annotations, so the checks follow the classes)."""

    cls: type[Event]
    names: tuple[str, ...]
    """Every field, in the constructor's order."""
    times: tuple[str, ...]
    optional_times: tuple[str, ...]
    ints: tuple[tuple[str, int, int], ...]
    texts: tuple[str, ...]
    optional_texts: tuple[str, ...]
    flags: tuple[str, ...]
    choices: tuple[tuple[str, tuple[str, ...]], ...]


def _schema(cls: type[Event]) -> _Schema:
    """``cls``'s fields grouped by the check each annotation calls for."""
    groups: dict[str, list[Any]] = {k: [] for k in ("float", "float | None", "int", "str", "str | None", "bool", "choice")}
    for f in fields(cls):
        kind = str(f.type)
        words = get_args(_ALIASES[kind]) if kind in _ALIASES else ()
        if words:
            groups["choice"].append((f.name, words))
        elif kind in _ALIASES:
            groups["str"].append(f.name)
        elif kind == "int":
            groups["int"].append((f.name, *_INT_BOUNDS.get(f.name, (0, MAX_TRACE_COUNT))))
        else:
            groups[kind].append(f.name)  # a new annotation kind fails here, at import
    return _Schema(
        cls, tuple(f.name for f in fields(cls)), *(tuple(groups[k]) for k in groups)  # type: ignore[arg-type]
    )


def event_from_dict(data: dict[str, Any], *, extra: Collection[str] | None = None) -> Event:
    """Inverse of :func:`event_to_dict`, checking every field: a trace is
    input, so a value of the wrong type, a time that is not finite in
    0..:data:`MAX_TRACE_TIME`, a count or slot out of range or text that is
    not text raises :class:`TraceError` (a ``ValueError``) saying which field.

    ``extra``: the keys besides the event's own a record may have (any
    other is refused, by name); None ignores other keys, as readers that do
    not know a cluster's ``"node"`` key do."""
    if not isinstance(data, dict):
        raise TraceError(f"an event must be a JSON object, got {_brief(data)}")
    name = data.get("type")
    schema = _SCHEMAS.get(name) if name.__class__ is str else None  # type: ignore[call-overload]
    if schema is None:
        raise TraceError(f"unknown event type {_brief(name)}; expected one of {', '.join(_SCHEMAS)}")
    if extra is not None or len(data) != len(schema.names) + 1:
        _check_keys(data, schema, extra)
    try:
        _check_values(data, schema)
    except KeyError:  # a field missing and another key in its place
        _check_keys(data, schema, None)
        raise
    return schema.cls(*[data[k] for k in schema.names])


def _check_keys(data: dict[str, Any], schema: _Schema, extra: Collection[str] | None) -> None:
    """Every field present; no key but ``type``, the fields and ``extra`` (unless None)."""
    missing = [k for k in schema.names if k not in data]
    if missing:
        raise TraceError(f"{schema.cls.__name__} event is missing {missing}")
    if extra is not None:
        unknown = sorted(k for k in data if k != "type" and k not in schema.names and k not in extra)
        if unknown:
            raise TraceError(f"{schema.cls.__name__} event has unknown field(s) {unknown}")


def _check_values(data: dict[str, Any], schema: _Schema) -> None:
    """Each field's type and range (the common case costs a few comparisons a field)."""
    for key in schema.times:
        v = data[key]
        if (v.__class__ is not float and v.__class__ is not int) or not 0.0 <= v <= MAX_TRACE_TIME:
            _bad(schema, key, v, f"a time in seconds, 0-{MAX_TRACE_TIME:,.0f}")
    for key in schema.optional_times:
        v = data[key]
        if v is not None and ((v.__class__ is not float and v.__class__ is not int) or not 0.0 <= v <= MAX_TRACE_TIME):
            _bad(schema, key, v, f"null or a time in seconds, 0-{MAX_TRACE_TIME:,.0f}")
    _check_counts(data, schema)
    _check_words(data, schema)


def _check_counts(data: dict[str, Any], schema: _Schema) -> None:
    """Whole numbers (not booleans, not 1.0) within each field's bounds."""
    for key, low, high in schema.ints:
        v = data[key]
        if v.__class__ is not int or not low <= v <= high:
            _bad(schema, key, v, f"a whole number {low:,}-{high:,}")


def _check_words(data: dict[str, Any], schema: _Schema) -> None:
    """Text, true/false and the named choices (a kind, a skip or defer reason)."""
    for key in schema.texts:
        if not _is_text(data[key]):
            _bad(schema, key, data[key], "a string of valid text")
    for key in schema.optional_texts:
        v = data[key]
        if v is not None and not _is_text(v):
            _bad(schema, key, v, "null or a string of valid text")
    for key in schema.flags:
        if data[key].__class__ is not bool:
            _bad(schema, key, data[key], "true or false")
    for key, allowed in schema.choices:
        if data[key].__class__ is not str or data[key] not in allowed:
            _bad(schema, key, data[key], f"one of {', '.join(allowed)}")


def _is_text(value: object) -> bool:
    """A str that can be written out again: no lone surrogate (JSON's
    ``"\\ud800"`` decodes to one, and no terminal can print it)."""
    if value.__class__ is not str:
        return False
    if value.isascii():  # type: ignore[attr-defined]
        return True
    try:
        value.encode("utf-8")  # type: ignore[attr-defined]
    except UnicodeEncodeError:
        return False
    return True


def _bad(schema: _Schema, key: str, value: object, expected: str) -> None:
    raise TraceError(f'{schema.cls.__name__} "{key}" is {_brief(value)}; expected {expected}')


def _brief(value: object) -> str:
    """``repr(value)``, cut short: a hostile value may be a megabyte long."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


_SCHEMAS: dict[str, _Schema] = {name: _schema(cls) for name, cls in EVENT_TYPES.items()}
