"""A legal value is never refused because of the advisor.

The advisor's counterfactual crawls (twice the workers, the per-host limit
+ 1, half the gap, more nodes ...) stay inside the ranges of
``crawlsim.core.options.RULES``: a crawl whose options sit at the ends of
those ranges runs, is bounded and advised, and never raises.  A three-page
web keeps each example quick.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cli import main
from crawlsim.core.options import RULES, Rule
from crawlsim.core.priorities import PRIORITIES
from crawlsim.core.urls import MODES
from crawlsim.scenario.files import parse_scenario
from crawlsim.sim.advisor import assess
from crawlsim.sim.driver import simulate

TINY = """\
start = "http://a.com/"
[crawl]
scope = "any"
[hosts."*"]
latency = 0.5
[pages]
"http://a.com/" = ["/x", "http://b.com/"]
"http://a.com/x" = ["/"]
"http://b.com/" = ["http://a.com/x"]
"""

SPECIAL: dict[str, list[Any]] = {
    "normalize": list(MODES),
    "priority": [None, *PRIORITIES],
    "allow": [(), ["a" * 1000] * 100],
    "deny": [(), ["z" * 1000] * 100],
    "user_agent": ["x", "y" * 200],
    "retry_statuses": [(), (100,), (599,), (200, 429, 503)],
}
"""The ends of the options that are not numbers: one of each kind."""


def extremes(key: str, rule: Rule) -> list[Any]:
    """The values at the ends of ``key``'s range (and none, when allowed)."""
    if key in SPECIAL:
        return SPECIAL[key]
    if rule.kind == "bool":
        return [False, True]
    if rule.kind == "choice":
        return list(rule.choices)
    values: list[Any] = [rule.low, rule.high]
    if rule.kind == "int":
        values = [int(v) for v in values if v is not None]
    return values + ([None] if rule.optional else [])


EXTREMES = {key: extremes(key, rule) for key, rule in RULES.items()}


def test_every_option_has_its_ends_here() -> None:
    assert set(EXTREMES) == set(RULES)
    assert all(EXTREMES[key] for key in RULES)


@st.composite
def options_at_the_ends(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.sets(st.sampled_from(sorted(RULES)), min_size=1))
    chosen = {key: draw(st.sampled_from(EXTREMES[key])) for key in sorted(keys)}
    if chosen.get("seen") == "bloom":
        # a Bloom filter of 10^18 entries is refused with its size (it does not
        # fit in memory): that refusal is the option's own, not the advisor's
        chosen["bloom_capacity"] = 1
    if chosen.get("priority") is not None:
        chosen["order"] = "best"
    elif chosen.get("order") == "best":  # best-first needs an order to follow
        chosen["priority"] = "shallowest"
    return chosen


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options_at_the_ends())
def test_options_at_the_ends_of_their_ranges_run_and_are_advised(chosen: dict[str, Any]) -> None:
    scenario = parse_scenario(TINY, "tiny.toml").with_options(**chosen)
    run = simulate(scenario, series=False)
    bounds, advice = assess(scenario, run, "measure")
    assert bounds.explanation
    for c in advice.counterfactuals:
        for key, value in c.options.items():
            rule = RULES[key]
            if rule.kind in ("int", "number") and value is not None:
                assert rule.low is None or value >= rule.low, (key, value)
                assert rule.high is None or value <= rule.high, (key, value)


@pytest.mark.parametrize("workers", ["60000", "100000"])
def test_run_with_a_legal_worker_count_runs(workers: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """`--workers 60000` was refused because the advisor's own rerun (120,000) was out of range."""
    path = tmp_path / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    assert main(["run", str(path), "--workers", workers, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    labels = [c["label"] for c in data["advice"]["counterfactuals"]]
    if workers == "60000":
        assert "100,000 workers" in labels
    else:
        assert not any(label.endswith(" workers") for label in labels)
        assert "More than 100,000 workers is not allowed, so not measured." in data["explanation"]


def test_a_cluster_at_the_most_nodes_runs_and_says_more_were_not_measured(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from crawlsim.trace.cluster import MAX_NODES

    path = tmp_path / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    assert main(["run", str(path), "--nodes", str(MAX_NODES)]) == 0
    assert f"more nodes not measured: {MAX_NODES:,} is the most a cluster may have" in capsys.readouterr().out
