"""The ``crawlsim`` console script: one entry point, one subcommand per job.

Each subcommand lives in its own module and is imported only when asked for,
so ``crawlsim run`` never loads the terminal app or matplotlib, and a
subcommand that fails to import (a missing optional dependency, a module
still being written) breaks only itself.

A user's mistake -- a bad flag, an unknown scenario, a malformed scenario
file -- is one line on stderr, ``crawlsim: error: <message>``, and exit status
2; never a traceback.  Subcommands signal such mistakes by raising
:class:`UsageError` or one of its kind (the core's ``OptionError``,
``ScenarioError``, ...: see :mod:`crawlsim.errors`); :func:`main` is the one
place that catches them.  Anything else that escapes is a bug: one
"internal error" line, the traceback in a file, exit status 1.

``kill`` (SIGTERM) is Ctrl-C: every command already stops cleanly on Ctrl-C
(a crawl writes the trace of what it did, a half-written output file is
removed), and a process manager, ``timeout`` or a closing terminal sends
SIGTERM instead, which would otherwise end the process on the spot.
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType

COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("crawlsim.commands.run", "main", "simulate a scenario and print its summary, bounds and diagnosis"),
    "compare": (
        "crawlsim.commands.compare",
        "main",
        "two configurations of a scenario side by side (--a k=v --b k=v)",
    ),
    "sweep": ("crawlsim.commands.sweep", "main", "a grid of options in parallel: CSV, JSON and a plot of finish time"),
    "trace": ("crawlsim.commands.trace", "main", "write a run's events as JSONL, or as Chrome trace JSON for Perfetto"),
    "tui": ("crawlsim.tui", "main", "the terminal app: watch a crawl and change its knobs"),
    "check": ("crawlsim.check", "main", "grade your own crawl(start_url, get_urls, max_workers) function"),
    "serve": ("crawlsim.commands.serve", "main", "serve a scenario's web over real HTTP on loopback"),
    "crawl": ("crawlsim.commands.crawl", "main", "crawl real HTTP servers (or a folder of HTML) with the same core"),
    "model": ("crawlsim.commands.model", "main", "turn a recorded crawl's trace into a scenario to ask what if"),
    "animate": (
        "crawlsim.notebook.movie",
        "main",
        'export a crawl as a GIF or MP4 (MP4: ffmpeg, or the "video" extra)',
    ),
    "web": ("crawlsim.commands.web", "main", 'serve the terminal app to browsers on a port (the "web" extra)'),
    "html": ("crawlsim.commands.html", "main", "write the crawl as one offline web page, every what-if simulated"),
    "notebooks": (
        "crawlsim.commands.notebooks",
        "main",
        "write student (answers hidden) or teacher copies of the lessons",
    ),
}
"""name -> (module, function, one-line help).  The function takes the
arguments after the subcommand's name and returns the exit status."""

from crawlsim.errors import EXIT_USAGE, UsageError, exit_status, signal_handled  # noqa: E402 (re-exported: commands raise it)
from crawlsim.extras import MissingExtraError  # noqa: E402


def _version() -> str:
    """The version and which build runs: ``0.1.0 (pure Python)`` or ``0.1.0 (compiled with Cython)``."""
    from crawlsim import __version__
    from crawlsim.build_info import build_name

    return f"{__version__} ({build_name()})"


def help_text() -> str:
    """``crawlsim --help``: every subcommand with its one line."""
    width = max(len(name) for name in COMMANDS)
    lines = [
        "usage: crawlsim [COMMAND] [ARGS...]",
        "",
        (
            "Watch a web crawler work, and ask what if.  With no command: the terminal app on the "
            "`see-it` scenario when run in a terminal, else the `run` summary of it."
        ),
        "",
        "commands:",
        *(f"  {name:<{width}}  {text}" for name, (_, _, text) in COMMANDS.items()),
        "",
        "options:",
        "  -h, --help     show this help and exit",
        "  --version      print the version and exit",
        "",
        "`crawlsim COMMAND --help` describes one command.",
    ]
    return "\n".join(lines) + "\n"


def _entry(name: str) -> Callable[[list[str]], int]:
    module_name, function, _ = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except MissingExtraError:
        raise  # its own line names the extra to install
    except ImportError as err:
        raise UsageError(f"`crawlsim {name}` is not available here: {err}") from None
    entry = getattr(module, function, None)
    if entry is None:
        raise UsageError(f"`crawlsim {name}` is not available here: {module_name} has no {function}()")
    return entry  # type: ignore[no-any-return]


def _default(argv: list[str]) -> int:
    """Bare ``crawlsim``: the app in a terminal, the summary in a pipe."""
    if sys.stdout.isatty() and sys.stdin.isatty():
        return _entry("tui")([])
    from crawlsim.scenario.files import DEFAULT_SCENARIO

    return _entry("run")([DEFAULT_SCENARIO])


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``crawlsim`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    :func:`_dispatch` picks what to run; this function only turns what
    escapes it into an exit status: a user's mistake (any
    :class:`~crawlsim.errors.UsageError`) into one line and 2, any other
    error into an "internal error" line and 1 (never 0), Ctrl-C into 130, a
    closed pipe into a quiet 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with signal_handled(signal.SIGTERM, _as_ctrl_c):
            return _dispatch(args)
    except KeyboardInterrupt:
        print("crawlsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_went_away()
    except SystemExit as exc:
        # a subcommand's own argparse (--help, or its own error) exits; keep the status
        if isinstance(exc.code, int) or exc.code is None:
            return exc.code or 0
        return exit_status(UsageError(exc.code))
    except Exception as err:  # the one place: a user's mistake is one line and 2, a bug one line and 1
        return exit_status(err)


def _as_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """SIGTERM's handler: what Ctrl-C does now: SIGINT's handler (asyncio's, which stops the
    running crawl first, or Python's), or KeyboardInterrupt when SIGINT is
    ignored (a background job)."""
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def _dispatch(args: list[str]) -> int:
    """The bare command, ``--help``/``help [COMMAND]``, ``--version``, or a
    subcommand with the arguments after its name."""
    if not args:
        return _default(args)
    first = args[0]
    if first in ("-h", "--help", "help"):
        if first == "help" and len(args) > 1 and args[1] in COMMANDS:
            return _entry(args[1])(["--help"])
        sys.stdout.write(help_text())
        return 0
    if first in ("-V", "--version"):
        print(f"crawlsim {_version()}")
        return 0
    if first not in COMMANDS:
        raise _unknown(first)
    code = _entry(first)(args[1:])
    return int(code or 0)


def _unknown(first: str) -> UsageError:
    """An unknown command or option, with the closest command's name when
    one is close, and the list of commands."""
    import difflib

    close = difflib.get_close_matches(first, list(COMMANDS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    what = "option" if first.startswith("-") else "command"
    return UsageError(f"unknown {what} {first!r}{hint}; commands: {', '.join(COMMANDS)}")


def _reader_went_away() -> int:
    """The reader of stdout went away (`crawlsim trace x -o - | head`): not an
    error.  Point stdout at /dev/null so the interpreter's final flush is quiet."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


__all__ = ["COMMANDS", "EXIT_USAGE", "UsageError", "help_text", "main"]
