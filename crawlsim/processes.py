"""Where crawlsim starts a process of its own: the one rule for how.

``fork`` copies the calling process as it is at that instant, with one
thread: a lock another thread held at that instant stays held in the child
for ever, and the child hangs on its first use of it (CPython 3.12 warns,
"This process is multi-threaded, use of fork() may lead to deadlocks in the
child").  A process that runs crawlsim often has threads of its own -- a
notebook's kernel, a test runner, a user's pool left open -- so forking is
safe only while this process has one thread; otherwise the child is spawned
(a fresh interpreter that imports what it needs: slower to start, never
stuck).
"""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.context import BaseContext


def process_context() -> BaseContext:
    """A multiprocessing context: ``fork`` where the platform has it and this
    process has one thread, ``spawn`` otherwise."""
    single = threading.active_count() == 1
    if single and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


__all__ = ["process_context"]
