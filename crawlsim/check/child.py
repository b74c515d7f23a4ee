"""The sandboxed side of `crawlsim check`: import and run the user's crawler.

Started by ``sandbox.py`` as ``python -m crawlsim.check.child CMD_FD OUT_FD``.
It reads one JSON command per line from ``CMD_FD`` and writes one JSON
answer per line to ``OUT_FD`` -- plain data only, so nothing the user's code
does in here (``os._exit``, patching the grader, closing ``sys.stdout``,
threads that never end) can change what the parent decides: the parent
judges and writes the report.

Before the user's file is imported, the process limits its own address
space (``MEMORY_LIMIT``), points its standard output at standard error (so a
crawler's ``print`` can never mix with the report or the protocol), and
reads nothing from standard input (the parent gives it ``/dev/null``).

The user's code shares this process, so it can break the checker's side of
it too: close the answer pipe's descriptor, replace ``json.dumps`` or
``threading.Lock``.  The encoder is taken before the user's file is
imported, and whatever else then fails in the checker's own code ends the
process with :data:`BROKEN_BY_CRAWL` and no traceback: the child's standard
error is the candidate's, and the parent names that exit in the verdict.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crawlsim.check.cases import Case

BROKEN_BY_CRAWL = 86
"""The child's exit status when the crawl broke the checker's own code in
this process (see the module docstring)."""
_ENCODE = json.JSONEncoder(default=str).encode
_DECODE = json.JSONDecoder().decode
"""The protocol's encoder and decoder, made at start-up: a crawl replacing
``json.dumps``, ``json.loads`` or ``json.JSONEncoder`` later does not reach them."""

MEMORY_LIMIT = 2 * 1024**3
"""Address space of the child, in bytes (2 GiB).  Address space, not
resident memory: every thread reserves its stack (8 MiB by default) out of
it, so 2 GiB leaves room for a couple of hundred threads while an endless
list still ends in a ``MemoryError`` within seconds."""


def _limit_memory() -> None:
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # a platform without it: the deadlines still hold
        pass


def _send(fd: int, message: dict[str, Any]) -> None:
    data = (_ENCODE(message) + "\n").encode()
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _explorer_import() -> contextlib.AbstractContextManager[object]:
    """Import the user's file so that the interleaving explorer (when
    installed) controls its module-level locks and queues too."""
    try:
        from crawlsim.check import interleave  # type: ignore[attr-defined]
    except ImportError:
        return contextlib.nullcontext()
    install = getattr(interleave, "install_for_import", None)
    return install() if install is not None else contextlib.nullcontext()


def _case_named(round_name: str | None, name: str, quick: bool, termination_slow: float | None) -> Case:
    """The case the parent named.  Without a follow-up round the parent only
    names base cases, so the rounds' modules (and the judge they bring: a
    third of this process's start-up) are imported only for a round."""
    if round_name is None:
        from crawlsim.check.cases import case_named
    else:
        from crawlsim.check.rounds import case_named
    return case_named(name, quick, termination_slow)


def _replayed(target: Any, schedule: str) -> dict[str, Any]:
    """``check --replay``: the one schedule the string names, run (``replay.py``)."""
    from crawlsim.check.replay import parse, replay

    return replay(target, parse(schedule))


def main(argv: list[str]) -> None:
    cmd_fd, out_fd = int(argv[0]), int(argv[1])
    from crawlsim.check.reaper import contain_self

    contain_self()  # orphans of the crawl reparent to this process; it dies with the checker
    _limit_memory()
    os.dup2(2, 1)  # the crawler's prints go to stderr; stdout is the parent's
    commands = os.fdopen(cmd_fd, "r", encoding="utf-8")

    from crawlsim.check import runner
    from crawlsim.check.loader import CheckInputError, load_target
    from crawlsim.check.races import run_case_or_race

    runner.CRAWL_THREAD_DAEMON = False  # os._exit below: a stuck crawl cannot hold this process open

    target, round_name = None, None
    for line in commands:
        command = _DECODE(line)
        op = command.get("op")
        if op == "load":
            round_name = command.get("round")
            try:
                with _explorer_import():
                    target = load_target(command["target"], tuple(command.get("params") or ()), round_name)
            except CheckInputError as exc:
                _send(out_fd, {"kind": "input-error", "message": str(exc)})
                continue
            _send(
                out_fd,
                {"kind": "loaded", "is_async": target.is_async, "label": target.label, "source": target.source_file},
            )
        elif op == "replay" and target is not None:
            _send(out_fd, {"kind": "replay", "result": _replayed(target, command["schedule"])})
        elif op == "shrink" and target is not None:
            from crawlsim.check.replay import shrunk_failure

            case = _case_named(round_name, command["name"], bool(command.get("quick")), None)
            _send(out_fd, {"kind": "shrunk", "result": shrunk_failure(target, case, command["page"])})
        elif op == "case" and target is not None:
            case = _case_named(round_name, command["name"], bool(command.get("quick")), command.get("termination_slow"))
            case = dataclasses.replace(case, args=tuple(command.get("args") or ()))
            patience = command.get("stall_after")
            stall_after = float(patience) if patience is not None else None
            run = run_case_or_race(target, case, float(command["timeout"]), command.get("seeds"), stall_after)
            try:
                _send(out_fd, {"kind": "case", "run": run.to_plain()})
            except Exception as exc:  # noqa: BLE001 -- a value of the user's that JSON cannot carry
                _send(out_fd, {"kind": "unsendable", "why": type(exc).__name__})
        else:
            break
    os._exit(0)  # never wait for threads the crawler left behind


def run_quietly(argv: list[str]) -> None:
    """:func:`main`; an error escaping it ends the process with
    :data:`BROKEN_BY_CRAWL` instead of a traceback on the candidate's screen."""
    try:
        main(argv)
    except BaseException:  # noqa: BLE001 -- the parent reports this exit; nothing here may print
        os._exit(BROKEN_BY_CRAWL)


if __name__ == "__main__":
    run_quietly(sys.argv[1:])
