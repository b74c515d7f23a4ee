"""The terminal app: watch a simulated crawl, change a knob, see what changed.

The app owns a clock and a source (:mod:`crawlsim.tui.sources`): a
scenario run once per setting by the SimPy driver
(:func:`~crawlsim.views.session.run_session`), a trace file, or a live crawl's
events.  Every frame seeks the source's latest
:class:`~crawlsim.views.replay.Replay` to the simulated time ``t`` and refreshes
the panels.  ``t`` comes from the wall clock times the
speed since the last anchor (play, pause, seek or speed change), never from
counting timer ticks, so a slow frame never slows the crawl down and a
paused app is perfectly still -- which is what makes snapshot tests exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.worker import get_current_worker

from crawlsim.trace.events import Event
from crawlsim.core.options import OptionError
from crawlsim.scenario import Scenario, ScenarioError, load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.views.session import SPEED_LADDER, WORKER_STEPS_BY_ONE, Knobs, LiveFeed, Result, default_speed, step
from crawlsim.trace.jsonl import RecordedTrace
from crawlsim.tui.keys import NODE_BINDINGS, node_key_state
from crawlsim.tui.lanes import LEGEND as LANES_LEGEND
from crawlsim.tui.lanes import TITLE as LANES_TITLE
from crawlsim.tui.pages import pages_title
from crawlsim.tui.picker import ScenarioPicker
from crawlsim.tui.sources import ScenarioSource, Source, source_for
from crawlsim.tui.widgets import (
    BoundsView,
    CountersBar,
    EventLog,
    HostsView,
    KeyBar,
    LanesView,
    PagesView,
    Panel,
    SeenView,
    StatusBar,
    Timeline,
    ViewState,
)

WHAT_IF_ACTIONS = frozenset({"normalize", "workers", "polite", "gap", "order", "nodes", "partition"})
"""Actions that rerun the crawl: off (and left out of the key bar) when the source cannot re-run."""
WORKERS_RULE = f"workers (±1 to {WORKER_STEPS_BY_ONE}, then ×2 ÷2)"
"""The key bar's words for ``+``/``-`` when there is room: the rule both
follow (:func:`~crawlsim.views.session.step_workers`)."""


class CrawlApp(App[int]):
    """crawlsim's terminal app.

    What it shows is one :class:`~crawlsim.tui.sources.Source`: pass
    ``source=``, or ``scenario`` (run and animate it), ``trace`` (replay
    these events as recorded; what-if keys are off) or ``live`` (a running
    crawl's feed), which make one.  ``paused``/``at`` start the clock still
    at a given time; ``animate=False`` creates no timer at all (snapshot
    tests); ``threaded`` forces the simulation on or off a worker thread
    (default: the source decides, on for webs above a few hundred pages).
    ``clock`` is the wall clock the animation reads (seconds,
    ``time.monotonic`` by default): tests pass a fake one and call
    :meth:`tick` to draw the frame the timer would, so no test has to sleep.
    """

    CSS_PATH = "app.tcss"
    TITLE = "crawlsim"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "play_pause", "play/pause"),
        Binding("full_stop", "step", "step", key_display="."),
        Binding("f", "faster", "faster/slower"),
        Binding("s", "slower", "faster/slower"),
        Binding("r", "restart", "restart"),
        Binding("n", "normalize", "normalize"),
        Binding("plus,equals_sign", "workers(1)", "workers", key_display="+", tooltip=WORKERS_RULE),
        Binding("minus,underscore", "workers(-1)", "workers", key_display="-", tooltip=WORKERS_RULE),
        Binding("p", "polite", "polite"),
        Binding("left_square_bracket", "gap(-1)", "gap", key_display="["),
        Binding("right_square_bracket", "gap(1)", "gap", key_display="]"),
        Binding("o", "order", "order"),
        *NODE_BINDINGS,
        Binding("c", "pick", "scenario"),
        Binding("left", "seek(-1)", "seek", key_display="←"),
        Binding("right", "seek(1)", "seek", key_display="→"),
        Binding("home", "seek_to_start", "start", show=False),
        Binding("end", "seek_to_end", "end", show=False),
        Binding("q", "quit", "quit"),
        Binding("w", "why", "why", show=False),
    ]

    source: Source
    t: float
    """The simulated time on screen."""
    playing: bool
    speed: float
    """Simulated seconds per real second (0 until the first run picks one)."""
    previous_finish: float | None
    """The finish time of the run before the last what-if key (None: no comparison)."""
    change: str
    """What that key changed, e.g. ``workers 4→8``."""
    message: str

    def __init__(
        self,
        scenario: Scenario | None = None,
        *,
        trace: list[Event] | RecordedTrace | None = None,
        trace_file: str = "",
        paused: bool = False,
        at: float | None = None,
        animate: bool = True,
        speed: float | None = None,
        threaded: bool | None = None,
        fps: float = 30.0,
        live: LiveFeed | None = None,
        clock: Callable[[], float] = time.monotonic,
        source: Source | None = None,
    ) -> None:
        super().__init__()
        if source is None:
            source = source_for(scenario, trace=trace, trace_file=trace_file, live=live)
        elif scenario is not None or trace is not None or live is not None:
            raise ValueError("give a source, or a scenario, a trace or a live feed: not both")
        self.animated = animate
        self.threaded = threaded
        self.fps = fps
        self.clock = clock
        self.result: Result | None = None
        self.view: ViewState | None = None
        self.why = False
        """``w``: the event log tells why (the narrator's sentences)."""
        self.simulating = False
        self.loading = ""
        """The status line while there is no run to show (a scenario being opened)."""
        self._generation = 0
        self._panels: list[Panel] = []
        self._frame_timer: Timer | None = None
        self._poll_timer: Timer | None = None
        self._begin(source, at=at, playing=not paused, speed=speed or 0.0)

    def _begin(self, source: Source, *, at: float | None, playing: bool, speed: float) -> None:
        """Make ``source`` the one shown, from ``at``: the one place the view's
        state is set afresh.  The last run stays drawn (marked simulating)
        until the new source's first result replaces it."""
        self.source = source
        self.t = at or 0.0
        self._start_at = at
        self.playing = playing
        self.speed = speed
        self.previous_finish = None
        self.change = ""
        self.message = ""
        self._fresh = True
        """The next installed result is the first of its source (no comparison)."""
        self._anchor = (self.clock(), self.t)

    @property
    def knobs(self) -> Knobs | None:
        """The what-if knobs (None when the source cannot re-run)."""
        return self.source.knobs

    # -- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield CountersBar(id="counters")
        with Horizontal(id="main"):
            yield PagesView(id="pages")
            with Vertical(id="side"):
                yield HostsView(id="hosts")
                yield SeenView(id="seen")
                yield EventLog(id="log")
        yield LanesView(id="lanes")
        yield BoundsView(id="bounds")
        yield Timeline(id="timeline")
        yield KeyBar(id="keys")

    def on_mount(self) -> None:
        self._panels = list(self.query(Panel))
        self.query_one("#pages").border_title = "pages by host"
        self.query_one("#hosts").border_title = "hosts: politeness"
        self.query_one("#log").border_title = "events"
        self.query_one("#lanes").border_title = LANES_TITLE
        self.query_one("#lanes").border_subtitle = LANES_LEGEND
        self._fit_to_size()
        self._open()

    def _open(self) -> None:
        """Start the current source: say what it needs said, then run it
        (what-if) or take its events, now and, for a live crawl, on a timer."""
        source = self.source
        notice = source.notice()
        if notice is not None:
            self.message = notice.message
            self.notify(notice.detail, timeout=6)
        if source.knobs is not None:
            self._rerun(source.knobs)
        else:
            self.follow_source()
        self._time_source(source)

    def _time_source(self, source: Source) -> None:
        """The timers ``source`` needs: a live crawl is polled for new events
        (and shows its latest moment, no frame clock); any other source is
        animated by the frame clock, started once, when a source first needs
        it.  The last source's poll timer stops."""
        if self._poll_timer is not None:
            self._poll_timer.stop()
            self._poll_timer = None
        if source.poll_seconds is not None:
            self._poll_timer = self.set_interval(source.poll_seconds, self.follow_source, name="live feed")
        elif self.animated and self._frame_timer is None:
            self._frame_timer = self.set_interval(1.0 / self.fps, self.tick, name="frame clock")

    def follow_source(self) -> None:
        """Show the source's new events, if any; a live crawl, unless paused,
        shows its latest moment."""
        update = self.source.poll()
        if update is None:
            return
        self._install(update.result, self._generation)
        if update.message is not None:
            self.message = update.message
        if update.latest and self.playing and self.result is not None:
            self.show(self.result.replay.end)

    def on_resize(self, event: events.Resize) -> None:
        self._fit_to_size()

    def _fit_to_size(self) -> None:
        """Classes the stylesheet uses to drop panels on small terminals."""
        width, height = self.size
        self.screen.set_class(height < 40, "-short")
        self.screen.set_class(height < 30, "-tiny")
        self.screen.set_class(width < 120, "-narrow")

    # -- the clock -------------------------------------------------------------------

    @property
    def end(self) -> float:
        return self.result.replay.end if self.result else 0.0

    def _reanchor(self) -> None:
        self._anchor = (self.clock(), self.t)

    def tick(self) -> None:
        """One animation frame: t from the clock since the last anchor (the
        frame timer calls this ``fps`` times a second)."""
        if not self.playing or self.result is None or self.simulating or self.result.replay_pending:
            return  # (a replay being built: the clock waits, _replayed re-anchors it)
        real, sim = self._anchor
        t = sim + (self.clock() - real) * self.speed
        if t >= self.end:
            t = self.end
            self.playing = False
        self.show(t)

    def show(self, t: float) -> None:
        """Draw the crawl as it was at simulated time ``t``."""
        result = self.result
        if result is None:
            return
        t = max(0.0, min(t, result.replay.end))
        self.t = t
        result.replay.seek(t)
        self.view = ViewState(
            result=result,
            t=t,
            playing=self.playing,
            speed=self.speed,
            name=self.source.name,
            title=self.source.title,
            knobs=self.source.knobs,
            previous_finish=self.previous_finish,
            change=self.change,
            simulating=self.simulating,
            message=self.message,
            about=self.source.about(),
            per_host=result.options.per_host if result.options else None,
            why=self.why,
        )
        for panel in self._panels:
            panel.update(self.view)
        title = pages_title(result.replay)
        # from the panels mounted with this screen: a frame can still fire while the app
        # is closing, when the screen (and its PagesView) are already gone
        pages = next((p for p in self._panels if isinstance(p, PagesView)), None)
        if pages is not None and pages.border_title != title:
            pages.border_title = title

    def _show_loading(self, text: str) -> None:
        """Clear every panel and say ``text`` on the status line: no result to show."""
        self.result = None
        self.view = None
        self.loading = text
        pages = self.query_one(PagesView)
        pages.border_title = "pages by host"
        for panel in self._panels:
            panel.update(None)

    def seek_to(self, t: float) -> None:
        """Jump to ``t`` (timeline click or drag); playing goes on from there."""
        self.show(t)
        self._reanchor()

    # -- running the crawl ----------------------------------------------------------------

    def _use_thread(self) -> bool:
        return self.threaded if self.threaded is not None else self.source.wants_thread()

    def _rerun(self, knobs: Knobs) -> None:
        """Run the crawl with ``knobs`` (in a thread for large webs); the
        advice of the run before, if still being measured, is dropped."""
        source = self.source
        if source.knobs is None:
            return
        source.knobs = knobs
        self._generation += 1
        self.workers.cancel_group(self, "advice")
        if self._use_thread():
            self.simulating = True
            if self.result is not None:
                self.show(self.t)
            self._simulate_in_thread(source, knobs, self._generation, self._fresh)
            return
        try:
            result = source.run(knobs, at_once=self._fresh)
            if self.threaded is False:  # everything on the UI thread, in order (snapshot tests)
                result = source.advise(source.replay(result))
        except (ScenarioError, OptionError) as err:
            self._failed(err, self._generation)
            return
        self._install(result, self._generation)

    @work(thread=True, exclusive=True, group="simulate", exit_on_error=False)
    def _simulate_in_thread(self, source: Source, knobs: Knobs, generation: int, at_once: bool) -> None:
        try:
            result = source.run(knobs, at_once=at_once)
        except Exception as err:  # noqa: BLE001 -- shown to the user; the app goes on
            self.call_from_thread(self._failed, err, generation)
            return
        self.call_from_thread(self._install, result, generation)

    @work(thread=True, exclusive=True, group="advice", exit_on_error=False)
    def _advise_in_thread(self, source: Source, result: Result, generation: int) -> None:
        """The replay, then the advisor's reruns for ``result``, off the UI
        thread: the screen shows the new finish time and bounds meanwhile,
        "replay: building…" on the timeline until the replay is installed and
        "measuring…" in the advice's place.  A key pressed in between makes
        this work stale: it stops at its next step, and is never shown."""
        from crawlsim.sim.advisor import AdviceCancelled

        worker = get_current_worker()

        def cancelled() -> bool:
            return worker.is_cancelled or generation != self._generation

        if cancelled():
            return
        if result.replay_pending:
            try:
                replayed = source.replay(result, cancelled)
            except AdviceCancelled:
                return
            except Exception as err:  # noqa: BLE001 -- the run is shown; its replay cannot be
                self.call_from_thread(self._replay_failed, result, err, generation)
                return
            self.call_from_thread(self._replayed, result, replayed, generation)
            result = replayed
        try:
            advised = source.advise(result, cancelled)
        except AdviceCancelled:
            return
        except Exception as err:  # noqa: BLE001 -- the run is shown; only its advice is missing
            self.call_from_thread(self.notify, f"cannot measure the advice: {err}", severity="error")
            return
        self.call_from_thread(self._advised, result, advised, generation)

    def _advised(self, result: Result, advised: Result, generation: int) -> None:
        """Show ``advised`` in place of ``result`` if that is still the run on screen."""
        if generation != self._generation or self.result is not result:
            return
        self.result = advised
        self.show(self.t)
        self.query_one(BoundsView).refresh(layout=True)

    def _replayed(self, result: Result, replayed: Result, generation: int) -> None:
        """Show ``replayed`` (the same run, its events now recorded) in place
        of ``result`` if that is still the run on screen; a clock held while
        the replay was built plays on from where it was."""
        if generation != self._generation or self.result is not result:
            return
        self.result = replayed
        self.show(self.t)
        self._reanchor()
        self.query_one(LanesView).refresh(layout=True)
        self.query_one(BoundsView).refresh(layout=True)

    def _replay_failed(self, result: Result, err: Exception, generation: int) -> None:
        """The replay of ``result`` could not be built: if that is still the
        run on screen, keep it as it is (its finish and bounds, an empty
        replay the clock can play through, no advice: that reads the events)
        and say why, rather than wait for a replay that never comes."""
        if generation != self._generation or self.result is not result:
            return
        self.result = _without_replay(result, f"cannot build the replay: {err}")
        self.show(self.t)
        self._reanchor()
        self.query_one(BoundsView).refresh(layout=True)
        self.notify(f"cannot build the replay: {err}", severity="error")

    def _failed(self, err: Exception, generation: int) -> None:
        """A run could not be made: back to the run on screen (its knobs, and
        its replay and advice, whose work the key press had cancelled)."""
        if generation != self._generation:
            return
        self.simulating = False
        if self.result is None:  # nothing of this source to go back to
            self._show_loading(f"cannot run {self.source.name}: {err} (c picks another scenario)")
        if self.result is not None and self.result.knobs is not None:
            self.source.knobs = self.result.knobs
        self.notify(f"cannot run that: {err}", severity="error")
        self.show(self.t)
        if self.result is not None and (self.result.replay_pending or self.result.advice_pending):
            self._advise_in_thread(self.source, self.result, generation)

    def _install(self, result: Result, generation: int) -> None:
        """Show a finished run; keep the previous finish time for comparison.

        The clock stays where it was (clamped), so the same moment of the new
        run is on screen; a run watched to its end shows the new end."""
        if generation != self._generation:
            return  # a later key press superseded this run
        previous = self.result
        self.simulating = False
        self.loading = ""
        if previous is None or self._fresh:
            self._fresh = False
            previous = None
            self.t = self._start_at or 0.0
            if not self.speed:
                self.speed = default_speed(result.finish)
        else:
            at_end = self.t >= previous.replay.end
            if previous.knobs is not None and result.knobs is not None:
                self.previous_finish = previous.finish
                self.change = result.knobs.diff(previous.knobs)
            if at_end:
                self.t = result.replay.end
        self.result = result
        if result.note:
            self.message = result.note
        self.show(self.t)
        self._reanchor()
        self.query_one(LanesView).refresh(layout=True)
        self.query_one(BoundsView).refresh(layout=True)
        if result.advice_pending or result.replay_pending:  # after this frame: a thread would slow its paint
            self.call_after_refresh(self._advise_in_thread, self.source, result, generation)

    # -- keys ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that cannot work on this source are off and left out of the
        key bar: the what-if keys on a trace or a live crawl (nothing to rerun)."""
        if action in WHAT_IF_ACTIONS and self.source.knobs is None:
            return False
        return node_key_state(action, self.source.knobs)

    def action_play_pause(self) -> None:
        if not self.playing and self.t >= self.end:
            self.t = 0.0
        self.playing = not self.playing
        self._reanchor()
        self.show(self.t)

    def action_why(self) -> None:
        """Switch the event log between short lines and the narrator's sentences of why."""
        self.why = not self.why
        self.show(self.t)

    def action_step(self) -> None:
        """Pause, and move to the next instant at which an event happens."""
        self.playing = False
        if self.result is None:
            return
        following = self.result.replay.next_time(self.t)
        self.show(following if following is not None else self.end)
        self._reanchor()

    def action_faster(self) -> None:
        self.speed = step(SPEED_LADDER, self.speed, 1)
        self._reanchor()
        self.show(self.t)

    def action_slower(self) -> None:
        self.speed = step(SPEED_LADDER, self.speed, -1)
        self._reanchor()
        self.show(self.t)

    def action_restart(self) -> None:
        self.playing = True
        self.show(0.0)
        self._reanchor()

    def action_seek(self, direction: int) -> None:
        self.seek_to(self.t + direction * max(self.end / 40.0, 0.05))

    def action_seek_to_start(self) -> None:
        self.seek_to(0.0)

    def action_seek_to_end(self) -> None:
        self.seek_to(self.end)

    def _turn(self, knob: Callable[[Knobs], Knobs]) -> None:
        """A what-if key: rerun with the knobs it gives, unless nothing changed
        (already at the end of a ladder) or the source cannot re-run."""
        knobs = self.source.knobs
        if knobs is not None and (turned := knob(knobs)) != knobs:
            self._rerun(turned)

    def action_normalize(self) -> None:
        self._turn(Knobs.cycle_normalize)

    def action_workers(self, direction: int) -> None:
        self._turn(Knobs.more_workers if direction > 0 else Knobs.fewer_workers)

    def action_polite(self) -> None:
        self._turn(Knobs.toggle_polite)

    def action_gap(self, direction: int) -> None:
        self._turn(Knobs.gap_up if direction > 0 else Knobs.gap_down)

    def action_order(self) -> None:
        self._turn(Knobs.next_order)

    def action_nodes(self, direction: int) -> None:
        self._turn(Knobs.more_nodes if direction > 0 else Knobs.fewer_nodes)
        self.refresh_bindings()  # the key bar lists the node keys from two nodes on
        self.query_one(KeyBar).refresh(layout=True)

    def action_partition(self) -> None:
        self._turn(Knobs.next_partition)

    def action_pick(self) -> None:
        choices = []
        for name in list_scenarios():
            try:
                title = load_scenario(name).title
            except ScenarioError as err:
                title = f"(cannot load: {err})"
            choices.append((name, title))
        current = self.source.scenario.name if self.source.scenario else None
        self.push_screen(ScenarioPicker(choices, current), self._picked)

    def _picked(self, name: str | None) -> None:
        if not name:
            return
        try:
            scenario = load_scenario(name)
        except ScenarioError as err:
            self.notify(str(err), severity="error")
            return
        self.open_scenario(scenario)

    def open_scenario(self, scenario: Scenario, knobs: Knobs | None = None) -> None:
        """Switch to another scenario, with its own settings (or ``knobs``), from t = 0.

        Until its first run is ready the screen says it is loading: the last
        scenario's pages never stand under the new one's name."""
        source = ScenarioSource(scenario)
        source.knobs = knobs or source.knobs
        self._begin(source, at=0.0, playing=True, speed=0.0)
        self._show_loading(f"⟳ simulating {scenario.name} — {scenario.title} …")
        self.refresh_bindings()
        self.query_one(KeyBar).refresh(layout=True)  # what-if keys come back on after a trace
        self._open()

    async def action_quit(self) -> None:
        self.exit(0)


def _without_replay(result: Result, reason: str) -> Result:
    """``result`` as it stays when its replay cannot be built: its empty
    replay (spanning ``[0, finish]``) final, and no advice to wait for (the
    advisor reads the events), ``reason`` in the advice's place."""
    bounds = replace(result.bounds, explanation=f"advice not measured: {reason}") if result.bounds else None
    return replace(result, replay_pending=False, advice_pending=False, bounds=bounds)
