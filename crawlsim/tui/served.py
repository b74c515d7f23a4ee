"""The driver an app runs on when textual-serve serves it to a browser.

textual-serve starts one app process per browser session and talks to it
over the process's stdin and stdout (Textual's ``WebDriver``).  Two ways
that driver lets a session's app outlive the session, both seen with
``crawlsim web`` and headless visits that closed at once:

* **End of input is ignored.**  When the server goes (stopped, killed, or
  its pipe to the app closed), the driver's input thread meets the end of
  stdin and simply returns; nothing asks the app to end, so it goes on
  animating, alone, forever.
* **An exit request during start-up is half-done.**  A visit that closes
  its socket at once makes textual-serve send "quit" while the app is still
  starting; an app resized in the same moment (the page's first message)
  can be left with its message loop closed but its screen still
  repainting every frame -- output held back, so it shows nothing and
  burns a core -- and a SIGTERM then posts another exit request to the
  closed loop, so it is ignored too.

:class:`ServedDriver` keeps Textual's driver and ends the session in every
such case: the server's "quit", the end of stdin, SIGTERM, SIGHUP and
SIGINT each ask the app to exit, and if the process is still there
:data:`EXIT_GRACE` seconds later it exits anyway -- a session that has
ended has no screen left to restore and nothing left to say.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from textual import messages
from textual.drivers.web_driver import WebDriver

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""What textual-serve puts in ``TEXTUAL_DRIVER`` for the apps it starts."""

EXIT_GRACE = 3.0
"""Seconds an app may take to exit once its session has ended."""

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class ServedDriver(WebDriver):
    """Textual's web driver, whose app ends whenever its session does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ending = threading.Event()

    def start_application_mode(self) -> None:
        super().start_application_mode()
        # Python-level handlers (not the event loop's): they run even while
        # the loop is busy drawing, or is the half-closed loop described above
        for ending in ENDING_SIGNALS:
            signal.signal(ending, self._on_signal)

    def _on_signal(self, signum: int, frame: object) -> None:
        self.end_session()

    def run_input_thread(self) -> None:
        """Read the server's packets until stdin ends; then the session is
        over (unless the app itself is what stopped the reading)."""
        try:
            super().run_input_thread()
        finally:
            if not self.exit_event.is_set():
                self.end_session()

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "quit":
            self.end_session()
            return
        super().on_meta(packet_type, payload)

    def end_session(self) -> None:
        """Ask the app to exit (once), and make sure the process ends soon
        even if that request is lost."""
        if self._ending.is_set():
            return
        self._ending.set()
        watchdog = threading.Timer(EXIT_GRACE, os._exit, args=(0,))
        watchdog.daemon = True
        watchdog.start()
        try:
            self._app.post_message(messages.ExitApp())
        except Exception:  # noqa: BLE001 - an app already gone: the watchdog ends the process
            pass


def served_driver() -> type[ServedDriver] | None:
    """:class:`ServedDriver` when this process was started by textual-serve
    (which names Textual's web driver in ``TEXTUAL_DRIVER``), else None."""
    return ServedDriver if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER else None


__all__ = ["EXIT_GRACE", "ServedDriver", "served_driver"]
