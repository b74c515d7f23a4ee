"""Cheap, stable hashing for lazily generated webs.

A generated web stores nothing per page or per link: every random choice is
recomputed from a hash of (web seed, page).  Python's ``hash()`` is salted per
process, so it would give a different web on every run; these helpers are
deterministic across processes and machines and cost well under a
microsecond, which matters because link generation is the floor of a large
simulation.
"""

from __future__ import annotations

import zlib

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
LCG_A = 6364136223846793005
LCG_C = 1442695040888963407
_TO_UNIT = 2.0**-53


def mix64(x: int) -> int:
    """SplitMix64's finalizer: a well-spread 64-bit value from any integer."""
    x = (x + GOLDEN) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def salt_of(seed: int, purpose: str) -> int:
    """A 64-bit salt for one use of one seed, so that (say) failure draws and
    variant draws of the same page are independent."""
    return mix64((seed & M64) ^ (zlib.crc32(purpose.encode()) << 24))


def stable_hash(text: str, salt: int = 0) -> int:
    """A 64-bit hash of ``text`` under ``salt``; identical in every process."""
    return mix64(salt ^ zlib.crc32(text.encode()))


def unit(x: int) -> float:
    """Map a 64-bit hash to a float in [0, 1)."""
    return (x >> 11) * _TO_UNIT


__all__ = ["GOLDEN", "LCG_A", "LCG_C", "M64", "mix64", "salt_of", "stable_hash", "unit"]
