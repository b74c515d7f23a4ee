"""Run a user's crawler on one case, with real threads and a deadline.

The crawler runs in a daemon thread so that a crawl that never returns
(a deadlock, a ``queue.join()`` that never completes) costs one case its
deadline instead of hanging the checker.  When the deadline passes the
service is *abandoned*: every fetch, waiting or new, raises, which lets most
stuck crawlers unwind.

An ``async def`` crawler is driven with ``asyncio.run`` in that thread and
given the ``async`` ``get_urls``.  Which fetches are in flight is read the
moment the crawl returns -- before ``asyncio.run`` cancels leftover tasks,
and before a thread pool's ``shutdown`` could hide them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import linecache
import sys
import sysconfig
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from crawlsim.check.cases import Case
from crawlsim.check.loader import Target
from crawlsim.check.services import CheckAbandoned, FetchRecord, SimService

_PACKAGE_DIR = str(Path(__file__).resolve().parent)
_STDLIB_DIR = sysconfig.get_paths()["stdlib"]


@dataclass(frozen=True)
class ExceptionSummary:
    """What the user's crawl raised, and where in the user's code."""

    type: str
    message: str
    where: str | None
    """``file.py:LINE in func: `code``` of the last frame in the user's file."""
    escaped_at: str | None
    """The user's outermost frame when it differs from ``where``: the line
    the exception left the crawl from."""

    def __str__(self) -> str:
        text = f"{self.type}: {self.message}" if self.message else self.type
        if self.where:
            text += f" (at {self.where}"
            text += f"; it left the crawl at {self.escaped_at})" if self.escaped_at else ")"
        return text

    @classmethod
    def of(cls, exc: BaseException, user_file: str | None) -> ExceptionSummary:
        try:
            frames = traceback.extract_tb(exc.__traceback__)
        except Exception:  # noqa: BLE001 -- a user's exception with a broken __traceback__: no frames
            frames = traceback.StackSummary()
        mine = [f for f in frames if user_file and _same_file(f.filename, user_file)]
        if not mine:  # no frame in the user's file: any frame outside the checker and the stdlib
            mine = [f for f in frames if not f.filename.startswith((_PACKAGE_DIR, _STDLIB_DIR))]

        def describe(frame: traceback.FrameSummary) -> str:
            code = f": `{frame.line.strip()}`" if frame.line else ""
            return f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}{code}"

        where = describe(mine[-1]) if mine else None
        escaped = describe(mine[0]) if len(mine) > 1 and mine[0] is not mine[-1] else None
        if escaped == where:
            escaped = None
        return cls(type(exc).__name__, exception_message(exc), where, escaped)


def exception_message(exc: BaseException) -> str:
    """``str(exc)`` for a report, at most 300 characters, whatever the
    exception's own ``__str__`` does: one that raises, returns something
    that is not a string, or builds a huge text gives a placeholder or is
    cut (its own class's code runs, so this is the one careful place)."""
    try:
        message = type(exc).__str__(exc)
    except Exception as inner:  # noqa: BLE001 -- any failure of the user's __str__ is a finding, not a crash
        return f"<no message: its __str__ raised {type(inner).__name__}>"
    if type(message) is not str:
        return f"<no message: its __str__ returned {type(message).__name__}, not a string>"
    return message if len(message) <= 300 else message[:297] + "..."


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return a == b


@dataclass(frozen=True)
class ThreadInfo:
    """A thread the crawl started while a case ran, as the checker saw it."""

    name: str
    daemon: bool
    started: float
    """Seconds since the crawl was called."""
    ended: float | None = None
    """When it was first seen finished (checked every ``POLL_SECONDS``);
    ``None`` if it was still alive when the crawl returned."""
    fetches: int = 0
    """How many ``get_urls`` calls it made."""
    left_at: str | None = None
    """For a thread still running after the crawl returned: where it was --
    the innermost frame in the user's file, else the innermost frame
    (``file.py:LINE in func: `code```)."""
    blocks_exit: bool = False
    """Still running after the crawl returned, and Python would wait for it
    at exit: a non-daemon thread, or a pool thread busy with a work item
    (an idle pool thread is ended at exit, so it does not count)."""


