"""The simulators use SimPy through its public API only, so any SimPy release
that keeps that API runs them (pyproject.toml does not pin SimPy's minor
version).  A private name (``env._now``, ``env._queue``, ``event._value``)
may change in any release.

Two checks: the source of every module that imports SimPy reaches no
private SimPy name, and a crawl run under an ``Environment`` whose private
fields refuse every caller outside SimPy finishes with the same trace.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest
import simpy

import crawlsim
from crawlsim.cluster import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.driver import simulate

PACKAGE = Path(crawlsim.__file__).resolve().parent
"""The package as imported (installed, in the compiled build's checks: its ``.py`` files are there too)."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _idle(env: simpy.Environment) -> Any:
    yield env.timeout(0)


def _simpy_private_names() -> set[str]:
    """The private names of SimPy's environment and events, as this release spells them."""
    env = simpy.Environment()
    objects: list[Any] = [env, env.event(), env.timeout(1), env.process(_idle(env)), env.any_of([])]
    names = {n for obj in objects for cls in type(obj).__mro__ for n in vars(cls)}
    names |= {n for obj in objects for n in vars(obj)}
    return {n for n in names if _private(n)}


def _modules_importing_simpy() -> list[Path]:
    return [
        p for p in sorted(PACKAGE.rglob("*.py")) if "import simpy" in p.read_text() or "from simpy" in p.read_text()
    ]


def test_the_simpy_modules_are_found() -> None:
    """The walk below would pass on no files at all: it must see the drivers."""
    found = {p.relative_to(PACKAGE).as_posix() for p in _modules_importing_simpy()}
    assert {"sim/driver.py", "cluster/sim.py"} <= found


@pytest.mark.parametrize("path", _modules_importing_simpy(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_that_imports_simpy_reaches_a_private_simpy_name(path: Path) -> None:
    private = _simpy_private_names()
    assert {"_now", "_queue", "_eid", "_value"} <= private  # the names a driver was once tempted by
    tree = ast.parse(path.read_text())
    reached = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in private
    ]
    reached += [
        f"line {node.lineno}: from {node.module} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simpy")
        for alias in node.names
        if _private(alias.name) or _private((node.module or "").rsplit(".", 1)[-1])
    ]
    assert not reached, f"{path.name} reaches SimPy internals: {reached}"


class _Guarded:
    """Refuses a private attribute to every caller outside SimPy itself."""

    def __getattribute__(self, name: str) -> Any:
        if _private(name):
            _refuse_outsiders(name)
        return super().__getattribute__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if _private(name):
            _refuse_outsiders(name)
        super().__setattr__(name, value)


def _refuse_outsiders(name: str) -> None:
    caller = sys._getframe(2).f_globals.get("__name__", "")  # 0: here, 1: the guard, 2: who asked
    if not caller.startswith("simpy"):
        raise AssertionError(f"{caller} reached SimPy's private {name}")


class _GuardedTimeout(_Guarded, simpy.Timeout):
    pass


class _GuardedEvent(_Guarded, simpy.Event):
    pass


class _GuardedEnvironment(_Guarded, simpy.Environment):
    """An environment whose events are guarded too."""

    def timeout(self, delay: float = 0, value: Any = None) -> simpy.Timeout:  # type: ignore[override]
        return _GuardedTimeout(self, delay, value)

    def event(self) -> simpy.Event:  # type: ignore[override]
        return _GuardedEvent(self)


def test_the_guard_refuses_a_private_field_to_outsiders() -> None:
    """The guard can fail: a driver writing SimPy's clock or reading its queue is caught."""
    env = _GuardedEnvironment()
    env.timeout(1.0)
    with pytest.raises(AssertionError, match="_now"):
        env._now = 2.0
    with pytest.raises(AssertionError, match="_queue"):
        _ = env._queue
    env.run()  # SimPy itself may
    assert env.now == 1.0


@pytest.mark.parametrize("name", ["see-it", "busiest-host", "interview"])
def test_a_crawl_runs_the_same_when_simpys_internals_are_out_of_reach(name: str, monkeypatch: Any) -> None:
    scenario = load_scenario(name)
    plain = simulate(scenario)
    monkeypatch.setattr(simpy, "Environment", _GuardedEnvironment)
    guarded = simulate(scenario)
    assert list(guarded.trace) == list(plain.trace)
    assert guarded.finish_time == plain.finish_time


def test_the_crawlers_own_work_runs_on_public_timeouts(monkeypatch: Any) -> None:
    """``client_cost`` re-arms a fetch's timeout (sim/client.py): through the public API too."""
    urls = [f"http://a.test/p{i}" for i in range(6)]
    data = {
        "start": urls[0],
        "crawl": {"workers": 3, "per_host": 3, "gap": 0.0, "robots": False},
        "hosts": {"*": {"latency": 0.001}},
        "pages": {u: {"links": urls[i + 1 : i + 3]} for i, u in enumerate(urls)},
        "client_cost": 0.01,
    }
    plain = simulate(scenario_from_dict(data))
    monkeypatch.setattr(simpy, "Environment", _GuardedEnvironment)
    guarded = simulate(scenario_from_dict(data))
    assert guarded.finish_time == plain.finish_time >= 6 * 0.01


def test_a_cluster_runs_the_same_when_simpys_internals_are_out_of_reach(monkeypatch: Any) -> None:
    scenario = load_scenario("see-it")
    config = ClusterConfig(nodes=2)
    plain = simulate_cluster(scenario, config)
    monkeypatch.setattr(simpy, "Environment", _GuardedEnvironment)
    guarded = simulate_cluster(scenario, config)
    assert guarded.finish_time == plain.finish_time
