"""Deterministic race finding: run a crawler's threads one at a time on seeded schedules.

Why: under the GIL a thread is switched out every 5 ms, so an unlocked
check-then-add on a shared ``seen`` set (``if link not in seen: seen.add(link)``)
overlaps only by luck and a checker that relies on real threads flips its
verdict from run to run.  Systematic concurrency testers (CHESS's iterative
context bounding, Coyote, Loom) take the scheduling away from the OS: one
thread runs at a time, the tester decides where to switch, and every schedule
is named by a seed, so a failing schedule is replayed exactly.

Use
---
    report = find_duplicate_fetches(crawl, web={url: [links]}, start_url=url,
                                    files=[user_file], max_workers=3)
    report.first        # DuplicateFetch | None: seed, url, fetches, race
    str(report.first)   # "/x was fetched 2 times (seed 4): thread 2 (worker) ran
                        #  line 21 (`if link not in seen:`) with /x while thread 1
                        #  (worker), also with /x, was between line 21 (...) and
                        #  line 22 (`seen.add(link)`) (seed 4)"
    find_duplicate_fetches(..., seeds=[4])   # replays seed 4 (calibration + 1 schedule)

The general form, for targets with their own counters:

    result = explore(target, seeds=None, files=[user_file])   # ExploreResult
    for s in result.schedules:  # Schedule: seed, outcome, value, error, steps,
        ...                     # switches, preemptions, notes, problems, leftover,
                                # thread_errors, nondeterministic, seconds
        s.race_on("/x")         # Race | None: the two interleaved lines
    replay(target, 4, files=[user_file], horizon=result.horizon)   # one schedule

Inside the target, ``note(text)`` marks the schedule's log (e.g. each fetch).
Import the user's module inside ``install_for_import()`` so its module-level
locks and queues are cooperative.  ``explore`` is not re-entrant (one per
process at a time) and patches process-wide state while it runs: run it in
the checker's throwaway child process, with ``PYTHONHASHSEED`` fixed.

Design
------
* **One baton.**  ``explore`` runs ``target()`` in a fresh thread ("main").
  Every thread it starts (``threading.Thread.start`` is patched) is
  registered before ``start`` returns and then waits for the baton; exactly
  one registered thread runs at a time.  The calling thread only watches.
* **Switch points.**  ``sys.settrace`` line events in frames whose file is in
  ``files`` (the user's code: a switch can land between any two of its
  lines), and every blocking operation.  Code outside ``files`` (the stdlib,
  the checker's fake ``get_urls``) is never interrupted.
* **Cooperative blocking.**  While installed, ``threading.Lock`` /
  ``threading._allocate_lock`` are replaced by :class:`CoopLock`, the C
  ``RLock`` is switched off (``threading._CRLock = None``, so RLock is the
  pure-Python one built on ``Lock``), and ``queue.SimpleQueue`` by a
  ``queue.Queue`` subclass.  So Condition, Event, Semaphore, Barrier,
  ``queue.Queue``, ``Future.result``, ``concurrent.futures.wait`` and
  ``ThreadPoolExecutor``'s work queue all block cooperatively: the thread is
  marked blocked on a predicate and the baton passes on.  ``Thread.join``
  waits for the joined thread's record.  A thread not registered with the
  schedule (or the watcher) gets the plain blocking behaviour, so these
  objects stay valid locks before and after a schedule.
* **Virtual time.**  For registered threads ``time.monotonic/time/
  perf_counter`` read a virtual clock (one microsecond per step) and
  ``time.sleep`` blocks until it passes; when every thread is blocked the
  clock jumps to the earliest timeout.  Timeouts are therefore
  deterministic, and simulated latency costs no real time.
* **Strategy** (seeded, like PCT with a preemption bound).  Each thread gets a
  random priority; at a blocking point the highest-priority runnable thread
  runs.  A preemption demotes the running thread below all others.  A first
  *calibration* schedule (no preemptions) lists the *preemptible points*:
  user lines reached while another thread could run, with how often.  Seed
  ``s`` preempts at point ``s mod len(points)`` (so ``len(points)``
  consecutive seeds try every point once) -- at its second hit in the first
  round of seeds, at a random hit later -- plus up to
  ``preemption_bound - 1`` random extra preemptions.  A preemption is
  armed at its occurrence and fires at the first hit of that line from
  then on at which another thread can run.  CHESS found most bugs within two
  preemptions.
* **Determinism.**  Same target, files, seed and calibration => same
  switch log.  Threads are named by start order ("main", "thread 1 (worker)"),
  not by the global ``Thread-N`` counter; ``concurrent.futures.Future`` and
  ``threading.Thread`` objects made under control hash by creation order
  within the schedule (a set of futures, or ThreadPoolExecutor's set of
  threads, iterates the same way every run, not by memory address); cyclic
  GC is paused during ``explore``.  asyncio Tasks still hash by address.  String
  hashing is salted per process, so across processes set iteration order of
  strings is the same only with a fixed ``PYTHONHASHSEED`` (the checker's
  child process should set it).
* **Never hangs.**  A schedule stops at ``max_steps`` switch points
  (outcome ``step-limit``: an endless loop or livelock), when every thread is
  blocked (``deadlock``, naming each thread's line), or after
  ``schedule_timeout`` real seconds (``timeout``, a safety net only).  If the
  running thread makes no progress for ``stall_timeout`` real seconds and is
  not runnable (on Linux its ``/proc`` state says it sleeps in the kernel; a
  thread that is merely waiting for a CPU on a loaded machine is left alone)
  it is presumed blocked outside the controller (a lock created before ``explore``,
  a socket) and the baton passes on; that schedule is marked
  ``nondeterministic``.  Stopping a schedule raises :class:`ScheduleAborted`
  (a ``BaseException``, so ``except Exception`` does not swallow it) in
  every thread at its next blocking call or user line; all managed threads
  are daemons.  Patches are always removed when ``explore`` returns.

Explaining a race
-----------------
Each preemption records the paused thread's line just run (``after``), the
line it is about to run (``before``) and the string values in its locals;
while it is paused, every other thread's hit of the ``after`` line is
recorded with its string locals.  ``Schedule.race_on("/x")`` finds the
preemption where another thread ran the same line with the same value:
"thread 2 ran line 21 with /x while thread 1 was paused between line 21 and
line 22".  Targets can add their own marks with :func:`note`.

Limits
------
* Switches happen between *lines*: a check-then-add written on one line
  (``if x not in s: s.add(x)``) is not split and its race is not found
  (opcode events could split it, at several times the cost; not done).
* The strategy is randomised per seed, not exhaustive: the default seeds try
  every preemptible point three times (second hit, then random hits); a race that needs a
  particular occurrence of a rarely-hit line may need more seeds.
* A thread looping in code outside ``files`` without calling anything
  blocking is stopped only by ``schedule_timeout`` and then cannot be
  unwound: it is reported and left running as a daemon thread.
* Threads started with ``_thread.start_new_thread`` are not controlled;
  locks/queues created before ``explore`` (e.g. at module import) are real
  C locks and only reach the stall fallback.  Load the user's module after
  calling :func:`install_for_import` or inside the target where possible.
* An exception that kills a worker thread is recorded in
  ``Schedule.thread_errors`` and not passed to ``threading.excepthook``.
* ``sys.settrace`` in managed threads replaces a debugger's or coverage's
  tracer there.
* asyncio is controlled at await points only: the event loop's selector
  waits in virtual time (``selectors.DefaultSelector`` is patched, so loops
  created under control get it) and each loop iteration runs its ready
  callbacks in a seeded order (FIFO in calibration; the seed shuffles, as
  trio's scheduler does on purpose).  There is no preemption bound there:
  every iteration may reorder.  A task whose user line follows another
  task's is recorded as a pause of that task, so ``race_on`` names the
  check and the await ("task 3 was between line 16 and line 18").  Only
  loops run by a managed thread (``asyncio.run`` inside ``target``) are
  controlled.
"""

