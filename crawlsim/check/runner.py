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
import sysconfig
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        frames = traceback.extract_tb(exc.__traceback__)
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
        message = str(exc)
        if len(message) > 300:
            message = message[:297] + "..."
        return cls(type(exc).__name__, message, where, escaped)


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return a == b


@dataclass
class CaseRun:
    """Everything observed while one case ran."""

    case: Case
    value: Any = None
    """What the crawl returned (unconverted)."""
    error: ExceptionSummary | None = None
    raised: BaseException | None = None
    timed_out: bool = False
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
    result: list[str] | None = None
    """The returned URLs, when the crawl returned something list-like of strings."""
    bad_return: str | None = None
    """What is wrong with the return value, when it is not a list of URLs."""

    @property
    def tail(self) -> float | None:
        """Seconds between the last fetch finishing and the crawl returning:
        near zero for in-flight tracking, about the timeout for a crawl that
        waits on an empty queue to decide it is done."""
        ends = [r.end for r in self.records if r.end is not None and r.end <= self.wall]
        if self.timed_out or self.error or not ends:
            return None
        return max(0.0, self.wall - max(ends))


def case_timeout(case: Case, quick: bool) -> float:
    """Deadline for one case: generous next to a sequential run of it (its
    summed latencies) and to a few retries with backoff, so only a hang
    trips it."""
    sequential = sum(case.latency_of(page) for page in case.links) + 0.5
    return max(6.0, 3 * sequential + 1.0)


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

    def __enter__(self) -> _ThreadDeaths:
        self._previous = threading.excepthook
        threading.excepthook = self._hook
        return self

    def __exit__(self, *exc: object) -> None:
        if threading.excepthook == self._hook and self._previous is not None:
            threading.excepthook = self._previous

    def _hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            self.deaths.append(ExceptionSummary.of(args.exc_value, self.user_file))

    def asyncio_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, BaseException):
            self.deaths.append(ExceptionSummary.of(exc, self.user_file))


def _quiet_abandoned_threads() -> None:
    """After a timeout the user's threads may still be running; when they
    die of :class:`CheckAbandoned` (our doing) later, print nothing."""
    previous = threading.excepthook
    if getattr(previous, "_crawlsim_quiet", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        if not isinstance(args.exc_value, CheckAbandoned):
            previous(args)

    hook._crawlsim_quiet = True  # type: ignore[attr-defined]
    threading.excepthook = hook


def run_case(target: Target, case: Case, timeout: float) -> CaseRun:
    """Call the crawler on ``case`` and collect what the service saw."""
    with _ThreadDeaths(target.source_file) as deaths:
        run = _run_case(target, case, timeout, deaths)
    run.thread_deaths = list(deaths.deaths)
    if run.timed_out:
        _quiet_abandoned_threads()
    return run


def _run_case(target: Target, case: Case, timeout: float, deaths: _ThreadDeaths) -> CaseRun:
    service = SimService(case)
    run = CaseRun(case=case, timeout=timeout)
    box: dict[str, Any] = {}
    finished = threading.Event()

    def call() -> None:
        # Writes only to ``box``: after a timeout this thread may still be
        # running, and must not touch the run the checker is judging.
        try:
            service.start_clock()
            if target.is_async:
                box["value"], box["in_flight"] = asyncio.run(_drive_async(target.function, case, service, deaths))
            else:
                box["value"] = target.function(case.start, service.get_urls, case.max_workers)
                box["urls"] = as_url_list(box["value"])  # a generator does its work here
                box["in_flight"] = service.in_flight()
        except BaseException as exc:  # the user's crawl failed: a finding, never a checker crash
            box["raised"] = exc
        finally:
            box["wall"] = service.now()
            finished.set()

    thread = threading.Thread(target=call, name=f"crawlsim-check:{case.name}", daemon=True)
    thread.start()
    if finished.wait(timeout):
        run.wall = box["wall"]
        run.value = box.get("value")
        run.in_flight_at_return = box.get("in_flight", [])
        if "raised" not in box:
            run.result, run.bad_return = box["urls"] if "urls" in box else as_url_list(run.value)
        if "raised" in box:
            run.raised = box["raised"]
            run.error = ExceptionSummary.of(run.raised, target.source_file)
    else:
        run.timed_out = True
        run.wall = service.now()
        run.in_flight_at_return = service.in_flight()
        service.abandon()
        finished.wait(0.5)
    service.settle(1.0)
    run.records = service.records()
    run.peak = service.peak
    run.groups_met = service.groups_met()
    return run


def as_url_list(value: Any) -> tuple[list[str] | None, str | None]:
    """The crawl's return value as a list of strings, or a description of what
    is wrong with it."""
    if value is None:
        return None, "None (did the function forget to return its result?)"
    if hasattr(value, "__await__"):
        if hasattr(value, "close"):
            value.close()  # never awaited: close it quietly instead of a RuntimeWarning
        return None, "a coroutine: declare the crawl with async def so it is given an async get_urls and awaited"
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        return None, f"a {type(value).__name__} ({_short(value)}), not a list of URLs"
    try:
        items = list(value)
    except Exception as exc:  # a broken iterable of the user's: a finding
        return None, f"a {type(value).__name__} that raised {type(exc).__name__} when iterated"
    wrong = [item for item in items if not isinstance(item, str)]
    if wrong:
        return (
            None,
            f"a {type(value).__name__} holding {type(wrong[0]).__name__} items ({_short(wrong[0])}), not URL strings",
        )
    return items, None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


async def _drive_async(
    function: Callable[..., Any], case: Case, service: SimService, deaths: _ThreadDeaths
) -> tuple[Any, list[FetchRecord]]:
    asyncio.get_running_loop().set_exception_handler(deaths.asyncio_handler)
    value = await function(case.start, service.aget_urls, case.max_workers)
    return value, service.in_flight()
