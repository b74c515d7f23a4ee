"""``crawlsim web``: the terminal app served to a browser, in headless Chromium.

The server starts on a free loopback port; Chromium opens the page, the app
starts in it (textual-serve runs ``crawlsim tui`` for the page), and a key
works without a click: ``p`` turns politeness off, which rewrites the app's
second line (``workers 4 · polite on ...``), and ``p`` again turns it back.
xterm.js draws text on a canvas, so the test reads pixels of that line, not
text.  Screenshots go to ``tmp_path`` (and ``$CRAWLSIM_ARTEFACTS``).

Every app a session starts ends with it: after a closed tab, after short
visits that close at once (``chromium --headless --screenshot``), and when
the server is sent SIGTERM, no process of the test's scenario is left.  The
scenario is a copy in ``tmp_path``, so its path marks this test's apps and
nobody else's; the test waits for them to go with a bounded deadline.
Mistakes on the command line, a busy port and an address this machine does
not have are one line, exit 2.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from crawlsim.commands import web
from crawlsim.scenario.files import find_scenario
from tests.browser import (  # noqa: F401 (chromium: a fixture)
    CHROMIUM_ARGS, UI_TIMEOUT_MS, Server, browser_page, chromium, chromium_path, keep_screenshot, needs_chromium,
)

GONE_SECONDS = 120.0
"""How long a session's app may take to end once its session has (it may still be starting, on a loaded machine)."""

SECOND_LINE = """() => {
  const c = document.querySelector('canvas.xterm-text-layer');
  if (!c || c.height === 0) return null;
  const top = Math.floor(c.height * 0.03), bottom = Math.ceil(c.height * 0.045);
  const data = c.getContext('2d').getImageData(0, top, c.width, bottom - top).data;
  let hash = 0, ink = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0 && data[i] + data[i + 1] + data[i + 2] > 96) ink++;  // text, not a dark background
    hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2] + 17 * data[i + 3]) | 0;
  }
  return ink > 0 ? String(hash) : null;
}"""
"""A hash of the pixels of the app's second line (options: workers, polite...), or null while no text is
drawn there: the screen before the app starts (its "starting the app" line) paints that row dark, and a
hash of it taken for the polite line would be changed by the app's first draw, not by the key."""


def _free_port() -> int:
    """A port the OS just handed out (textual-serve needs the number up front)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _scenario_copy(tmp_path: Path) -> Path:
    """see-it under a name only this test uses: it is in each app's command line."""
    copy = tmp_path / f"see-it-{os.getpid()}-{time.monotonic_ns()}.toml"
    shutil.copyfile(find_scenario("see-it"), copy)
    return copy


