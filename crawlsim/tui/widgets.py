"""The panels of the terminal app, in one import.

Each panel draws one part of a replay at time t; see :mod:`crawlsim.tui.base`
for how a frame reaches them.
"""

from __future__ import annotations

from crawlsim.tui.bars import BoundsView, CountersBar, EventLog, KeyBar, StatusBar, Timeline
from crawlsim.tui.base import Panel, ViewState
from crawlsim.tui.lanes import LanesView
from crawlsim.tui.pages import HostsView, PagesView
from crawlsim.tui.seen import SeenView

__all__ = [
    "BoundsView",
    "CountersBar",
    "EventLog",
    "HostsView",
    "KeyBar",
    "LanesView",
    "PagesView",
    "Panel",
    "SeenView",
    "StatusBar",
    "Timeline",
    "ViewState",
]
