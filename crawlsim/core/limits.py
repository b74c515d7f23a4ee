"""Memory estimates made *before* building something large.

A Bloom filter for ``1e14`` URLs, or the seen set of a billion-page crawl,
would fail with a ``MemoryError`` minutes in -- or swap the machine.  The
options and the scenario loader estimate instead, and refuse with the
figure when the estimate exceeds this machine's memory.

The estimates are deliberately on the low side (they only refuse what surely
cannot fit); the per-page figure is the one ``benchmarks/sim_vs_bfs.py``
measures for an untraced simulation.
"""

from __future__ import annotations

import math
import os

FALLBACK_MEMORY = 16 * 2**30
"""Assumed when the platform cannot say how much memory it has."""

BYTES_PER_PAGE = 145
"""Memory a crawl holds per page it discovers (seen set, frontier, stats),
untraced: peak RSS above the built web, measured at 1,000,000 pages by
``benchmarks/ab_trees.py`` (145 B/page once the per-host queues became
columns; 163 before)."""

BYTES_PER_TRACED_PAGE = 1450
"""The same with every event recorded (about six events per page): about
1,500 B/page was measured before the per-host queues became columns (which
saves some 20 B/page); not re-measured since."""

BYTES_PER_HOST = 400
"""Per-host state of the scheduler, the latency table and a generated web's size arrays."""


def memory_budget() -> int:
    """Physical memory of this machine in bytes (what an estimate is held against)."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY
    total = pages * size
    return total if total > 0 else FALLBACK_MEMORY


def bloom_bytes(capacity: int, error_rate: float) -> int:
    """Bytes of a Bloom filter for ``capacity`` items at ``error_rate`` (its bit array)."""
    bits = max(64, -capacity * math.log(error_rate) / (math.log(2) ** 2))
    return int(bits // 8)


def show_bytes(n: float) -> str:
    """``1.8e14`` -> ``"180 TB"``: a size as a person reads it (decimal units)."""
    n = float(n)
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000:
            return f"{n:.3g} {unit}" if unit != "bytes" else f"{int(n)} bytes"
        n /= 1000
    return f"{n:.3g} EB" if n < 1000 else f"{n * 1e18:.2g} bytes"


__all__ = [
    "BYTES_PER_HOST",
    "BYTES_PER_PAGE",
    "BYTES_PER_TRACED_PAGE",
    "bloom_bytes",
    "memory_budget",
    "show_bytes",
]
