"""Follow mode: one presenter's crawl, shown read-only in every follower's app.

``crawlsim web SCENARIO --follow`` runs the normal app (the *presenter*) in
the teacher's terminal and serves *followers* to browsers.  The presenter
publishes what it shows to a small **state channel**; each follower polls
it and asks the same session code the app uses
(:func:`~crawlsim.views.session.run_session`, through its source) for the same
knobs -- the simulation is deterministic, so the same knobs give the same
crawl -- and puts its clock where the presenter's is.  A follower never
re-implements the crawl, and only ``q`` works in it.

The channel is one JSON file in a private temporary folder, replaced
atomically (:func:`os.replace`), so a reader sees a whole state or the last
one.  Format ``crawlsim-follow/1``, one object::

    {"format": "crawlsim-follow/1",
     "scenario": "/abs/path/see-it.toml",   # what load_scenario() takes: a path or a shipped name
     "knobs": {"workers": 4, "polite": true, "per_host": 1, "gap": 0.5,
               "normalize": "rfc3986",       # a mode, or a list of step names
               "order": "bfs",               # bfs, dfs, a named priority, or "best" (the scenario's own)
               "nodes": 1, "partition": "host-hash"},  # optional: the scenario's own when left out
     "t": 1.25,          # simulated seconds on screen at `clock` (or still on screen when paused)
     "clock": 8123.4,    # the presenter's clock (time.monotonic) when t was on screen
     "playing": true, "speed": 1.0, "why": false,
     "beat": 8124.0,     # the presenter's clock when it wrote this (rewritten every second)
     "presenter": "presenting"}   # or "stopped" once it has quit

``clock`` and ``beat`` are :func:`time.monotonic` readings, which every
process of one machine shares: followers are textual-serve's children on the
presenter's machine.  A playing follower shows ``t + (now - clock) * speed``
by the same rule as the presenter's own frame clock, so nothing drifts and
the presenter writes only when something changes (checked ten times a
second) and once a second as a heartbeat.

Everything read from the file is hostile until checked (:func:`parse_state`,
:func:`knobs_for`): a half-written, corrupt or absurd state is ignored, the
follower keeps its last good one and says why on its status line.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from crawlsim.core.options import OptionError
from crawlsim.errors import UsageError
from crawlsim.scenario import Scenario, ScenarioError, load_scenario
from crawlsim.views.session import (
    GAP_LADDER,
    MAX_NODES_KNOB,
    MAX_WORKERS_KNOB,
    ORDER_CHOICES,
    PARTITION_CYCLE,
    PARTITIONS_KNOWN,
    SPEED_LADDER,
    Knobs,
)
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.sources import ScenarioSource

FORMAT = "crawlsim-follow/1"
MAX_STATE_BYTES = 64 * 1024
"""A state is a few hundred bytes; a larger file is not one."""
PUBLISH_SECONDS = 0.1
"""How often the presenter checks whether what it shows has changed."""
HEARTBEAT_SECONDS = 1.0
"""The presenter rewrites its state at least this often, so followers can tell it is there."""
POLL_SECONDS = 0.2
"""How often a follower reads the channel."""
SILENT_AFTER = 5.0
"""A follower says the presenter is silent when its last heartbeat is older than this."""
MAX_T = 1e9


class FollowError(UsageError):
    """A state that cannot be followed; the message says which key and why."""


@dataclass(frozen=True)
class FollowState:
    """One moment of the presenter: what it shows and how its clock runs."""

    scenario: str
    workers: int
    polite: bool
    per_host: int
    gap: float
    normalize: str | tuple[str, ...]
    order: str
    t: float
    clock: float
    playing: bool
    speed: float
    why: bool = False
    beat: float = 0.0
    stopped: bool = False
    nodes: int | None = None
    """Crawler nodes (None: the scenario's own, as in a state without the key)."""
    partition: str | None = None
    """How URLs are split between the nodes (None: the scenario's own)."""

    def to_json(self) -> str:
        knobs = {k: getattr(self, k) for k in ("workers", "polite", "per_host", "gap", "normalize", "order")}
        if isinstance(self.normalize, tuple):
            knobs["normalize"] = list(self.normalize)
        knobs.update({k: v for k, v in (("nodes", self.nodes), ("partition", self.partition)) if v is not None})
        body = {"format": FORMAT, "scenario": self.scenario, "knobs": knobs, "t": self.t, "clock": self.clock,
                "playing": self.playing, "speed": self.speed, "why": self.why, "beat": self.beat,
                "presenter": "stopped" if self.stopped else "presenting"}
        return json.dumps(body, allow_nan=False)


# -- the channel ---------------------------------------------------------------------------


def write_state(path: Path, state: FollowState) -> None:
    """Replace ``path`` with ``state`` atomically: a temporary file in the same
    folder, then :func:`os.replace`, so no reader sees half a state."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".state-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(state.to_json())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_raw(path: Path) -> bytes:
    """The channel's bytes; :class:`FollowError` when there are none to read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO put there must not block the app
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise FollowError(f"{path} is not a file")
            raw = os.read(fd, MAX_STATE_BYTES + 1)
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise FollowError(f"no state at {path} yet") from None
    except OSError as err:
        raise FollowError(f"cannot read {path}: {err.strerror or err}") from None
    if len(raw) > MAX_STATE_BYTES:
        raise FollowError(f"{path} is over {MAX_STATE_BYTES // 1024} KiB: not a presenter's state")
    return raw


def parse_state(raw: bytes) -> FollowState:
    """A state from the channel's bytes, its types and ranges checked (what
    the knobs may be depends on the scenario: :func:`knobs_for`)."""
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise FollowError(f"not a JSON state ({str(err)[:80]}; half-written?)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FollowError(f"not a {FORMAT} state")
    knobs = data.get("knobs")
    if not isinstance(knobs, dict):
        raise FollowError("knobs: expected an object")
    presenter = data.get("presenter")
    if presenter not in ("presenting", "stopped"):
        raise FollowError(f"presenter: expected 'presenting' or 'stopped', got {presenter!r}")
    return FollowState(
        scenario=_text(data, "scenario"),
        workers=_count(knobs, "workers"),
        polite=_flag(knobs, "polite"),
        per_host=_count(knobs, "per_host"),
        gap=_number(knobs, "gap", 0.0, MAX_T),
        normalize=_normalize(knobs.get("normalize")),
        order=_text(knobs, "order"),
        t=_number(data, "t", 0.0, MAX_T),
        clock=_number(data, "clock", -MAX_T * 1e3, MAX_T * 1e3),
        playing=_flag(data, "playing"),
        speed=_number(data, "speed", SPEED_LADDER[0], SPEED_LADDER[-1]),
        why=_flag(data, "why"),
        beat=_number(data, "beat", -MAX_T * 1e3, MAX_T * 1e3),
        stopped=presenter == "stopped",
        nodes=_count(knobs, "nodes") if "nodes" in knobs else None,
        partition=_text(knobs, "partition") if "partition" in knobs else None,
    )


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a state may hold")


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value or len(value) > 4096:
        raise FollowError(f"{key}: expected a non-empty string, got {value!r:.60}")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise FollowError(f"{key}: expected true or false, got {value!r:.60}")
    return value


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise FollowError(f"{key}: expected a whole number >= 1, got {value!r:.60}")
    return value


def _number(data: Mapping[str, Any], key: str, low: float, high: float) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise FollowError(f"{key}: expected a number from {low:g} to {high:g}, got {value!r:.60}")
    return float(value)


def _normalize(value: object) -> str | tuple[str, ...]:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, list) and len(value) <= 64 and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise FollowError(f"normalize: expected a mode or a list of step names, got {value!r:.60}")


def knobs_for(state: FollowState, scenario: Scenario) -> Knobs:
    """The knobs ``state`` names, for ``scenario``: no larger than the keys
    can make them (or than the scenario's own), and accepted by the same
    option checks as every command's (a bad value is :class:`FollowError`)."""
    own = Knobs.for_scenario(scenario)
    nodes, partition = state.nodes or own.nodes, state.partition or own.partition
    if partition not in PARTITIONS_KNOWN and partition != own.partition:
        raise FollowError(f"partition: expected one of {', '.join(PARTITION_CYCLE)}, got {partition!r:.60}")
    for key, value, most in (
        ("nodes", nodes, max(MAX_NODES_KNOB, own.nodes)),
        ("workers", state.workers, max(MAX_WORKERS_KNOB, own.workers)),
        ("per_host", state.per_host, max(MAX_WORKERS_KNOB, own.per_host)),
        ("gap", state.gap, max(GAP_LADDER[-1], own.gap)),
    ):
        if value > most:
            raise FollowError(f"{key}: {value:g} is more than the app's keys reach ({most:g})")
    normalize = frozenset(state.normalize) if isinstance(state.normalize, tuple) else state.normalize
    knobs = replace(own, workers=state.workers, polite=state.polite, per_host=state.per_host, gap=state.gap,
                    normalize=normalize, nodes=nodes, partition=partition)
    if state.order in ORDER_CHOICES:
        knobs = knobs.with_order_choice(state.order)
    elif state.order != "best" or own.order_choice != "best":
        raise FollowError(f"order: expected one of {', '.join(ORDER_CHOICES)}, got {state.order!r:.60}")
    try:
        scenario.with_options(**knobs.overrides())
    except (ScenarioError, OptionError) as err:
        raise FollowError(str(err)) from None
    return knobs


def scenario_spec(scenario: Scenario) -> str:
    """What a follower passes to :func:`~crawlsim.scenario.load_scenario` to get ``scenario``."""
    return str(scenario.path.resolve()) if scenario.path is not None else scenario.name


# -- the presenter ---------------------------------------------------------------------------


class PresenterApp(CrawlApp):
    """The normal app, every key working, publishing what it shows to ``channel``.

    ``banner`` (called at every frame) says where followers are, e.g. the
    server's address, on the status line.  With ``animate=False`` there are
    no timers: a test calls :meth:`publish`."""

    def __init__(self, scenario: Scenario, channel: Path, *, banner: Callable[[], str] = lambda: "",
                 **kwargs: Any) -> None:
        super().__init__(scenario, **kwargs)
        self.channel = channel
        self.banner = banner
        self.spec = scenario_spec(scenario)
        self.publish_error = ""
        self._published: FollowState | None = None
        self._beat = -math.inf

    def on_mount(self) -> None:
        # Textual runs every class's on_mount (CrawlApp's too, after this one): no super() call
        self.publish()
        if banner := self.banner():
            self.notify(banner, timeout=15)  # seen on any width; the status line keeps it, as room allows
        if self.animated:
            self.set_interval(PUBLISH_SECONDS, self.publish, name="publish")

    def state(self, *, stopped: bool = False) -> FollowState | None:
        """What this app shows now (None until a scenario's knobs are known)."""
        knobs = self.source.knobs
        if knobs is None:
            return None
        playing = self.playing and not self.simulating and not stopped
        real, sim = self._anchor if playing else (0.0, self.t)
        normalize = knobs.normalize if isinstance(knobs.normalize, str) else tuple(sorted(knobs.normalize))
        return FollowState(self.spec, knobs.workers, knobs.polite, knobs.per_host, knobs.gap, normalize,
                           knobs.order_choice, sim, real, playing, self.speed or SPEED_LADDER[3], self.why,
                           stopped=stopped, nodes=knobs.nodes, partition=knobs.partition)

    def publish(self, *, stopped: bool = False) -> None:
        """Write the state if it changed, or as a heartbeat; a failure is shown, not raised."""
        state = self.state(stopped=stopped)
        now = self.clock()
        if state is None or (state == self._published and now - self._beat < HEARTBEAT_SECONDS):
            return
        try:
            write_state(self.channel, replace(state, beat=now))
        except OSError as err:
            self.publish_error = f"cannot publish to followers: {err.strerror or err}"
            return
        self.publish_error = ""
        self._published, self._beat = state, now

    def show(self, t: float) -> None:
        saved = self.message
        self.message = _joined(self.publish_error or self.banner(), saved)
        super().show(t)
        self.message = saved

    def open_scenario(self, scenario: Scenario, knobs: Knobs | None = None) -> None:
        self.spec = scenario_spec(scenario)
        super().open_scenario(scenario, knobs)

    async def action_quit(self) -> None:
        self.publish(stopped=True)
        self.exit(0)


# -- a follower -----------------------------------------------------------------------------


class FollowerApp(CrawlApp):
    """The app, read-only, showing what the presenter publishes to ``channel``.

    It starts on the channel's scenario (or ``fallback`` while there is no
    good state yet).  Every :data:`POLL_SECONDS` (or when a test calls
    :meth:`poll_presenter`) it reads the channel; a new good state turns the
    knobs (a new run of the same session code) and sets the clock; a bad one
    is ignored and said.  Only ``q`` works: the keys that would change what
    is shown are off and left out of the key bar, and the timeline ignores
    clicks."""

    KEYS = frozenset({"quit"})
    """The only actions a follower runs (the others stay bound, off and unlisted)."""

    def __init__(self, channel: Path, fallback: Scenario, **kwargs: Any) -> None:
        self.channel = channel
        self.good: FollowState | None = None
        self.problem = ""
        self._raw = b""
        scenario, knobs = fallback, None
        try:
            self._raw = read_raw(channel)
            state = parse_state(self._raw)
            scenario = load_scenario(state.scenario)
            knobs = knobs_for(state, scenario)
            self.good = state
        except (ValueError, OSError) as err:  # ScenarioError and FollowError are ValueErrors
            self.problem = str(err)
        self.spec = self.good.scenario if self.good else scenario_spec(scenario)
        source = ScenarioSource(scenario)
        source.knobs = knobs or source.knobs
        self._asked = (self.spec, source.knobs)
        self._moment: tuple[object, ...] = ()
        """What the last still frame showed (the state, the status words, the run)."""
        super().__init__(source=source, paused=True, **kwargs)

    def on_mount(self) -> None:
        # Textual runs every class's on_mount (CrawlApp's too, after this one): no super() call;
        # the first poll waits until CrawlApp's has set the panels up
        self.call_later(self.poll_presenter)
        self.notify("following the presenter: this view is read-only (q quits)", timeout=8)
        if self.animated:
            self.set_interval(POLL_SECONDS, self.poll_presenter, name="follow the presenter")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action in self.KEYS

    def seek_to(self, t: float) -> None:
        """The timeline's clicks: ignored (the presenter decides the time)."""

    def poll_presenter(self) -> None:
        """Read the channel; follow a new good state; then put the clock where the presenter's is."""
        try:
            raw = read_raw(self.channel)
            if raw != self._raw:
                self._raw = raw
                self._follow(parse_state(raw))
                self.problem = ""
        except (ValueError, OSError) as err:
            self.problem = str(err)
        self._set_clock()

    def _follow(self, state: FollowState) -> None:
        """Take ``state``: the scenario and knobs first (checked before anything changes)."""
        scenario = self.source.scenario
        if state.scenario != self.spec or scenario is None:
            scenario = load_scenario(state.scenario)
        knobs = knobs_for(state, scenario)
        if state.scenario != self.spec:
            self.spec = state.scenario
            self._asked = (self.spec, knobs)
            self.open_scenario(scenario, knobs)
        elif (self.spec, knobs) != self._asked:
            self._asked = (self.spec, knobs)
            self._rerun(knobs)  # the app's one way to a run: source.run -> session.run_session
        self.good = state

    def _set_clock(self) -> None:
        state = self.good
        moment = (state, self.following(), id(self.result), self.simulating)
        if moment == self._moment and not (state is not None and state.playing):
            return  # still, and nothing new to say: no frame to draw (a class is many followers)
        self._moment = moment
        if state is None:
            self.show(self.t)
            return
        self.speed, self.why = state.speed, state.why
        if state.playing:
            self._anchor = (state.clock, state.t)
            self.playing = True
            self.tick()  # t from the presenter's anchor, by the frame clock's own rule
            if self.simulating:
                self.show(self.t)  # tick draws nothing while a run is being made: keep the status line true
        else:
            self.playing = False
            self.show(state.t)

    def following(self) -> str:
        """The status line's words on the presenter: following, stopped, silent, or why not."""
        state = self.good
        if state is None:
            return f"waiting for the presenter: {self.problem}"
        if state.stopped:
            words = "the presenter has stopped: this is where it left off"
        elif (silent := self.clock() - state.beat) > SILENT_AFTER:
            words = f"the presenter is silent ({silent:.0f} s): showing its last state"
        else:
            words = "following the presenter (read-only; q quits)"
        return f"{words}; ignored its latest state: {self.problem}" if self.problem else words

    def show(self, t: float) -> None:
        saved = self.message
        self.message = _joined(self.following(), saved)
        super().show(t)
        self.message = saved


def _joined(first: str, second: str) -> str:
    return "  ·  ".join(part for part in (first, second) if part)



__all__ = [
    "FORMAT",
    "FollowError",
    "FollowState",
    "FollowerApp",
    "PresenterApp",
    "knobs_for",
    "parse_state",
    "read_raw",
    "scenario_spec",
    "write_state",
]