from __future__ import annotations

import _thread
import asyncio
import asyncio.base_events as _aio_base
import concurrent.futures._base as _cf_base
import gc
import linecache
import logging
import os
import queue
import random
import selectors
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, NoReturn, TypeVar

T = TypeVar("T")

QUANTUM = 1e-6
"""Virtual seconds that pass per step."""

SEEDS_PER_POINT = 3
"""Default seeds per preemptible point: ``seeds=None`` runs this many rounds."""

AFTER_RETURN_STEPS = 20_000
"""Steps the other threads may still take once the target has returned."""

_real_lock = _thread.allocate_lock
_real_monotonic = time.monotonic
_real_time = time.time
_real_perf_counter = time.perf_counter
_real_sleep = time.sleep
_orig_start = threading.Thread.start
_orig_join = threading.Thread.join
_orig_future_init = _cf_base.Future.__init__
_orig_thread_init = threading.Thread.__init__
_orig_run_once = _aio_base.BaseEventLoop._run_once
_RealSelector = selectors.DefaultSelector

_active: _Controller | None = None
_SUSPENDABLE = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR: 'return' may be a yield
_explore_lock = _real_lock()


class ScheduleAborted(BaseException):
    """Raised inside the target's threads to unwind a schedule being stopped."""


# --------------------------------------------------------------------- results


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


# ----------------------------------------------------------- cooperative parts


def _managed() -> _Rec | None:
    """The calling thread's record if it runs under the active schedule."""
    ctl = _active
    if ctl is None:
        return None
    rec = ctl.by_ident.get(_thread.get_ident())
    if rec is None or rec.suspended or rec.finished:
        return None
    return rec


class CoopLock:
    """A ``threading.Lock`` that, under control, waits by passing the baton."""

    __slots__ = ("_real", "__weakref__")

    def __init__(self) -> None:
        self._real = _real_lock()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not blocking and timeout != -1:
            raise ValueError("can't specify a timeout for a non-blocking call")
        if self._real.acquire(False):
            return True
        if not blocking:
            return False
        rec = _managed()
        if rec is None:
            return self._real.acquire(True, timeout)
        ctl = rec.ctl
        deadline = None if timeout < 0 else ctl.vnow() + timeout
        real = self._real
        while True:
            ctl.block_until(rec, lambda: not real.locked(), deadline)
            if real.acquire(False):
                return True
            if deadline is not None and ctl.vnow() >= deadline:
                return False

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self._real.release()

    def release(self) -> None:
        self._real.release()

    def locked(self) -> bool:
        return self._real.locked()

    def _at_fork_reinit(self) -> None:
        self._real = _real_lock()

    def __repr__(self) -> str:
        return f"<CoopLock {'locked' if self._real.locked() else 'unlocked'}>"


class _CoopSimpleQueue(queue.Queue):  # type: ignore[type-arg]
    """``queue.SimpleQueue``'s interface on ``queue.Queue`` (so on CoopLock)."""

    def __init__(self) -> None:
        super().__init__()


class _CoopSelector(_RealSelector):  # type: ignore[misc,valid-type]
    """An event loop's selector whose waits are virtual: a timeout lets the
    other threads run and the clock jump; fd readiness is polled."""

    def select(self, timeout: float | None = None) -> list[Any]:
        rec = _managed()
        if rec is None or (timeout is not None and timeout <= 0):
            return super().select(timeout)
        ready = super().select(0)
        if ready:
            return ready
        ctl = rec.ctl
        poll = super().select
        ctl.block_until(rec, lambda: bool(poll(0)), None if timeout is None else ctl.vnow() + timeout)
        return super().select(0)


