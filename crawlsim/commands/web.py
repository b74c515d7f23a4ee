"""``crawlsim web [SCENARIO] --port N [--host H]``: the terminal app in a browser.

A class on laptops needs a URL, not a terminal.  textual-serve serves the
same Textual app ``crawlsim tui`` runs: each browser that opens the page
gets its own copy of the app, started as a child process, drawn in the
page with xterm.js.  Loopback only unless ``--host`` says otherwise (the
app runs code on this machine for whoever can reach the port).

The scenario is checked before the server starts, so a misspelt name is
one line and exit 2, not a page that fails for every student.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from typing import NoReturn

from crawlsim.errors import UsageError

DEFAULT_PORT = 8000


class _Parser(argparse.ArgumentParser):
    """argparse whose mistakes are one :class:`UsageError` line (exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535; got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535; got {port}")
    return port


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="crawlsim web",
        description="Serve the terminal app to browsers (textual-serve): every browser that opens the "
        "address gets its own app on SCENARIO.",
    )
    parser.add_argument("scenario", nargs="?", default="see-it", help="shipped scenario name or .toml path "
                        "(default: see-it)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 serves the "
                        "whole network)")
    return parser


def app_command(scenario: str) -> str:
    """The shell command textual-serve runs for each browser: this Python's
    ``crawlsim tui SCENARIO``."""
    return shlex.join([sys.executable, "-m", "crawlsim", "tui", scenario])


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from crawlsim.scenario import load_scenario

    load_scenario(args.scenario)  # a bad name or file: one line, exit 2, before anything listens
    try:
        from textual_serve.server import Server
    except ImportError:
        raise UsageError("`crawlsim web` needs textual-serve: pip install textual-serve") from None
    # each app's stdin/stdout are textual-serve's pipes, not a terminal: the
    # app's "needs a terminal" guard is for people, not for this driver
    os.environ["CRAWLSIM_TUI_FORCE"] = "1"
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    server = Server(app_command(args.scenario), host=args.host, port=args.port,
                    title=f"crawlsim: {args.scenario}", public_url=f"http://{shown_host}:{args.port}")
    print(f"crawlsim web: open http://{shown_host}:{args.port}/ (each browser gets its own app; Ctrl+C stops)",
          flush=True)
    server.serve()
    return 0
