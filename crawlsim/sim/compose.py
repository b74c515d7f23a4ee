"""Putting webs together: several parts behind one interface, and mirrors.

A scenario can mix a generated site, a few hand-written pages, a calendar
trap and a mirror host.  :class:`CombinedWeb` asks each part in turn who
serves a URL; :class:`MirrorWeb` serves another host's pages under its own
name, so the same text appears under two different URLs -- exactly what URL
normalization cannot catch and content fingerprints can.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import cast
from urllib.parse import urlsplit, urlunsplit

from crawlsim.core.urls import DEFAULT_PORTS
from crawlsim.sim.web import Loc, Unlisted, Web


class CombinedWeb(Web):
    """One web made of ``parts`` (their own policies and variants are ignored).

    A URL goes to the first part that has a page for it; if none has, a part
    that knows the host but not the page (a 404) wins over an explicit web's
    linked-but-unwritten leaf (an empty page), so a hand-written link never
    hides a generated host's missing page.  ``entries`` adds links at the *front* of a page's
    links (how traps are wired in: a depth-first crawler follows the first
    link first).
    """

    def __init__(self, parts: Sequence[Web], entries: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__()
        if not parts:
            raise ValueError("expected at least one web")
        self.parts = tuple(parts)
        self.seeds = next((p.seeds for p in self.parts if p.seeds), ())
        self._entries: dict[Hashable, tuple[str, ...]] = {}
        for url, links in (entries or {}).items():
            loc = self._locate(url)
            if loc is None or loc[2] is None:
                raise ValueError(f"cannot add links to {url!r}: no such page")
            self._entries[loc[2]] = self._entries.get(loc[2], ()) + tuple(links)

    def _locate(self, url: str) -> Loc | None:
        fallback: Loc | None = None
        rank = 3
        for part in self.parts:
            loc = part._locate(url)
            if loc is None:
                continue
            key = loc[2]
            if key is not None and not isinstance(key, Unlisted):
                return loc[0], loc[1], (part, key)
            this = 1 if key is None else 2
            if this < rank:
                rank = this
                fallback = (loc[0], loc[1], None if key is None else (part, key))
        return fallback

    def _links_at(self, key: Hashable) -> list[str]:
        part, inner = cast(tuple[Web, Hashable], key)
        out = part._links_at(inner)
        extra = self._entries.get(key)
        return [*extra, *out] if extra else out

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        part, inner = cast(tuple[Web, Hashable], key)
        return part._content_at(inner)

    def _status_at(self, key: Hashable) -> tuple[int, Mapping[str, str]]:
        part, inner = cast(tuple[Web, Hashable], key)
        return part._status_at(inner)

    def _earlier_answer(self, key: Hashable, attempt: int) -> tuple[int, Mapping[str, str]] | None:
        part, inner = cast(tuple[Web, Hashable], key)
        return part._earlier_answer(inner, attempt)

    def answers_before(self) -> bool:
        return any(part.answers_before() for part in self.parts)

    def hosts(self) -> Iterator[str]:
        seen: set[str] = set()
        for part in self.parts:
            for host in part.hosts():
                if host not in seen:
                    seen.add(host)
                    yield host

    def host_size(self, host: str) -> int | None:
        """Pages on ``host`` over all parts, each page counted once (a linked
        page that a generated part serves is not counted again by an explicit
        part); an unbounded trap adds nothing."""
        return self._count_pages(host, self)

    def _count_pages(self, host: str, top: Web) -> int | None:
        sizes = [s for s in (p._count_pages(host, top) for p in self.parts) if s is not None]
        return sum(sizes) if sizes else None

    def _server_of(self, key: Hashable) -> Web:
        part, inner = cast(tuple[Web, Hashable], key)
        return part._server_of(inner)


class MirrorWeb(Web):
    """``host`` serves every page of ``of`` (on ``source``) under its own name.

    Links are served as written, except absolute links to ``of``, which point
    at the mirror instead (a full mirror, not a page of redirects).  Content
    keys are the original's, so fingerprints match.
    """

    def __init__(self, host: str, of: str, source: Web) -> None:
        super().__init__()
        self.host = host.lower()
        self.of = of.lower()
        if self.host == self.of:
            raise ValueError(f"a host cannot mirror itself: {host!r}")
        self.source = source
        self.seeds = (f"http://{self.host}/",)
        self._rewrites = tuple((f"{s}://{self.of}/", f"{s}://{self.host}/") for s in ("http", "https"))

    def _locate(self, url: str) -> Loc | None:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return None
        name = (parts.hostname or "").lower()
        if name.startswith("www.") and name[4:] == self.host:
            name = name[4:]
        scheme = parts.scheme.lower()
        if name != self.host or (port is not None and port != DEFAULT_PORTS.get(scheme)):
            return None
        loc = self.source._locate(urlunsplit((scheme, self.of, parts.path, parts.query, parts.fragment)))
        if loc is None:
            return None
        ident = loc[0].replace(f"://{self.of}", f"://{self.host}", 1)
        return ident, self.host, loc[2]

    def _links_at(self, key: Hashable) -> list[str]:
        out = self.source._links_at(key)
        for i, link in enumerate(out):
            for old, new in self._rewrites:
                if link.startswith(old):
                    out[i] = new + link[len(old) :]
                    break
        return out

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        return self.source._content_at(key)

    def _status_at(self, key: Hashable) -> tuple[int, Mapping[str, str]]:
        return self.source._status_at(key)

    def _earlier_answer(self, key: Hashable, attempt: int) -> tuple[int, Mapping[str, str]] | None:
        return self.source._earlier_answer(key, attempt)

    def answers_before(self) -> bool:
        return self.source.answers_before()

    def hosts(self) -> Iterator[str]:
        return iter((self.host,))

    def host_size(self, host: str) -> int | None:
        return self.source.host_size(self.of) if host.lower() == self.host else None

    def _count_pages(self, host: str, top: Web) -> int | None:
        return self.host_size(host)


__all__ = ["CombinedWeb", "MirrorWeb"]
