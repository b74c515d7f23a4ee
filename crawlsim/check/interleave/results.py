"""What a schedule leaves behind: its switches, pauses, races and notes.

Plain data, so a report (``check/races.py``) can read a schedule without
knowing how the controller produced it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


class _ScheduleAborted(BaseException):
    """Raised inside the target's threads to unwind a schedule being stopped:
    control flow of the explorer, never an error a caller sees, so private,
    and a ``BaseException`` so the user's ``except Exception`` lets it pass."""


@dataclass(frozen=True)
class Location:
    """One line of the user's code."""

    file: str
    line: int
    text: str
    after_condition: bool = False
    """The point inside a one-line ``if``: its condition ran, its body did not."""

    def __str__(self) -> str:
        text = f"line {self.line} (`{self.text}`)" if self.text else f"line {self.line}"
        return f"{text} after its condition" if self.after_condition else text


@dataclass(frozen=True)
class Switch:
    """The baton passed from one thread to another."""

    step: int
    reason: str
    """``preempt`` (the strategy switched), ``block`` (the thread waits),
    ``spin`` (the thread ran ``SPIN_STEPS`` without blocking: a yield),
    ``finish`` (the thread ended) or ``stall`` (no progress; nondeterministic)."""
    from_thread: str
    to_thread: str
    where: Location | None
    """The from-thread's user line: the one it is about to run, or blocked at."""


@dataclass(frozen=True)
class Overlap:
    """Another thread ran the paused thread's last line while it was paused."""

    step: int
    thread: str
    where: Location
    values: tuple[str, ...]


@dataclass
class Preemption:
    step: int
    thread: str
    after: Location | None
    """The line the thread had just run."""
    before: Location
    """The line it was about to run."""
    values: tuple[str, ...]
    """String values in its locals when paused (e.g. the link it was checking)."""
    to_thread: str
    resumed_step: int | None = None
    overlaps: list[Overlap] = field(default_factory=list)


@dataclass(frozen=True)
class Race:
    """Two threads ran the same line with the same value, one paused in between."""

    seed: int | None
    value: str
    paused_thread: str
    after: Location
    before: Location
    other_thread: str
    other_at: Location
    step: int

    def __str__(self) -> str:
        return (
            f"{self.other_thread} ran {self.other_at} with {self.value} while {self.paused_thread}, "
            f"also with {self.value}, was between {self.after} and {self.before} (seed {self.seed})"
        )


@dataclass(frozen=True)
class Note:
    """A mark the target made with :func:`note` (e.g. each ``get_urls`` call)."""

    step: int
    thread: str
    text: str


@dataclass(frozen=True)
class Step:
    """One user line a thread ran, with the string values of its locals:
    recorded only when asked (``explore(record_lines=True)``), for the
    column-per-thread table of a replayed schedule."""

    step: int
    thread: str
    where: Location
    values: tuple[tuple[str, str], ...]
    """(name, value) of each string local when the line was reached."""


@dataclass
class Schedule(Generic[T]):
    """One controlled run of the target."""

    seed: int | None
    outcome: str
    """``returned``, ``raised``, ``deadlock``, ``step-limit`` or ``timeout``."""
    value: T | None
    error: BaseException | None
    steps: int
    switches: list[Switch]
    preemptions: list[Preemption]
    notes: list[Note]
    problems: list[str]
    """Plain-language lines: the deadlock, the step limit, stalls, threads that would not stop."""
    leftover: list[str]
    """Threads still blocked (e.g. daemon workers on ``q.get()``) or still
    looping ``AFTER_RETURN_STEPS`` steps after the target returned; they were stopped."""
    thread_errors: list[tuple[str, BaseException]]
    nondeterministic: bool
    seconds: float
    lines: list[Step] = field(default_factory=list)
    """Every user line run, in order (empty unless ``record_lines``)."""

    def races(self) -> list[Race]:
        """Every preemption where another thread ran the paused line with a shared value.

        An explanation, not a verdict: correct code shows such overlaps too
        (two workers both at ``while True:``).  Ask only once the target's own
        counters show a failure, with the value that failed (``race_on``)."""
        found = []
        for p in self.preemptions:
            if p.after is None:
                continue
            for o in p.overlaps:
                for value in o.values:
                    if value in p.values:
                        found.append(Race(self.seed, value, p.thread, p.after, p.before, o.thread, o.where, o.step))
                        break
        return found

    def race_on(self, value: str | None = None) -> Race | None:
        """The first race on ``value`` (any value when None), or None.

        Races where the paused thread sat between two different lines come
        first: "between line 21 and line 21" explains nothing."""
        candidates = [r for r in self.races() if value is None or r.value == value]
        candidates.sort(key=lambda r: r.after == r.before)  # stable: keeps step order otherwise
        return candidates[0] if candidates else None


@dataclass(frozen=True)
class Horizon:
    """The preemptible points a calibration schedule found: (file, line, hits)."""

    points: tuple[tuple[str, int, int], ...]


@dataclass
class ExploreResult(Generic[T]):
    calibration: Schedule[T] | None
    """The schedule without preemptions that found the horizon (None when
    the horizon was given)."""
    schedules: list[Schedule[T]]
    horizon: Horizon
    seconds: float

    def failing(self, predicate: Callable[[Schedule[T]], bool]) -> list[Schedule[T]]:
        return [s for s in self.schedules if predicate(s)]
