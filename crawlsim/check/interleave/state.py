"""The real primitives, saved before any patch, and the one schedule running.

Why a module of its own: the cooperative primitives, the controller and the
schedule search all need the real lock, clock and ``Thread.start`` after
``threading`` and ``time`` have been patched, and all ask "which schedule is
running, and is this thread one of its own?"  Read the running schedule as
``state._active`` (an attribute of this module): ``from .state import _active``
would copy the ``None`` it held at import.
"""

from __future__ import annotations

import _thread
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .controller import _Controller
    from .threads import _Rec

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

_active: _Controller | None = None
"""The schedule running now (set and cleared by ``search._run_schedule``)."""
_explore_lock = _real_lock()
"""Held while ``explore`` (or ``install_for_import``) has the primitives patched."""


def _managed() -> _Rec | None:
    """The calling thread's record if it runs under the active schedule."""
    ctl = _active
    if ctl is None:
        return None
    rec = ctl.by_ident.get(_thread.get_ident())
    if rec is None or rec.suspended or rec.finished:
        return None
    return rec
