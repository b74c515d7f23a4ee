"""The simulator's lane timers lean on two SimPy internals, so SimPy is pinned
to the minor version they were tested on.

``crawlsim.sim.driver._LaneTimer`` is one ``simpy.Event`` per worker lane,
re-armed for every fetch: it sets the private ``_ok``/``_value`` once (as a
fired ``Timeout`` has them) and is scheduled with ``Environment.schedule``,
which is what ``Timeout.__init__`` does, without a new object per fetch
(``benchmarks/simpy_public_api.py`` measures what one public
``env.timeout`` per fetch would cost).  A SimPy release may rename those
internals; the pin in pyproject.toml keeps such a release out until these
tests pass on it.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import simpy
from packaging.requirements import Requirement
from packaging.version import Version

from crawlsim.sim.driver import _LaneTimer

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def simpy_requirement() -> Requirement:
    deps = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    [spec] = [Requirement(d) for d in deps if Requirement(d).name == "simpy"]
    return spec


def test_simpy_is_pinned_below_the_next_minor_and_the_installed_one_fits() -> None:
    spec = simpy_requirement().specifier
    assert Version(version("simpy")) in spec, (version("simpy"), str(spec))
    tested = Version(version("simpy"))
    next_minor = Version(f"{tested.major}.{tested.minor + 1}")
    assert next_minor not in spec, f"simpy {spec}: an untested minor release may change Event internals"


def test_the_internals_the_lane_timer_uses_exist() -> None:
    """A succeeded event holds ``_ok = True`` and ``_value = None``: what the
    lane timer sets once, so SimPy's ``step()`` takes each firing for a success."""
    env = simpy.Environment()
    event = simpy.Event(env)
    assert event._value is simpy.events.PENDING
    event.succeed()
    assert event._ok is True and event._value is None
    assert callable(env.schedule)


def test_a_lane_timer_fires_once_per_arming_at_its_time() -> None:
    """Re-armed three times, the one event fires three times, each at its own
    delay, and the environment treats it as a success (a failed event would
    crash ``env.run``)."""
    env = simpy.Environment()
    timer = _LaneTimer(env)
    fired: list[float] = []

    def on_fire(event: simpy.Event) -> None:
        fired.append(env.now)
        if len(fired) < 3:
            event.callbacks = [on_fire]
            env.schedule(event, simpy.events.NORMAL, 1.5)

    timer.callbacks = [on_fire]
    env.schedule(timer, simpy.events.NORMAL, 2.0)
    env.run()
    assert fired == [2.0, 3.5, 5.0]
    assert timer.ok and timer.value is None
