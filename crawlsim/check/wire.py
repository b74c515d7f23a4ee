"""What the sandboxed child sends back, checked before the checker uses it.

The child runs the user's code, and that code can write to the child's end
of the pipe too (the descriptor is a number it can find), so an answer may
be forged: extra fields, wrong types, absurd sizes.  :func:`checked_run`
accepts exactly the shape :meth:`CaseRun.to_plain` writes -- every field's
type, every list's length, every string's size -- and raises
:class:`ForgedAnswer` (one sentence) for anything else; the sandbox turns
that into the case's verdict, never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from crawlsim.check.cases import Case
from crawlsim.check.runner import CaseRun, ExceptionSummary, ThreadInfo
from crawlsim.check.services import FetchRecord
from crawlsim.errors import CrawlsimError

MAX_ITEMS = 1_000_000
"""Longest list accepted (records, links, threads...): far above any case."""
MAX_TEXT = 100_000
"""Longest string accepted (a URL, a message, a thread's name)."""
OUTCOMES = frozenset({"running", "ok", "error", "cancelled", "abandoned"})


class ForgedAnswer(CrawlsimError, ValueError):
    """An answer that is not what the checker's child writes."""


def _fail(where: str, expected: str) -> ForgedAnswer:
    return ForgedAnswer(f"{where}: expected {expected}")


def _text(value: object, where: str) -> str:
    if type(value) is not str or len(value) > MAX_TEXT:
        raise _fail(where, f"a string of at most {MAX_TEXT:,} characters")
    return value


def _maybe_text(value: object, where: str) -> str | None:
    return None if value is None else _text(value, where)


def _int(value: object, where: str) -> int:
    if type(value) is not int or not -(2**62) <= value <= 2**62:
        raise _fail(where, "a whole number")
    return value


def _seconds(value: object, where: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        raise _fail(where, "seconds (a finite number >= 0)")
    return float(value)  # type: ignore[arg-type]


def _maybe_seconds(value: object, where: str) -> float | None:
    return None if value is None else _seconds(value, where)


def _bool(value: object, where: str) -> bool:
    if type(value) is not bool:
        raise _fail(where, "true or false")
    return value


def _list(value: object, where: str) -> list[Any]:
    if type(value) is not list or len(value) > MAX_ITEMS:
        raise _fail(where, f"a list of at most {MAX_ITEMS:,} items")
    return value


def _fields(value: object, where: str, fields: Mapping[str, Callable[[object, str], Any]]) -> dict[str, Any]:
    """``value`` as a dict of exactly ``fields``, each checked by its checker."""
    if type(value) is not dict:
        raise _fail(where, "an object")
    extra = set(value) - set(fields)
    if extra:
        raise _fail(where, f"only the fields {', '.join(fields)} (got {', '.join(sorted(map(str, extra)))[:200]})")
    missing = [name for name in fields if name not in value]
    if missing:
        raise _fail(where, f"a field {missing[0]}")
    return {name: check(value[name], f"{where}.{name}") for name, check in fields.items()}


def _outcome(value: object, where: str) -> str:
    if type(value) is not str or value not in OUTCOMES:
        raise _fail(where, f"one of {', '.join(sorted(OUTCOMES))}")
    return value


def _links(value: object, where: str) -> tuple[str, ...]:
    return tuple(_text(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where)))


_RECORD = {
    "fetch_id": _int, "url": _text, "page": _text, "start": _seconds, "slot": _int, "end": _maybe_seconds,
    "outcome": _outcome, "links": _links, "error": _maybe_text, "thread": _text,
}
_ERROR = {"type": _text, "message": _text, "where": _maybe_text, "escaped_at": _maybe_text}
_THREAD = {
    "name": _text, "daemon": _bool, "started": _seconds, "ended": _maybe_seconds, "fetches": _int,
    "left_at": _maybe_text, "blocks_exit": _bool,
}


def _record(value: object, where: str) -> FetchRecord:
    return FetchRecord(**_fields(value, where, _RECORD))


def _error(value: object, where: str) -> ExceptionSummary:
    return ExceptionSummary(**_fields(value, where, _ERROR))


def _maybe_error(value: object, where: str) -> ExceptionSummary | None:
    return None if value is None else _error(value, where)


def _thread(value: object, where: str) -> ThreadInfo:
    return ThreadInfo(**_fields(value, where, _THREAD))


def _each(check: Callable[[object, str], Any]) -> Callable[[object, str], list[Any]]:
    return lambda value, where: [check(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where))]