def _run_once(self: Any) -> None:
    """One event-loop iteration; under control the ready callbacks run in a
    seeded order (FIFO in calibration), so await-point interleavings vary by seed."""
    rec = _managed()
    if rec is not None:
        rec.ctl.asyncio_used = True
        rng = rec.ctl.strategy.rng
        if rng is not None and len(self._ready) > 1:
            ready = list(self._ready)
            rng.shuffle(ready)
            self._ready.clear()
            self._ready.extend(ready)
    _orig_run_once(self)


def _patched_start(self: threading.Thread) -> None:
    ctl = _active
    parent = _managed()
    if ctl is None or parent is None or self._started.is_set():
        return _orig_start(self)
    if ctl.aborting:
        raise ScheduleAborted
    rec = ctl.new_rec(self)
    inner = self.run
    self.run = lambda: ctl.thread_body(rec, inner)  # type: ignore[method-assign]
    self._daemonic = True  # a leaked thread must never hold up interpreter exit
    parent.suspended = True  # threading's own handshake runs with plain blocking
    try:
        _orig_start(self)
        rec.registered.acquire()  # the child only runs threading's bootstrap meanwhile
    except BaseException:
        rec.finished = True
        raise
    finally:
        parent.suspended = False


def _patched_join(self: threading.Thread, timeout: float | None = None) -> None:
    rec = _managed()
    other = getattr(self, "_interleave_rec", None)
    if rec is None or other is None or other.ctl is not rec.ctl or other is rec:
        return _orig_join(self, timeout)
    ctl = rec.ctl
    deadline = None if timeout is None else ctl.vnow() + max(timeout, 0)
    if ctl.block_until(rec, lambda: other.finished, deadline):
        _orig_join(self)  # past its last traced line: returns promptly


def _vmonotonic() -> float:
    rec = _managed()
    return rec.ctl.vnow() if rec else _real_monotonic()


def _vtime() -> float:
    rec = _managed()
    return rec.ctl.wall0 + rec.ctl.vnow() if rec else _real_time()


def _vperf_counter() -> float:
    rec = _managed()
    return rec.ctl.vnow() if rec else _real_perf_counter()


def _vsleep(secs: float) -> None:
    rec = _managed()
    if rec is None:
        return _real_sleep(secs)
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    rec.ctl.block_until(rec, lambda: False, rec.ctl.vnow() + secs)


def _number(obj: Any) -> None:
    """Give an object made by a managed thread a per-schedule creation number
    (before its own __init__ could put it in a set), which ``_seq_hash`` uses."""
    rec = _managed()
    if rec is not None:
        rec.ctl.object_seq += 1
        obj._interleave_seq = rec.ctl.object_seq


def _future_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _number(self)
    _orig_future_init(self, *args, **kwargs)


def _thread_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _number(self)
    _orig_thread_init(self, *args, **kwargs)


def _seq_hash(self: Any) -> int:
    """Futures and Threads hash by identity, so a set of them iterates in an
    order that depends on memory addresses -- which differ between runs.
    Numbered ones hash by creation order instead: same schedule, same order."""
    seq = self.__dict__.get("_interleave_seq")
    return object.__hash__(self) if seq is None else seq


_MISSING = object()


@contextmanager
def _patched() -> Iterator[None]:
    """Swap in the cooperative primitives; always swap them back."""
    import concurrent.futures.thread  # noqa: F401  (imported before patching: its module-level lock is real)

    patches: list[tuple[Any, str, Any]] = [
        (threading, "Lock", CoopLock),
        (threading, "_allocate_lock", CoopLock),
        (threading, "_CRLock", None),
        (threading, "_time", _vmonotonic),
        (threading.Thread, "start", _patched_start),
        (threading.Thread, "join", _patched_join),
        (queue, "SimpleQueue", _CoopSimpleQueue),
        (queue, "time", _vmonotonic),
        (time, "monotonic", _vmonotonic),
        (time, "time", _vtime),
        (time, "perf_counter", _vperf_counter),
        (time, "sleep", _vsleep),
        (_cf_base.Future, "__init__", _future_init),
        (_cf_base.Future, "__hash__", _seq_hash),
        (threading.Thread, "__init__", _thread_init),
        (threading.Thread, "__hash__", _seq_hash),
        (selectors, "DefaultSelector", _CoopSelector),
        (_aio_base.BaseEventLoop, "_run_once", _run_once),
    ]
    saved = [(obj, name, obj.__dict__.get(name, _MISSING) if isinstance(obj, type) else getattr(obj, name))
             for obj, name, _ in patches]
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, value in reversed(saved):
            if value is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, value)


@contextmanager
def install_for_import() -> Iterator[None]:
    """Import the user's module inside this, so its module-level locks and
    queues are cooperative ones (they behave as plain ones outside ``explore``)."""
    with _explore_lock, _patched():
        yield


# ------------------------------------------------------------------ controller


