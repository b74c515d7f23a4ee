"""Where the app's crawl comes from: a scenario, a trace file, or a live crawl.

The app plays a clock over a :class:`~crawlsim.views.session.Result` and draws it;
everything that depends on *what* is shown lives in one source object, so
the app never asks which mode it is in:

==================  =====================  ==================  =====================
                    :class:`ScenarioSource` :class:`TraceSource` :class:`LiveSource`
==================  =====================  ==================  =====================
results come from   a run per knob setting  the file, once      the feed, as it grows
what-if keys        on (``knobs``)          off (knobs None)    off (knobs None)
polled              no                      no                  every 0.25 s
frame clock         yes                     yes                 no: shows the latest
==================  =====================  ==================  =====================

Nothing here imports Textual: the app owns threads, timers and the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from crawlsim.trace.events import Event
from crawlsim.scenario import Scenario
from crawlsim.views.session import (
    Knobs,
    LiveFeed,
    Result,
    advise_result,
    interactive_cap,
    large_run,
    replay_result,
    run_session,
    trace_result,
)
from crawlsim.trace.jsonl import RecordedTrace


@dataclass(frozen=True)
class Update:
    """New events to show, from a source the app polls."""

    result: Result
    message: str | None = None
    """The status line's message (None: leave it as it is)."""
    latest: bool = False
    """Jump to the latest moment when playing (a crawl watched live)."""


@dataclass(frozen=True)
class Notice:
    """Said once when a source opens: a status-line message and a pop-up."""

    message: str
    detail: str


