"""A trace file: the one JSONL reader and the one writer.

A trace is one ``event_to_dict`` object per line.  A cluster's trace adds the
node of each line (``"node"``) and, on its Done line, the worker lanes per
node (``"workers"``, :mod:`crawlsim.trace.cluster`); a real crawl's Done line
may carry the options it ran with (``"options"``).  Every command that reads
or writes trace files goes through here, so the format has one definition.

A trace file is input like a scenario: each line's length is bounded before
it is parsed, JSON's NaN/Infinity, keys given twice and nesting too deep are
refused, and every record is checked by :func:`event_from_dict`; the one
error, :class:`TraceError`, names the file and the line.
"""

from __future__ import annotations

import json
import os
import stat
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, fields
from itertools import repeat
from pathlib import Path
from typing import IO, Any

from crawlsim.errors import UsageError
from crawlsim.outfile import cannot_write, written
from crawlsim.trace.cluster import NODE_KEY
from crawlsim.trace.node_tags import WORKERS_KEY, check_node_tags, checked_workers
from crawlsim.trace.events import EVENT_TYPES, Done, Event, TraceError, event_from_dict, event_to_dict


@dataclass(frozen=True)
class RecordedTrace:
    """A trace file's events and, for a cluster's trace, the node of each
    (its ``"node"`` keys), with the lanes each node has and how many nodes
    there are, read from the events themselves."""

    events: list[Event]
    nodes: list[int] | None = None
    """The node of each event; None: one crawler process (no node keys)."""
    workers: int = 0
    """Worker lanes per node: a cluster's trace's, or the workers one
    process's recording ran with (its options); 0 when the trace does not say."""
    node_count: int = 1
    options: Mapping[str, Any] | None = None
    """The crawler options the recording ran with (the Done line's
    ``"options"``, written by ``crawlsim crawl -o``), or None."""


def load_trace(path: str | Path) -> list[Event]:
    """Events from a JSONL trace (one ``event_to_dict`` object per line).

    Raises ``TraceError`` (a ``UsageError``) naming the line of the first
    bad record, so the CLI prints one line instead of a traceback."""
    return read_trace(path).events


MAX_TRACE_LINE = 1 << 24
"""Bytes one trace line may hold (16 MiB): an event is a flat object of a
few URLs (a skipped link is kept as its page wrote it, so one may be long),
and a line past this is refused before it is held or parsed."""


def read_trace(path: str | Path) -> RecordedTrace:
    """:func:`load_trace`, keeping a cluster's node keys
    (:mod:`crawlsim.trace.cluster`): every line has one, or none has; a
    line without one among lines with one, a node out of range or a slot
    outside its node's lanes raises ``TraceError`` naming the line.

    A trace is input: every record is checked (:func:`event_from_dict`)
    before anything is built from it, so whatever this returns replays."""
    events: list[Event] = []
    tags: list[object] = []
    lines = array("q")
    """The file line of each event (for a cluster trace's messages), unboxed."""
    workers: object = None
    options: object = None
    own_node = tuple(name for name, cls in EVENT_TYPES.items() if NODE_KEY in {f.name for f in fields(cls)})
    """Events whose own field is the node key (NodeFailed: the node that failed is its node)."""
    for number, data in _trace_records(path):
        tags.append(data.get(NODE_KEY) if data.get("type") in own_node else data.pop(NODE_KEY, None))
        if data.get("type") == "Done" and WORKERS_KEY in data:
            workers = data.pop(WORKERS_KEY)
        if data.get("type") == "Done" and OPTIONS_KEY in data:
            options = data.pop(OPTIONS_KEY)
        events.append(_trace_event(path, number, data))
        lines.append(number)
    if not events:
        raise TraceError(f"{path}: no events in the trace")
    if all(tag is None for tag in tags):
        recorded = options if isinstance(options, dict) else None
        return RecordedTrace(events, workers=_recorded_workers(path, recorded), options=recorded)
    try:
        nodes, lanes, count = check_node_tags(events, tags, lines, workers)
    except ValueError as err:
        raise TraceError(f"{path}: {err}") from None
    return RecordedTrace(events, nodes, lanes, count)