@dataclass
class CaseRun:
    """Everything observed while one case ran -- plain data only, so that it
    can cross a pipe from the sandboxed child (see ``to_plain``)."""

    case: Case
    error: ExceptionSummary | None = None
    timed_out: bool = False
    """The crawl did not return (stuck, too slow, or its process died)."""
    stalled: bool = False
    """It did not return *and* showed no progress: no fetch in flight and
    none started or ended for ``STALL_SECONDS`` (or a quarter of the
    deadline).  A crawl still fetching at its deadline is too slow, not stuck."""
    crash: str | None = None
    """The sandboxed process died or stopped answering during this case."""
    timeout: float = 0.0
    wall: float = 0.0
    """Seconds from the call to its return (or the deadline)."""
    in_flight_at_return: list[FetchRecord] = field(default_factory=list)
    records: list[FetchRecord] = field(default_factory=list)
    peak: int = 0
    groups_met: set[frozenset[str]] = field(default_factory=set)
    thread_deaths: list[ExceptionSummary] = field(default_factory=list)
    """Exceptions that killed one of the crawl's own threads (or an asyncio
    task nobody awaited): a dead worker is often why a crawl hangs."""
    threads: list[ThreadInfo] = field(default_factory=list)
    """Threads the crawl started during this case."""
    result: list[str] | None = None
    """The returned URLs, when the crawl returned something list-like of strings."""
    bad_return: str | None = None
    """What is wrong with the return value, when it is not a list of URLs."""
    race: dict[str, Any] | None = None
    """What the interleaving explorer found (seed, switch log), when it ran."""
    stops: list[tuple[float, float]] = field(default_factory=list)
    """Spans (seconds since the call) in which the checker's own poll did not
    run for more than ``STOP_SECONDS``: the machine stopped the process (or
    held it off the GIL), so every thread's clock ran on while none of them
    could act.  A measured wait that spans one is not all the crawl's."""
    shrunk: dict[str, Any] | None = None
    """The failure shrunk to its smallest web and replayed (``replay.shrunk_failure``),
    when the case failed by fetching a page twice and could be shrunk.  Asked
    of the child after the run, apart from it (``Sandbox.shrink``)."""

    def stopped_within(self, start: float, end: float) -> float:
        """Seconds of :attr:`stops` inside ``[start, end]``."""
        return sum(max(0.0, min(end, b) - max(start, a)) for a, b in self.stops)

    @property
    def tail(self) -> float | None:
        """Seconds between the last fetch finishing and the crawl returning:
        near zero for in-flight tracking, about the timeout for a crawl that
        waits on an empty queue to decide it is done.  The machine's stops in
        that span (:attr:`stops`) are not counted: they are the machine's
        seconds, not the crawl's."""
        ends = [r.end for r in self.records if r.end is not None and r.end <= self.wall]
        if self.timed_out or self.error or not ends:
            return None
        last = max(ends)
        return max(0.0, self.wall - last - self.stopped_within(last, self.wall))

    # ------------------------------------------------------------ across the pipe

    def to_plain(self) -> dict[str, Any]:
        """JSON-ready dict (the child sends this; the parent never unpickles)."""
        return {
            "case": self.case.name,
            "error": dataclasses.asdict(self.error) if self.error else None,
            "timed_out": self.timed_out,
            "stalled": self.stalled,
            "crash": self.crash,
            "timeout": self.timeout,
            "wall": self.wall,
            "in_flight_at_return": [r.fetch_id for r in self.in_flight_at_return],
            "records": [dataclasses.asdict(r) for r in self.records],
            "peak": self.peak,
            "groups_met": [sorted(g) for g in self.groups_met],
            "thread_deaths": [dataclasses.asdict(d) for d in self.thread_deaths],
            "threads": [dataclasses.asdict(t) for t in self.threads],
            "result": self.result,
            "bad_return": self.bad_return,
            "race": self.race,
            "stops": [list(span) for span in self.stops],
        }

    @classmethod
    def from_plain(cls, case: Case, data: dict[str, Any]) -> CaseRun:
        """Rebuild a run from :meth:`to_plain` output, against the parent's own
        ``case`` (the child only names it)."""
        records = [FetchRecord(**{**r, "links": tuple(r.get("links") or ())}) for r in data.get("records", [])]
        by_id = {r.fetch_id: r for r in records}
        error = data.get("error")
        return cls(
            case=case,
            error=ExceptionSummary(**error) if error else None,
            timed_out=bool(data.get("timed_out")),
            stalled=bool(data.get("stalled")),
            crash=data.get("crash"),
            timeout=float(data.get("timeout", 0.0)),
            wall=float(data.get("wall", 0.0)),
            in_flight_at_return=[by_id[i] for i in data.get("in_flight_at_return", []) if i in by_id],
            records=records,
            peak=int(data.get("peak", 0)),
            groups_met={frozenset(g) for g in data.get("groups_met", [])},
            thread_deaths=[ExceptionSummary(**d) for d in data.get("thread_deaths", [])],
            threads=[ThreadInfo(**t) for t in data.get("threads", [])],
            result=data.get("result"),
            bad_return=data.get("bad_return"),
            race=data.get("race"),
            stops=[(float(a), float(b)) for a, b in data.get("stops", [])],
        )