class _Rec:
    """One managed thread."""

    __slots__ = ("ctl", "name", "index", "thread", "ident", "go", "registered", "priority", "finished",
                 "blocker", "deadline", "detached", "suspended", "at", "prev", "frame", "frame_lines", "native_id")

    def __init__(self, ctl: _Controller, name: str, index: int, thread: threading.Thread | None) -> None:
        self.ctl = ctl
        self.name = name
        self.index = index
        self.thread = thread
        self.ident: int | None = None
        self.native_id: int | None = None
        self.go = _real_lock()
        self.go.acquire()  # released by whoever hands this thread the baton
        self.registered = _real_lock()
        self.registered.acquire()
        self.priority = 0.0
        self.finished = False
        self.blocker: Callable[[], bool] | None = None
        self.deadline: float | None = None
        self.detached = False
        self.suspended = False
        self.at: tuple[str, int] | None = None
        self.prev: tuple[str, int] | None = None
        self.frame: Any = None
        self.frame_lines: dict[Any, tuple[tuple[str, int] | None, tuple[str, int]]] = {}
        """Per live user frame: (line before, current line) -- so a pause is
        described by two lines of one function, not a callee's last line."""


class _TaskPos:
    """Where an asyncio task last was in the user's code."""

    __slots__ = ("name", "at", "prev", "frame")

    def __init__(self, name: str) -> None:
        self.name = name
        self.at: tuple[str, int] | None = None
        self.prev: tuple[str, int] | None = None
        self.frame: Any = None


def _split_offsets(code: Any) -> frozenset[int]:
    """Offsets just after a forward conditional jump whose body continues on
    the same line -- ``if link not in seen: seen.add(link)`` -- so the check
    and the action, though one line, can be interleaved."""
    import dis

    offsets = set()
    instructions = list(dis.get_instructions(code))
    for here, after in zip(instructions, instructions[1:]):
        if (here.opname.startswith(("POP_JUMP_FORWARD_IF", "POP_JUMP_IF", "JUMP_IF_"))
                and here.positions is not None and after.positions is not None
                and here.positions.lineno is not None and here.positions.lineno == after.positions.lineno
                and isinstance(here.argval, int) and here.argval > here.offset):
            offsets.add(after.offset)
    return frozenset(offsets)


def _thread_label(thread: threading.Thread, index: int) -> str:
    target = getattr(thread, "_target", None)
    fn = getattr(target, "__name__", None) or type(thread).__name__
    if fn == "_worker" and getattr(target, "__module__", "") == "concurrent.futures.thread":
        fn = "pool worker"
    return f"thread {index} ({fn})"


def _str_values(frame: Any) -> tuple[str, ...]:
    out: list[str] = []
    try:
        items = list(frame.f_locals.values())
    except Exception:  # pragma: no cover - defensive: exotic frames
        return ()
    for v in items:
        if isinstance(v, str):
            if len(v) <= 500 and v not in out:
                out.append(v)
        elif isinstance(v, tuple) and len(v) <= 4:
            out.extend(x for x in v if isinstance(x, str) and len(x) <= 500 and x not in out)
    return tuple(out)


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