def _recorded_workers(path: str | Path, options: Mapping[str, Any] | None) -> int:
    """The workers the Done line's options say the crawl ran with, checked (0: not said)."""
    if options is None or "workers" not in options:
        return 0
    try:
        return checked_workers(options["workers"], f"{OPTIONS_KEY}.workers")
    except ValueError as err:
        raise TraceError(f"{path}: {err}") from None


def _trace_event(path: str | Path, number: int, data: dict[str, Any]) -> Event:
    try:
        return event_from_dict(data, extra=())
    except ValueError as err:
        raise TraceError(f"{path}: line {number}: {err}") from None


def _trace_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of the JSONL trace at ``path``: (line number, its
    object).  Raises ``TraceError`` naming the file (and the line).

    Line by line, not the whole file at once: a 100,000-page trace is about
    130 MB of text, and holding it (and its lines) beside the events tripled
    the peak memory of opening it in the app.  One copy of each string value
    (URL, host, kind) is shared by every event that names it.  Bytes, read
    at most :data:`MAX_TRACE_LINE` at a time, so a file that never ends a
    line is refused at its first 16 MiB, and bad UTF-8 names its line."""
    shared: dict[str, str] = {}
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                # a FIFO or a device (/dev/zero, /dev/stdin) may never end a line, or never end
                raise TraceError(f"{path}: cannot read: not a regular file")
            number = 0
            while line := handle.readline(MAX_TRACE_LINE + 1):
                number += 1
                if len(line) > MAX_TRACE_LINE and not line.endswith(b"\n"):
                    raise TraceError(f"{path}: line {number}: longer than {MAX_TRACE_LINE:,} bytes: not a trace event")
                if not line.isspace():
                    yield number, _trace_record(path, number, line, shared)
    except OSError as err:
        raise TraceError(f"{path}: cannot read: {err.strerror or err}") from None


def _no_constant(name: str) -> float:
    """``json``'s ``parse_constant``: NaN and Infinity are not JSON numbers."""
    raise ValueError(f"{name} is not a number JSON allows")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: a key given twice would lose one of its values."""
    data = dict(pairs)
    if len(data) != len(pairs):
        twice = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)[:5]
        raise ValueError(f"key(s) {twice} given more than once")
    return data


_DECODE = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=_unique_keys).decode


def _trace_record(path: str | Path, number: int, line: bytes, shared: dict[str, str]) -> dict[str, Any]:
    """One trace line parsed: its object (``TraceError`` naming the line).
    Nesting is bounded by the parser itself (``RecursionError``); a line
    that is not one flat object is refused by the event's checks."""
    try:
        data = _DECODE(line.decode("utf-8"))
    except RecursionError:
        raise TraceError(f"{path}: line {number}: nested too deeply: not a trace event") from None
    except json.JSONDecodeError as err:
        if not line.endswith(b"\n"):
            raise _cut_off(path, number) from None
        at = "" if err.msg.endswith(" at") else " at"  # json's own message may end in "at" already
        raise TraceError(f"{path}: line {number}: not JSON: {err.msg}{at} column {err.pos + 1}") from None
    except UnicodeDecodeError as err:
        if not line.endswith(b"\n") and err.reason == "unexpected end of data":  # cut inside a character
            raise _cut_off(path, number) from None
        raise TraceError(f"{path}: line {number}: {_first_line(err)}") from None
    except ValueError as err:  # a NaN, a key twice, a 5,000-digit number
        raise TraceError(f"{path}: line {number}: {_first_line(err)}") from None
    if data.__class__ is not dict:
        raise TraceError(f"{path}: line {number}: expected a JSON object")
    for key, value in data.items():
        if value.__class__ is str:
            data[key] = shared.setdefault(value, value)
    return data


def _cut_off(path: str | Path, number: int) -> TraceError:
    """The error for a last line with no end: a recording stopped while writing it,
    and every line before it is whole -- so say how to read them."""
    return TraceError(
        f"{path}: line {number}: cut off: the file ends mid-line (a recording stopped while writing?); "
        "delete that last line to read the rest"
    )


