"""The named states of a host, and the kind of a frontier entry.

In the manner of h11's ``_state.py``: every state a host can be in has a
name here, so code says ``host.filed is Filing.READY`` rather than comparing
with a string, and a reader can list what a host may be doing without
reading the scheduler.  The URL lifecycle built on them is the table in
:mod:`crawlsim.core.scheduler`'s docstring ("Theory of operation").
"""

from __future__ import annotations

from enum import Enum


class RobotsStatus(Enum):
    """Where a host stands with its robots.txt.

    ``NOT_ASKED``
        robots.txt is not obeyed (the ``robots`` option is off): every URL
        is allowed and nothing waits.
    ``PENDING``
        its robots.txt is queued or in flight: only that fetch may start.
    ``LOADED``
        the host's policy is known (``HostState.policy``); it stays so.
    """

    NOT_ASKED = "not asked"
    PENDING = "pending"
    LOADED = "loaded"


class Filing(Enum):
    """Which of the per-host frontier's two heaps a host is filed in.

    ``UNFILED``
        in neither: nothing queued, at its ``per_host`` limit, waiting for
        its robots.txt, or just popped.
    ``READY``
        in the ready heap, under its best entry's key: it may start now.
    ``WAITING``
        in the waiting heap, under its ``ready_at``: politeness holds it.

    A heap may still hold stale items for a host that was re-filed since;
    an item is live only while ``(host.filed, host.filed_key)`` matches it.
    """

    UNFILED = "unfiled"
    READY = "ready"
    WAITING = "waiting"


class RobotsEntry(tuple):  # type: ignore[type-arg]
    """A robots.txt fetch's frontier entry, ``(key, url, 0)``.

    The fetch kind is carried by the entry's type: a page's entry is a plain
    ``(key, url, depth)`` tuple -- one is built per queued URL, and a tuple
    display is the cheapest object Python makes -- while a robots.txt entry
    is this subclass (one per host).  Its key sorts before every page key,
    so a host's robots.txt is always its first fetch.
    """

    __slots__ = ()
