"""Where a redirect may lead: the crawl's scope, and with ``scope = "host"``
the start URLs' ports too."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from crawlsim.core.scope import Scope
from crawlsim.core.urls import DEFAULT_PORTS


def origin_of(url: str) -> tuple[str, int] | None:
    """(lowercase hostname, port or the scheme's default), or None if unparsable."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    return (parts.hostname or "").lower(), port if port is not None else DEFAULT_PORTS.get(scheme, 0)


class RedirectScope:
    """Where a redirect may lead: the core's :class:`~crawlsim.core.scope.Scope`
    (host / domain / any; allow and deny apply to the pages the scheduler
    queues, not to where a page says it moved) and, with ``scope = "host"``,
    the port as well: a redirect to another port of a start host's name is
    another server, so it leaves the site."""

    def __init__(self, kind: str, seeds: Sequence[str]) -> None:
        self.kind = kind
        self._scope = Scope(kind)
        self._origins: set[tuple[str, int]] = set()
        for url in seeds:
            origin = origin_of(url)
            if origin is not None:
                self._scope.add_seed(url)
                self._origins.add(origin)
        self._names = {name for name, _ in self._origins}

    def port_refusal(self, url: str) -> str | None:
        """Why ``url`` is out of scope by its port alone, or None."""
        origin = origin_of(url)
        if self.kind == "host" and origin is not None and origin[0] in self._names and origin not in self._origins:
            return f"port {origin[1]} is another server than the start URL's (scope=host)"
        return None

    def refusal(self, url: str) -> str | None:
        """Why a redirect to ``url`` is out of scope, or None when it is in scope."""
        if self.kind != "any" and not self._scope.allows(url):
            return f"another host, out of scope (scope={self.kind})"
        return self.port_refusal(url)