class _Controller:
    def __init__(self, files: frozenset[str], seed: int | None, strategy: _Strategy, max_steps: int) -> None:
        self.files = files
        self.seed = seed
        self.strategy = strategy
        self.max_steps = max_steps
        self.mutex = _real_lock()
        self.recs: list[_Rec] = []
        self.by_ident: dict[int, _Rec] = {}
        self.current: _Rec | None = None
        self.steps = 0
        self.progress = 0
        self.jumped = 0.0
        self.mono0 = 8192.0  # a fixed base: timer arithmetic rounds the same way every run
        self.wall0 = _real_time() - self.mono0
        self.object_seq = 0
        self.asyncio_used = False
        self.tasks: dict[Any, _TaskPos] = {}
        self.last_task: dict[int, _TaskPos] = {}
        self.aborting = False
        self.outcome: str | None = None
        self.problems: list[str] = []
        self.leftover: list[str] = []
        self.nondeterministic = False
        self.switches: list[Switch] = []
        self.preemptions: list[Preemption] = []
        self.paused: dict[tuple[str, int], list[Preemption]] = {}
        self.paused_by: dict[str, Preemption] = {}
        self.notes: list[Note] = []
        self.thread_errors: list[tuple[str, BaseException]] = []
        self.preemptible: dict[tuple[str, int], int] = {}
        self.user_code: dict[Any, bool] = {}
        self.splits: dict[Any, frozenset[int]] = {}
        self.locations: dict[tuple[str, int], Location] = {}
        self.done = _real_lock()
        self.done.acquire()
        self.done_signalled = False
        self.main: _Rec | None = None
        self.value: Any = None
        self.error: BaseException | None = None

    # -- clock and locations
    def vnow(self) -> float:
        return self.mono0 + self.steps * QUANTUM + self.jumped

    def loc(self, key: tuple[str, int] | None) -> Location | None:
        if key is None:
            return None
        found = self.locations.get(key)
        if found is None:
            file, line = key
            text = linecache.getline(file, abs(line)).strip()
            found = self.locations[key] = Location(file, abs(line), text, line < 0)
        return found

    # -- threads
    def new_rec(self, thread: threading.Thread | None) -> _Rec:
        with self.mutex:
            index = len(self.recs)
            name = "main" if thread is None else _thread_label(thread, index)
            rec = _Rec(self, name, index, thread)
            rec.priority = self.strategy.priority(index)
            self.recs.append(rec)
            if thread is not None:
                thread._interleave_rec = rec  # type: ignore[attr-defined]
            return rec

    def _register(self, rec: _Rec) -> None:
        rec.ident = _thread.get_ident()
        rec.native_id = threading.get_native_id()
        with self.mutex:
            self.by_ident[rec.ident] = rec
        sys.settrace(self.trace)
        rec.registered.release()
        rec.go.acquire()

    def thread_body(self, rec: _Rec, run: Callable[[], Any]) -> None:
        self._register(rec)
        try:
            if self.aborting:
                raise ScheduleAborted
            run()
        except ScheduleAborted:
            pass
        except BaseException as exc:  # a worker that died: recorded, not printed
            if not self.aborting:
                self.thread_errors.append((rec.name, exc))
        finally:
            sys.settrace(None)
            self._finish(rec)

    def main_body(self, rec: _Rec, target: Callable[[], Any]) -> None:
        self._register(rec)
        try:
            if self.aborting:
                raise ScheduleAborted
            self.value = target()
            self.outcome = self.outcome or "returned"
        except ScheduleAborted:
            pass
        except BaseException as exc:
            if not self.aborting:
                self.error = exc
                self.outcome = "raised"
        finally:
            sys.settrace(None)
            self._finish(rec)

    # -- tracing
    def trace(self, frame: Any, event: str, arg: Any) -> Any:
        self.progress += 1
        code = frame.f_code
        mine = self.user_code.get(code)
        if mine is None:
            name = code.co_filename
            mine = self.user_code[code] = name in self.files or os.path.realpath(name) in self.files
            if mine:
                splits = _split_offsets(code)
                if splits:
                    self.splits[code] = splits
        if not mine:
            return None
        if code in self.splits:
            frame.f_trace_opcodes = True
        return self._local

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "return" and not frame.f_code.co_flags & _SUSPENDABLE:
            rec = self.by_ident.get(_thread.get_ident())
            if rec is not None:
                rec.frame_lines.pop(frame, None)
        elif event == "line" or (event == "opcode" and frame.f_lasti in self.splits.get(frame.f_code, ())):
            waited = True
            try:
                waited = self._on_line(frame, event == "opcode")
            finally:
                # CPython 3.11 copies a frame's variables into f_locals before
                # calling a trace function and back afterwards (bpo-30744).  If
                # we waited for the baton in between, other threads may have
                # rebound this frame's closure cells (``nonlocal in_flight``);
                # re-reading f_locals now, holding the baton, makes the copy-back
                # write current values instead of stale ones.
                if waited:
                    frame.f_locals  # noqa: B018
        return self._local

    def _on_line(self, frame: Any, mid_line: bool = False) -> bool:
        """Count a step; maybe preempt.  True if this thread waited for the baton.

        ``mid_line``: the point after a one-line ``if``'s condition, keyed
        by the negated line number so it is a point of its own.

        This runs on every traced line of the user's code, so the common path
        stays inline here; what happens rarely (the step limit, a line where
        another thread is paused, a preemption) is a call of its own."""
        rec = self.by_ident.get(_thread.get_ident())
        if rec is None or rec.suspended or rec.finished:
            return False
        if self.aborting or _active is not self:
            raise ScheduleAborted
        waited = False
        if rec.detached or self.current is not rec:
            self._rejoin(rec)
            waited = True
        self.steps += 1
        if self.steps > self.max_steps:
            self._step_limit(rec)
        key = (frame.f_code.co_filename, -frame.f_lineno if mid_line else frame.f_lineno)
        rec.prev, rec.at, rec.frame = rec.at, key, frame
        lines = rec.frame_lines.get(frame)
        rec.frame_lines[frame] = (lines[1] if lines else None, key)
        actor = self._task_line(rec, key, frame) if self.asyncio_used else rec.name
        open_here = self.paused.get(key)
        if open_here:
            self._note_overlaps(open_here, actor, key, frame)
        with self.mutex:
            other = self._pick(exclude=rec)
        if other is None:
            return waited
        hits = self.preemptible[key] = self.preemptible.get(key, 0) + 1
        if not self.strategy.armed(key, hits):
            return waited
        self._preempt(rec, key, frame, other)
        return True

    def _step_limit(self, rec: _Rec) -> NoReturn:
        """Too many steps for one schedule: an endless loop or a livelock."""
        self._abort("step-limit", f"stopped after {self.max_steps} steps: an endless loop or a livelock "
                    f"({rec.name} at {self.loc(rec.at)})")
        raise ScheduleAborted

    def _note_overlaps(self, open_here: list[Preemption], actor: str, key: tuple[str, int], frame: Any) -> None:
        """Another thread (or task) is paused right after this line: record
        that ``actor`` ran it meanwhile -- the overlap a race report names."""
        for p in open_here:
            if p.thread != actor and len(p.overlaps) < 200:
                p.overlaps.append(Overlap(self.steps, actor, self.loc(key), _str_values(frame)))  # type: ignore[arg-type]

    def _preempt(self, rec: _Rec, key: tuple[str, int], frame: Any, other: _Rec) -> None:
        """Pause ``rec`` at ``key`` and hand the baton on (the strategy chose
        this point): record where it paused, so a later line of ``other``
        there counts as an overlap."""
        self.strategy.fire(key)
        with self.mutex:
            rec.priority = min(r.priority for r in self.recs) - 1.0
            before_here = rec.frame_lines[frame][0]
            p = Preemption(self.steps, rec.name, self.loc(before_here or rec.prev), self.loc(key),  # type: ignore[arg-type]
                           _str_values(frame), other.name)
            self.preemptions.append(p)
            self.paused_by[rec.name] = p
            if p.after is not None:
                self.paused.setdefault((p.after.file, p.after.line), []).append(p)
        self._reschedule(rec, "preempt")

    def _task_line(self, rec: _Rec, key: tuple[str, int], frame: Any) -> str:
        """asyncio: a user line of another task than last time means the last
        task is suspended at an await -- record that as its pause."""
        try:
            task = asyncio.current_task()
        except RuntimeError:
            return rec.name
        if task is None:
            return rec.name
        pos = self.tasks.get(task)
        if pos is None:
            coro = task.get_coro()
            pos = self.tasks[task] = _TaskPos(f"task {len(self.tasks) + 1} ({getattr(coro, '__name__', 'coroutine')})")
        last = self.last_task.get(rec.index)
        if last is not pos:
            with self.mutex:
                self._close_pause(pos.name)
                if last is not None and last.at is not None and last.name not in self.paused_by:
                    lines = rec.frame_lines.get(last.frame)
                    after = lines[0] if lines and lines[1] == last.at and lines[0] else last.prev
                    p = Preemption(self.steps, last.name, self.loc(after), self.loc(last.at),  # type: ignore[arg-type]
                                   _str_values(last.frame), pos.name)
                    self.preemptions.append(p)
                    self.paused_by[last.name] = p
                    if p.after is not None:
                        self.paused.setdefault((p.after.file, p.after.line), []).append(p)
            self.last_task[rec.index] = pos
        pos.prev, pos.at, pos.frame = pos.at, key, frame
        return pos.name

    def _close_pause(self, name: str) -> None:
        p = self.paused_by.pop(name, None)
        if p is not None:
            p.resumed_step = self.steps
            if p.after is not None:
                self.paused[(p.after.file, p.after.line)].remove(p)

    # -- scheduling core (mutex held unless said otherwise)
    def _ready(self, r: _Rec) -> bool:
        if r.finished or r.detached:
            return False
        if r.blocker is None:
            return True
        return r.blocker() or (r.deadline is not None and self.vnow() >= r.deadline)

    def _pick(self, exclude: _Rec | None = None) -> _Rec | None:
        best = None
        for r in self.recs:
            if r is not exclude and r.ident is not None and self._ready(r):
                if best is None or r.priority > best.priority:
                    best = r
        return best

    def _choose(self) -> _Rec | None:
        nxt = self._pick()
        if nxt is None:
            deadlines = [r.deadline for r in self.recs
                         if not r.finished and not r.detached and r.blocker is not None and r.deadline is not None]
            if deadlines:
                self.jumped += max(0.0, min(deadlines) - self.vnow())
                nxt = self._pick()
        return nxt

    def _hand(self, rec: _Rec | None, nxt: _Rec, reason: str) -> None:
        if rec is not None:
            self.switches.append(Switch(self.steps, reason, rec.name, nxt.name, self.loc(rec.at)))
        self._close_pause(nxt.name)
        self.current = nxt
        nxt.go.release()

    def _describe_stuck(self) -> str:
        parts = []
        for r in self.recs:
            if not r.finished:
                parts.append(f"{r.name} waits at {self.loc(r.at) or 'its start'}")
        return "; ".join(parts)

    def _reschedule(self, rec: _Rec, reason: str) -> None:
        """Called by the baton holder: run the best ready thread (maybe itself)."""
        self.progress += 1
        with self.mutex:
            if self.aborting:
                raise ScheduleAborted
            self.steps += 1
            nxt = self._choose()
            if nxt is None:
                if any(r.detached for r in self.recs if not r.finished):
                    self.current = None  # a thread blocked outside our control will rejoin
                else:
                    kind = "leftover" if self.main is not None and self.main.finished else "deadlock"
                    self._abort_locked(kind, ("threads left blocked after the crawl returned: " if kind == "leftover"
                                              else "deadlock: every thread is blocked: ") + self._describe_stuck())
                    raise ScheduleAborted
            elif nxt is rec:
                return
            else:
                self._hand(rec, nxt, reason)
        rec.go.acquire()
        if self.aborting:
            raise ScheduleAborted

    def _rejoin(self, rec: _Rec) -> None:
        with self.mutex:
            rec.detached = False
            if self.current is None:
                self.current = rec
                return
            if self.current is rec:
                return
        rec.go.acquire()
        if self.aborting:
            raise ScheduleAborted

    def block_until(self, rec: _Rec, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait, passing the baton, until ``ready()`` or the virtual ``deadline``."""
        while True:
            if self.aborting:
                raise ScheduleAborted
            if rec.detached or self.current is not rec:
                self._rejoin(rec)
            if ready():
                return True
            if deadline is not None and self.vnow() >= deadline:
                return False
            rec.blocker, rec.deadline = ready, deadline
            try:
                self._reschedule(rec, "block")
            finally:
                rec.blocker = rec.deadline = None

    def _finish(self, rec: _Rec) -> None:
        with self.mutex:
            rec.finished = True
            self.progress += 1
            if rec is self.main:  # threads still running get a short grace, then count as leftover
                self.max_steps = min(self.max_steps, self.steps + AFTER_RETURN_STEPS)
            if self.aborting:
                self._signal_if_all_done()
                return
            if self.current is not rec:  # finished while detached
                if self.current is None:
                    nxt = self._choose()
                    if nxt is not None:
                        self._hand(None, nxt, "finish")
                self._signal_if_all_done()
                return
            self.steps += 1
            nxt = self._choose()
            if nxt is not None:
                self._hand(rec, nxt, "finish")
                return
            self.current = None
            if all(r.finished for r in self.recs):
                self._signal_if_all_done()
            elif not any(r.detached for r in self.recs if not r.finished):
                kind = "leftover" if self.main is not None and self.main.finished else "deadlock"
                self._abort_locked(kind, ("threads left blocked after the crawl returned: " if kind == "leftover"
                                          else "deadlock: every thread is blocked: ") + self._describe_stuck())

    def _signal_if_all_done(self) -> None:
        if not self.done_signalled and all(r.finished for r in self.recs):
            self.done_signalled = True
            self.done.release()

    def _abort(self, outcome: str, message: str) -> None:
        with self.mutex:
            self._abort_locked(outcome, message)

    def _abort_locked(self, outcome: str, message: str) -> None:
        if self.aborting:
            return
        self.aborting = True
        if self.main is not None and self.main.finished and self.outcome in ("returned", "raised"):
            outcome = "leftover"  # the target's own outcome stands; what still ran is listed
        if outcome == "leftover":
            self.leftover.extend(f"{r.name} at {self.loc(r.at) or 'its start'}" for r in self.recs if not r.finished)
        else:
            self.outcome = outcome
            self.problems.append(message)
        for r in self.recs:
            if not r.finished and r.go.locked():
                r.go.release()
        self._signal_if_all_done()

    def holder_runnable(self) -> bool:
        """Whether the baton holder is running or waiting for a CPU (Linux:
        its /proc state is R) -- slow because the machine is loaded, not
        blocked.  False when it sleeps in the kernel or the state is unknown."""
        holder = self.current
        if holder is None or holder.native_id is None:
            return False
        try:
            with open(f"/proc/self/task/{holder.native_id}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return False
        return stat[stat.rfind(b")") + 2:][:1] == b"R"

    def on_stall(self, seconds: float) -> None:
        """Watcher: the baton holder made no progress; presume it blocked in C."""
        with self.mutex:
            holder = self.current
            if holder is None or self.aborting or holder.finished:
                return
            holder.detached = True
            self.nondeterministic = True
            self.problems.append(f"nondeterministic: {holder.name} made no progress for {seconds:g} s at "
                                 f"{self.loc(holder.at) or 'its start'} (blocked outside the controller?); "
                                 "other threads ran meanwhile")
            nxt = self._choose()
            if nxt is None:
                self.current = None
            else:
                self._hand(holder, nxt, "stall")


# ----------------------------------------------------------------------- API


def note(text: str) -> None:
    """Record ``text`` in the running schedule (no-op outside ``explore``)."""
    rec = _managed()
    if rec is not None:
        ctl = rec.ctl
        name = rec.name
        if ctl.asyncio_used:
            try:
                task = asyncio.current_task()
            except RuntimeError:
                task = None
            pos = ctl.tasks.get(task) if task is not None else None
            name = pos.name if pos is not None else name
        ctl.notes.append(Note(ctl.steps, name, text))


@dataclass(frozen=True)
class DuplicateFetch:
    """One schedule in which a page was fetched more than once."""

    seed: int | None
    url: str
    fetches: int
    race: Race | None
    """The interleaving that let it happen, when the switch log shows one."""
    schedule: Schedule[Any]

    def __str__(self) -> str:
        text = f"{self.url} was fetched {self.fetches} times (seed {self.seed})"
        return f"{text}: {self.race}" if self.race else text


@dataclass
class RaceReport:
    """What ``find_duplicate_fetches`` found, and what it cost."""

    duplicates: list[DuplicateFetch]
    """One per failing schedule (its first duplicated URL), in seed order."""
    schedules: int
    """Schedules run, the calibration (if any) included."""
    steps: int
    seconds: float
    problems: list[str]
    """``seed N: deadlock: ...``, ``seed N: the crawl raised ...``, stalls
    (``nondeterministic: ...``): every schedule's problems, prefixed."""

    @property
    def first(self) -> DuplicateFetch | None:
        return self.duplicates[0] if self.duplicates else None


def find_duplicate_fetches(
    crawl: Callable[..., Any],
    *,
    web: dict[str, list[str]],
    start_url: str,
    files: Collection[str],
    max_workers: int = 3,
    seeds: Iterable[int] | None = None,
    preemption_bound: int = 2,
    max_steps: int = 200_000,
) -> RaceReport:
    """Explore ``crawl(start_url, get_urls, max_workers)`` on ``web`` (URL ->
    links; unknown URLs have none) and report every schedule that fetched a
    page twice, with the interleaving that caused it.

    ``get_urls`` is synchronous, or ``async`` when ``crawl`` is a coroutine
    function (run with ``asyncio.run``; its fetch takes 50 virtual ms).  Each
    call is a :func:`note` ``get_urls URL`` in the schedule's log.
    """
    is_async = asyncio.iscoroutinefunction(crawl)

    def target() -> tuple[Any, dict[str, int]]:
        calls: dict[str, int] = {}

        def record(url: str) -> list[str]:
            calls[url] = calls.get(url, 0) + 1
            note(f"get_urls {url}")
            return list(web.get(url, ()))

        if is_async:
            async def get_urls_async(url: str) -> list[str]:
                links = record(url)
                await asyncio.sleep(0.05)
                return links

            return asyncio.run(crawl(start_url, get_urls_async, max_workers)), calls
        return crawl(start_url, record, max_workers), calls

    result = explore(target, seeds=seeds, files=files, preemption_bound=preemption_bound, max_steps=max_steps)
    duplicates = []
    problems = []
    for schedule in [*([result.calibration] if result.calibration else []), *result.schedules]:
        name = "calibration" if schedule.seed is None else f"seed {schedule.seed}"
        problems.extend(f"{name}: {problem}" for problem in schedule.problems)
        if schedule.outcome == "raised":
            problems.append(f"{name}: the crawl raised {schedule.error!r}")
        calls = schedule.value[1] if schedule.value is not None else {}
        twice = [url for url, n in calls.items() if n > 1]
        if twice and schedule.seed is not None:
            # name the URL whose interleaving the log can show, if any
            url = next((u for u in twice if schedule.race_on(u)), twice[0])
            duplicates.append(DuplicateFetch(schedule.seed, url, calls[url], schedule.race_on(url), schedule))
    ran = [*([result.calibration] if result.calibration else []), *result.schedules]
    return RaceReport(duplicates, len(ran), sum(s.steps for s in ran), result.seconds, problems)


def _normalize_files(files: Collection[str]) -> frozenset[str]:
    if isinstance(files, str):
        raise TypeError("files must be a collection of paths, not a str")
    out = set()
    for f in files:
        out.add(f)
        out.add(os.path.abspath(f))
        out.add(os.path.realpath(f))
    return frozenset(out)


def _run_schedule(target: Callable[[], T], files: frozenset[str], seed: int | None, horizon: Horizon | None,
                  preemption_bound: int, max_steps: int, stall_timeout: float,
                  schedule_timeout: float) -> tuple[Schedule[T], dict[tuple[str, int], int]]:
    global _active
    started = _real_perf_counter()
    ctl = _Controller(files, seed, _Strategy(seed, preemption_bound, horizon), max_steps)
    pool_logger = logging.getLogger("concurrent.futures")
    _active = ctl
    try:
        main = ctl.main = ctl.new_rec(None)
        thread = threading.Thread(target=ctl.main_body, args=(main, target), name="interleave-main", daemon=True)
        _orig_start(thread)
        main.registered.acquire()
        with ctl.mutex:
            ctl.current = main
            main.go.release()
        last_progress, last_change = -1, _real_monotonic()
        poll = max(stall_timeout / 4, 0.005)
        while not ctl.done.acquire(True, poll):
            now = _real_monotonic()
            progress = ctl.progress + ctl.steps
            if progress != last_progress:
                last_progress, last_change = progress, now
            elif now - last_change >= stall_timeout and not ctl.aborting:
                if not ctl.holder_runnable():
                    ctl.on_stall(now - last_change)
                last_change = now
            if now - started >= schedule_timeout and not ctl.aborting:
                pool_logger.disabled = True
                ctl._abort("timeout", f"stopped after {schedule_timeout:g} s of real time")
            if ctl.aborting:
                pool_logger.disabled = True
                break
        grace_end = _real_monotonic() + max(stall_timeout * 4, 1.0)
        for r in ctl.recs:
            t = r.thread if r is not main else thread
            if t is not None and t.ident is not None:
                _orig_join(t, max(grace_end - _real_monotonic(), 0.0))
                if t.is_alive():
                    ctl.problems.append(f"{r.name} did not stop; left running as a daemon thread")
                    _forget_pool_thread(t)
    finally:
        _active = None
        pool_logger.disabled = False
    outcome = ctl.outcome or "returned"
    schedule = Schedule(seed, outcome, ctl.value, ctl.error, ctl.steps, ctl.switches, ctl.preemptions,
                        ctl.notes, ctl.problems, ctl.leftover, ctl.thread_errors, ctl.nondeterministic,
                        _real_perf_counter() - started)
    return schedule, ctl.preemptible


def _forget_pool_thread(t: threading.Thread) -> None:
    """A leaked pool thread must not be joined at interpreter exit."""
    try:
        import concurrent.futures.thread as cft

        cft._threads_queues.pop(t, None)
    except Exception:  # pragma: no cover - private API moved
        pass


def explore(
    target: Callable[[], T],
    *,
    seeds: Iterable[int] | None = None,
    files: Collection[str],
    preemption_bound: int = 2,
    max_steps: int = 200_000,
    horizon: Horizon | None = None,
    stall_timeout: float = 0.5,
    schedule_timeout: float = 60.0,
) -> ExploreResult[T]:
    """Run ``target()`` once per seed, its threads one at a time, switching only
    at lines of ``files`` and at blocking calls.

    A calibration schedule (no preemptions) runs first unless ``horizon`` is
    given; ``seeds=None`` means ``range(SEEDS_PER_POINT * number of
    preemptible points)``, at least 8, so every point is tried three times.  ``target`` must build fresh
    state on each call.  Same arguments => same schedules.
    """
    if preemption_bound < 0:
        raise ValueError("preemption_bound must be >= 0")
    if max_steps < 1:
        raise ValueError("max_steps must be >= 1")
    normalized = _normalize_files(files)
    started = _real_perf_counter()
    if not _explore_lock.acquire(False):
        raise RuntimeError("explore is already running in this process")
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # collections at allocation-dependent moments would run finalizers mid-schedule
    try:
        with _patched():
            calibration = None
            if horizon is None:
                calibration, preemptible = _run_schedule(target, normalized, None, None, 0, max_steps,
                                                         stall_timeout, schedule_timeout)
                horizon = Horizon(tuple(sorted((f, line, n) for (f, line), n in preemptible.items())))
            chosen = list(seeds) if seeds is not None else list(range(max(8, SEEDS_PER_POINT * len(horizon.points))))
            schedules = [
                _run_schedule(target, normalized, seed, horizon, preemption_bound, max_steps, stall_timeout,
                              schedule_timeout)[0]
                for seed in chosen
            ]
    finally:
        if gc_was_enabled:
            gc.enable()
        _explore_lock.release()
    return ExploreResult(calibration, schedules, horizon, _real_perf_counter() - started)


def replay(
    target: Callable[[], T],
    seed: int,
    *,
    files: Collection[str],
    preemption_bound: int = 2,
    max_steps: int = 200_000,
    horizon: Horizon | None = None,
    stall_timeout: float = 0.5,
    schedule_timeout: float = 60.0,
) -> Schedule[T]:
    """Run the one schedule ``seed`` names (as ``explore`` ran it)."""
    result = explore(target, seeds=[seed], files=files, preemption_bound=preemption_bound, max_steps=max_steps,
                     horizon=horizon, stall_timeout=stall_timeout, schedule_timeout=schedule_timeout)
    return result.schedules[0]


__all__ = [
    "CoopLock", "DuplicateFetch", "ExploreResult", "RaceReport", "find_duplicate_fetches", "Horizon", "Location", "Note", "Overlap", "Preemption", "Race", "Schedule",
    "ScheduleAborted", "Switch", "explore", "install_for_import", "note", "replay",
]