STALL_SECONDS = 2.0
"""A crawl with no fetch in flight and none started or ended for this long
has stopped making progress: it is stuck, and its case ends early."""
POLL_SECONDS = 0.01
STOP_SECONDS = 0.05
"""A poll this much later than ``POLL_SECONDS`` is a stop of the process
(see ``CaseRun.stops``); shorter delays are the GIL's ordinary turns."""
LEFTOVER_GRACE = 0.1
"""How long threads the crawl started get to finish after it returned
before they are reported as left running."""
CRAWL_THREAD_DAEMON = True
"""Whether the thread that calls the crawl is a daemon.  Threads inherit it,
so the sandboxed child (which ends with ``os._exit``) sets it to ``False``:
then the crawl's own threads are daemons exactly when the user made them so,
as in a real program."""
MAX_RETURNED = 100_000
"""At most this many items of a returned iterable are read: an endless
iterator (``itertools.repeat(url)``) is a finding, not a frozen checker."""
PER_PAGE_CPU = 0.004
"""Seconds of the crawler's own work allowed per page in a deadline."""


def case_timeout(case: Case, quick: bool = False) -> float:
    """Deadline for one case, from that case alone: three times a sequential
    crawl of it (its pages' latencies summed, plus the rendezvous and holds a
    one-at-a-time crawler waits out), plus the crawler's own work per page,
    plus two seconds (or the case's own ``deadline``, for a case with a hung call).  Nothing that happened in earlier cases shortens it;
    a crawl that hangs ends sooner anyway (see ``STALL_SECONDS``)."""
    from crawlsim.check.services import HOLD_TIMEOUT, RENDEZVOUS_TIMEOUT

    if case.deadline is not None:
        return case.deadline
    sequential = sum(case.latency_of(page) for page in case.links)
    sequential += RENDEZVOUS_TIMEOUT * sum(len(group) for group in case.groups)
    sequential += HOLD_TIMEOUT * len(case.held_until)
    return round(3 * sequential + PER_PAGE_CPU * len(case.links) + 2.0 + case.extra_time, 2)


class _ThreadDeaths:
    """Catch exceptions that end the user's threads while a case runs.

    Without this, ``threading.excepthook`` would print a traceback of the
    user's worker to the terminal; instead the death is summarised in the
    case's explanation.  Cases run one at a time, so every death while the
    hook is installed belongs to the current case.
    """

    def __init__(self, user_file: str | None) -> None:
        self.user_file = user_file
        self.deaths: list[ExceptionSummary] = []
        self._previous: Callable[[threading.ExceptHookArgs], Any] | None = None

    def __enter__(self) -> Self:
        self._previous = threading.excepthook
        threading.excepthook = self._hook
        return self

    def __exit__(self, *exc: object) -> None:
        if threading.excepthook == self._hook and self._previous is not None:
            threading.excepthook = self._previous

    def _hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None and not isinstance(args.exc_value, (SystemExit, CheckAbandoned)):
            self.deaths.append(ExceptionSummary.of(args.exc_value, self.user_file))

    def asyncio_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, BaseException):
            self.deaths.append(ExceptionSummary.of(exc, self.user_file))


