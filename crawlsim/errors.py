"""The one error family, and what an error that escapes a command shows the user.

It sits below the core in the import layers (see ARCHITECTURE.md) and imports
nothing of crawlsim, so every layer -- the core's options, a scenario file,
the simulation's latency specs, the grader, a command -- raises a class of
this family without importing the command-line entry point that loads them.

* :class:`CrawlsimError` is every error crawlsim raises on purpose.
* :class:`UsageError` is a user's mistake (a bad flag, a malformed scenario
  or trace, a file that cannot be written): ``crawlsim: error: <message>`` on
  one line, exit status 2.  ``OptionError``, ``ScenarioError``,
  ``ClusterConfigError``, ``LatencySpecError``, ``CheckInputError`` and the
  rest derive from it.  It is also a ``ValueError``, so a caller's
  ``except ValueError`` keeps catching what it always caught.
* Anything else that escapes a command is a bug: :func:`exit_status` says so
  on one line, keeps the traceback in a file and returns 1 -- never 0.

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
