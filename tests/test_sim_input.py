"""The simulation takes what a simulation needs (``crawlsim.sim.inputs.SimInput``),
not a loaded scenario: a hand-made object with options, a web, seeds, a seed
and per-host latency is simulated, bounded, assessed and covered exactly as
the scenario with the same contents, and ``crawlsim.sim`` never loads the
scenario loader (which sits a layer above it)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from crawlsim.trace.events import event_to_dict
from crawlsim.core.options import CrawlOptions
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.advisor import assess
from crawlsim.sim.coverage import coverage_of
from crawlsim.sim.driver import simulate
from crawlsim.sim.explicit import ExplicitWeb
from crawlsim.sim.inputs import SimInput
from crawlsim.sim.latency import DEFAULT_LATENCY, Fixed, LatencyModel, LogNormal
from crawlsim.sim.web import Web

PAGES = {
    "http://a.com/": ["/x", "/y", "http://b.com/"],
    "http://a.com/x": ["/y", "/z#top"],
    "http://a.com/y": ["http://b.com/p"],
    "http://b.com/": ["/p", "http://a.com/"],
    "http://b.com/p": ["/q"],
}
"""Seven pages (``/z`` and ``/q`` are leaves nobody wrote) on two hosts."""

LATENCY = {"a.com": LogNormal(0.8, 0.6), "b.com": Fixed(1.5)}


@dataclass(frozen=True)
class Plain:
    """The smallest thing a simulation accepts: no file, no loader, no size checks."""

    options: CrawlOptions
    web: Web
    seeds: tuple[str, ...]
    seed: int
    latency: dict[str, LatencyModel] = field(default_factory=dict)

    def latency_for(self, host: str) -> LatencyModel:
        return self.latency.get(host, DEFAULT_LATENCY)


def same_crawl_both_ways(seed: int, **crawl: object) -> tuple[Plain, Scenario]:
    """The crawl described twice: by hand, and as a scenario file's table."""
    scenario = scenario_from_dict(
        {
            "start": "http://a.com/",
            "seed": seed,
            "crawl": crawl,
            "hosts": {
                "a.com": {"latency": {"model": "lognormal", "median": 0.8, "sigma": 0.6}},
                "b.com": {"latency": 1.5},
            },
            "pages": PAGES,
        }
    )
    plain = Plain(
        options=CrawlOptions(seed=seed, **crawl),  # type: ignore[arg-type]
        web=ExplicitWeb(PAGES),
        seeds=("http://a.com/",),
        seed=seed,
        latency=LATENCY,
    )
    return plain, scenario


@pytest.mark.parametrize("seed", [0, 7, 1234])
@pytest.mark.parametrize(
    "crawl", [{"workers": 1, "scope": "any"}, {"workers": 3, "per_host": 1, "gap": 0.5, "scope": "any"}]
)
def test_a_hand_made_input_crawls_exactly_as_its_scenario(seed: int, crawl: dict[str, object]) -> None:
    plain, scenario = same_crawl_both_ways(seed, **crawl)
    mine, theirs = simulate(plain), simulate(scenario)
    assert mine.stats.pages_fetched == 7
    assert [event_to_dict(e) for e in mine.trace] == [event_to_dict(e) for e in theirs.trace]
    assert mine.finish_time == theirs.finish_time
    assert mine.host_busy == theirs.host_busy


def test_a_hand_made_input_is_bounded_assessed_and_covered() -> None:
    plain, scenario = same_crawl_both_ways(3, workers=2, per_host=1, scope="any")
    run = simulate(plain)
    bounds, advice = assess(plain, run, mode="measure")
    assert max(bounds.depth, bounds.busiest_host, bounds.work) <= run.finish_time
    # the advisor's reruns went through simulate(plain, ...): the same
    # figures and the same sentence as for the scenario
    assert advice.measured and advice.counterfactuals
    assert advice.as_dict() == assess(scenario, simulate(scenario), mode="measure")[1].as_dict()
    coverage = coverage_of(plain, run)
    assert (coverage.reachable, coverage.fetched, coverage.lost) == (7, 7, ())


def test_scenarios_and_hand_made_inputs_have_what_a_simulation_reads() -> None:
    plain, _ = same_crawl_both_ways(0)
    assert isinstance(load_scenario("see-it"), SimInput)
    assert isinstance(plain, SimInput)

    @dataclass
    class NoLatency:
        options: CrawlOptions
        web: Web
        seeds: tuple[str, ...]
        seed: int

    assert not isinstance(NoLatency(plain.options, plain.web, plain.seeds, 0), SimInput)


def test_the_simulation_does_not_load_the_scenario_loader() -> None:
    code = (
        "import sys\n"
        "import crawlsim.sim, crawlsim.sim.driver, crawlsim.sim.bounds, crawlsim.sim.advisor\n"
        "import crawlsim.sim.coverage, crawlsim.sim.inputs\n"
        "print('crawlsim.scenario' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@dataclass(frozen=True)
class _Backwards:
    """A latency model (a user's, say) whose draws go back in time."""

    def sampler(self, rng: object) -> object:
        return lambda: -1.0


def test_a_latency_model_that_draws_a_negative_latency_is_refused() -> None:
    """As SimPy's ``Timeout`` refuses a negative delay: time never goes back."""
    sim = Plain(CrawlOptions(), ExplicitWeb({"http://a.com/": []}), ("http://a.com/",), 0, {"a.com": _Backwards()})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="Negative delay"):
        simulate(sim)
