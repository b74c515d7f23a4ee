"""The switch points: ``sys.settrace`` on the user's lines, preemptions and race evidence.

Every traced line of the user's code counts a step and may hand the baton on
(the strategy decides); a line another thread is paused after is recorded as
an overlap, which is what ``Schedule.race_on`` later names.
"""

from __future__ import annotations

import _thread
import asyncio
import os
from typing import Any, NoReturn

from .baton import SPIN_STEPS, _Baton, _Rec
from .results import Overlap, Preemption, Step, _ScheduleAborted
from .threads import _TaskPos, _split_offsets, _str_values

_SUSPENDABLE = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR: 'return' may be a yield


class _Controller(_Baton):
    """One schedule: the baton plus the tracer that decides where it passes."""

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
        if self.aborting or self.over:
            raise _ScheduleAborted
        waited = False
        if rec.detached or self.current is not rec:
            self._rejoin(rec)
            waited = True
        self._count_step(rec)
        key = (frame.f_code.co_filename, -frame.f_lineno if mid_line else frame.f_lineno)
        rec.prev, rec.at, rec.frame = rec.at, key, frame
        lines = rec.frame_lines.get(frame)
        rec.frame_lines[frame] = (lines[1] if lines else None, key)
        actor = self._task_line(rec, key, frame) if self.asyncio_used else rec.name
        if self.record_lines:
            self._record_line(actor, key, frame)
        open_here = self.paused.get(key)
        if open_here:
            self._note_overlaps(open_here, actor, key, frame)
        return self._switch_here(rec, key, frame) or waited

    def _switch_here(self, rec: _Rec, key: tuple[str, int], frame: Any) -> bool:
        """Hand the baton on at this line if the strategy preempts here or
        ``rec`` spins; count the line as preemptible if another thread could
        run.  True if ``rec`` gave the baton up (and has it back)."""
        with self.mutex:
            other = self._pick(exclude=rec)
        if other is not None:
            hits = self.preemptible[key] = self.preemptible.get(key, 0) + 1
            if self.strategy.armed(key, hits):
                self._preempt(rec, key, frame, other)
                return True
        if rec.run_steps >= SPIN_STEPS:
            self._yield_spin(rec)
            return True
        return False

    def _record_line(self, actor: str, key: tuple[str, int], frame: Any) -> None:
        """Keep the line and its string locals (a replay asked for every line)."""
        values = tuple((name, v) for name, v in frame.f_locals.items() if isinstance(v, str) and len(v) <= 500)
        self.lines.append(Step(self.steps, actor, self.loc(key), values))  # type: ignore[arg-type]

    def _count_step(self, rec: _Rec) -> None:
        """One more step; too many for one schedule end it (an endless loop or a livelock)."""
        self.steps += 1
        rec.run_steps += 1
        if self.steps > self.max_steps:
            self._step_limit(rec)

    def _step_limit(self, rec: _Rec) -> NoReturn:
        """Too many steps for one schedule: an endless loop or a livelock."""
        self._abort("step-limit", f"stopped after {self.max_steps} steps: an endless loop or a livelock "
                    f"({rec.name} at {self.loc(rec.at)})")
        raise _ScheduleAborted

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

    def _yield_spin(self, rec: _Rec) -> None:
        """``rec`` ran ``SPIN_STEPS`` steps without blocking: presume it spins
        (``while running > 0: pass``) and let the others run, as a fair
        scheduler would (CHESS's fair scheduling; loom treats a spin as a
        yield).  Without this, a schedule that never preempts the spinner
        -- the calibration -- would spin until its step limit.  Not a
        preemption: the strategy's bound does not count it and it is no race
        evidence; like a preemption, it demotes ``rec`` below all others."""
        with self.mutex:
            rec.priority = min(r.priority for r in self.recs) - 1.0
        self._reschedule(rec, "spin")

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
