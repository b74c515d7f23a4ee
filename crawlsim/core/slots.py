"""Worker lanes: which of the ``workers`` lanes a starting fetch runs in."""

from __future__ import annotations

from heapq import heappop, heappush


class WorkerSlots:
    """A pool of worker lanes numbered 0, 1, 2, ...

    Invariant: a fetch always gets the lowest lane not in use, so with ``w``
    fetches in flight every lane is below ``w``'s peak, and views draw the
    same lane for the same fetch on every run.  Lanes given back wait in a
    heap; lanes never used start at ``next``.
    """

    __slots__ = ("free", "next")

    def __init__(self) -> None:
        self.free: list[int] = []
        """Lanes given back and below ``next`` (a heap)."""
        self.next = 0
        """The lowest lane never handed out."""

    def take(self) -> int:
        """The lowest free lane, now in use."""
        if self.free:
            return heappop(self.free)
        lane = self.next
        self.next = lane + 1
        return lane

    def give_back(self, lane: int) -> None:
        """``lane``'s fetch finished: the lane is free again."""
        heappush(self.free, lane)
