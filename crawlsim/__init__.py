"""crawlsim: watch a web crawler work, and ask "what if".

``canonicalize`` and the core types load eagerly (they are pure Python with no
I/O).  ``crawl`` -- which needs a thread pool -- and the front ends load on
first use, so ``import crawlsim`` never pulls in threads, textual, matplotlib
or ipywidgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crawlsim.core import (
    CrawlOptions,
    Event,
    Fetch,
    OptionError,
    Scheduler,
    canonicalize,
    event_from_dict,
    event_to_dict,
)

if TYPE_CHECKING:
    from crawlsim.drivers.threaded import crawl

__version__ = "0.1.0"

__all__ = [
    "CrawlOptions",
    "Event",
    "Fetch",
    "OptionError",
    "Scheduler",
    "canonicalize",
    "crawl",
    "event_from_dict",
    "event_to_dict",
]


def __getattr__(name: str) -> Any:
    if name == "crawl":
        from crawlsim.drivers.threaded import crawl

        return crawl
    raise AttributeError(f"module 'crawlsim' has no attribute {name!r}")
