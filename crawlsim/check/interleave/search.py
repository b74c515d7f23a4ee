"""The schedule search: a calibration run, then one controlled run per seed.

``explore`` patches the primitives once, runs the calibration schedule to
find the horizon (the preemptible points), then each seed's schedule in a
fresh controller, watched from the calling thread for stalls and timeouts.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import threading
from collections.abc import Callable, Collection, Iterable
from typing import TypeVar

from .controller import _Controller
from .primitives import _patched
from .results import ExploreResult, Horizon, Note, Schedule
from .real import _orig_join, _orig_start, _real_monotonic, _real_perf_counter
from .state import _explore_lock, _managed, running
from .strategy import _Strategy

T = TypeVar("T")

SEEDS_PER_POINT = 3
"""Default seeds per preemptible point: ``seeds=None`` runs this many rounds."""


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


def default_seeds(horizon: Horizon) -> list[int]:
    """The seeds ``seeds=None`` means: every preemptible point tried
    :data:`SEEDS_PER_POINT` times, at least 8 schedules."""
    return list(range(max(8, SEEDS_PER_POINT * len(horizon.points))))


def _normalize_files(files: Collection[str]) -> frozenset[str]:
    if isinstance(files, str):
        raise TypeError("files must be a collection of paths, not a str")
    out = set()
    for f in files:
        out.add(f)
        out.add(os.path.abspath(f))
        out.add(os.path.realpath(f))
    return frozenset(out)


class _StallWatch:
    """The watcher's view of the baton holder: a holder that makes no
    progress for ``stall_timeout`` real seconds, and is not waiting for a
    CPU, is presumed blocked outside the controller (``on_stall``)."""

    def __init__(self, ctl: _Controller, stall_timeout: float) -> None:
        self.ctl = ctl
        self.stall_timeout = stall_timeout
        self.poll = max(stall_timeout / 4, 0.005)
        """Real seconds between two looks."""
        self.progress = -1
        self.changed = self.woke = _real_monotonic()

    def check(self, now: float) -> None:
        """One look, at real time ``now``."""
        ctl = self.ctl
        # The watcher itself woke late: the whole process waited for a CPU,
        # so no thread could progress meanwhile -- that interval says
        # nothing about the holder and does not count towards a stall.
        held_up = now - self.woke > self.poll + self.stall_timeout / 2
        self.woke = now
        progress = ctl.progress + ctl.steps
        if progress != self.progress or held_up:
            self.progress, self.changed = progress, now
        elif now - self.changed >= self.stall_timeout and not ctl.aborting:
            if not ctl.holder_runnable():
                ctl.on_stall(now - self.changed)
            self.changed = now


def _run_schedule(target: Callable[[], T], files: frozenset[str], seed: int | None, horizon: Horizon | None,
                  preemption_bound: int, max_steps: int, stall_timeout: float,
                  schedule_timeout: float, record_lines: bool = False) -> tuple[Schedule[T], dict[tuple[str, int], int]]:
    started = _real_perf_counter()
    ctl = _Controller(files, seed, _Strategy(seed, preemption_bound, horizon), max_steps, record_lines)
    pool_logger = logging.getLogger("concurrent.futures")
    with running(ctl):
        try:
            main = ctl.main = ctl.new_rec(None)
            thread = threading.Thread(target=ctl.main_body, args=(main, target), name="interleave-main",
                                      daemon=True)
            _orig_start(thread)
            main.registered.acquire()
            with ctl.mutex:
                ctl.current = main
                main.go.release()
            watch = _StallWatch(ctl, stall_timeout)
            while not ctl.done.acquire(True, watch.poll):
                now = _real_monotonic()
                watch.check(now)
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
            pool_logger.disabled = False
    outcome = ctl.outcome or "returned"
    schedule = Schedule(seed, outcome, ctl.value, ctl.error, ctl.steps, ctl.switches, ctl.preemptions,
                        ctl.notes, ctl.problems, ctl.leftover, ctl.thread_errors, ctl.nondeterministic,
                        _real_perf_counter() - started, ctl.lines)
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
    record_lines: bool = False,
    budget: float | None = None,
) -> ExploreResult[T]:
    """Run ``target()`` once per seed, its threads one at a time, switching only
    at lines of ``files`` and at blocking calls.

    A calibration schedule (no preemptions) runs first unless ``horizon`` is
    given; ``seeds=None`` means ``range(SEEDS_PER_POINT * number of
    preemptible points)``, at least 8, so every point is tried three times.  ``target`` must build fresh
    state on each call.  Same arguments => same schedules.  ``record_lines`` keeps every user line each
    seed's schedule ran (``Schedule.lines``; the calibration's are not kept).  ``budget``: real
    seconds after which no further schedule starts (the caller compares how
    many ran with how many it asked for), so a caller with a deadline of its
    own gets an answer in time.
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
            chosen = list(seeds) if seeds is not None else default_seeds(horizon)
            schedules = []
            for seed in chosen:
                if budget is not None and _real_perf_counter() - started >= budget:
                    break
                schedules.append(_run_schedule(target, normalized, seed, horizon, preemption_bound, max_steps,
                                               stall_timeout, schedule_timeout, record_lines)[0])
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