class Source(Protocol):
    """What the app asks of the thing it shows."""

    knobs: Knobs | None
    """What the what-if keys turn (the app sets the knobs of each run it asks
    for); None: this source cannot re-run (the keys are shown, dimmed)."""

    @property
    def scenario(self) -> Scenario | None:
        """The scenario behind the crawl (None: recorded events only)."""
        ...

    @property
    def name(self) -> str:
        """The status bar's bold name: the scenario's, or ``trace``."""
        ...

    @property
    def title(self) -> str:
        """What follows the name: the scenario's title, or the file or URL."""
        ...

    @property
    def poll_seconds(self) -> float | None:
        """How often new events may arrive (a live crawl); None: never, and
        the frame clock animates the crawl instead."""
        ...

    def about(self) -> str:
        """The status bar's second line: the knobs, or what is replayed and
        why the what-if keys are off."""
        ...

    def notice(self) -> Notice | None:
        """Something to say once when the source opens."""
        ...

    def poll(self) -> Update | None:
        """Events that arrived since the last call, as a result to show;
        None when there is nothing new (or the results come from :meth:`run`)."""
        ...

    def run(self, knobs: Knobs, *, at_once: bool = False) -> Result:
        """The crawl with ``knobs`` (only called when :attr:`knobs` is not None):
        the finish time and bounds, its replay and advice possibly still
        pending; ``at_once``: with its replay (a source just opened, nothing
        drawn yet to keep the screen busy)."""
        ...

    def replay(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        """``result`` with its events and replay (:func:`~crawlsim.views.session.replay_result`;
        a result with none pending comes back as it is)."""
        ...

    def advise(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        """``result`` with its advice (:func:`~crawlsim.views.session.advise_result`;
        a result with none pending comes back as it is)."""
        ...

    def wants_thread(self) -> bool:
        """True when :meth:`run` is slow enough to belong off the UI thread."""
        ...


class ScenarioSource:
    """A scenario, simulated once per knob setting (the what-if keys rerun it).

    A web too large to animate whole is capped (``max_pages``) and says so
    when it opens."""

    poll_seconds: float | None = None

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.name = scenario.name
        self.title = scenario.title
        self.knobs: Knobs | None = Knobs.for_scenario(scenario)
        """The knobs of the run asked for last (the app sets them on each key):
        first the scenario's options and its ``[cluster]`` nodes and partition."""
        self.cap = interactive_cap(scenario)

    def about(self) -> str:
        return self.knobs.describe() if self.knobs is not None else ""

    def notice(self) -> Notice | None:
        if self.cap is None:
            return None
        name = self.name
        return Notice(
            f"{name}: first {self.cap:,} pages only",
            f"{name} is too big to animate whole: the app crawls its first {self.cap:,} pages "
            f"(max_pages). `crawlsim run {name}` runs all of it.",
        )

    def poll(self) -> Update | None:
        return None

    def run(self, knobs: Knobs, *, at_once: bool = False) -> Result:
        """The run without its advice: the app draws the new finish time and
        bounds at once and asks :meth:`advise` for the rest afterwards.  A
        large run (:func:`~crawlsim.views.session.large_run`) comes without its
        replay too, unless ``at_once``: :meth:`replay` records and builds it."""
        replay = at_once or not self.wants_thread()
        return run_session(self.scenario, knobs, cap=self.cap, advice=False, replay=replay)

    def replay(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        return replay_result(result, cancelled=cancelled)

    def advise(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        return advise_result(result, cancelled=cancelled)

    def wants_thread(self) -> bool:
        """Webs above :data:`~crawlsim.views.session.THREAD_PAGES` pages (or of
        unknown size, with no page cap) are simulated off the UI thread."""
        return large_run(self.scenario, self.cap)


class TraceSource:
    """Recorded events (a ``--trace`` file), replayed as they are: no
    scenario, so nothing to rerun and no bounds.  A cluster's trace
    (a :class:`~crawlsim.trace.jsonl.RecordedTrace` with node tags) replays
    with its nodes."""

    scenario: Scenario | None = None
    knobs: Knobs | None = None
    poll_seconds: float | None = None
    name = "trace"

    def __init__(self, events: list[Event] | RecordedTrace, trace_file: str = "") -> None:
        self.recorded = events if isinstance(events, RecordedTrace) else None
        self.events = events.events if isinstance(events, RecordedTrace) else events
        self.title = trace_file
        self._shown = False

    def about(self) -> str:
        if not self.title:
            return ""
        return f"trace {self.title}: replayed as recorded; what-if keys need a scenario (c picks one)"

    def notice(self) -> Notice | None:
        return None

    def poll(self) -> Update | None:
        """The whole trace, the first time only."""
        if self._shown:
            return None
        self._shown = True
        return Update(trace_result(self.recorded or self.events))

    def run(self, knobs: Knobs, *, at_once: bool = False) -> Result:
        raise TypeError("a trace replays as recorded: it cannot be rerun with other knobs")

    def replay(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        return result  # replayed as recorded, at once

    def advise(self, result: Result, cancelled: Callable[[], bool] | None = None) -> Result:
        return result  # no scenario to rerun: no advice

    def wants_thread(self) -> bool:
        return False


class LiveSource(TraceSource):
    """A real crawl's events as they arrive (``crawlsim crawl --tui``).

    Each poll rebuilds the replay from the events so far rather than
    patching it: a crawl watched live is small enough for that."""

    poll_seconds: float | None = 0.25

    def __init__(self, feed: LiveFeed) -> None:
        super().__init__([], f"live: {feed.label}")
        self.feed = feed
        self._seen: tuple[int, bool] = (-1, False)

    def about(self) -> str:
        return f"{self.title}: a real crawl, shown as it happens; what-if keys need a scenario"

    def poll(self) -> Update | None:
        feed = self.feed
        count, done = len(feed.events), feed.done
        if (count, done) == self._seen:
            return None
        self._seen = (count, done)
        if count == 0:
            return None
        self.events = feed.events[:count]  # list appends are atomic: a consistent prefix
        if feed.error:
            message = f"crawl failed: {feed.error}"
        else:
            message = "crawl finished" if done else "crawling live (space pauses the view, not the crawl)"
            if feed.time_left and not done:
                message += f"; {feed.time_left}"
        return Update(trace_result(self.events), message, latest=True)


def source_for(
    scenario: Scenario | None = None,
    *,
    trace: list[Event] | RecordedTrace | None = None,
    trace_file: str = "",
    live: LiveFeed | None = None,
) -> Source:
    """The source :class:`~crawlsim.tui.app.CrawlApp`'s keywords describe:
    exactly one of a scenario, a trace or a live feed."""
    if live is not None:
        if scenario is not None:
            raise ValueError("give a scenario or a trace")
        return LiveSource(live)
    if (scenario is None) == (trace is None):
        raise ValueError("give a scenario or a trace")
    if scenario is not None:
        return ScenarioSource(scenario)
    assert trace is not None
    return TraceSource(trace, trace_file)


__all__ = ["LiveSource", "Notice", "ScenarioSource", "Source", "TraceSource", "Update", "source_for"]
