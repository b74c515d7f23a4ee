"""The widget's Play: a clock in the kernel, however many times the widget is shown.

ipywidgets' ``Play`` ticks in the browser, and each *view* of it starts and
stops the one timer its model holds: when the button is pressed, the first
view starts the timer and takes a step, and the second view -- the same
widget shown twice, as ``w = show(...)`` followed by ``w``, or two
``display(w)`` -- sees the state that step left and pauses it.  The clock
stops after one frame, in JupyterLab as in any front end that draws the
widget twice (a known ipywidgets bug).

Every frame is drawn by the kernel anyway (the picture is a PNG it
renders), so the clock lives there: a toggle button whose value is the one
"playing" state every view shows, and a timer on the kernel's event loop.
The next tick is set only once the last frame is drawn, so a slow kernel
plays more slowly instead of queueing ticks that go on moving the picture
after Pause.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from crawlsim.extras import needs

with needs("notebook", "the crawl widget (crawlsim.notebook.show)"):
    import ipywidgets as widgets


class _Handle(Protocol):
    def cancel(self) -> None: ...


CallLater = Callable[[float, Callable[[], None]], _Handle]
"""Run a callback after a delay in seconds; returns something to ``cancel()``."""


def loop_call_later(delay: float, callback: Callable[[], None]) -> _Handle:
    """``call_later`` on the running event loop (a Jupyter kernel's)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError("play needs a running event loop (a Jupyter kernel); without one, "
                           "call frame(), step() or set time.value") from None
    return loop.call_later(delay, callback)


class PlayClock:
    """``button`` (a ``ToggleButton``) plays: while it is down, ``advance()``
    is called every ``interval_ms`` ms after the last frame was drawn, until
    it returns False (the end).  Pressing it at the end starts again, via
    ``rewind()``."""

    def __init__(self, button: widgets.ToggleButton, advance: Callable[[], bool], rewind: Callable[[], None], *,
                 interval_ms: int, call_later: CallLater | None = None) -> None:
        self.button = button
        self.interval_ms = max(1, int(interval_ms))
        """Milliseconds between one frame drawn and the next tick."""
        self._advance, self._rewind = advance, rewind
        self._call_later = call_later or loop_call_later
        self._pending: _Handle | None = None
        button.observe(self._on_toggle, names="value")
        self._show(False)

    @property
    def playing(self) -> bool:
        return bool(self.button.value)

    def _on_toggle(self, change: dict[str, Any]) -> None:
        self._show(bool(change["new"]))
        if change["new"]:
            self._rewind()
            self._schedule()
        else:
            self._cancel()

    def _show(self, playing: bool) -> None:
        self.button.description = "pause" if playing else "play"
        self.button.icon = "pause" if playing else "play"

    def _schedule(self) -> None:
        self._cancel()
        self._pending = self._call_later(self.interval_ms / 1000, self._tick)

    def _cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _tick(self) -> None:
        self._pending = None
        if not self.playing:
            return
        if self._advance():
            self._schedule()
        else:
            self.button.value = False  # the end: the button comes back up


def play_button() -> widgets.ToggleButton:
    """The play/pause button (its class ``crawlsim-play`` names it for tests and styles)."""
    button = widgets.ToggleButton(value=False, description="play", icon="play",
                                  tooltip="play the crawl on its clock (press again to pause)",
                                  layout=widgets.Layout(width="90px"))
    button.add_class("crawlsim-play")
    return button


__all__ = ["CallLater", "PlayClock", "loop_call_later", "play_button"]
