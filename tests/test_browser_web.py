"""``crawlsim web``: the terminal app served to a browser, in headless Chromium.

The server starts on a free loopback port; Chromium opens the page, the app
starts in it (textual-serve runs ``crawlsim tui`` for the page), and a key
works: ``p`` turns politeness off, which rewrites the app's second line
(``workers 4 · polite on ...``), and ``p`` again turns it back.  xterm.js draws text on a canvas, so the test
reads pixels of that line, not text.  Screenshots go to ``tmp_path`` (and
``$CRAWLSIM_ARTEFACTS``).  Mistakes on the command line are one line, exit 2.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from crawlsim.commands import web
from tests.browser import Server, browser_page, needs_chromium, save_artefact

SECOND_LINE = """() => {
  const c = document.querySelector('canvas.xterm-text-layer');
  if (!c || c.height === 0) return null;
  const top = Math.floor(c.height * 0.03), bottom = Math.ceil(c.height * 0.045);
  const data = c.getContext('2d').getImageData(0, top, c.width, bottom - top).data;
  let hash = 0, ink = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0) ink++;
    hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2] + 17 * data[i + 3]) | 0;
  }
  return ink > 0 ? String(hash) : null;
}"""
"""A hash of the pixels of the app's second line (options: workers, polite...), or null while it is blank."""


def _free_port() -> int:
    """A port the OS just handed out (textual-serve needs the number up front)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.browser
@needs_chromium
def test_the_served_app_loads_and_a_key_works(tmp_path: Path) -> None:
    port = _free_port()
    server = Server([sys.executable, "-m", "crawlsim", "web", "see-it", "--port", str(port)],
                    r"open (http://127\.0\.0\.1:\d+/)", cwd=tmp_path, env=dict(os.environ))
    try:
        url = server.address()
        with browser_page(width=1280, height=800) as page:
            try:
                _exercise(page, url, tmp_path)
            except Exception:
                save_artefact(page.screenshot(), "web-failure.png", tmp_path)
                raise
    finally:
        server.stop()


def _exercise(page: Any, url: str, tmp_path: Path) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(SECOND_LINE)  # the app is drawn
    polite = page.evaluate(SECOND_LINE)
    save_artefact(page.screenshot(), "web-app.png", tmp_path)
    page.locator(".xterm-helper-textarea").focus()
    page.keyboard.press("p")  # politeness off: a new run, a new second line
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {polite!r}; }}")
    impolite = page.evaluate(SECOND_LINE)
    save_artefact(page.screenshot(), "web-polite-off.png", tmp_path)
    page.keyboard.press("p")  # and on again: the line changes back
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {impolite!r}; }}")


@pytest.mark.browser
@needs_chromium
def test_a_browser_follows_the_presenters_state(tmp_path: Path) -> None:
    """Follow mode's server (``--serve-followers``, what ``crawlsim web --follow``
    starts) with a presenter's state the test writes: the page shows the
    presenter's knobs, and follows when the presenter turns one.  xterm.js
    draws on a canvas, so the words are read from the app's output as the
    page receives it (its WebSocket frames), and the drawing from pixels."""
    from crawlsim.tui.follow import FollowState, write_state

    channel = tmp_path / "state.json"
    state = FollowState("see-it", 7, True, 1, 0.5, "rfc3986", "dfs", 2.0, 0.0, False, 1.0, beat=time.monotonic())
    write_state(channel, state)
    port = _free_port()
    server = Server([sys.executable, "-m", "crawlsim", "web", "see-it", "--port", str(port),
                     "--serve-followers", str(channel)],
                    r"open (http://127\.0\.0\.1:\d+/)", cwd=tmp_path, env=dict(os.environ))
    try:
        url = server.address()
        with browser_page(width=1280, height=800) as page:
            try:
                _follow(page, url, channel, state, tmp_path)
            except Exception:
                save_artefact(page.screenshot(), "web-follow-failure.png", tmp_path)
                raise
    finally:
        server.stop()


def _follow(page: Any, url: str, channel: Path, state: Any, tmp_path: Path) -> None:
    from dataclasses import replace

    from crawlsim.tui.follow import write_state

    frames = _Frames(page)
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(SECOND_LINE)
    frames.wait_for("workers 7")
    frames.wait_for("order DFS")
    frames.wait_for("the presenter")  # following it, or (5 s after this test's one write) saying it is silent
    drawn = page.evaluate(SECOND_LINE)
    save_artefact(page.screenshot(), "web-follow.png", tmp_path)
    since = len(frames.text)
    write_state(channel, replace(state, workers=3, beat=time.monotonic()))  # the presenter presses - (four times)
    frames.wait_for("workers 3", since)
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {drawn!r}; }}")
    save_artefact(page.screenshot(), "web-follow-workers-3.png", tmp_path)


class _Frames:
    """The text of every WebSocket frame the page receives: the app's output."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.sockets: list[Any] = []
        self.text = ""
        page.on("websocket", self._opened)

    def _opened(self, socket: Any) -> None:
        self.sockets.append(socket)
        socket.on("framereceived", self._received)

    def _received(self, payload: str | bytes) -> None:
        self.text += payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload

    def wait_for(self, words: str, since: int = 0, frames: int = 500) -> None:
        """Until ``words`` has arrived (after the first ``since`` characters):
        each turn waits for one more frame, which Playwright's timeout bounds."""
        for _ in range(frames):
            if words in self.text[since:]:
                return
            self.sockets[-1].wait_for_event("framereceived")
        raise AssertionError(f"the page did not receive {words!r} in {frames} frames")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such-scenario"], "no scenario file or shipped scenario"),
        (["--port", "0"], "expected a port number 1-65535; got 0"),
        (["--port", "http"], "expected a port number 1-65535; got 'http'"),
    ],
)
def test_web_mistakes_are_one_line_and_exit_2(argv: list[str], message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    assert main(["web", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err


def test_each_browser_runs_this_pythons_app() -> None:
    assert web.app_command("see-it") == f"{sys.executable} -m crawlsim tui see-it"
    assert web.app_command("my web.toml").endswith("tui 'my web.toml'")
