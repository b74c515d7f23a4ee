"""The baton: exactly one managed thread runs, and the controller says which.

Why apart from the tracing: this is the scheduler proper -- records, the
virtual clock, choosing the next thread, blocking on a predicate, finishing,
aborting and the stall fallback -- and it holds whatever the tracer
(``controller._Controller``) finds, so the results are built from one place.
"""

from __future__ import annotations

import _thread
import linecache
import sys
import threading
from collections.abc import Callable
from typing import Any

from .real import _real_lock, _real_time
from .results import Location, Note, Preemption, Step, Switch, _ScheduleAborted
from .strategy import _Strategy
from .threads import _TaskPos, _thread_label

QUANTUM = 1e-6
"""Virtual seconds that pass per step."""

AFTER_RETURN_STEPS = 20_000
"""Steps the other threads may still take once the target has returned."""

SPIN_STEPS = 1_000
"""Steps a thread may run without blocking or being switched before it is
presumed to spin (``while running > 0: pass``) and made to yield."""


class _Rec:
    """One managed thread: its baton (``go``), its priority, what it blocks
    on and the user lines it last ran."""

    __slots__ = ("ctl", "name", "index", "thread", "ident", "go", "registered", "priority", "finished",
                 "blocker", "deadline", "detached", "suspended", "at", "prev", "frame", "frame_lines", "native_id",
                 "run_steps")

    def __init__(self, ctl: _Baton, name: str, index: int, thread: threading.Thread | None) -> None:
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
        self.run_steps = 0
        """Steps since this thread last blocked or was handed the baton: past
        ``SPIN_STEPS`` it is presumed to spin (``_Controller._on_line``)."""


class _Baton:
    """A schedule's state and the hand-over of the baton between its threads."""

    def __init__(self, files: frozenset[str], seed: int | None, strategy: _Strategy, max_steps: int,
                 record_lines: bool = False) -> None:
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
        self.over = False
        """The search has moved on from this schedule (set by ``state.running``):
        a line its leftover threads still run unwinds them."""
        self.outcome: str | None = None
        self.problems: list[str] = []
        self.leftover: list[str] = []
        self.nondeterministic = False
        self.switches: list[Switch] = []
        self.preemptions: list[Preemption] = []
        self.paused: dict[tuple[str, int], list[Preemption]] = {}
        self.paused_by: dict[str, Preemption] = {}
        self.notes: list[Note] = []
        self.record_lines = record_lines
        self.lines: list[Step] = []
        """Every user line run, when the schedule records them (a replay's table)."""
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

    def read_clock(self) -> float:
        """The virtual time a managed thread reads (``time.monotonic`` and
        friends): reading it takes one quantum, so a loop in code outside
        ``files`` that polls until a deadline (``multiprocessing.connection.wait``
        with ``timeout=0``, as a ``ThreadPool``'s handler thread calls it) sees
        the deadline pass instead of spinning on a stopped clock."""
        self.jumped += QUANTUM
        return self.vnow()

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
                raise _ScheduleAborted
            run()
        except _ScheduleAborted:
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
                raise _ScheduleAborted
            self.value = target()
            self.outcome = self.outcome or "returned"
        except _ScheduleAborted:
            pass
        except BaseException as exc:
            if not self.aborting:
                self.error = exc
                self.outcome = "raised"
        finally:
            sys.settrace(None)
            self._finish(rec)

    def trace(self, frame: Any, event: str, arg: Any) -> Any:
        """The ``sys.settrace`` hook every managed thread runs under; the
        controller supplies the switch points."""
        raise NotImplementedError

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

    def _choose(self, spinner: _Rec | None = None) -> _Rec | None:
        """The best ready thread; if none is, the clock jumps to the earliest
        timeout.  A ``spinner`` (a thread that yields because it spins) counts
        as not ready until then: it only waits, so time passes as it waits."""
        nxt = self._pick(exclude=spinner)
        if nxt is None:
            deadlines = [r.deadline for r in self.recs
                         if not r.finished and not r.detached and r.blocker is not None and r.deadline is not None]
            if deadlines:
                self.jumped += max(0.0, min(deadlines) - self.vnow())
                nxt = self._pick(exclude=spinner)
        if nxt is None and spinner is not None:
            nxt = spinner
        return nxt

    def _hand(self, rec: _Rec | None, nxt: _Rec, reason: str) -> None:
        if rec is not None:
            self.switches.append(Switch(self.steps, reason, rec.name, nxt.name, self.loc(rec.at)))
        self._close_pause(nxt.name)
        self.current = nxt
        nxt.run_steps = 0
        nxt.go.release()

    def _describe_stuck(self) -> str:
        parts = []
        for r in self.recs:
            if not r.finished:
                parts.append(f"{r.name} waits at {self.loc(r.at) or 'its start'}")
        return "; ".join(parts)

    def _reschedule(self, rec: _Rec, reason: str) -> None:
        """Called by the baton holder: run the best ready thread (maybe itself).

        ``reason`` ``spin``: ``rec`` yields, so it runs again only if no other
        thread can, even after the clock's jump (``_choose``)."""
        self.progress += 1
        with self.mutex:
            if self.aborting:
                raise _ScheduleAborted
            self.steps += 1
            rec.run_steps = 0
            nxt = self._choose(rec if reason == "spin" else None)
            if nxt is None:
                if any(r.detached for r in self.recs if not r.finished):
                    self.current = None  # a thread blocked outside our control will rejoin
                else:
                    kind = "leftover" if self.main is not None and self.main.finished else "deadlock"
                    self._abort_locked(kind, ("threads left blocked after the crawl returned: " if kind == "leftover"
                                              else "deadlock: every thread is blocked: ") + self._describe_stuck())
                    raise _ScheduleAborted
            elif nxt is rec:
                return
            else:
                self._hand(rec, nxt, reason)
        rec.go.acquire()
        if self.aborting:
            raise _ScheduleAborted

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
            raise _ScheduleAborted

    def block_until(self, rec: _Rec, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait, passing the baton, until ``ready()`` or the virtual ``deadline``."""
        while True:
            if self.aborting:
                raise _ScheduleAborted
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
