"""A compact, append-only store of core events that reads as ``Sequence[Event]``.

Why: a traced crawl emits about eight events per page (mostly ``Skipped``
"seen" for links to pages already found).  As frozen dataclasses in a list
they cost about 1,400 bytes per page at 100,000 pages -- nine times the
untraced run -- and keep alive every link string the web generated, since a
skipped link's ``url`` is the string as written.  :class:`Trace` keeps the
same events as columns instead, and builds an event object only when one is
read, so every reader (replay, narration, bounds, coverage, the exports)
works unchanged on it.

How an event is stored (``append``):

* one byte in ``_codes``: which event class, with its small enumerations
  folded in (``Skipped.reason``, ``kind``, ``final``, ``duplicate``...) and
  what is implied (the parent is the previous event's parent, ``page`` is
  the URL, ``href`` is empty or the URL, the fetch id is the previous one
  plus one).  Bit 7 says "a new time": ``t`` is pushed on ``_times`` only
  when it changes (a page's events share the time its response arrived).
* its integers in ``_data`` (``array('i')``): counts, depths, slots, and
  every string as an index into one string table (``_strings``), so the
  hundred-odd ``Skipped`` events naming one URL hold one copy of it, and
  the web's link strings are freed as an untraced run frees them.  The
  table's lookup is an open-addressing hash over an ``array('i')``: a dict
  would cost more than the events themselves (an int object per string).
* a float that is not ``t`` (``until``, ``at``, ``crawl_delay``) in
  ``_floats``.

An event that does not fit (a subclass, a value of an unexpected type, an
integer beyond 32 bits) is kept as the object itself, so what is read back
always equals what was appended -- the property ``tests/test_trace_store.py``
checks on random crawls.  Reading in order decodes as it goes; reading
event ``i`` decodes from the checkpoint (``_marks``, every 128 events) before
it.

Each column is one growing array.  Measured at 100,000 pages: cutting them
into segments of 65,536 events (so that no reallocation copies a whole
column) changed the traced run's peak RSS by less than run-to-run noise --
glibc grows a block that large with ``mremap``, without a copy -- so the
columns stay whole.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, get_args, overload

from crawlsim.trace.events import (
    DEFER_REASONS,
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchKind,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
    SkipReason,
)

_NEW_TIME = 0x80
_STEP = 128
"""Events between checkpoints: reading event ``i`` decodes at most this many."""
_STATE = 6
"""A checkpoint's fields: data offset, time index, float offset, last parent, last fetch id, last depth."""
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_NONE = -1
"""String index of ``None`` (a seed's parent, no ``duplicate_of``)."""

_KINDS: tuple[str, ...] = get_args(FetchKind)
_REASONS: tuple[str, ...] = get_args(SkipReason)
_DEFER: tuple[str, ...] = DEFER_REASONS
"""The events' own vocabularies (crawlsim.trace.events, and the politeness
part's reasons), so a new skip or defer reason gets its codes here without
anyone counting."""

# Class codes (the low bits of a code byte hold the class's variant): each
# class starts where the one before it ends, its width the variants it has.
_SKIP_BASE = 0  # reason * 9 + parent (none, same, given) * 3 + href (empty, the url, given)
_DISCOVERED = _SKIP_BASE + len(_REASONS) * 3 * 3  # + depth given * 6 + host given * 3 + parent (none, same, given)
_STARTED = _DISCOVERED + 2 * 2 * 3  # + kind * 4 + duplicate * 2 + spelled out (else: host implied, ints packed, page = url, id = last + 1)
_FINISHED = _STARTED + len(_KINDS) * 4  # + kind * 4 + duplicate_of given * 2 + spelled out (else: url = last parent, host implied, 200, ints packed)
_FAILED = _FINISHED + len(_KINDS) * 4  # + kind * 2 + final
_RETRY = _FAILED + len(_KINDS) * 2
_DEFERRED = _RETRY + 1  # + reason
_ROBOTS = _DEFERRED + len(_DEFER)  # + crawl_delay given * 2 + disallow_all
_DONE = _ROBOTS + 2 * 2
_OPAQUE = _DONE + 1  # the event object itself, in _objects
assert _OPAQUE < _NEW_TIME, "event codes must leave the code byte's top bit for the new-time flag"


