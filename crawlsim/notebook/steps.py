"""The crawl as a table of steps, read from the trace: BFS "by hand".

:func:`crawl_steps` (the table a textbook writes after each step: the
frontier and the visited set) lives in :mod:`crawlsim.views.replay_steps`, below
every front end, so the offline page prints the same table; it is
re-exported here.

:class:`Story` is the same crawl told event by event for the widget's
caption: each event's sentence is :mod:`crawlsim.views.narrate`'s (the narrator
owns the words and its replayed state; nothing here decides why), grouped
by instant, with the seen set's size after each event so the widget can
draw seen, frontier and in flight as nested sets.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from crawlsim.trace.events import CLUSTER_EVENTS, Event
from crawlsim.core.options import CrawlOptions
from crawlsim.views.narrate import Narrator, narration_line
from crawlsim.views.replay import PageState, Replay, describe_event, host_and_path
from crawlsim.views.replay_steps import Step, crawl_steps, fetch_order


class Story:
    """A run's events, each with the narrator's line (``t=3 s  why``) and
    the size of the seen set right after it.

    ``events`` must be in trace order (a :class:`~crawlsim.views.replay.Replay`'s
    ``events`` are); ``options`` are the options the crawl ran with, which
    the narrator quotes.  A cluster's messages and node failures, which the
    narrator has no sentence for, are told in the event log's words.  Built once per run; reading is a bisection.
    """

    def __init__(self, events: Sequence[Event], options: CrawlOptions) -> None:
        narrator = Narrator(options)
        self.events = list(events)
        self.times = [e.t for e in self.events]
        self.lines: list[str] = []
        self.seen: list[int] = []
        for e in self.events:
            if e.__class__ in CLUSTER_EVENTS:  # a cluster's message or node event: the event log's words
                sentence = " ".join(describe_event(e).split())
            else:
                sentence = narrator.narrate(e)
            self.lines.append(narration_line(e, sentence))
            self.seen.append(len(narrator.seen))

    def instant(self, t: float) -> range:
        """Indices of the events of the latest instant at or before ``t``
        (events that share one simulated time happen together); empty
        before the first event."""
        stop = bisect_right(self.times, t)
        if stop == 0:
            return range(0)
        return range(bisect_left(self.times, self.times[stop - 1]), stop)

    def caption(self, t: float) -> list[str]:
        """The narrator's lines for the instant shown at ``t``, in order."""
        return [self.lines[i] for i in self.instant(t)]

    def seen_at(self, t: float) -> int:
        """Size of the seen set once every event at or before ``t`` happened."""
        stop = bisect_right(self.times, t)
        return self.seen[stop - 1] if stop else 0


@dataclass(frozen=True)
class SeenSets:
    """The seen-set invariant at one moment: the seen set holds every URL
    in the frontier, in flight or fetched (and those refused after they
    were seen, such as robots.txt's), so ``seen >= frontier + in_flight +
    fetched``.  ``frontier_urls`` / ``in_flight_urls`` name a few members."""

    seen: int
    frontier: int
    in_flight: int
    fetched: int
    frontier_urls: tuple[str, ...] = ()
    in_flight_urls: tuple[str, ...] = ()

    @property
    def other(self) -> int:
        """Seen URLs in none of the three: refused after being seen (robots.txt)."""
        return self.seen - self.frontier - self.in_flight - self.fetched


FETCHED_STATES = (PageState.DONE, PageState.DUPLICATE, PageState.FAILED)
"""Page states that mean "fetched, whatever it answered"."""


def seen_sets(replay: Replay, story: Story, named: int = 4) -> SeenSets:
    """The nested sets at the replay's current time: seen from the
    narrator's replayed seen set, the parts from the replay's page states
    (what the picture colours), with up to ``named`` members named."""
    frontier = [p for p in replay.page_list if p.state == PageState.FRONTIER]
    flying = [p for p in replay.page_list if p.state == PageState.IN_FLIGHT]
    return SeenSets(
        seen=story.seen_at(replay.t),
        frontier=len(frontier),
        in_flight=len(flying),
        fetched=sum(replay.count(state) for state in FETCHED_STATES),
        frontier_urls=tuple(host_and_path(p.url, p.host) for p in frontier[:named]),
        in_flight_urls=tuple(host_and_path(p.url, p.host) for p in flying[:named]),
    )


__all__ = ["SeenSets", "Step", "Story", "crawl_steps", "fetch_order", "seen_sets"]