class _ThreadWatch:
    """Record every thread the crawl starts (by wrapping ``Thread.start``
    while a case runs), and when each is first seen finished: the evidence
    for "7 of 8 workers quit after 0.02 s" and for threads left running."""

    def __init__(self, service: SimService, user_file: str | None) -> None:
        self.service = service
        self.user_file = user_file
        self.started: list[tuple[threading.Thread, float]] = []
        self.ended: dict[int, float] = {}
        self._original = threading.Thread.start

    def __enter__(self) -> Self:
        watch = self
        original = self._original

        def start(thread: threading.Thread, *args: Any, **kwargs: Any) -> None:
            watch.started.append((thread, watch.service.now()))
            original(thread, *args, **kwargs)

        threading.Thread.start = start  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        threading.Thread.start = self._original  # type: ignore[method-assign]

    def poll(self) -> None:
        now = self.service.now()
        for index, (thread, _) in enumerate(list(self.started)):
            if index not in self.ended and thread.ident is not None and not thread.is_alive():
                self.ended[index] = now

    def summary(self, records: list[FetchRecord], grace: float) -> list[ThreadInfo]:
        """Give live threads ``grace`` seconds to end, then describe them all."""
        deadline = time.perf_counter() + grace
        for thread, _ in self.started:
            if thread.ident is not None and thread.is_alive():
                thread.join(max(0.0, deadline - time.perf_counter()))
        frames = sys._current_frames()
        fetches: dict[str, int] = {}
        for r in records:
            fetches[r.thread] = fetches.get(r.thread, 0) + 1
        pool_threads = _pool_threads()
        out = []
        for index, (thread, began) in enumerate(self.started):
            alive = thread.ident is not None and thread.is_alive()
            frame = frames.get(thread.ident or -1) if alive else None
            mine = _user_frame(frame, self.user_file)
            in_pool = thread in pool_threads
            out.append(
                ThreadInfo(
                    name=thread.name,
                    daemon=thread.daemon and not in_pool,
                    started=round(began, 4),
                    ended=None if alive else round(self.ended.get(index, self.service.now()), 4),
                    fetches=fetches.get(thread.name, 0),
                    left_at=mine or (_describe_frame(frame) if frame is not None else None),
                    blocks_exit=alive and (mine is not None if in_pool else not thread.daemon),
                )
            )
        return out


def _pool_threads() -> set[threading.Thread]:
    """Threads of ``concurrent.futures`` pools: Python joins them at exit
    whatever their daemon flag, so for exiting they count as non-daemon."""
    from concurrent.futures import thread as futures_thread

    queues = getattr(futures_thread, "_threads_queues", {})  # private, hence the fallback
    return set(queues.keys())


def _describe_frame(frame: Any) -> str:
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    code = f": `{line}`" if line else ""
    return f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} in {frame.f_code.co_name}{code}"


def _user_frame(frame: Any, user_file: str | None) -> str | None:
    """The innermost frame of ``frame``'s stack that is in the user's file."""
    while frame is not None:
        if user_file and _same_file(frame.f_code.co_filename, user_file):
            return _describe_frame(frame)
        frame = frame.f_back
    return None


