"""The explorer's state: the one schedule running, and the lock ``explore`` holds.

This module is its one owner: :func:`running` alone sets and clears it.
The parts below it receive what they need instead of importing it back --
the controller learns that its run is over from ``ctl.over`` (set here), a
thread's record is looked up through :func:`_managed`.  Read the running
schedule as ``state._active`` (an attribute of this module): ``from .state
import _active`` would copy the ``None`` it held at import.
"""

from __future__ import annotations

import _thread
from collections.abc import Iterator
from contextlib import contextmanager

from .baton import _Rec
from .controller import _Controller
from .real import _real_lock

_active: _Controller | None = None
"""The schedule running now (set and cleared by :func:`running`)."""
_explore_lock = _real_lock()
"""Held while ``explore`` (or ``install_for_import``) has the primitives patched."""


@contextmanager
def running(ctl: _Controller) -> Iterator[None]:
    """``ctl`` is the schedule running while the block runs.  After it,
    ``ctl.over``: a line its leftover threads still run unwinds them."""
    global _active
    _active = ctl
    try:
        yield
    finally:
        _active = None
        ctl.over = True


def _managed() -> _Rec | None:
    """The calling thread's record if it runs under the active schedule."""
    ctl = _active
    if ctl is None:
        return None
    rec = ctl.by_ident.get(_thread.get_ident())
    if rec is None or rec.suspended or rec.finished:
        return None
    return rec
