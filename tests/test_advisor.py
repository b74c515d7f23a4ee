"""Every sentence the advisor writes is true of the simulator.

Each shipped scenario (but ``million``) at 1, 2, 4 and 8 workers: the
explanation is read as a user reads it -- the bound it quotes, every "With
...: T s (change)." and the verdict -- and each claim is checked by running
the crawl it describes, from the scenario, as ``crawlsim run`` would.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any

import pytest

from crawlsim.core.options import CrawlOptions
from crawlsim.core.urls import parse_steps
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.sim import advisor
from crawlsim.sim.advisor import assess
from crawlsim.sim.bounds import seconds
from crawlsim.sim.driver import SimRun, simulate

SCENARIOS = [name for name in list_scenarios() if name != "million"]
HEAD = re.compile(
    r"^(?P<who>.+?) holds? the crawl at (?P<bound>[\d,.]+ s) "
    r"\((?P<kind>depth|busiest-host|work) bound; finish (?P<finish>[\d,.]+ s)\)\."
)
LOW = re.compile(
    r"^The crawl takes (?P<finish>[\d,.]+ s), well above every lower bound "
    r"\(the largest: (?P<who>.+?), (?P<kind>depth|busiest-host|work) bound (?P<bound>[\d,.]+ s)\)\."
)
WITH = re.compile(r"With (?P<label>[^:]+): (?P<time>[\d,.]+ s) \((?P<change>[^;)]+)(?:; (?P<loss>[^)]+))?\)\.")
KINDS = {"depth": "depth", "busiest-host": "busiest_host", "work": "work"}
PHRASE_KNOB = {
    "More workers": "workers",
    "A higher per-host limit": "per_host",
    "A smaller gap": "gap",
    "A shorter Crawl-delay from the site": "max_crawl_delay",
    "A per-host frontier": "frontier",
    "A higher per-host rate": "rate",
    "A bigger burst": "burst",
}


def overrides_named(label: str) -> tuple[str, dict[str, Any]]:
    """What a reader takes "With <label>" to mean, as crawler options."""
    if m := re.fullmatch(r"(\d+) workers?", label):
        return "workers", {"workers": int(m[1])}
    if m := re.fullmatch(r"per_host (\d+)", label):
        return "per_host", {"per_host": int(m[1])}
    if m := re.fullmatch(r"gap ([\d.]+) s", label):
        return "gap", {"gap": float(m[1])}
    if m := re.fullmatch(r"max_crawl_delay ([\d.]+) s", label):
        return "max_crawl_delay", {"max_crawl_delay": float(m[1])}
    if m := re.fullmatch(r"rate ([\d.]+)/s", label):
        return "rate", {"rate": float(m[1])}
    if m := re.fullmatch(r"burst (\d+)", label):
        return "burst", {"burst": int(m[1])}
    if label == "a per-host frontier":
        return "frontier", {"frontier": "per-host"}
    if m := re.fullmatch(r"normalize (\S+)", label):
        return "normalize", {"normalize": m[1]}
    if label == "content_dedup exact":
        return "content_dedup", {"content_dedup": "exact"}
    raise AssertionError(f"the sentence names a change the test cannot rerun: {label!r}")


def rerun(scenario: Scenario, overrides: dict[str, Any]) -> SimRun:
    return crawl(scenario.with_options(**overrides))


_CRAWLS: OrderedDict[tuple[str, str, CrawlOptions], SimRun] = OrderedDict()
KEEP_CRAWLS = 16
"""How many recent crawls :func:`crawl` keeps (a 2,000-page crawl's run is a few MB)."""


def crawl(scenario: Scenario) -> SimRun:
    """``scenario`` simulated as ``crawlsim run`` does.  A simulation is a
    function of its input, so a crawl this module ran a moment ago (the same
    shipped scenario, the same options) is answered from memory: the
    2-worker case's "With 4 workers" rerun is the 4-worker case's own crawl.
    The advisor's figures are still checked against a simulation of this
    module's, never against the advisor's own reruns."""
    key = (scenario.name, str(scenario.path), scenario.options)
    if key in _CRAWLS:
        _CRAWLS.move_to_end(key)
        return _CRAWLS[key]
    run = simulate(scenario, trace=scenario.options.record_events, series=False)
    _CRAWLS[key] = run
    while len(_CRAWLS) > KEEP_CRAWLS:
        _CRAWLS.popitem(last=False)
    return run


@pytest.mark.parametrize("workers", [1, 2, 4, 8])
@pytest.mark.parametrize("name", SCENARIOS)
def test_every_claim_is_confirmed_by_rerunning_the_crawl(name: str, workers: int) -> None:
    scenario = load_scenario(name).with_options(workers=workers)
    run = crawl(scenario)
    bounds, advice = assess(scenario, run)
    sentence = bounds.explanation
    assert advice.measured, sentence
    values = bounds.values()

    # "X holds the crawl at B s (kind bound; finish F s)."
    head = HEAD.match(sentence) or LOW.match(sentence)
    assert head, sentence
    kind = KINDS[head["kind"]]
    assert head["bound"] == seconds(values[kind]), sentence
    assert values[kind] == max(values.values())  # the bound that holds is the largest
    assert head["finish"] == seconds(run.finish_time)
    who = head["who"]
    if kind == "busiest_host":
        assert who == bounds.busiest_host_name
    elif kind == "depth":
        assert who.lower() == "the longest chain of links"
    else:
        assert who.lower() == ("the one worker" if workers == 1 else f"the {workers} workers")

    # every "With ...: T s (change)." is what that crawl takes
    quoted: dict[str, float] = {}
    for m in WITH.finditer(sentence):
        knob, overrides = overrides_named(m["label"])
        again = rerun(scenario, overrides).finish_time
        assert m["time"] == seconds(again), (m[0], again)
        change = m["change"]
        if change == "no change":
            assert again == run.finish_time, (m[0], again)
        elif change.startswith("-"):
            assert again < run.finish_time, (m[0], again)
        else:
            assert change.startswith("+") and again > run.finish_time, (m[0], again)
        quoted[m["label"] if knob == "normalize" else knob] = again
        assert change == "no change" or change.endswith("%"), m[0]  # one unit: percent
    # at least: twice the workers, per_host + 1 (when below the workers), half the gap
    assert quoted.get("workers") is not None and f"With {2 * workers} workers:" in sentence
    opts = scenario.options
    if opts.per_host is not None and opts.per_host < workers:
        assert f"With per_host {opts.per_host + 1}:" in sentence
    if opts.gap > 0:
        assert "With gap " in sentence

    # the verdict
    best = min(quoted.values())
    if m := re.search(
        r"\. (Normalize \S+|Content dedup) helps most, with no new worker(?: and no page lost|, at a cost of .+)\.$",
        sentence,
    ):
        key = "content_dedup" if m[1] == "Content dedup" else "normalize " + m[1].split()[1]
        assert quoted[key] == best < run.finish_time, sentence
    elif m := re.search(r"\. ([A-Z][\w -]+?) (?:helps?|help) most\.$", sentence):
        assert PHRASE_KNOB[m[1]] in quoted
        assert quoted[PHRASE_KNOB[m[1]]] == best <= run.finish_time * (1 - advisor.WORTH_SAYING), sentence
    elif m := re.search(r"\. ([A-Z][\w -]+?) (?:does|do) not help\.$", sentence):
        assert quoted[PHRASE_KNOB[m[1]]] >= run.finish_time, sentence
    elif m := re.search(r"\. ([A-Z][\w -]+?) (?:helps?|help)\.$", sentence):
        assert quoted[PHRASE_KNOB[m[1]]] < run.finish_time, sentence
    elif sentence.endswith("None of these finishes sooner."):
        assert best >= run.finish_time, sentence
    elif sentence.endswith("None of these shortens the crawl by 5% or more."):
        assert run.finish_time * (1 - advisor.WORTH_SAYING) < best < run.finish_time, sentence
    else:
        assert " and " in sentence.rsplit(".", 2)[-2] and sentence.endswith("help most (equally)."), sentence
        assert best <= run.finish_time * (1 - advisor.WORTH_SAYING)

    # a tie between bounds is settled by what the reruns showed
    tied = [k for k, v in values.items() if v == max(values.values())]
    if "work" in tied and "busiest_host" in tied and quoted["workers"] < run.finish_time:
        host_knobs = [quoted[k] for k in ("per_host", "gap", "max_crawl_delay") if k in quoted]
        if not host_knobs or quoted["workers"] <= min(host_knobs):
            assert kind == "work", sentence


def test_the_advice_agrees_with_its_table_and_says_what_it_overrides() -> None:
    # polite: a -1% rerun was called the knob that "helps most", and capping
    # a.com's Crawl-delay was offered without saying it overrides its robots.txt
    scenario = load_scenario("polite")
    bounds, _ = assess(scenario, crawl(scenario))
    sentence = bounds.explanation
    assert "helps most" not in sentence
    assert sentence.endswith("None of these shortens the crawl by 5% or more.")
    assert "That overrides the Crawl-delay of 2.0 s that a.com's robots.txt asks for." in sentence


def test_a_tiny_change_is_quoted_in_percent() -> None:
    assert advisor._change(1_000.0, 998.56) == "-0.1%"
    assert advisor._change(10_000.0, 9_999.0) == "-<0.1%"


def test_the_issue_cases_now_quote_what_the_reruns_show() -> None:
    # "more workers will not help" was said of crawls that more workers did speed up
    for name, workers in (("busiest-host", 4), ("interview", 1), ("trap", 1), ("isro", 1)):
        scenario = load_scenario(name).with_options(workers=workers)
        run = simulate(scenario, series=False)
        bounds, _ = assess(scenario, run)
        doubled = rerun(scenario, {"workers": 2 * workers}).finish_time
        assert doubled < run.finish_time
        assert "will not help" not in bounds.explanation and "do not help" not in bounds.explanation
        assert f"With {2 * workers} workers: {seconds(doubled)}" in bounds.explanation
        assert "down to about" not in bounds.explanation  # no prediction that was not measured


def test_a_tie_between_host_and_work_goes_to_what_helps() -> None:
    # one host, no per-host limit: the busiest host's bound is the work bound
    scenario = load_scenario("interview").with_options(workers=1)
    run = simulate(scenario, series=False)
    bounds, _ = assess(scenario, run)
    assert bounds.busiest_host == bounds.work
    assert bounds.binding == "work"
    assert bounds.explanation.startswith("The one worker holds the crawl")


def test_large_crawls_are_inferred_and_say_how_to_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario("see-it")
    run = simulate(scenario, series=False)
    monkeypatch.setattr(advisor, "MEASURE_LIMIT", run.stats.fetches - 1)
    bounds, advice = assess(scenario, run)
    assert not advice.measured and advice.counterfactuals == ()
    assert "Inferred from the bounds, not measured" in bounds.explanation
    assert "--advise measure" in bounds.explanation
    assert "With " not in bounds.explanation
    measured, again = assess(scenario, run, "measure")
    assert again.measured and "With 8 workers" in measured.explanation
    _, never = assess(scenario, run, "infer")
    assert not never.measured


def test_run_json_carries_the_counterfactuals(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    assert main(["run", "see-it", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    advice = data["advice"]
    assert advice["measured"] and advice["binding"] == data["binding_bound"]
    labels = [c["label"] for c in advice["counterfactuals"]]
    assert labels[0] == "8 workers"
    for c in advice["counterfactuals"]:
        assert f"With {c['label']}: {seconds(c['finish_time'])}" in data["explanation"]
        assert rerun(load_scenario("see-it"), c["options"]).finish_time == pytest.approx(c["finish_time"], abs=1e-6)
    assert main(["run", "see-it", "--json", "--advise", "infer"]) == 0
    inferred = json.loads(capsys.readouterr().out)
    assert inferred["advice"]["measured"] is False and inferred["advice"]["counterfactuals"] == []
    assert inferred["advice"]["would_measure"] == labels


def test_a_rate_limited_crawl_is_advised_the_doubled_rate(capsys: pytest.CaptureFixture[str]) -> None:
    """The token bucket holds see-it at rate 0.1: the advice quotes rate 0.2
    with the finish ``crawlsim run --set rate=0.2`` gives, and one more burst."""
    from crawlsim.cli import main

    assert main(["run", "see-it", "--set", "rate=0.2", "--json"]) == 0
    doubled = json.loads(capsys.readouterr().out)["finish_time"]
    assert main(["run", "see-it", "--set", "rate=0.1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_label = {c["label"]: c for c in data["advice"]["counterfactuals"]}
    assert by_label["rate 0.2/s"]["finish_time"] == pytest.approx(doubled, abs=1e-6)
    assert by_label["rate 0.2/s"]["finish_time"] < data["finish_time"]
    assert f"With rate 0.2/s: {seconds(doubled)}" in data["explanation"]
    assert by_label["burst 2"]["options"] == {"burst": 2}
    assert "None of these finishes sooner" not in data["explanation"]


def test_no_rate_no_bucket_advice() -> None:
    labels = [label for _, label, _ in advisor.plan(simulate(load_scenario("see-it"), trace=False, series=False))]
    assert not [label for label in labels if label.startswith(("rate", "burst"))]


def test_a_rate_at_the_top_of_its_range_is_not_doubled() -> None:
    run = simulate(load_scenario("see-it").with_options(rate=100_000, burst=100_000), trace=False, series=False)
    assert not [knob for knob, _, _ in advisor.plan(run) if knob in ("rate", "burst")]


# -- duplicate fetches: normalization and content dedup, measured -------------------------------


def test_duplicate_fetches_get_normalization_advice_that_a_rerun_confirms(capsys: pytest.CaptureFixture[str]) -> None:
    """`variants` fetches 400 pages 831 times: the advisor measures the
    normalization steps that merge the spellings, and each figure it quotes
    (finish time, pages lost) is what `crawlsim run variants --normalize X`
    reports."""
    from crawlsim.cli import main

    assert main(["run", "variants", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    sentence = data["explanation"]
    assert f"{data['duplicate_fetches']:,} duplicate fetches waste" in sentence
    quotes = [m for m in WITH.finditer(sentence) if m["label"].startswith("normalize ")]
    specs = [m["label"].split()[1] for m in quotes]
    assert "rfc3986" in specs  # the safe steps, on their own
    assert any(parse_steps(s) >= {"www", "https", "session_ids"} for s in specs)  # the risky ones together
    for m, spec in zip(quotes, specs, strict=True):
        assert main(["run", "variants", "--normalize", spec, "--json", "--advise", "infer"]) == 0
        again = json.loads(capsys.readouterr().out)
        assert m["time"] == seconds(again["finish_time"]), (m[0], again["finish_time"])
        lost = len(again["pages_lost"])
        assert m["loss"] == ("no page lost" if lost == 0 else m["loss"]) and (lost == 0) == (
            m["loss"] == "no page lost"
        )
        assert again["duplicate_fetches"] < data["duplicate_fetches"]
    by_label = {c["label"]: c for c in data["advice"]["counterfactuals"]}
    assert all(by_label[f"normalize {s}"]["pages_lost"] is not None for s in specs)
    # turning normalization up beats doubling the workers here, and the verdict says so
    fastest = min(data["advice"]["counterfactuals"], key=lambda c: c["finish_time"])
    assert fastest["knob"] == "normalize"
    assert sentence.endswith(
        f"Normalize {fastest['options']['normalize']} helps most, with no new worker and no page lost."
    )


def test_a_knob_that_loses_pages_says_how_many() -> None:
    """`mirrors` serves one tree under two names: content dedup stops
    following the mirror's pages, which is faster and loses every page only
    the mirror links to.  The sentence quotes that loss, and the count is the
    rerun's own coverage."""
    from crawlsim.sim.coverage import coverage_of

    scenario = load_scenario("mirrors")
    run = simulate(scenario, series=False)
    bounds, advice = assess(scenario, run)
    (c,) = [c for c in advice.counterfactuals if c.knob == "content_dedup"]
    again = simulate(scenario.with_options(content_dedup="exact"), series=False)
    lost = coverage_of(scenario, again).lost
    assert lost and c.pages_lost == len(lost)
    assert f"With content_dedup exact: {seconds(again.finish_time)}" in bounds.explanation
    assert f"; {len(lost)} pages lost: not discovered)." in bounds.explanation
    assert c.as_dict()["pages_lost"] == len(lost)


def test_no_duplicate_fetches_no_normalization_advice() -> None:
    scenario = load_scenario("variants").with_options(normalize="aggressive")
    run = simulate(scenario, series=False)
    assert run.stats.duplicate_fetches == 0
    bounds, advice = assess(scenario, run)
    assert not any(c.knob == "normalize" for c in advice.counterfactuals), bounds.explanation
