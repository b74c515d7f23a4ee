"""Where a seeded schedule preempts: PCT-style priorities with a preemption bound.

The calibration schedule's horizon lists the preemptible points; seed ``s``
sweeps point ``s mod len(points)`` and adds up to ``bound - 1`` random extra
preemptions (the rule in full: the package docstring, ``interleave/__init__.py``).
"""

from __future__ import annotations

import random

from .results import Horizon


class _Strategy:
    def __init__(self, seed: int | None, bound: int, horizon: Horizon | None) -> None:
        self.rng = random.Random(seed) if seed is not None else None
        self.pending: dict[tuple[str, int], list[int]] = {}
        points = horizon.points if horizon else ()
        if self.rng is None or bound <= 0 or not points:
            return
        assert seed is not None
        # the first preemption sweeps the points: seeds 0..n-1 each take one, at
        # its second hit (the first often finds the others with nothing to do
        # yet); later rounds take a random hit
        file, line, hits = points[seed % len(points)]
        first = min(2, hits) if seed // len(points) == 0 else self.rng.randint(1, max(hits, 1))
        self.pending[(file, line)] = [first]
        for _ in range(self.rng.randint(0, bound - 1)):
            file, line, hits = self.rng.choice(points)
            self.pending.setdefault((file, line), []).append(self.rng.randint(1, max(hits, 1)))
        for occs in self.pending.values():
            occs.sort()

    def priority(self, index: int) -> float:
        return self.rng.random() if self.rng else -float(index)

    def armed(self, key: tuple[str, int], hits: int) -> bool:
        occs = self.pending.get(key)
        return bool(occs) and hits >= occs[0]  # type: ignore[index]

    def fire(self, key: tuple[str, int]) -> None:
        self.pending[key].pop(0)
