"""Crawler traps: small pieces of a site that generate URLs without end.

Both are lazy and unbounded, and both live under a path ``prefix`` of one
host, so they can be added to any other web (see ``CombinedWeb``):

* :class:`CalendarTrap`: ``/cal/2024-01-01`` links to the next day, forever.
  Every day is a distinct page with nearly the same text, so only a page cap,
  a depth limit or a near-duplicate filter stops a crawler; a depth-first
  crawler walks into it and never comes back.
* :class:`SessionTrap`: a shop whose every link carries a freshly minted
  ``?sid=`` session id.  There are only a handful of real pages, but each
  fetch spells them anew; only stripping session ids (the aggressive
  normalization) makes the crawl finite.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from datetime import date
from typing import cast

from crawlsim.sim.hashing import mix64, salt_of, stable_hash
from crawlsim.sim.text import near_key
from crawlsim.sim.web import Loc, Web, loose_identity

_SID = re.compile(r"[?&;]sid=([^&#;/]*)", re.IGNORECASE)


def _prefix_path(prefix: str) -> str:
    prefix = "/" + prefix.strip("/")
    if prefix == "/":
        raise ValueError("expected a path prefix such as '/cal/', not the whole site")
    return prefix


class CalendarTrap(Web):
    """An endless calendar under ``prefix`` on ``host`` starting at ``start``.

    Day pages link to the next day, then home.  ``entry`` is the link a site
    page should carry to lead crawlers in.
    """

    def __init__(self, host: str, prefix: str = "/cal/", start: date = date(2024, 1, 1)) -> None:
        super().__init__()
        self.host = host.lower()
        self.prefix = _prefix_path(prefix)
        self.start = start
        self._base = f"http://{self.host}{self.prefix}"
        self._re = re.compile(re.escape(self._base) + r"(?:/(\d{4}-\d{2}-\d{2}))?")
        self.entry = f"{self.prefix}/{start.isoformat()}"
        self.seeds = (self._base + "/" + start.isoformat(),)

    def _locate(self, url: str) -> Loc | None:
        m = self._re.fullmatch(url)
        ident = url
        if m is None:
            loose = loose_identity(url)
            if loose is None or not (loose == self._base or loose.startswith(self._base + "/")):
                return None
            ident = loose
            m = self._re.fullmatch(ident)
            if m is None:
                return ident, self.host, None
        if m[1] is None:
            return ident, self.host, 0
        try:
            day = date.fromisoformat(m[1])
        except ValueError:
            return ident, self.host, None
        return ident, self.host, day.toordinal()

    def _links_at(self, key: Hashable) -> list[str]:
        ordinal: int = key  # type: ignore[assignment]
        if ordinal == 0:
            return [self.entry, "/"]
        if ordinal >= date.max.toordinal():
            return ["/"]
        return [f"{self.prefix}/{date.fromordinal(ordinal + 1).isoformat()}", "/"]

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        ordinal: int = key  # type: ignore[assignment]
        if ordinal == 0:
            return self._base, None
        return near_key(self._base, date.fromordinal(ordinal).isoformat()), None

    def hosts(self) -> Iterator[str]:
        return iter((self.host,))


class SessionTrap(Web):
    """A shop under ``prefix`` with ``items`` item pages whose links always
    carry a new session id (derived from the id in the URL just fetched)."""

    def __init__(self, host: str, prefix: str = "/shop", items: int = 5, *, seed: int = 0) -> None:
        super().__init__()
        if items < 1:
            raise ValueError(f"items: expected a whole number >= 1, got {items!r}")
        self.host = host.lower()
        self.prefix = _prefix_path(prefix)
        self.items = items
        self._base = f"http://{self.host}{self.prefix}"
        self._item_re = re.compile(re.escape(self._base) + r"(?:/item(0|[1-9]\d*))?")
        self._salt = salt_of(seed, "sessions")
        self.entry = f"{self.prefix}?sid=1"
        self.seeds = (self._base + "?sid=1",)

    def _locate(self, url: str) -> Loc | None:
        ident = loose_identity(url)
        if ident is None or not (ident == self._base or ident.startswith((self._base + "/", self._base + "?"))):
            return None
        m = self._item_re.fullmatch(ident)
        if m is None:
            return ident, self.host, None
        item = -1 if m[1] is None else int(m[1])
        if item >= self.items:
            return ident, self.host, None
        sid = _SID.search(url)
        return ident, self.host, (item, sid[1] if sid else "")

    def _links_at(self, key: Hashable) -> list[str]:
        item, sid = cast(tuple[int, str], key)
        new = f"{mix64(stable_hash(sid, self._salt) ^ (item + 1)) & 0xFFFFFFFFFF:010x}"
        if item < 0:
            return [f"{self.prefix}/item{i}?sid={new}" for i in range(self.items)]
        nxt = (item + 1) % self.items
        return [f"{self.prefix}?sid={new}", f"{self.prefix}/item{nxt}?sid={new}", "/"]

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        item, _sid = cast(tuple[int, str], key)
        return (self._base if item < 0 else f"{self._base}/item{item}"), None

    def hosts(self) -> Iterator[str]:
        return iter((self.host,))

    def host_size(self, host: str) -> int | None:
        return self.items + 1 if host.lower() == self.host else None


__all__ = ["CalendarTrap", "SessionTrap"]
