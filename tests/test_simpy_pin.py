"""The simulator's driver leans on three SimPy internals, so SimPy is pinned
to the minor version they were tested on.

``crawlsim.sim.driver._Crawl`` keeps the lanes' fetches on a heap of its own
beside SimPy's queue and merges the two (``_Crawl.run_events``): its entries
are what ``Environment.schedule`` pushes, ``(time, priority, id, event)``
with the id drawn from SimPy's ``_eid`` counter, it compares them with the
head of ``_queue``, and firing one sets ``_now`` as ``step()`` does.  A
SimPy release may rename those internals or change an entry's form; the pin
in pyproject.toml keeps such a release out until these tests pass on it.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import simpy
from packaging.requirements import Requirement
from packaging.version import Version

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


def test_schedule_pushes_the_entry_the_driver_merges_with() -> None:
    """``schedule`` pushes ``(now + delay, priority, next(_eid), event)`` onto
    ``_queue``: the form of the driver's own entries, drawn from the same counter."""
    env = simpy.Environment()
    env._now = 1.5  # what firing one of the driver's entries does
    event = simpy.Event(env)
    first = next(env._eid)
    env.schedule(event, simpy.events.NORMAL, 2.0)
    assert env._queue == [(3.5, simpy.events.NORMAL, first + 1, event)]
    assert env.now == 1.5 and env.peek() == 3.5


def test_step_fires_the_least_entry_and_sets_the_clock() -> None:
    """SimPy fires the least ``(time, priority, id)`` first and sets ``_now`` to its
    time: the order the driver reproduces when it merges its heap with ``_queue``."""
    env = simpy.Environment()
    fired: list[tuple[str, float]] = []
    for name, delay in (("b", 2.0), ("a", 1.0), ("c", 2.0)):
        env.timeout(delay).callbacks.append(lambda _, n=name: fired.append((n, env.now)))
    while env._queue:
        env.step()
    assert fired == [("a", 1.0), ("b", 2.0), ("c", 2.0)]
    assert env._now == 2.0
