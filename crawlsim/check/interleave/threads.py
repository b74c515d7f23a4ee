"""What the controller reads off a managed thread and its frames.

Where an asyncio task last was, the points inside a one-line ``if``, a
thread's name by start order and the string values a race report quotes.
(A thread's record, ``_Rec``, is the baton's: :mod:`.baton`.)
"""

from __future__ import annotations

import threading
from typing import Any


class _TaskPos:
    """Where an asyncio task last was in the user's code."""

    __slots__ = ("name", "at", "prev", "frame")

    def __init__(self, name: str) -> None:
        self.name = name
        self.at: tuple[str, int] | None = None
        self.prev: tuple[str, int] | None = None
        self.frame: Any = None


def _split_offsets(code: Any) -> frozenset[int]:
    """Offsets just after a forward conditional jump whose body continues on
    the same line -- ``if link not in seen: seen.add(link)`` -- so the check
    and the action, though one line, can be interleaved."""
    import dis

    offsets = set()
    instructions = list(dis.get_instructions(code))
    for here, after in zip(instructions, instructions[1:]):
        if (here.opname.startswith(("POP_JUMP_FORWARD_IF", "POP_JUMP_IF", "JUMP_IF_"))
                and here.positions is not None and after.positions is not None
                and here.positions.lineno is not None and here.positions.lineno == after.positions.lineno
                and isinstance(here.argval, int) and here.argval > here.offset):
            offsets.add(after.offset)
    return frozenset(offsets)


def _thread_label(thread: threading.Thread, index: int) -> str:
    target = getattr(thread, "_target", None)
    fn = getattr(target, "__name__", None) or type(thread).__name__
    if fn == "_worker" and getattr(target, "__module__", "") == "concurrent.futures.thread":
        fn = "pool worker"
    return f"thread {index} ({fn})"


def _str_values(frame: Any) -> tuple[str, ...]:
    """The string values of the frame's locals, in the order the code names
    them (not the order of ``f_locals``, whose keys depend on when it was
    first read: a replay that reads every line's locals gives the same values)."""
    out: list[str] = []
    try:
        items = _ordered_locals(frame)
    except Exception:  # pragma: no cover - defensive: exotic frames
        return ()
    for v in items:
        if isinstance(v, str):
            if len(v) <= 500 and v not in out:
                out.append(v)
        elif isinstance(v, tuple) and len(v) <= 4:
            out.extend(x for x in v if isinstance(x, str) and len(x) <= 500 and x not in out)
    return tuple(out)


def _ordered_locals(frame: Any) -> list[Any]:
    """The frame's local values: its code's own names in order, then any other."""
    found = frame.f_locals
    code = frame.f_code
    names = dict.fromkeys([*code.co_varnames, *code.co_cellvars, *code.co_freevars])
    return [found[name] for name in names if name in found] + [v for k, v in found.items() if k not in names]