def _first_line(err: Exception) -> str:
    text = str(err).split(";")[0].splitlines()  # Python's digit limit adds advice for programmers after a ;
    return text[0][:200] if text else type(err).__name__


# --------------------------------------------------------------------------- writing a trace
# The one JSONL trace writer, beside the one reader above: `crawlsim trace`,
# `crawlsim crawl --trace-out`, `crawlsim check --trace-out` and the Scrapy recorder all write through these.


def trace_line(event: Event, node: int | None = None, workers: int | None = None) -> str:
    """One trace line: ``event_to_dict`` as compact JSON; a cluster's event
    also carries its node (``"node"``), and its Done line the worker lanes per
    node (``"workers"``), which :func:`read_trace` reads back."""
    data = event_to_dict(event)
    if node is not None:
        data[NODE_KEY] = node
        if workers is not None and data["type"] == "Done":
            data[WORKERS_KEY] = workers
    return json.dumps(data, separators=(",", ":")) + "\n"


def write_trace_lines(
    events: Iterable[Event], out: IO[str], nodes: Sequence[int] | None = None, workers: int | None = None
) -> int:
    """Write ``events`` to ``out`` as trace lines (with ``nodes``: a cluster's
    trace, one node per event); returns the count."""
    count = 0
    for event, node in zip(events, repeat(None) if nodes is None else nodes):
        out.write(trace_line(event, node, workers))
        count += 1
    return count


def write_trace(
    path: str | Path, events: Iterable[Event], nodes: Sequence[int] | None = None, workers: int | None = None
) -> int:
    """Write a trace file whole or not at all (:func:`crawlsim.outfile.written`:
    a full disk or a folder that is a file is one ``UsageError``, and no
    half-written file is left); returns the event count."""
    with written(path) as out:
        return write_trace_lines(events, out, nodes, workers)


OPTIONS_KEY = "options"
"""The Done line's key for the options a real crawl ran with (``crawlsim model`` reads it)."""


def trace_line_with_options(done: Done, options: Mapping[str, Any] | None) -> str:
    """The Done line, carrying the options the crawl ran with (:data:`OPTIONS_KEY`) if given."""
    line = trace_line(done)
    if options is None:
        return line
    return line[:-2] + "," + json.dumps({OPTIONS_KEY: options}, separators=(",", ":"))[1:] + "\n"


class TraceWriter:
    """Writes a trace as events come (a live crawl) through
    :func:`crawlsim.outfile.written`: the file appears whole when
    :meth:`close` is called, or not at all.  A write that fails (a full disk)
    stops the writing; :meth:`close` then removes the partial file and raises
    the ``UsageError`` naming it."""

    def __init__(self, path: str, options: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.options = options
        """JSON values of the crawl's options, written on the Done line (:data:`OPTIONS_KEY`)."""
        self._file: ExitStack | None = ExitStack()
        self._out = self._file.enter_context(written(path))
        self._error: OSError | None = None

    def __call__(self, event: Event) -> None:
        if self._file is None:
            return
        try:
            line = trace_line_with_options(event, self.options) if isinstance(event, Done) else trace_line(event)
            self._out.write(line)
        except OSError as err:
            self._error = err
            self._drop()

    def close(self) -> None:
        """Finish the file; ``UsageError`` (and no file left) if a write failed."""
        if self._file is not None:
            file, self._file = self._file, None
            file.close()  # the last buffered lines that do not fit: written's UsageError
        if self._error is not None:
            raise cannot_write(self.path, self._error)

    def _drop(self) -> None:
        """Give up the file: the partial one is removed (an error raised into :func:`written`)."""
        file, self._file = self._file, None
        if file is not None:
            try:
                file.__exit__(type(self._error), self._error, None)
            except UsageError:
                pass  # raised again by close()


__all__ = [
    "MAX_TRACE_LINE",
    "OPTIONS_KEY",
    "RecordedTrace",
    "TraceError",
    "TraceWriter",
    "load_trace",
    "read_trace",
    "trace_line",
    "trace_line_with_options",
    "write_trace",
    "write_trace_lines",
]
