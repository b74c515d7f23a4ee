"""What the browser tests share: the system Chromium driven by Playwright, a
server started as a child process whose address is read from its own
output, and screenshots kept as test artefacts.

Playwright's Python package carries its driver, but not a browser: it is
pointed at the system's Chromium (Debian's ``chromium``, which ``.ci/run``
installs when missing).  Without one the tests skip and say why.

Nothing here sleeps: a server's address is awaited on a queue filled by a
thread that reads the server's output, and a page's state with Playwright's
own waits, each with a timeout generous enough for a loaded two-core
machine.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # the machine has no network: no update or sync checks
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 120.0
"""Seconds a server may take to print its address (JupyterLab on a loaded machine)."""
UI_TIMEOUT_MS = 90_000
"""Milliseconds a page may take to show what a step waits for."""


def chromium_path() -> str | None:
    """The system Chromium: ``$CRAWLSIM_CHROMIUM``, else the first of
    :data:`CHROMIUM_NAMES` on the PATH."""
    given = os.environ.get("CRAWLSIM_CHROMIUM")
    if given:
        return given
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


needs_chromium = pytest.mark.skipif(
    chromium_path() is None,
    reason="no Chromium binary on the PATH (apt-get install chromium; .ci/run does), or set CRAWLSIM_CHROMIUM",
)
"""Skip a browser test only when there is no browser to drive."""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless system Chromium (driven by Playwright) for a module's
    tests: starting one costs about a CPU second, a fresh context a tenth of
    that.  Each test opens its own context with :func:`browser_page`, so no
    cookie, storage or tab of one test is seen by the next."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def browser_page(browser: Any, width: int = 1280, height: int = 1000) -> Iterator[Any]:
    """A page in a fresh context of ``browser`` (the :func:`chromium`
    fixture), the context closed afterwards."""
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        yield page
    finally:
        context.close()


class Server:
    """A child process serving HTTP; :meth:`address` waits for the line of
    its output that names its address.  A thread keeps reading the output
    (so the pipe never fills) and keeps it for a failure message."""

    def __init__(self, argv: Sequence[str], pattern: str, *, cwd: Path, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self._more = threading.Condition()
        self._ended = False
        self._found: queue.Queue[str | None] = queue.Queue()
        self._pattern = re.compile(pattern)
        self.proc = subprocess.Popen(
            list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._more:
                self.lines.append(line.rstrip())
                self._more.notify_all()
            match = self._pattern.search(line)
            if match:
                self._found.put(match.group(1))
        self._found.put(None)  # the output ended: the server exited
        with self._more:
            self._ended = True
            self._more.notify_all()

    def wait_for_output(self, done: Callable[[str], bool], timeout: float = START_TIMEOUT) -> bool:
        """Wait, at most ``timeout`` seconds, until ``done`` holds for the
        server's output so far (its lines joined); whether it does."""
        with self._more:
            return self._more.wait_for(lambda: done("".join(self.lines)) or self._ended,
                                       timeout=timeout) and done("".join(self.lines))

    def address(self, timeout: float = START_TIMEOUT) -> str:
        """The first match of ``pattern``'s group 1 in the server's output."""
        try:
            found = self._found.get(timeout=timeout)
        except queue.Empty:
            found = None
        if found is None:
            self.stop()
            tail = "\n".join(self.lines[-30:])
            raise AssertionError(f"server printed no address within {timeout:.0f} s; its output:\n{tail}")
        return found

    def stop(self) -> None:
        """End the server and every process it started (its own session)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=30)
        self._reader.join(timeout=30)


def save_artefact(data: bytes, name: str, tmp_path: Path) -> Path:
    """Write a screenshot into ``tmp_path`` and, when ``$CRAWLSIM_ARTEFACTS``
    names a folder, there too (CI keeps that folder)."""
    path = tmp_path / name
    path.write_bytes(data)
    keep = os.environ.get("CRAWLSIM_ARTEFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        (Path(keep) / name).write_bytes(data)
    return path


def keep_screenshot(target: Any, name: str, tmp_path: Path, **options: Any) -> Path | None:
    """A screenshot of ``target`` (a page or a locator) kept as an artefact
    (:func:`save_artefact`).  The picture is for a person to look at, never what a
    test asserts: headless Chromium can refuse a capture on a loaded machine ("Unable
    to capture screenshot"), so a refusal is tried once more and a second one is a
    warning, not a failure -- nor, in a failure handler, a mask over the real error."""
    from playwright.sync_api import Error

    refusal = ""
    for _ in range(2):
        try:
            data = target.screenshot(**options)
        except Error as err:
            refusal = err.message
            continue
        return save_artefact(data, name, tmp_path)
    warnings.warn(f"artefact {name} not kept: {refusal}", stacklevel=2)
    return None