def _quiet_abandoned_threads() -> None:
    """Threads a crawl left behind die of :class:`CheckAbandoned` (our
    doing) when they fetch again, possibly after the case is over: print
    nothing for those."""
    previous = threading.excepthook
    if getattr(previous, "_crawlsim_quiet", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if not isinstance(args.exc_value, CheckAbandoned):
            previous(args)

    hook._crawlsim_quiet = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def run_case(target: Target, case: Case, timeout: float, stall_after: float | None = None) -> CaseRun:
    """Call the crawler on ``case`` and collect what the service saw.

    ``stall_after``: seconds with no fetch in flight, started or ended after
    which the crawl counts as stuck (by default :func:`stall_window`)."""
    _quiet_abandoned_threads()
    service = SimService(case)
    stall = stall_after if stall_after is not None else stall_window(timeout)
    with _ThreadDeaths(target.source_file) as deaths, _ThreadWatch(service, target.source_file) as watch:
        run = _run_case(target, CaseRun(case=case, timeout=timeout), stall, deaths, service, watch)
    run.thread_deaths = list(deaths.deaths)
    run.threads = watch.summary(run.records, 0.0 if run.timed_out else LEFTOVER_GRACE)
    return run


def stall_window(timeout: float) -> float:
    """How long a crawl may show no progress before it counts as stuck:
    ``STALL_SECONDS``, or a quarter of a short deadline."""
    return min(STALL_SECONDS, timeout / 4)


def _run_case(
    target: Target, run: CaseRun, stall: float, deaths: _ThreadDeaths, service: SimService, watch: _ThreadWatch
) -> CaseRun:
    case, timeout = run.case, run.timeout
    box: dict[str, Any] = {}
    finished = threading.Event()

    def call() -> None:
        # Writes only to ``box``: after a timeout this thread may still be
        # running, and must not touch the run the checker is judging.
        try:
            service.start_clock()
            if target.is_async:
                value, box["in_flight"] = asyncio.run(_drive_async(target.function, case, service, deaths))
            else:
                value = target.function(case.start, service.get_urls, case.max_workers, *case.args)
                box["in_flight"] = service.in_flight()
            box["urls"] = as_url_list(value)  # a generator does its work here
        except BaseException as exc:  # the user's crawl failed: a finding, never a checker crash
            # Summarised by the runner, not here: walking a RecursionError's
            # thousand frames takes long enough on a loaded machine for the
            # stall watch to call a crawl that has already failed "stuck".
            box["raised"] = exc
        finally:
            box["wall"] = service.now()
            finished.set()

    thread = threading.Thread(target=call, name=f"crawlsim-check:{case.name}", daemon=CRAWL_THREAD_DAEMON)
    watch._original(thread)  # our own thread is not one of the crawl's
    polled = 0.0
    while not finished.wait(POLL_SECONDS):
        watch.poll()
        now = service.now()
        if now - polled > POLL_SECONDS + STOP_SECONDS:
            run.stops.append((round(polled + POLL_SECONDS, 4), round(now, 4)))
        polled = now
        if now >= timeout or service.idle_for(now) >= stall:
            break
    watch.poll()
    if finished.is_set():
        run.wall = box["wall"]
        run.in_flight_at_return = box.get("in_flight", [])
        if "raised" in box:
            run.error = ExceptionSummary.of(box.pop("raised"), target.source_file)
        else:
            run.result, run.bad_return = box["urls"]
    else:
        run.timed_out = True
        run.wall = service.now()
        run.stalled = service.idle_for(run.wall) >= stall
        run.in_flight_at_return = service.in_flight()
        service.abandon()
        finished.wait(0.2)  # let a crawl that fetches again unwind on CheckAbandoned
    service.abandon()  # threads the crawl left behind must not fetch on into the next case
    service.settle(1.0)
    run.records = service.records()
    run.peak = service.peak
    run.groups_met = service.groups_met()
    return run


def as_url_list(value: Any) -> tuple[list[str] | None, str | None]:
    """The crawl's return value as a list of strings, or a description of what
    is wrong with it (at most ``MAX_RETURNED`` items are read)."""
    if value is None:
        return None, "None (did the function forget to return its result?)"
    if hasattr(value, "__await__"):
        if hasattr(value, "close"):
            value.close()  # never awaited: close it quietly instead of a RuntimeWarning
        return None, "a coroutine: declare the crawl with async def so it is given an async get_urls and awaited"
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        return None, f"a {type(value).__name__} ({_short(value)}), not a list of URLs"
    try:
        items = list(itertools.islice(value, MAX_RETURNED + 1))
    except Exception as exc:  # a broken iterable of the user's: a finding
        return None, f"a {type(value).__name__} that raised {type(exc).__name__} when iterated"
    if len(items) > MAX_RETURNED:
        size = f"{len(value):,} items" if hasattr(value, "__len__") else f"more than {MAX_RETURNED:,} items"
        return None, (
            f"a {type(value).__name__} of {size} (an endless iterator such as itertools.repeat?); "
            "no case has that many pages"
        )
    wrong = [item for item in items if not isinstance(item, str)]
    if wrong:
        return (
            None,
            f"a {type(value).__name__} holding {type(wrong[0]).__name__} items ({_short(wrong[0])}), not URL strings",
        )
    return items, None


def _short(value: Any) -> str:
    """A short repr of a user's value; a ``__repr__`` that raises or returns
    something else than a string gives the type and id instead."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 -- the user's __repr__ failing is not the checker's crash
        text = object.__repr__(value)
    return text if len(text) <= 60 else text[:57] + "..."


async def _drive_async(
    function: Callable[..., Any], case: Case, service: SimService, deaths: _ThreadDeaths
) -> tuple[Any, list[FetchRecord]]:
    asyncio.get_running_loop().set_exception_handler(deaths.asyncio_handler)
    value = await function(case.start, service.aget_urls, case.max_workers, *case.args)
    return value, service.in_flight()
