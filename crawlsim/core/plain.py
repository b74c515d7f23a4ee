"""Values from a caller made plain before the scheduler keeps or compares them.

The scheduler's API is total against hostile objects: a ``str`` subclass
whose ``__hash__`` raises, a number whose ``__lt__`` lies, a list whose
``__iter__`` fails, an object that fakes its ``__class__``.  Each value that
enters is turned here into a plain ``str``/``int``/``float``/``list`` by the
base class's own C code (``str.__str__``, ``int.__int__``, ``list.__iter__``),
so none of the caller's methods runs inside a call and none of its objects is
stored; what cannot be made plain is refused (or skipped as ``malformed``)
before anything changes.  ``_short`` shows a value in an event or an error
without running its ``__repr__``.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["HTTP_STATUSES", "check_headers", "checked_status", "materialize", "plain_number", "plain_str", "plain_texts", "short"]


HTTP_STATUSES = range(100, 600)
"""The statuses a response may carry (RFC 9110 section 15: three digits,
1xx to 5xx); a real server's answer outside them is not a valid response."""

_SAFE_REPR = (int, float, complex, bytes, bytearray, type(None), bool)
"""Types whose ``repr`` is the built-in one, whatever the value."""


def short(value: object) -> str:
    """A non-string link or seed as an event shows it (a short repr).

    Never runs a method of the value's own class: a hostile ``__repr__`` (one
    that raises, never returns, or returns something huge or not a string)
    would otherwise break the call that reports it.  Built-in scalars show
    their value, a string (or subclass) its characters, anything else its
    type and id (``object.__repr__``)."""
    kind = type(value)
    if kind in _SAFE_REPR:
        text = repr(value)
    elif issubclass(kind, str):
        text = repr(str.__str__(value))  # type: ignore[arg-type]
    elif (kind is list or kind is tuple) and len(value) <= 8 and all(type(v) in _SAFE_REPR or type(v) is str for v in value):  # type: ignore[arg-type]
        text = repr(value)
    elif kind is list or kind is tuple:
        text = f"<{kind.__name__} of {len(value)}>"  # type: ignore[arg-type]
    else:
        text = object.__repr__(value)
    return text if len(text) <= 60 else text[:57] + "..."


def plain_number(value: object) -> int | float | None:
    """``value`` as a plain ``int`` or ``float`` when it is one (or of a
    subclass: ``IntEnum``, a float subclass), else None; ``bool`` is not a
    number here.  As :func:`plain_str`, the base class's own conversion, so
    none of a subclass's methods runs later in a comparison."""
    kind = type(value)
    if kind is float or kind is int:
        return value  # type: ignore[return-value]
    if kind is bool:
        return None
    if issubclass(kind, float):
        return float.__float__(value)  # type: ignore[arg-type]
    if issubclass(kind, int):
        return int.__int__(value)  # type: ignore[arg-type]
    return None


def plain_str(value: object) -> str | None:
    """``value`` as a plain ``str`` when it is a string, else None.

    A ``str`` subclass is copied to a plain ``str`` by the base class's own
    ``__str__`` (C code that reads the characters), so none of the subclass's
    methods -- ``__hash__``, ``__eq__``, ``__str__``, ``strip`` ... -- ever
    runs inside the scheduler, and none of its objects is stored.  ``type()``
    rather than ``isinstance``: an object can claim any ``__class__``."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[return-value]
    if issubclass(kind, str):
        return str.__str__(value)  # type: ignore[arg-type]
    return None


def materialize(items: object, name: str) -> list[object]:
    """``items`` as a list, or TypeError naming ``name``: a str or bytes is
    refused (it would be crawled one character at a time), as is anything
    not iterable.  Iterating happens here, before any state changes."""
    if isinstance(items, (str, bytes, bytearray, memoryview)):
        kind = type(items).__name__
        raise TypeError(f"{name}: expected a list of URLs, got a {kind} (wrap one URL in a list: [url])")
    if isinstance(items, (list, tuple)):  # a subclass too: its items, by the base class's iterator (no method of its own)
        return list((list if isinstance(items, list) else tuple).__iter__(items))  # type: ignore[attr-defined]
    try:
        iterator = iter(items)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{name}: expected a list of URLs, got {short(items)}") from None
    try:
        return list(iterator)
    except Exception as err:  # the iterable's own code failed: nothing has changed yet
        raise TypeError(f"{name}: iterating {short(items)} raised {type(err).__name__}") from err


def plain_texts(**values: object) -> tuple[str | None, ...]:
    """The values as plain strings (see :func:`plain_str`), in order; raise
    TypeError naming the first value that is neither a str nor None."""
    out: list[str | None] = []
    for name, value in values.items():
        text = None if value is None else plain_str(value)
        if value is not None and text is None:
            raise TypeError(f"{name}: expected a string or None, got {short(value)}")
        out.append(text)
    return tuple(out)


def checked_status(status: object) -> int:
    """``status`` as a plain int (an ``HTTPStatus`` is one), or the error."""
    plain = plain_number(status)
    if type(plain) is not int:
        raise TypeError(f"status: expected an int HTTP status, got {short(status)}")
    if plain not in HTTP_STATUSES:
        raise ValueError(f"status: expected an HTTP status 100-599, got {plain!r}")
    return plain  # type: ignore[return-value]


def check_headers(headers: object) -> Mapping[object, object]:
    """``headers``, or TypeError unless it is a mapping."""
    if not isinstance(headers, Mapping):
        raise TypeError(f"headers: expected a mapping of header names to values, got {short(headers)}")
    return headers
