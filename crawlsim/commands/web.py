"""``crawlsim web [SCENARIO] --port N [--host H] [--follow]``: the terminal app in a browser.

A class on laptops needs a URL, not a terminal.  textual-serve serves the
same Textual app ``crawlsim tui`` runs: each browser that opens the page
gets its own copy of the app, started as a child process, drawn in the
page with xterm.js.  Loopback only unless ``--host`` says otherwise (the
app runs code on this machine for whoever can reach the port).

``--follow``: every browser sees the presenter's crawl.  This terminal runs
the presenter (the normal app, every key working); a child process serves
*followers* (``crawlsim tui --follow STATE``), read-only apps that show what
the presenter publishes to a state file in a private temporary folder
(:mod:`crawlsim.tui.follow` describes the channel).  Quitting the presenter
stops the server and removes the folder.  Without a terminal there is no
presenter: one line, exit 2.  The child is this command with the hidden
``--serve-followers STATE`` (serve followers of a state someone else
writes; the browser test writes one itself), which stops by itself when the
process that started it is gone (a presenter killed or whose terminal
closed leaves no server behind, only its temporary folder).

The scenario is checked before the server starts, so a misspelt name is
one line and exit 2, not a page that fails for every student.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from crawlsim.cli_options import ArgumentParser, cannot_listen, port_number
from crawlsim.errors import UsageError
from crawlsim.extras import needs

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario

DEFAULT_PORT = 8000
PARENT_CHECK_SECONDS = 1.0
"""How often the followers' server checks that its presenter is still there."""
START_SECONDS = 60.0
"""How long ``--follow`` waits for its server to listen (a child Python importing aiohttp and textual)."""


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim web",
        description="Serve the terminal app to browsers (textual-serve): every browser that opens the "
        "address gets its own app on SCENARIO.",
    )
    parser.add_argument("scenario", nargs="?", default="see-it", help="shipped scenario name or .toml path "
                        "(default: see-it)")
    parser.add_argument("--port", type=port_number(), default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                        help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 serves the "
                        "whole network)")
    parser.add_argument("--follow", action="store_true",
                        help="read-only follow mode: this terminal runs the presenter's app (every key works) and "
                        "every browser sees its crawl, clock and knobs; browsers can only watch (needs a terminal)")
    parser.add_argument("--serve-followers", metavar="STATE", help=argparse.SUPPRESS)
    return parser


PAGE = Path(__file__).with_name("web_page")
"""The folder of the page each browser gets (textual-serve's ``app_index.html`` template, ours)."""


def app_command(scenario: str) -> str:
    """The shell command textual-serve runs for each browser: this Python's
    ``crawlsim tui SCENARIO``, ``exec``'d, so the app is the server's own
    child (signals and the end of the server's pipes reach it, not a shell)."""
    return "exec " + shlex.join([sys.executable, "-m", "crawlsim", "tui", scenario])


def follower_command(scenario: str, state: str) -> str:
    """The shell command textual-serve runs for each browser in follow mode:
    a read-only app following ``state`` (``scenario`` until it holds one)."""
    return "exec " + shlex.join([sys.executable, "-m", "crawlsim", "tui", scenario, "--follow", state])


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from crawlsim.scenario import load_scenario

    scenario = load_scenario(args.scenario)  # a bad name or file: one line, exit 2, before anything listens
    with needs("web", "crawlsim web"):
        from textual_serve.server import Server
    if args.follow:
        if args.serve_followers:
            raise UsageError("give --follow or --serve-followers, not both")
        return _present(args, scenario)
    _check_port(args.host, args.port)
    # each app's stdin/stdout are textual-serve's pipes, not a terminal: the
    # app's "needs a terminal" guard is for people, not for this driver
    os.environ["CRAWLSIM_TUI_FORCE"] = "1"
    url = _url(args.host, args.port)
    if args.serve_followers:
        _exit_with_parent()
        command = follower_command(args.scenario, args.serve_followers)
        title, what = f"crawlsim: {args.scenario} (following the presenter)", "every browser follows the presenter"
    else:
        command, title, what = app_command(args.scenario), f"crawlsim: {args.scenario}", "each browser gets its own app"
    server = Server(command, host=args.host, port=args.port, title=title, public_url=url.rstrip("/"),
                    templates_path=PAGE)
    print(f"crawlsim web: open {url} ({what}; Ctrl+C stops)", flush=True)
    print(f"crawlsim web: no server in the room? `crawlsim html {args.scenario} -o page.html` writes one offline "
          "page of the same crawl (every what-if precomputed)", flush=True)
    try:
        server.serve()
    except OSError as err:  # taken between the check and the server's own bind
        raise cannot_listen(args.host, args.port, err) from None
    return 0