def _apps(marker: Path) -> list[psutil.Process]:
    """The running processes whose command line names ``marker``."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if str(marker) in " ".join(proc.info["cmdline"] or ()) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue  # gone while looking
    return found


def _assert_apps_end(marker: Path, server: Server | None = None, why: str = "") -> None:
    """Wait, up to :data:`GONE_SECONDS`, until no app of ``marker`` runs
    (besides the server's own process, which names it too)."""
    own = {server.proc.pid} if server is not None else set()
    deadline = time.monotonic() + GONE_SECONDS
    while True:
        left = [proc for proc in _apps(marker) if proc.pid not in own]
        if not left or time.monotonic() > deadline:
            break
        psutil.wait_procs(left, timeout=1.0)
    if left:
        names = [" ".join(proc.cmdline()) for proc in left]
        for proc in left:  # a failed run leaves nothing burning either
            proc.kill()
        raise AssertionError(f"{len(left)} app process(es) outlived {why}: {names}")


def _web_server(scenario: Path, tmp_path: Path) -> Server:
    return Server([sys.executable, "-m", "crawlsim", "web", str(scenario), "--port", str(_free_port())],
                  r"open (http://127\.0\.0\.1:\d+/)", cwd=tmp_path, env=dict(os.environ))


@pytest.mark.browser
@needs_chromium
def test_the_served_app_loads_takes_keys_and_ends_with_its_session(chromium: Any, tmp_path: Path) -> None:
    scenario = _scenario_copy(tmp_path)
    server = _web_server(scenario, tmp_path)
    try:
        url = server.address()
        with browser_page(chromium, width=1280, height=800) as page:
            try:
                _exercise(page, url, tmp_path)
            except Exception:
                keep_screenshot(page, "web-failure.png", tmp_path)
                raise
            page.close()  # a closed tab mid-session
            _assert_apps_end(scenario, server, "a closed tab")
            page = page.context.new_page()  # the same browser, a new tab
            page.set_default_timeout(UI_TIMEOUT_MS)
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_function(SECOND_LINE)  # a second session, drawn
            assert len(_apps(scenario)) == 2  # the server and this session's app
            os.kill(server.proc.pid, signal.SIGTERM)
            server.proc.wait(timeout=GONE_SECONDS)
            _assert_apps_end(scenario, why="SIGTERM to the server")
    finally:
        server.stop()


@pytest.mark.browser
@needs_chromium
def test_short_headless_visits_leave_no_app_behind(tmp_path: Path) -> None:
    """Three visits that take a screenshot and close at once (the socket
    dropped while the app is still starting): no app outlives them."""
    scenario = _scenario_copy(tmp_path)
    server = _web_server(scenario, tmp_path)
    try:
        url = server.address()
        for visit in range(3):
            subprocess.run([str(chromium_path()), *CHROMIUM_ARGS, "--window-size=1280,800",
                            f"--screenshot={tmp_path / f'visit-{visit}.png'}", url],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=GONE_SECONDS, check=True)
        _wait_for_sessions(server, 3)  # each visit opened its socket, so started its app
        _assert_apps_end(scenario, server, "three short visits")
    finally:
        server.stop()


def _wait_for_sessions(server: Server, count: int) -> None:
    """Until the server's access log shows ``count`` sessions (socket
    requests; logged once the session is over), or fail at the deadline."""
    server.wait_for_output(lambda text: text.count("/ws?width=") >= count, timeout=GONE_SECONDS)
    seen = "".join(server.lines).count("/ws?width=")
    assert seen == count, f"the server logged {seen} sessions, not {count}"


def _exercise(page: Any, url: str, tmp_path: Path) -> None:
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(SECOND_LINE)  # the app is drawn
    polite = page.evaluate(SECOND_LINE)
    keep_screenshot(page, "web-app.png", tmp_path)
    # no click: the page gives the keyboard to the app once it is drawn
    page.wait_for_function("() => document.activeElement?.classList.contains('xterm-helper-textarea')")
    page.keyboard.press("p")  # politeness off: a new run, a new second line
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {polite!r}; }}")
    impolite = page.evaluate(SECOND_LINE)
    keep_screenshot(page, "web-polite-off.png", tmp_path)
    page.keyboard.press("p")  # and on again: the line changes back
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {impolite!r}; }}")


@pytest.mark.browser
@needs_chromium
def test_a_browser_follows_the_presenters_state(chromium: Any, tmp_path: Path) -> None:
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
        with browser_page(chromium, width=1280, height=800) as page:
            try:
                _follow(page, url, channel, state, tmp_path)
            except Exception:
                keep_screenshot(page, "web-follow-failure.png", tmp_path)
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
    keep_screenshot(page, "web-follow.png", tmp_path)
    since = len(frames.text)
    write_state(channel, replace(state, workers=3, beat=time.monotonic()))  # the presenter presses - (four times)
    frames.wait_for("workers 3", since)
    page.wait_for_function(f"() => {{ const h = ({SECOND_LINE})(); return h !== null && h !== {drawn!r}; }}")
    keep_screenshot(page, "web-follow-workers-3.png", tmp_path)


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
    # exec'd: the app is the server's own child, which its signals and pipes reach
    assert web.app_command("see-it") == f"exec {sys.executable} -m crawlsim tui see-it"
    assert web.app_command("my web.toml").endswith("tui 'my web.toml'")


@pytest.mark.parametrize("host", ["127.0.0.1", "192.0.2.1"])  # a busy port; an address (TEST-NET-1) not on this machine
def test_a_server_that_cannot_listen_says_so_in_one_line(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["web", "see-it", "--host", host, "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    reason = "Address already in use" if host == "127.0.0.1" else "Cannot assign requested address"
    assert err == f"crawlsim: error: cannot listen on {host} port {port}: {reason}"
