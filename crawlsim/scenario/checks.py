"""A scenario file's values, checked one at a time.

Every complaint about a scenario is one :class:`ScenarioError` naming the
file, the dotted key (:func:`key_path`) and what was expected -- never a
traceback.  :class:`Checks` holds the small checkers every table's builder
uses (a number in range, a whole number, a URL, a host, a table of known
keys), so each rule is written once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from crawlsim.core.options import MAX_SETTING_SECONDS, did_you_mean
from crawlsim.errors import UsageError
from crawlsim.sim.latency import LatencyModel, LatencySpecError, latency_from_spec, show_value
from crawlsim.sim.web import rfc3986_identity

MAX_MARGIN = 2.0
"""The largest ``margin`` a scenario file may state, a share (2.0: 200%).  It is the
most the recording's own spread can give (:func:`~crawlsim.scenario.from_trace.recorded_margin`,
twice the relative standard error of a host's n page times, is at most 2: reached when one
page holds all of the host's time), so a larger one was never measured: most likely seconds
where a share belongs (0.07 is 7%)."""
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class ScenarioError(UsageError):
    """A scenario cannot be loaded.  ``str()`` is the one line to show:
    ``file: key: message`` (``file: line N, column M: ...`` for TOML syntax)."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None, line: str | None = None):
        self.path = path
        self.key = key
        self.message = message
        super().__init__(": ".join(p for p in (path, line, key, message) if p))


def key_path(*parts: str | int) -> str:
    """Dotted TOML key for messages: ``hosts."b.com".latency.median``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = part if _BARE_KEY.fullmatch(part) else '"' + printable(part).replace('"', '\\"') + '"'
            out += f".{text}" if out else text
    return out


def printable(text: str) -> str:
    """``text`` on one line that any terminal and any TOML comment can show: a
    newline, a control character or a lone surrogate as its backslash escape
    (a key or a file name from recorded data may hold any of them)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class Checks:
    """Checks one scenario's values; every complaint is a
    :class:`ScenarioError` naming the file and the dotted key.  The tables'
    builders (``*_table.py``) add to it what each table needs."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.page_latency: dict[str, float] = {}
        self.host_contention: dict[str, float] = {}
        """Page identity -> its own fetch time ([pages] and [hosts] both give some)."""
        self._trap_of: dict[str, int] = {}
        self._traps: list[tuple[str, str]] = []

    def fail(self, key: str, message: str) -> ScenarioError:
        return ScenarioError(message, path=self.path, key=key or None)

    def table(self, value: object, key: str, example: str = "") -> dict[str, Any]:
        if not isinstance(value, dict):
            hint = f" such as {example}" if example else ""
            raise self.fail(key, f"expected a table{hint}, got {show_value(value)}")
        return value

    def known(self, table: Mapping[str, Any], allowed: Sequence[str], *prefix: str | int) -> None:
        for k in table:
            if k not in allowed:
                raise self.fail(
                    key_path(*prefix, k),
                    f"unknown key{did_you_mean(k, allowed)}; expected one of {', '.join(allowed)}",
                )

    def number(
        self,
        value: object,
        key: str,
        *,
        minimum: float = 0.0,
        positive: bool = False,
        maximum: float = MAX_SETTING_SECONDS,
    ) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise self.fail(key, f"expected a number, got {show_value(value)}")
        if not math.isfinite(value):
            raise self.fail(key, f"expected a finite number, got {show_value(value)}")
        if value < minimum or (positive and value == minimum):
            raise self.fail(key, f"expected a number {'>' if positive else '>='} {minimum:g}, got {value!r}")
        if value > maximum:
            raise self.fail(key, f"expected a number <= {maximum:g}, got {value!r}")
        return float(value)

    def integer(self, value: object, key: str, *, minimum: int | None = 0, maximum: int | None = None) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 1e6 in a file means a million
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, got {show_value(value)}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"expected a whole number >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.fail(key, f"expected a whole number <= {maximum}, got {value!r}")
        return value

    def rate(self, value: object, key: str) -> float:
        rate = self.number(value, key)
        if rate > 1.0:
            raise self.fail(key, f"expected a rate between 0 and 1, got {value!r}")
        return rate

    def margin(self, value: object, key: str) -> float:
        """A model's margin: a share from 0 to :data:`MAX_MARGIN`."""
        share = self.number(value, key, maximum=math.inf)
        if share > MAX_MARGIN:
            raise self.fail(key, f"expected a share from 0 to {MAX_MARGIN:g} (0.07 is 7%; {MAX_MARGIN:g}, "
                                 f"{MAX_MARGIN:.0%}, is the most a recording's spread gives), got {value!r}")
        return share

    def string(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {show_value(value)}")
        return value

    def strings(self, value: object, key: str) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of strings, got {show_value(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{i}]", f"expected a string, got {show_value(item)}")
        return list(value)

    def url(self, value: object, key: str) -> str:
        url = self.string(value, key)
        if rfc3986_identity(url) is None:
            raise self.fail(key, f'expected an absolute http(s) URL such as "http://a.com/", got {show_value(url)}')
        return url

    def status(self, value: object, key: str) -> int:
        return self.integer(value, key, minimum=100, maximum=599)

    def host(self, value: object, key: str) -> str:
        host = self.string(value, key).strip().lower()
        if not host or "/" in host or " " in host or "@" in host:
            raise self.fail(key, f'expected a host name such as "a.com", got {show_value(value)}')
        return host

    def day(self, value: object, key: str) -> date:
        if isinstance(value, date):
            return value
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        raise self.fail(key, f"expected a date such as 2024-01-01, got {show_value(value)}")

    def latency(self, value: object, *prefix: str) -> LatencyModel:
        try:
            return latency_from_spec(value)
        except LatencySpecError as err:
            raise self.fail(key_path(*prefix, *([err.key] if err.key else [])), err.message) from None


__all__ = ["MAX_MARGIN", "Checks", "ScenarioError", "key_path", "printable"]
