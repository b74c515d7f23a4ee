"""The cooperative stand-ins for threading, queue, time, concurrent.futures, multiprocessing.pool and asyncio.

While a schedule runs, ``_patched`` swaps them in process-wide: a managed
thread that would block (a lock, a queue, ``Thread.join``, ``time.sleep``, an
event loop's selector) passes the baton instead, and reads a virtual clock.
Threads the schedule does not manage get the real behaviour, so objects made
under the patch stay valid locks before and after.
"""

from __future__ import annotations

import asyncio.base_events as _aio_base
import concurrent.futures._base as _cf_base
import multiprocessing.connection as _mp_connection
import queue
import selectors
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import state as _state
from .results import _ScheduleAborted
from .real import (
    _orig_join,
    _orig_start,
    _real_lock,
    _real_monotonic,
    _real_perf_counter,
    _real_sleep,
    _real_time,
)
from .state import _explore_lock, _managed

_orig_future_init = _cf_base.Future.__init__
_orig_thread_init = threading.Thread.__init__
_orig_run_once = _aio_base.BaseEventLoop._run_once
_RealSelector = selectors.DefaultSelector
_RealWaitSelector = _mp_connection._WaitSelector


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


class _CoopSelect:
    """A selector whose waits are virtual: a timeout lets the other threads
    run and the clock jump; fd readiness is polled.  Mixed into the selector
    classes the patches replace (an event loop's, ``multiprocessing.connection.wait``'s)."""

    def select(self, timeout: float | None = None) -> list[Any]:
        poll = super().select  # type: ignore[misc]
        rec = _managed()
        if rec is None or (timeout is not None and timeout <= 0):
            return poll(timeout)  # type: ignore[no-any-return]
        ready = poll(0)
        if ready:
            return ready  # type: ignore[no-any-return]
        ctl = rec.ctl
        ctl.block_until(rec, lambda: bool(poll(0)), None if timeout is None else ctl.vnow() + timeout)
        return poll(0)  # type: ignore[no-any-return]


class _CoopSelector(_CoopSelect, _RealSelector):  # type: ignore[misc,valid-type]
    """An event loop's selector (loops made under control get it)."""


class _CoopWaitSelector(_CoopSelect, _RealWaitSelector):  # type: ignore[misc,valid-type]
    """``multiprocessing.connection.wait``'s selector: a ``ThreadPool``'s
    worker handler waits on its change-notifier pipe with it."""


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
    ctl = _state._active
    parent = _managed()
    if ctl is None or parent is None or self._started.is_set():
        return _orig_start(self)
    if ctl.aborting:
        raise _ScheduleAborted
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
    return rec.ctl.read_clock() if rec else _real_monotonic()


def _vtime() -> float:
    rec = _managed()
    return rec.ctl.wall0 + rec.ctl.read_clock() if rec else _real_time()


def _vperf_counter() -> float:
    rec = _managed()
    return rec.ctl.read_clock() if rec else _real_perf_counter()


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
        (_mp_connection, "_WaitSelector", _CoopWaitSelector),
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
