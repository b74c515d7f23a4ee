"""Every process the user's crawler starts ends when its sandbox does.

Killing the sandboxed child's process group is not enough: a crawl can fork
a child that calls ``os.setsid()`` (a new session and group) and exit, and
the orphan, reparented to init, outlives the check.  Three layers, each
covering what the one before cannot:

* the child marks itself a *subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``):
  an orphan among its descendants is reparented to it instead of to init,
  so it stays in the child's process tree;
* the child asks for ``SIGKILL`` when the checker dies
  (``prctl(PR_SET_PDEATHSIG)``), so a checker killed outright does not leave
  a running crawler behind;
* at the end the checker sweeps by PID (``/proc``): the child's descendants,
  and every process of this user whose environment carries the sandbox's
  marker (``MARKER_VARIABLE``, inherited by every fork and by an exec that
  keeps the environment) -- this finds orphans of a child that died first.
  Each round stops what it found (``SIGSTOP``: a stopped process cannot fork
  again), the sweep repeats until it finds nothing new, then kills them all.

Without ``/proc`` or ``prctl`` (not Linux) only the process group is killed.
"""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

MARKER_VARIABLE = "CRAWLSIM_CHECK_SANDBOX"
"""Environment variable whose value names one sandbox's processes."""
MAX_ROUNDS = 50
"""Sweeps before giving up on a tree that keeps growing (a fork bomb)."""
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")


def contain_self() -> None:
    """Called first thing in the sandboxed child: become the subreaper of
    everything it starts, and die with the checker.  Quietly does nothing
    where ``prctl`` is missing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the running program: libc is loaded (find_library would spawn ldconfig)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _parent_of(pid: int) -> int | None:
    """The parent PID from ``/proc/PID/stat`` (the command name may hold
    spaces and parentheses: the fields after its last ``)``)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _has_marker(pid: int, marker: bytes) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:  # gone, or not ours to read
        return False
    return marker in environ.split(b"\0")


def _found(root: int, marker: bytes) -> set[int]:
    """``root``'s descendants and the processes carrying ``marker`` (never
    this process or its ancestors)."""
    try:
        pids = [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]
    except OSError:
        return set()
    children: dict[int, list[int]] = {}
    for pid in pids:
        parent = _parent_of(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found = {root, *(pid for pid in pids if _has_marker(pid, marker))}
    stack = list(found)
    while stack:  # and everything below them (an exec with a clean environment drops the marker)
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found - _mine()


def _mine() -> set[int]:
    """This process and its ancestors: never swept."""
    mine, pid = set(), os.getpid()
    while pid and pid not in mine:
        mine.add(pid)
        pid = _parent_of(pid) or 0
    return mine


def _signal_all(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def sweep(root: int, marker: str) -> set[int]:
    """Stop, then kill, ``root`` and every process it started (see the
    module docstring); returns the PIDs signalled.  ``root`` itself is
    left to its owner to reap."""
    if not _PROC.is_dir():
        return set()
    token = f"{MARKER_VARIABLE}={marker}".encode()
    stopped: set[int] = set()
    for _ in range(MAX_ROUNDS):
        new = _found(root, token) - stopped
        if not new:
            break
        _signal_all(new, signal.SIGSTOP)
        stopped |= new
    _signal_all(stopped, signal.SIGKILL)
    return stopped


def running(marker: str) -> set[int]:
    """PIDs of live (not zombie) processes that carry ``marker``: what a
    test counts after a check has ended."""
    token = f"{MARKER_VARIABLE}={marker}".encode()
    alive = set()
    for pid in _found(-1, token) - {-1}:  # (no PID is -1: only the marker counts)
        try:
            state = (_PROC / str(pid) / "stat").read_bytes()
        except OSError:
            continue
        if state[state.rfind(b")") + 2 : state.rfind(b")") + 3] not in (b"Z", b"X"):
            alive.add(pid)
    return alive
