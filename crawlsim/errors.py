"""The one error family, and what an error that escapes a command shows the user.

It sits below the core in the import layers (see ARCHITECTURE.md) and imports
nothing of crawlsim, so every layer -- the core's options, a scenario file,
the simulation's latency specs, the grader, a command -- raises a class of
this family without importing the command-line entry point that loads them.

The tree (every public exception class crawlsim defines; a built-in in
brackets is a second base, so a caller's ``except ValueError`` or
``except OSError`` keeps catching what it always caught)::

    CrawlsimError                          every error crawlsim raises on purpose
    ├── UsageError [ValueError]            a user's mistake: one line, exit status 2
    │   ├── OptionError                    a crawl option's value
    │   ├── ScenarioError                  a scenario file
    │   ├── ClusterConfigError             a scenario's [cluster] table
    │   ├── LatencySpecError               a latency spec
    │   ├── TraceError                     a trace file
    │   ├── CheckInputError                a target `crawlsim check` cannot check
    │   ├── FollowError                    a state `crawlsim web --follow` cannot follow
    │   ├── AnimateError                   a movie or still that cannot be made as asked
    │   ├── MomentError                    a moment that is not one, or never happens
    │   └── MissingExtraError [ImportError]  an optional part (an extra) that is not installed
    ├── CanonicalizeError [ValueError]     a malformed URL (a page's link, not the user's mistake)
    ├── UnknownFetch [KeyError]            the scheduler refused: no such fetch in flight
    ├── SchedulerBusy [RuntimeError]       the scheduler refused: a response is being admitted
    ├── AdviceCancelled                    measured advice no longer wanted (a newer setting)
    ├── ParseError                         a real page too deep or too slow to parse
    ├── RefusedAddress [OSError]           a DNS answer the real crawler's address policy refuses
    ├── CannotBind [OSError]               the loopback server could not listen on a port
    ├── SimulatedFetchError [ConnectionError]  `crawlsim check`: a case's failing page
    ├── SimulatedBadPage [ValueError]      `crawlsim check`: a case's broken page
    ├── CheckAbandoned [RuntimeError]      `crawlsim check` gave up on a run: stop crawling
    └── ForgedAnswer [ValueError]          `crawlsim check`: the sandboxed child's answer is not its own

* :class:`CrawlsimError` is every error crawlsim raises on purpose.
* :class:`UsageError` is a user's mistake (a bad flag, a malformed scenario
  or trace, a file that cannot be written): ``crawlsim: error: <message>`` on
  one line, exit status 2.
* Anything else that escapes a command is a bug: :func:`exit_status` says so
  on one line, keeps the traceback in a file and returns 1 -- never 0.

Outside the tree, on purpose:

* A bad *argument* to a Python call -- the core's API edge (``Scheduler``'s
  calls, which are total: each checks every argument before it changes
  anything) and the like -- raises a plain ``TypeError`` / ``ValueError``,
  as Python's own functions do.  That is a programming error of the caller,
  not a user's input: no command lets a user reach it, and if one escapes a
  command it is reported as the bug it is.
* Control flow that never leaves its module is private (``_Name``): the
  interleaving explorer's ``_ScheduleAborted`` (a ``BaseException``, so the
  user's ``except Exception`` lets it pass), the real fetcher's ``_Stop``,
  the threaded driver's ``_BadResult``, the sandbox's ``_NoAnswer``.

:func:`exit_status` is the one place an escaped error becomes an exit status;
``crawlsim.cli.main`` calls it for every command.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from typing import Any

EXIT_USAGE = 2
"""The exit status of a command-line mistake (argparse's own)."""

EXIT_BUG = 1
"""The exit status of an error nobody meant to raise (a bug)."""


class CrawlsimError(Exception):
    """Every error crawlsim raises on purpose (``except CrawlsimError`` catches them all)."""


class UsageError(CrawlsimError, ValueError):
    """A user's mistake.  The CLI prints ``crawlsim: error: <message>`` on
    one line and exits with status 2."""


def exit_status(err: BaseException, prog: str = "crawlsim") -> int:
    """Tell the user about ``err`` (an error no command handled) and return the exit status.

    A :class:`UsageError` is its one line and 2.  Anything else is a bug: one
    line naming it, the traceback kept in a file (printed instead when no
    file can be written), and 1."""
    if isinstance(err, UsageError):
        print(f"{prog}: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_USAGE
    where = _keep_traceback(err)
    kept = f"; the traceback is in {where}" if where else ""
    print(f"{prog}: internal error: {type(err).__name__}: {_one_line(err)} (a bug in crawlsim{kept})", file=sys.stderr)
    return EXIT_BUG


def guarded(main: Callable[[list[str]], int], argv: list[str]) -> int:
    """Run a command's ``main(argv)`` as ``crawlsim`` does (for ``python -m``
    entry points below the CLI): what escapes goes through :func:`exit_status`."""
    try:
        return int(main(argv) or 0)
    except SystemExit as exc:  # argparse's --help
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        return 130
    except Exception as err:
        return exit_status(err)


@contextlib.contextmanager
def signal_handled(signum: int, handler: Any) -> Iterator[None]:
    """``signum`` handled by ``handler`` while the block runs, the handler it
    had restored after (how a command turns SIGTERM into Ctrl-C, or holds
    Ctrl-C while it starts processes); off the main thread, where no handler
    can be set, nothing changes."""
    try:
        before = signal.signal(signum, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signum, before)


def _one_line(err: BaseException) -> str:
    """``str(err)`` on one line, whatever the error's ``__str__`` does."""
    try:
        text = str(err)
    except Exception:  # an exception whose __str__ raises still gets reported
        text = f"<{type(err).__name__} with an unprintable message>"
    return " ".join(text.split()) or type(err).__name__


def _keep_traceback(err: BaseException) -> str | None:
    """Write ``err``'s traceback to a fresh file in the temporary folder; its
    path, or None (then the traceback went to stderr)."""
    text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    try:
        with tempfile.NamedTemporaryFile("w", prefix="crawlsim-crash-", suffix=".txt", delete=False) as f:
            f.write(text)
            return f.name
    except OSError:
        sys.stderr.write(text)
        return None


__all__ = ["EXIT_BUG", "EXIT_USAGE", "CrawlsimError", "UsageError", "exit_status", "guarded", "signal_handled"]
