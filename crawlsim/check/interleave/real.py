"""The real primitives, saved when this package is first imported, before any patch.

While ``explore`` runs, ``threading``, ``time`` and ``_thread`` answer with
the cooperative stand-ins; the explorer itself still needs the real lock,
clocks and ``Thread.start``/``join``.  Kept here, below every other module of
the package, so each imports what it uses without importing back.
"""

from __future__ import annotations

import _thread
import threading
import time

_real_lock = _thread.allocate_lock
_real_monotonic = time.monotonic
_real_time = time.time
_real_perf_counter = time.perf_counter
_real_sleep = time.sleep
_orig_start = threading.Thread.start
_orig_join = threading.Thread.join
