"""Seen sets behind one interface: exact, 64-bit hashes, or a Bloom filter.

``exact`` stores the URL strings (no mistakes, most memory).  ``hash`` stores
an 8-byte digest per URL as a Python int: a collision would wrongly skip a
page, with probability about n^2 / 2^65 (negligible below billions).  ``bloom``
uses a fixed bit array sized from capacity and error rate: memory is
constant, and a false positive wrongly skips a page at about the configured
rate once the filter is full -- the trade web-scale crawlers accept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container
from hashlib import blake2b
from typing import Protocol


class SeenSet(Protocol):
    def add(self, url: str) -> bool:
        """Insert ``url``; True if it was not there before."""

    def __contains__(self, url: object) -> bool: ...

    def __len__(self) -> int: ...


class ExactSeen:
    """A plain set of canonical URL strings."""

    def __init__(self) -> None:
        self._urls: set[str] = set()

    def add(self, url: str) -> bool:
        before = len(self._urls)
        self._urls.add(url)
        return len(self._urls) != before

    def __contains__(self, url: object) -> bool:
        return url in self._urls

    def __len__(self) -> int:
        return len(self._urls)


def _digest64(url: str) -> int:
    return int.from_bytes(blake2b(url.encode(), digest_size=8).digest(), "little")


class HashSeen:
    """64-bit digests of canonical URLs."""

    def __init__(self) -> None:
        self._digests: set[int] = set()

    def add(self, url: str) -> bool:
        before = len(self._digests)
        self._digests.add(_digest64(url))
        return len(self._digests) != before

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and _digest64(url) in self._digests

    def __len__(self) -> int:
        return len(self._digests)


class BloomSeen:
    """A Bloom filter with ``k`` probes from one 128-bit digest (double hashing)."""

    def __init__(self, capacity: int, error_rate: float) -> None:
        bits = max(64, int(-capacity * math.log(error_rate) / (math.log(2) ** 2)))
        self.bits = bits
        self.k = max(1, round(bits / capacity * math.log(2)))
        self._array = bytearray((bits + 7) // 8)
        self._count = 0

    def _probes(self, url: str) -> list[int]:
        d = blake2b(url.encode(), digest_size=16).digest()
        h1 = int.from_bytes(d[:8], "little")
        h2 = int.from_bytes(d[8:], "little") | 1
        return [(h1 + i * h2) % self.bits for i in range(self.k)]

    def add(self, url: str) -> bool:
        new = False
        for p in self._probes(url):
            byte, bit = divmod(p, 8)
            if not self._array[byte] >> bit & 1:
                new = True
                self._array[byte] |= 1 << bit
        if new:
            self._count += 1
        return new

    def __contains__(self, url: object) -> bool:
        if not isinstance(url, str):
            return False
        return all(self._array[p // 8] >> (p % 8) & 1 for p in self._probes(url))

    def __len__(self) -> int:
        """URLs added that were new to the filter (false positives are not counted)."""
        return self._count


def fast_ops(seen: SeenSet) -> tuple[Container[str], Callable[[str], object]]:
    """``(container, add)`` for the scheduler's per-link hot path, where
    ``url in container`` tests membership: for an exact set, the underlying
    ``set`` itself and its ``add`` (``in`` on a plain set is a bytecode, no
    Python-level call: most of the cost of checking millions of links); for
    the others, the set object and its method (their digest dominates)."""
    if isinstance(seen, ExactSeen):
        return seen._urls, seen._urls.add
    return seen, seen.add


def make_seen(kind: str, capacity: int = 1_000_000, error_rate: float = 0.001) -> SeenSet:
    if kind == "exact":
        return ExactSeen()
    if kind == "hash":
        return HashSeen()
    if kind == "bloom":
        return BloomSeen(capacity, error_rate)
    raise ValueError(f"unknown seen set {kind!r}")
