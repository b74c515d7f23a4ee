"""The seen-set invariant, drawn: the seen set contains the frontier and the
fetches in flight (every URL is marked seen when it is discovered, never
when fetched, so nothing can be queued or fetched twice).

Both sides come from the replayed events, independently, and the
containment is checked each frame, not assumed:

* **seen**: every URL a ``Discovered`` event announced by time t, and every
  URL robots.txt refused as it was discovered (the scheduler marks a URL
  seen before it asks the robots gate: ``Skipped(reason="robots")``);
* **frontier** and **in flight**: the URLs the replay shows queued (or
  waiting to retry) and being fetched at t.

A trace that broke the invariant (a fetch of a URL never discovered) shows
how many URLs are outside the seen set, in red.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from rich.text import Text

from crawlsim.trace.events import Discovered, Skipped
from crawlsim.views.replay import PageState, Replay
from crawlsim.words import SEEN_REST, counted
from crawlsim.tui.base import STATE_GLYPH, STATE_STYLE, Panel, Runs, ViewState, fit


@dataclass(frozen=True)
class SeenSets:
    """The sizes of the three sets at one moment, and the check."""

    seen: int
    frontier: int
    in_flight: int
    outside: int
    """URLs queued or in flight that are not in the seen set (0: the invariant holds)."""

    @property
    def rest(self) -> int:
        """Seen URLs neither queued nor in flight: fetched, failed, duplicates, refused."""
        return max(0, self.seen - self.frontier - self.in_flight + self.outside)


class _SeenSoFar:
    """The seen set of one replay up to an event index, extended as the
    clock moves forward (started again when it moves back)."""

    __slots__ = ("cursor", "urls")

    def __init__(self) -> None:
        self.cursor = 0
        self.urls: set[str] = set()

    def up_to(self, replay: Replay) -> set[str]:
        target = replay.cursor
        if target < self.cursor:
            self.cursor, self.urls = 0, set()
        for e in replay.events[self.cursor : target]:
            if isinstance(e, Discovered) or (isinstance(e, Skipped) and e.reason == "robots"):
                self.urls.add(e.url)
        self.cursor = target
        return self.urls


_SEEN: weakref.WeakKeyDictionary[Replay, _SeenSoFar] = weakref.WeakKeyDictionary()


def seen_sets(replay: Replay) -> SeenSets:
    """The seen set, the frontier and the fetches in flight at the replay's
    current time, and how many of the latter two are outside the first."""
    seen = _SEEN.setdefault(replay, _SeenSoFar()).up_to(replay)
    frontier = in_flight = outside = 0
    for page in replay.page_list:
        state = page.state
        if state == PageState.FRONTIER:
            frontier += 1
        elif state == PageState.IN_FLIGHT:
            in_flight += 1
        else:
            continue
        if page.url not in seen:
            outside += 1
    return SeenSets(len(seen), frontier, in_flight, outside)


class SeenView(Panel):
    """Seen, frontier and in flight as nested boxes: the panel's frame is the
    seen set (its size and the check in the title), and inside it the
    frontier and the fetches in flight, apart from each other, each as wide
    as its share of the seen set (or its label, if that is wider)."""

    def update(self, view: ViewState | None) -> list[int]:
        title = seen_title(seen_sets(view.replay)) if view is not None else "seen set"
        if self.border_title != title:
            self.border_title = title
        return super().update(view)

    def draw_lines(self, view: ViewState, width: int, height: int) -> list[Text]:
        sets = seen_sets(view.replay)
        frontier, flight = inner_boxes(sets, width)
        rest = width - len(frontier[0]) - len(flight[0])
        rest_label = rest_label_for(sets.rest, rest)
        rows = []
        for i in range(2):
            runs = Runs()
            runs.add(frontier[i], STATE_STYLE[PageState.FRONTIER])
            runs.add(flight[i], STATE_STYLE[PageState.IN_FLIGHT])
            runs.add((rest_label if i == 0 else "").ljust(rest), "dim")
            rows.append(runs.text())
        return rows


def rest_label_for(count: int, room: int) -> str:
    """The label of the seen set beyond the two boxes, in ``room`` columns: the
    page's words (:data:`~crawlsim.words.SEEN_REST`) at every width (a narrow panel
    drops them and keeps the count, rather than saying something else)."""
    for label in (f" {SEEN_REST} {count}", f" {count}"):
        if len(label) <= room:
            return label
    return ""


def seen_title(sets: SeenSets) -> str:
    """``seen 412 URLs, the frontier and in flight among them ✓`` (Textual markup), or how many
    queued or in-flight URLs are missing from the seen set."""
    if sets.outside:
        return f"seen {counted(sets.seen, 'URL')} [bold bright_red]✗ {sets.outside} queued or in flight, not seen[/]"
    return f"seen {counted(sets.seen, 'URL')}, the frontier and in flight among them [green]✓[/]"


def inner_boxes(sets: SeenSets, width: int) -> tuple[list[str], list[str]]:
    """The frontier's and the in-flight box (top and bottom line each), as
    wide as their share of the seen set, or their label if wider."""
    seen = max(1, sets.seen)
    boxes = []
    for state, name, count in (
        (PageState.FRONTIER, "frontier", sets.frontier),
        (PageState.IN_FLIGHT, "in flight", sets.in_flight),
    ):
        label = f" {name} {count} " if width >= 40 else f" {STATE_GLYPH[state]} {count} "
        boxes.append((label, max(len(label) + 2, round(width * count / seen))))
    # together wider than the panel: each gives up the share beyond its label
    while sum(w for _, w in boxes) > width and any(w > len(label) + 2 for label, w in boxes):
        boxes = [(label, w - 1 if w > len(label) + 2 else w) for label, w in boxes]
    drawn = []
    for label, w in boxes:
        top = "╭" + fit(label, max(0, w - 2)).ljust(max(0, w - 2), "─") + "╮"
        drawn.append([top, "╰" + "─" * max(0, w - 2) + "╯"])
    return drawn[0], drawn[1]
