"""A shrunk failure drawn as text: its web, one column per thread, its schedule string.

Why this shape: a race is read across threads -- what thread 2 did while
thread 1 sat between its check and its add -- so, as Lincheck's reports do,
each thread gets a column and rows run down in the order the steps ran.
The input is ``replay.replay``'s plain data (from the sandbox's child); the
start page's scheme and host are left out of every URL on it.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any
from urllib.parse import urlsplit

from crawlsim.words import counted

GAP = " | "


def _short(text: str, start: str) -> str:
    """``text`` with the start page's origin left out of its URLs."""
    parts = urlsplit(start)
    return text.replace(f"{parts.scheme}://{parts.netloc}/", "/")


def web_lines(data: dict[str, Any]) -> list[str]:
    """The web as ``/a -> /b, /c`` lines, pages in the case's order."""
    start = data["start"]
    pages = [_short(page, start) for page, _ in data["web"]]
    width = max((len(page) for page in pages), default=1)
    return [
        f"{page:<{width}} -> {', '.join(_short(link, start) for link in links)}"
        for page, (_, links) in zip(pages, data["web"])
    ]


def _thread_order(name: str) -> tuple[int, int]:
    number = re.search(r"\d+", name)
    return (0 if name == "main" else 1, int(number.group()) if number else 0)


def table_lines(data: dict[str, Any], width: int = 100) -> list[str]:
    """The interleaving: a column per thread, a row per step, in the order they ran."""
    rows = [(thread, _short(cell, data["start"])) for thread, cell in data["rows"]]
    threads = sorted({thread for thread, _ in rows}, key=_thread_order)
    if not threads:
        return []
    widths = _widths([max(len(t), *(len(c) for r, c in rows if r == t)) for t in threads], width)

    def lines(thread: str, cell: str) -> list[str]:
        """One step: its cell wrapped in its thread's column (a header cell is its thread's name)."""
        index = threads.index(thread)
        return [
            GAP.join(part if i == index else " " * w for i, w in enumerate(widths)).rstrip()
            for part in _wrapped(cell, widths[index])
        ]

    header = GAP.join(_wrapped(t, w)[0] for t, w in zip(threads, widths)).rstrip()
    rule = "-+-".join("-" * w for w in widths)
    return [header, rule, *(line for thread, cell in rows for line in lines(thread, cell))]


def _widths(natural: list[int], width: int) -> list[int]:
    """Each column as wide as its longest cell, when they fit in ``width``;
    else an even share each (at least 16 characters: a table of many
    threads may be wider than asked), a narrower column's spare going to the others."""
    room = width - len(GAP) * (len(natural) - 1)
    if sum(natural) <= room:
        return natural
    share = max(16, room // len(natural))
    widths = [min(n, share) for n in natural]
    wide = [i for i, n in enumerate(natural) if n > share]
    spare = max(0, room - sum(widths)) // max(1, len(wide))
    return [w + spare if i in wide else w for i, w in enumerate(widths)]


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of ``width`` characters, each padded to it (a long word is split)."""
    return [f"{part:<{width}}" for part in textwrap.wrap(text, width, subsequent_indent="  ") or [""]]


def summary(data: dict[str, Any]) -> str:
    """What was shrunk to what, and what the shrink cost."""
    was, page = data["from"], _short(str(data["page"]), data["start"])
    sizes = f"{counted(data['pages'], 'page')}, {counted(data['links'], 'link')} and {counted(data['workers'], 'worker')}"
    text = (
        f"Shrunk {data['case']} from {counted(was['pages'], 'page')}, {counted(was['links'], 'link')} and "
        f"{counted(was['workers'], 'worker')} to {sizes} ({counted(data['reruns'], 'rerun')} of the explorer"
    )
    if data["budget_ran_out"]:
        text += f"; its budget of {data['budget']} ran out, so a smaller web may still fail"
    return text + f"): {page} is still fetched {data['fetches']} times."


def _picture(data: dict[str, Any], width: int) -> list[str]:
    """The web, then the interleaving under it."""
    page = _short(str(data["page"]), data["start"])
    lines = ["The web:", *(f"  {line}" for line in web_lines(data)), ""]
    lines += textwrap.wrap(
        f"Schedule {data['seed']}, a column per thread (every get_urls call, and each line that reads {page}):",
        width=width,
    )
    return lines + [f"  {line}" for line in table_lines(data, width - 2)]


def shrunk_lines(data: dict[str, Any], target: str, width: int = 100) -> list[str]:
    """The whole picture of one shrunk failure, with the command that replays it."""
    lines = [*textwrap.wrap(summary(data), width=width), "", *_picture(data, width), ""]
    return [*lines, f"Replay it: crawlsim check {target} --replay {data['schedule']}"]


def replay_lines(data: dict[str, Any], target: str, width: int = 100) -> list[str]:
    """``check --replay``'s report: did the schedule fail again, and how."""
    head = [f"crawlsim check {target} --replay {data['schedule']}", ""]
    if not data["failed"]:
        verdict = "Passed: no page was fetched twice on this schedule of this web."
        if data["problems"]:
            verdict = (f"No page was fetched twice on this schedule of this web, but it did not end cleanly: "
                       f"{'; '.join(data['problems'])}.")
        return [*head, *textwrap.wrap(verdict, width=width), "", "The web:", *(f"  {line}" for line in web_lines(data))]
    page = _short(str(data["page"]), data["start"])
    race = f": {_short(data['race'], data['start'])}" if data["race"] else ""
    verdict = f"Failed again: {page} was fetched {data['fetches']} times{race}."
    return [*head, *textwrap.wrap(verdict, width=width), "", *_picture(data, width)]