def _exit_with_parent() -> None:
    """Serving followers: stop (SIGTERM to this process, which textual-serve
    handles) once the process that started this one is gone -- a presenter
    killed, or whose terminal closed, cannot stop its server itself."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="presenter watch", daemon=True).start()


def _url(host: str, port: int) -> str:
    shown_host = f"[{host}]" if ":" in host else host
    return f"http://{shown_host}:{port}/"


def _present(args: argparse.Namespace, scenario: Scenario) -> int:
    """``--follow``: the presenter here, the followers' server in a child process."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) and not os.environ.get("CRAWLSIM_TUI_FORCE"):
        raise UsageError("--follow runs the presenter's app in this terminal, and stdin/stdout are not a terminal; "
                         "run it in one, or drop --follow (each browser then gets its own app)")
    _check_port(args.host, args.port)
    from crawlsim.tui.follow import PresenterApp, scenario_spec

    url = _url(args.host, args.port)
    # all addresses: students need this machine's name, not 0.0.0.0
    shown = _url(socket.gethostname(), args.port) if args.host in ("0.0.0.0", "::") else url
    folder = Path(tempfile.mkdtemp(prefix="crawlsim-follow-"))  # mode 0700: only this user reads the state
    channel, log = folder / "state.json", folder / "server.log"
    server: subprocess.Popen[bytes] | None = None

    def banner() -> str:
        if server is not None and server.poll() is not None:
            return f"the followers' server stopped (exit {server.returncode}): browsers see nothing"
        return f"followers: open {shown}"

    app = PresenterApp(scenario, channel, banner=banner)
    app.publish()  # followers find a state from their first moment
    print(f"crawlsim web: starting the followers' server on {url} ...", flush=True)
    try:
        with log.open("wb") as out:
            server = subprocess.Popen(
                [sys.executable, "-m", "crawlsim", "web", scenario_spec(scenario), "--port", str(args.port),
                 "--host", args.host, "--serve-followers", str(channel)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "CRAWLSIM_TUI_FORCE": "1"},
            )
        if not _listening(server, args.host, args.port):
            lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines() or ["(no output)"]
            raise UsageError(f"the followers' server did not start on {url}: {lines[-1]}")
        code = app.run()
    finally:
        app.publish(stopped=True)
        if server is not None:
            _stop(server)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"crawlsim web: the presenter quit; stopped serving {url}", flush=True)
    return int(code or 0)


def _listening(server: subprocess.Popen[bytes], host: str, port: int) -> bool:
    """Wait until ``host:port`` takes a connection: True, or False when the
    server exits first or does not listen within :data:`START_SECONDS`."""
    near = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    deadline = time.monotonic() + START_SECONDS
    while server.poll() is None and time.monotonic() < deadline:
        try:
            with socket.create_connection((near, port), timeout=1.0):
                return True
        except OSError:
            time.sleep(0.05)  # not yet listening: the child is still importing
    return False


def _check_port(host: str, port: int) -> None:
    """A busy port or an address this machine does not have is one line before the
    presenter takes the terminal (the server's own error would go to its log)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp does
            probe.bind(address)
    except OSError as err:
        raise cannot_listen(host, port, err) from None


def _stop(server: subprocess.Popen[bytes]) -> None:
    """End the server, then whatever is left of its process group (the
    followers it started with ``sh -c``)."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already
    server.wait(timeout=10)