_REASON_CODES = {reason: i for i, reason in enumerate(_REASONS)}


def _is_int(*values: object) -> bool:
    """Each value an int (not a bool) that fits in 32 bits."""
    for v in values:
        if v.__class__ is not int or not _INT_MIN <= v <= _INT_MAX:  # type: ignore[operator]
            return False
    return True


def _str_or_none(value: object) -> bool:
    return value is None or value.__class__ is str


def _pack(low: int, low_bits: int, mid: int, mid_bits: int, high: int) -> int | None:
    """Three small non-negative ints in one 31-bit int (None: one does not fit)."""
    if 0 <= low < 1 << low_bits and 0 <= mid < 1 << mid_bits and 0 <= high < 1 << (31 - low_bits - mid_bits):
        return low | mid << low_bits | high << (low_bits + mid_bits)
    return None


def _authority(url: str) -> str:
    """The third ``/``-field of ``url``: its host key when the URL is canonical."""
    parts = url.split("/", 3)
    return parts[2] if len(parts) > 2 else ""


class Trace(Sequence[Event]):
    """Events in the order appended, stored compactly (module docstring).

    ``len``, ``trace[i]``, ``trace[a:b]`` (a list), iteration and ``==``
    (against any sequence of events) behave as on the list of the events
    appended; each read builds new event objects, equal to the originals.
    """

    __slots__ = (
        "_codes",
        "_data",
        "_depth",
        "_fid",
        "_floats",
        "_hosts",
        "_last_t",
        "_marks",
        "_objects",
        "_parent",
        "_parent_text",
        "_slots",
        "_strings",
        "_times",
    )

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._codes = bytearray()
        self._times = array("d")
        self._data = array("i")
        self._floats = array("d")
        self._marks = array("q")
        self._strings: list[str] = []
        self._slots = array("i", [-1]) * 8
        self._objects: list[Event] = []
        self._hosts: dict[str, str] = {}
        """Host keys implied by a URL (its authority), by themselves: decoding shares one string per host."""
        self._last_t: float | None = None
        self._parent = _NONE
        self._parent_text: str | None = None
        """``_strings[_parent]``: a parent that is this very object needs no lookup."""
        self._fid = 0
        self._depth = 0
        self.extend(events)

    # ------------------------------------------------------------------ writing

    def extend(self, events: Iterable[Event]) -> None:
        """Append each of ``events`` in order."""
        append = self.append
        for event in events:
            append(event)

    def append(self, event: Event) -> None:
        """Store ``event`` at the end (as columns when it fits, else as itself)."""
        codes = self._codes
        if not len(codes) % _STEP:
            self._marks.extend(
                (len(self._data), len(self._times) - 1, len(self._floats), self._parent, self._fid, self._depth)
            )
        encode = _ENCODERS.get(event.__class__)
        t = event.t
        # (an encoder checks every field before it writes anything: None means nothing written)
        code = encode(self, event) if encode is not None and t.__class__ is float else None
        if code is None:
            self._data.append(len(self._objects))
            self._objects.append(event)
            codes.append(_OPAQUE)
            return
        if t != self._last_t or t == 0.0:  # a new time (0.0 and -0.0 compare equal but print apart)
            self._times.append(t)
            self._last_t = t
            code |= _NEW_TIME
        codes.append(code)

    def _intern(self, text: str) -> int:
        """The index of ``text`` in the string table, adding it if new."""
        slots = self._slots
        strings = self._strings
        mask = len(slots) - 1
        i = hash(text) & mask
        while True:
            k = slots[i]
            if k < 0:
                break
            if strings[k] == text:
                return k
            i = (i + 1) & mask
        k = len(strings)
        strings.append(text)
        slots[i] = k
        if 3 * len(strings) > 2 * len(slots):
            self._grow()
        return k

    def _grow(self) -> None:
        """Double the hash table (kept at most two thirds full) and re-file every string."""
        slots = array("i", [-1]) * (2 * len(self._slots))
        mask = len(slots) - 1
        for k, text in enumerate(self._strings):
            i = hash(text) & mask
            while slots[i] >= 0:
                i = (i + 1) & mask
            slots[i] = k
        self._slots = slots

    def _implied(self, url: str, host: str) -> bool:
        """True when ``host`` is ``url``'s authority, so it need not be stored."""
        if _authority(url) != host:
            return False
        if host not in self._hosts:
            self._hosts[host] = host
        return True

    def _parent_variant(self, parent: str | None) -> int:
        """0: no parent; 1: the last event's parent; 2: given (appended to data).
        ``parent`` is None or a str (the caller checked)."""
        if parent is None:
            return 0
        if parent is self._parent_text:  # the common case: the links of one page
            return 1
        k = self._intern(parent)
        if k == self._parent:
            return 1
        self._parent, self._parent_text = k, self._strings[k]
        self._data.append(k)
        return 2

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        n = len(self._codes)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return list(self._decode(start, stop)) if start < stop else []
        i = index.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("trace index out of range")
        return next(self._decode(i, i + 1))

    def __iter__(self) -> Iterator[Event]:
        return self._decode(0, len(self._codes))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"<Trace of {len(self):,} events, {len(self._strings):,} strings>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Trace, (list(self),))

    def _decode(self, start: int, stop: int) -> Iterator[Event]:
        """Events ``start`` to ``stop``, decoded from the checkpoint before ``start``."""
        if start >= stop:
            return
        first = start - start % _STEP
        m = (first // _STEP) * _STATE
        pos, ti, fpos, parent, fid, depth = self._marks[m : m + _STATE]
        state = _Cursor(self, pos, fpos, parent, fid, depth)
        codes, times = self._codes, self._times
        t = times[ti] if ti >= 0 else 0.0
        for i in range(first, stop):
            code = codes[i]
            if code & _NEW_TIME:
                ti += 1
                t = times[ti]
                code &= ~_NEW_TIME
            event = _DECODERS[code](state, t, code)
            if i >= start:
                yield event


class _Cursor:
    """Where decoding is: the next int and float, the last parent and fetch id."""

    __slots__ = ("data", "depth", "fid", "floats", "fpos", "hosts", "objects", "parent", "pos", "strings")

    def __init__(self, trace: Trace, pos: int, fpos: int, parent: int, fid: int, depth: int) -> None:
        self.data = trace._data
        self.floats = trace._floats
        self.strings = trace._strings
        self.objects = trace._objects
        self.hosts = trace._hosts
        self.pos = pos
        self.fpos = fpos
        self.parent = parent
        self.fid = fid
        self.depth = depth

    def take(self, n: int) -> array[int]:
        pos = self.pos
        self.pos = pos + n
        return self.data[pos : pos + n]

    def float(self) -> float:
        self.fpos += 1
        return self.floats[self.fpos - 1]

    def host_of(self, url: str) -> str:
        return self.hosts[_authority(url)]

    def parent_of(self, variant: int) -> str | None:
        if variant == 0:
            return None
        if variant == 2:
            self.parent = self.data[self.pos]
            self.pos += 1
        return self.strings[self.parent]


# ---------------------------------------------------------------------- encoders
# Each appends an event's fields and returns its code, or None when the event
# does not fit (then it has written nothing, and append() keeps the object).


def _enc_skipped(trace: Trace, e: Skipped) -> int | None:
    url, href, parent = e.url, e.href, e.parent
    reason = _REASON_CODES.get(e.reason) if e.reason.__class__ is str else None
    if url.__class__ is not str or href.__class__ is not str or reason is None or not _str_or_none(parent):
        return None
    trace._data.append(trace._intern(url))
    pv = trace._parent_variant(parent)
    if href == "":
        hv = 0
    elif href == url:
        hv = 1
    else:
        hv = 2
        trace._data.append(trace._intern(href))
    return _SKIP_BASE + reason * 9 + pv * 3 + hv


def _enc_discovered(trace: Trace, e: Discovered) -> int | None:
    if e.url.__class__ is not str or e.host.__class__ is not str or not _is_int(e.depth):
        return None
    if not _str_or_none(e.parent):
        return None
    data = trace._data
    data.append(trace._intern(e.url))
    depth_given = e.depth != trace._depth  # in BFS order, nearly always the last one's
    if depth_given:
        data.append(e.depth)
        trace._depth = e.depth
    given = not trace._implied(e.url, e.host)
    if given:
        data.append(trace._intern(e.host))
    return _DISCOVERED + depth_given * 6 + given * 3 + trace._parent_variant(e.parent)


def _enc_started(trace: Trace, e: FetchStarted) -> int | None:
    url, host, page = e.url, e.host, e.page
    if (
        url.__class__ is not str
        or host.__class__ is not str
        or page.__class__ is not str
        or e.kind not in _KINDS
        or e.duplicate.__class__ is not bool
        or not _is_int(e.fetch_id, e.depth, e.attempt, e.slot)
    ):
        return None
    data = trace._data
    data.append(trace._intern(url))
    variant = _KINDS.index(e.kind) * 4 + e.duplicate * 2
    packed = _pack(e.depth, 11, e.attempt, 4, e.slot)
    compact = packed is not None and page == url and e.fetch_id == trace._fid + 1 and trace._implied(url, host)
    trace._fid = e.fetch_id
    if compact:
        data.append(packed)  # type: ignore[arg-type]  # not None when compact
        return _STARTED + variant
    data.extend((trace._intern(host), e.depth, e.attempt, e.slot, trace._intern(page), e.fetch_id))
    return _STARTED + variant + 1


def _enc_finished(trace: Trace, e: FetchFinished) -> int | None:
    dup = e.duplicate_of
    if (
        e.url.__class__ is not str
        or e.host.__class__ is not str
        or e.kind not in _KINDS
        or (dup is not None and dup.__class__ is not str)
        or not _is_int(e.fetch_id, e.status, e.links, e.new_links)
    ):
        return None
    data = trace._data
    variant = _KINDS.index(e.kind) * 4 + (dup is not None) * 2
    # the usual case, one int: a 200 whose fetch started lately (its id just below the last started)
    packed = _pack(e.links, 11, e.new_links, 10, trace._fid - e.fetch_id) if e.status == 200 else None
    compact = packed is not None and e.url == trace._parent_text and trace._implied(e.url, e.host)
    if compact:
        data.append(packed)  # type: ignore[arg-type]  # not None when compact
    else:
        variant += 1
        data.extend((e.fetch_id, trace._intern(e.url), trace._intern(e.host), e.status, e.links, e.new_links))
    if dup is not None:
        data.append(trace._intern(dup))
    return _FINISHED + variant


def _enc_failed(trace: Trace, e: FetchFailed) -> int | None:
    strings = (e.url, e.host, e.reason)
    if any(s.__class__ is not str for s in strings) or e.kind not in _KINDS or e.final.__class__ is not bool:
        return None
    if not _is_int(e.fetch_id):
        return None
    trace._data.extend((e.fetch_id, *map(trace._intern, strings)))
    return _FAILED + _KINDS.index(e.kind) * 2 + e.final


def _enc_retry(trace: Trace, e: RetryScheduled) -> int | None:
    strings = (e.url, e.host, e.reason)
    if any(s.__class__ is not str for s in strings) or e.at.__class__ is not float or not _is_int(e.attempt):
        return None
    trace._data.extend((*map(trace._intern, strings), e.attempt))
    trace._floats.append(e.at)
    return _RETRY


def _enc_deferred(trace: Trace, e: HostDeferred) -> int | None:
    if e.host.__class__ is not str or e.until.__class__ is not float or e.reason not in _DEFER:
        return None
    trace._data.append(trace._intern(e.host))
    trace._floats.append(e.until)
    return _DEFERRED + _DEFER.index(e.reason)


def _enc_robots(trace: Trace, e: RobotsLoaded) -> int | None:
    delay = e.crawl_delay
    if e.host.__class__ is not str or not _is_int(e.status) or e.disallow_all.__class__ is not bool:
        return None
    if delay is not None and delay.__class__ is not float:
        return None
    trace._data.extend((trace._intern(e.host), e.status))
    if delay is not None:
        trace._floats.append(delay)
    return _ROBOTS + (delay is not None) * 2 + e.disallow_all


def _enc_done(trace: Trace, e: Done) -> int | None:
    if not _is_int(e.pages, e.fetches):
        return None
    trace._data.extend((e.pages, e.fetches))
    return _DONE


_ENCODERS: dict[type, Any] = {
    Skipped: _enc_skipped,
    Discovered: _enc_discovered,
    FetchStarted: _enc_started,
    FetchFinished: _enc_finished,
    FetchFailed: _enc_failed,
    RetryScheduled: _enc_retry,
    HostDeferred: _enc_deferred,
    RobotsLoaded: _enc_robots,
    Done: _enc_done,
}

# ---------------------------------------------------------------------- decoders
# Each reads one event's fields at the cursor (code without the time bit).


def _dec_skipped(c: _Cursor, t: float, code: int) -> Event:
    reason, rest = divmod(code - _SKIP_BASE, 9)
    parent_v, href_v = divmod(rest, 3)
    url = c.strings[c.data[c.pos]]
    c.pos += 1
    parent = c.parent_of(parent_v)
    if href_v == 2:
        href = c.strings[c.data[c.pos]]
        c.pos += 1
    else:
        href = url if href_v else ""
    return Skipped(t, url, parent, _REASONS[reason], href)  # type: ignore[arg-type]


def _dec_discovered(c: _Cursor, t: float, code: int) -> Event:
    depth_given, rest = divmod(code - _DISCOVERED, 6)
    given, parent = divmod(rest, 3)
    url = c.strings[c.take(1)[0]]
    if depth_given:
        c.depth = c.take(1)[0]
    host = c.strings[c.take(1)[0]] if given else c.host_of(url)
    return Discovered(t, url, host, c.depth, c.parent_of(parent))


def _dec_started(c: _Cursor, t: float, code: int) -> Event:
    variant = code - _STARTED
    strings = c.strings
    url = strings[c.take(1)[0]]
    if variant & 1:
        host_i, depth, attempt, slot, page_i, c.fid = c.take(6)
        host, page = strings[host_i], strings[page_i]
    else:
        packed = c.take(1)[0]
        depth, attempt, slot = packed & 0x7FF, (packed >> 11) & 0xF, packed >> 15
        host, page = c.host_of(url), url
        c.fid += 1
    kind = _KINDS[variant // 4]
    return FetchStarted(t, c.fid, url, host, kind, depth, attempt, slot, page, bool(variant & 2))  # type: ignore[arg-type]


def _dec_finished(c: _Cursor, t: float, code: int) -> Event:
    variant = code - _FINISHED
    strings = c.strings
    if variant & 1:
        fid, url_i, host_i, status, links, new = c.take(6)
        url, host = strings[url_i], strings[host_i]
    else:
        packed = c.take(1)[0]
        links, new, fid = packed & 0x7FF, (packed >> 11) & 0x3FF, c.fid - (packed >> 21)
        url = strings[c.parent]
        host, status = c.host_of(url), 200
    dup = strings[c.take(1)[0]] if variant & 2 else None
    return FetchFinished(t, fid, url, host, _KINDS[variant // 4], status, links, new, dup)  # type: ignore[arg-type]


def _dec_failed(c: _Cursor, t: float, code: int) -> Event:
    kind, final = divmod(code - _FAILED, 2)
    fid, url, host, reason = c.take(4)
    s = c.strings
    return FetchFailed(t, fid, s[url], s[host], _KINDS[kind], s[reason], bool(final))  # type: ignore[arg-type]


def _dec_retry(c: _Cursor, t: float, _: int) -> Event:
    url, host, reason, attempt = c.take(4)
    s = c.strings
    return RetryScheduled(t, s[url], s[host], attempt, c.float(), s[reason])


def _dec_deferred(c: _Cursor, t: float, code: int) -> Event:
    host = c.strings[c.take(1)[0]]
    return HostDeferred(t, host, c.float(), _DEFER[code - _DEFERRED])  # type: ignore[arg-type]


def _dec_robots(c: _Cursor, t: float, code: int) -> Event:
    has_delay, disallow = divmod(code - _ROBOTS, 2)
    host, status = c.take(2)
    return RobotsLoaded(t, c.strings[host], status, c.float() if has_delay else None, bool(disallow))


def _dec_done(c: _Cursor, t: float, _: int) -> Event:
    pages, fetches = c.take(2)
    return Done(t, pages, fetches)


def _dec_opaque(c: _Cursor, _t: float, _code: int) -> Event:
    return c.objects[c.take(1)[0]]


_DECODERS: list[Any] = (
    [_dec_skipped] * (_DISCOVERED - _SKIP_BASE)
    + [_dec_discovered] * (_STARTED - _DISCOVERED)
    + [_dec_started] * (_FINISHED - _STARTED)
    + [_dec_finished] * (_FAILED - _FINISHED)
    + [_dec_failed] * (_RETRY - _FAILED)
    + [_dec_retry] * (_DEFERRED - _RETRY)
    + [_dec_deferred] * (_ROBOTS - _DEFERRED)
    + [_dec_robots] * (_DONE - _ROBOTS)
    + [_dec_done, _dec_opaque]
)
assert len(_DECODERS) == _OPAQUE + 1



class Series(Sequence[tuple[float, int, int]]):
    """``(t, frontier, in_flight)`` points in three columns, read as tuples.

    A traced simulation notes about one point per page; as tuples of a
    float and two ints that is some 80 bytes a point, as columns 16.  It
    supports what the driver does to a list of points -- ``append``, and
    replacing the last point (``series[-1] = point``) -- and reads as one.
    """

    __slots__ = ("_flight", "_frontier", "_t")

    def __init__(self, points: Iterable[tuple[float, int, int]] = ()) -> None:
        self._t = array("d")
        self._frontier = array("i")
        self._flight = array("i")
        for point in points:
            self.append(point)

    def append(self, point: tuple[float, int, int]) -> None:
        t, frontier, flight = point
        self._t.append(t)
        self._frontier.append(frontier)
        self._flight.append(flight)

    def note(self, t: float, frontier: int, flight: int) -> None:
        """Add the point ``(t, frontier, flight)`` when either count differs from
        the last point's; one at the last point's instant replaces it (several
        changes at one instant keep only the last).  What the simulator does
        after every dispatch, once per fetch: on the columns, without building
        and comparing tuples."""
        times = self._t
        if times:
            fronts, flights = self._frontier, self._flight
            if fronts[-1] == frontier and flights[-1] == flight:
                return
            if times[-1] == t:
                fronts[-1] = frontier
                flights[-1] = flight
                return
        times.append(t)
        self._frontier.append(frontier)
        self._flight.append(flight)

    def __setitem__(self, index: int, point: tuple[float, int, int]) -> None:
        self._t[index], self._frontier[index], self._flight[index] = point

    def __len__(self) -> int:
        return len(self._t)

    @overload
    def __getitem__(self, index: int) -> tuple[float, int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[float, int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[float, int, int] | list[tuple[float, int, int]]:
        if isinstance(index, slice):
            return list(zip(self._t[index], self._frontier[index], self._flight[index], strict=True))
        return (self._t[index], self._frontier[index], self._flight[index])

    def __iter__(self) -> Iterator[tuple[float, int, int]]:
        return zip(self._t, self._frontier, self._flight, strict=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"<Series of {len(self):,} points>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Series, (list(self),))


__all__ = ["Series", "Trace"]
