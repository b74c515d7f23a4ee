"""Which IP addresses requests may go to, and the resolver that keeps DNS
answers to them: a page or a robots.txt redirect must not make the crawler
request an internal service."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import aiohttp

from crawlsim.core.urls import canonicalize, host_key
from crawlsim.errors import CrawlsimError
from crawlsim.real.redirect_scope import origin_of


def map_key(host: str) -> str:
    """A host map's key (``host`` or ``host:port``) or a URL's, in the one
    spelling both are compared in: the core's :func:`host_key` of the host
    normalized as URLs are (lowercase, IDNA-encoded, no default port), so
    ``Bücher.de`` in ``--resolve`` maps ``http://xn--bcher-kva.de/`` and back."""
    canonical = canonicalize(f"http://{host}/", mode="rfc3986")
    return host_key(canonical) if canonical is not None else host.lower()



class AddressPolicy:
    """Which IP addresses requests may go to.

    Public addresses always; a start URL's own address (an IP literal, or the
    address ``--resolve`` maps its host to) always, since the user asked for
    it; loopback when a start URL is on loopback (``serve``, tests,
    ``localhost``); every other private, link-local (169.254.0.0/16, the cloud
    metadata address), reserved or otherwise non-public address only with
    ``allow_private`` -- so a page or a robots.txt redirect cannot make the
    crawler request an internal service.  Host names looked up in DNS are
    checked by :class:`CheckedResolver` after the lookup (no second lookup
    to race), IP literals and mapped hosts before connecting.
    """

    def __init__(self, seeds: Sequence[str], resolve: Mapping[str, tuple[str, int]], allow_private: bool) -> None:
        self.allow_private = allow_private
        self.allowed: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = set()
        self.seed_names: set[str] = set()
        loopback = False
        for url in seeds:
            origin = origin_of(url)
            if origin is None:
                continue
            name, port = origin
            self.seed_names.add(name)
            mapped = resolve.get(map_key(f"{name}:{port}")) or resolve.get(map_key(name))
            ip = _ip(mapped[0] if mapped else name)
            if ip is not None:
                self.allowed.add(ip)
                loopback = loopback or ip.is_loopback
            loopback = loopback or name == "localhost" or name.endswith(".localhost")
        self.loopback_ok = loopback

    def refusal(self, address: str) -> str | None:
        """Why a request must not go to ``address``, or None when it may."""
        ip = _ip(address)
        if ip is None or self.allow_private or ip in self.allowed:
            return None
        if ip.is_loopback:
            return None if self.loopback_ok else "a loopback address"
        if ip.is_link_local:
            return "a link-local address"
        if ip.is_private:
            return "a private address"
        if not ip.is_global or ip.is_multicast:
            return "a reserved (non-public) address"
        return None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip("[]").partition("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class RefusedAddress(CrawlsimError, OSError):
    """A DNS answer the address policy refuses (never connected to)."""


class CheckedResolver(aiohttp.abc.AbstractResolver):
    """aiohttp's default resolver, with each answer checked by an
    :class:`AddressPolicy`: refused addresses are dropped, and a name with
    only refused addresses fails before any connection is made."""

    def __init__(self, policy: AddressPolicy, on_refused: Callable[[str, str], None]) -> None:
        self._inner = aiohttp.DefaultResolver()
        self._policy = policy
        self._on_refused = on_refused

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[Any]:
        answers = await self._inner.resolve(host, port, family)
        if host.lower() in self._policy.seed_names:
            return answers
        kept, why = [], ""
        for answer in answers:
            reason = self._policy.refusal(answer["host"])
            if reason is None:
                kept.append(answer)
            else:
                why = f"{host} resolves to {answer['host']}, {reason}"
        if not kept:
            self._on_refused(host, why)
            raise RefusedAddress(why)
        return kept

    async def close(self) -> None:
        await self._inner.close()
