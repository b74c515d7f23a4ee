"""The app as textual-serve runs it, without a browser: a child process on
pipes, with ``TEXTUAL_DRIVER`` naming Textual's web driver (as
textual-serve sets it), ends whenever its session does.

Each case starts ``crawlsim tui see-it`` the way textual-serve's server
does and ends the session one way: the server's "quit" sent together with
the page's first resize while the app is still starting (what a visit that
closes at once causes), the end of its stdin (the server gone), SIGTERM
once it is drawing.  The process must exit; it is waited for with a
bounded deadline and killed (and the test failed) if it does not.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

GONE_SECONDS = 120.0
"""How long the app may take to start and then end, on a loaded machine."""


def _packet(meta: dict[str, object]) -> bytes:
    data = json.dumps(meta).encode()
    return b"M" + len(data).to_bytes(4, "big") + data


def _served_app() -> tuple[subprocess.Popen[bytes], threading.Event]:
    """``crawlsim tui see-it`` on pipes under the web driver; the event is
    set once it has written its first screen (its output is read and
    dropped, as the server reads it)."""
    env = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "COLUMNS": "142",
           "ROWS": "39", "CRAWLSIM_TUI_FORCE": "1"}
    app = subprocess.Popen([sys.executable, "-m", "crawlsim", "tui", "see-it"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    drawn = threading.Event()

    def read() -> None:
        assert app.stdout is not None
        seen = 0
        while chunk := app.stdout.read1(65536):
            seen += len(chunk)
            if seen > 10_000:  # a screen's worth
                drawn.set()
        drawn.set()

    threading.Thread(target=read, daemon=True).start()
    return app, drawn


def _assert_ends(app: subprocess.Popen[bytes], how: str) -> None:
    try:
        app.wait(timeout=GONE_SECONDS)
    except subprocess.TimeoutExpired:
        app.kill()
        app.wait()
        raise AssertionError(f"the app outlived its session ({how})") from None


def test_a_quit_while_starting_ends_the_app() -> None:
    app, _ = _served_app()
    assert app.stdin is not None
    # a visit that closes at once: the page's size, then the server's quit
    app.stdin.write(_packet({"type": "resize", "width": 142, "height": 44}) + _packet({"type": "quit"}))
    app.stdin.flush()
    _assert_ends(app, "quit during start-up")


def test_the_end_of_its_input_ends_the_app() -> None:
    app, drawn = _served_app()
    assert app.stdin is not None
    assert drawn.wait(GONE_SECONDS)
    app.stdin.close()  # the server's end of the pipe closed: the server is gone
    _assert_ends(app, "end of stdin")


def test_sigterm_ends_the_app() -> None:
    app, drawn = _served_app()
    assert drawn.wait(GONE_SECONDS)
    app.send_signal(signal.SIGTERM)
    _assert_ends(app, "SIGTERM")
