"""Advice reruns kept inside ``keeping_reruns`` are the same figures, made once.

The see-it page's builder advises every setting its keys reach inside the
block; what it quotes must be what advising each setting alone quotes.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from crawlsim.scenario import load_scenario
from crawlsim.sim import reruns
from crawlsim.sim.advisor import assess
from crawlsim.sim.driver import simulate


def count_simulations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made = [0]
    real = reruns.simulate

    def counted(*args: object, **kwargs: object) -> object:
        made[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reruns, "simulate", counted)
    return made


@pytest.mark.parametrize("name", ["see-it", "mirrors", "polite"])
def test_advice_inside_the_block_is_the_advice_outside_it(name: str) -> None:
    scenario = load_scenario(name)
    settings = [scenario.options.with_(workers=w) for w in (1, 2, 4)]
    alone = [assess(scenario, simulate(scenario, o))[1] for o in settings]
    with reruns.keeping_reruns():
        kept = [assess(scenario, simulate(scenario, o))[1] for o in settings]
    assert kept == alone


def test_a_crawl_asked_twice_is_simulated_once_inside_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario("see-it")
    options = scenario.options.with_(workers=3)
    made = count_simulations(monkeypatch)
    with reruns.keeping_reruns():
        first = reruns.rerun(scenario, options)
        again = reruns.rerun(scenario.with_options(workers=3), options)  # a copy sharing the web
        assert made[0] == 1 and again == first
        with_coverage = reruns.rerun(scenario, options, coverage=True)  # not kept with coverage yet
        assert made[0] == 2 and with_coverage.finish_time == first.finish_time
        assert with_coverage.coverage is not None
    reruns.rerun(scenario, options)
    assert made[0] == 3  # nothing is kept outside the block


def test_a_kept_run_answers_its_rerun_but_another_web_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario("see-it")
    run = simulate(scenario, scenario.options.with_(workers=2))
    other = replace(scenario, web=load_scenario("see-it").web)  # equal, but another object
    made = count_simulations(monkeypatch)
    with reruns.keeping_reruns():
        reruns.keep(scenario, run)
        assert reruns.rerun(scenario, run.options).finish_time == run.finish_time
        assert made[0] == 0
        reruns.rerun(other, run.options)
        assert made[0] == 1