def _groups(value: object, where: str) -> set[frozenset[str]]:
    return {frozenset(_links(g, f"{where}[{i}]")) for i, g in enumerate(_list(value, where))}


def _maybe_urls(value: object, where: str) -> list[str] | None:
    return None if value is None else list(_links(value, where))


def _race(value: object, where: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if type(value) is not dict or not all(type(k) is str for k in value):
        raise _fail(where, "an object")
    return value


def _maybe_int(value: object, where: str) -> int | None:
    return None if value is None else _int(value, where)


def _web_page(value: object, where: str) -> list[Any]:
    pair = _list(value, where)
    if len(pair) != 2:
        raise _fail(where, "a [page, links] pair")
    return [_text(pair[0], f"{where}[0]"), list(_links(pair[1], f"{where}[1]"))]


def _row(value: object, where: str) -> list[str]:
    row = list(_links(value, where))
    if len(row) != 2:
        raise _fail(where, "a [thread, step] pair")
    return row


_REPLAYED = {
    "schedule": _text, "case": _text, "start": _text, "workers": _int, "seed": _int,
    "web": _each(_web_page),
    "pages": _int, "links": _int, "failed": _bool, "page": _maybe_text, "fetches": _maybe_int,
    "race": _maybe_text, "rows": _each(_row), "problems": _each(_text),
}
"""``replay.replay``'s data."""
_SHRUNK = {
    **_REPLAYED, "from": lambda v, w: _fields(v, w, {"pages": _int, "links": _int, "workers": _int}),
    "reruns": _int, "budget": _int, "budget_ran_out": _bool,
}
"""``replay.shrunk_failure``'s: the replay of the shrunk web, and what the shrink cost."""


def checked_replay(value: object) -> dict[str, Any]:
    """A ``check --replay`` answer's data, as ``replay.replay`` writes it, or :class:`ForgedAnswer`."""
    return _fields(value, "replay", _REPLAYED)


def checked_shrunk(value: object) -> dict[str, Any] | None:
    """A shrink answer's data, as ``replay.shrunk_failure`` writes it (or None), or :class:`ForgedAnswer`."""
    return None if value is None else _fields(value, "shrunk", _SHRUNK)


def _spans(value: object, where: str) -> list[tuple[float, float]]:
    spans = []
    for i, span in enumerate(_list(value, where)):
        pair = [_seconds(v, f"{where}[{i}][{j}]") for j, v in enumerate(_list(span, f"{where}[{i}]"))]
        if len(pair) != 2 or pair[0] > pair[1]:
            raise _fail(f"{where}[{i}]", "a [start, end] pair")
        spans.append((pair[0], pair[1]))
    return spans


_RUN = {
    "case": _text, "error": _maybe_error, "timed_out": _bool, "stalled": _bool, "crash": _maybe_text,
    "timeout": _seconds, "wall": _seconds, "in_flight_at_return": _each(_int), "records": _each(_record),
    "peak": _int, "groups_met": _groups, "thread_deaths": _each(_error), "threads": _each(_thread),
    "result": _maybe_urls, "bad_return": _maybe_text, "race": _race, "stops": _spans,
}


def checked_loaded(data: object) -> tuple[bool, str | None]:
    """``is_async`` and ``source`` of the child's answer to ``load``."""
    fields = _fields(data, "loaded", {"kind": _text, "label": _text, "is_async": _bool, "source": _maybe_text})
    return fields["is_async"], fields["source"]


def checked_run(case: Case, data: object) -> CaseRun:
    """The :class:`CaseRun` the child reported for ``case``, every field
    checked; :class:`ForgedAnswer` when anything is not as the child writes it."""
    fields = _fields(data, "run", _RUN)
    if fields["case"] != case.name:
        raise ForgedAnswer(f"run.case: expected {case.name!r}, the case that ran")
    by_id = {r.fetch_id: r for r in fields["records"]}
    return CaseRun(
        case=case,
        error=fields["error"],
        timed_out=fields["timed_out"],
        stalled=fields["stalled"],
        crash=fields["crash"],
        timeout=fields["timeout"],
        wall=fields["wall"],
        in_flight_at_return=[by_id[i] for i in fields["in_flight_at_return"] if i in by_id],
        records=fields["records"],
        peak=fields["peak"],
        groups_met=fields["groups_met"],
        thread_deaths=fields["thread_deaths"],
        threads=fields["threads"],
        result=fields["result"],
        bad_return=fields["bad_return"],
        race=fields["race"],
        stops=fields["stops"],
    )
