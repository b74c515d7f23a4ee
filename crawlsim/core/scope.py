"""Scope: which canonical URLs a crawl may follow.

``host`` keeps a seed's exact hostname (``blog.a.com`` is not ``a.com``, and
``a.com.evil.com`` certainly is not); ``domain`` also admits the seeds'
subdomains and ignores a leading ``www.``; ``any`` admits everything.  Allow
and deny regular expressions are applied on top, deny first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from crawlsim.core.urls import hostname_of


def _strip_www(host: str) -> str:
    return host.removeprefix("www.")


class Scope:
    """Decides whether a URL is in scope; built once per crawl."""

    def __init__(self, kind: str, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> None:
        self.kind = kind
        self._hosts: set[str] = set()
        self._domains: set[str] = set()
        self._allow = [re.compile(p) for p in allow]
        self._deny = [re.compile(p) for p in deny]

    def add_seed(self, url: str) -> None:
        """Seeds define the hosts (and domains) in scope."""
        host = hostname_of(url)
        self._hosts.add(host)
        self._domains.add(_strip_www(host))

    def allows(self, url: str, hostname: str | None = None) -> bool:
        if self._deny and any(p.search(url) for p in self._deny):
            return False
        if self._allow and not any(p.search(url) for p in self._allow):
            return False
        if self.kind == "any":
            return True
        host = hostname if hostname is not None else hostname_of(url)
        if self.kind == "host":
            return host in self._hosts
        bare = _strip_www(host)
        return any(bare == d or bare.endswith("." + d) for d in self._domains)
