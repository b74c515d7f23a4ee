"""The three bounds are lower bounds of the simulated finish time, whatever
the scenario: robots.txt with Crawl-delay, failures and 429/503 throttling
with Retry-After, retries and backoff, randomized gaps, a token bucket per
host, the FIFO frontier,
more per-host slots than workers, DFS, caps and every normalization mode.

The default run tries a hundred random scenarios; the ``exhaustive``
variant tries 1,500.  README's test command leaves it out (pyproject's
``addopts``); ``.ci/run`` runs it as a second step, and so does
``python -m pytest -q -m exhaustive tests/test_bounds_properties.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.scenario.files import load_scenario, scenario_from_dict
from crawlsim.sim.bounds import compute_bounds, host_bound
from crawlsim.sim.driver import simulate
from crawlsim.views.summary import summary_dict

HOSTS = ("a.com", "b.com", "c.com")


@st.composite
def hosts(draw: st.DrawFn) -> dict[str, Any]:
    """Per-host behaviour: latency, robots.txt (maybe with Crawl-delay),
    failures, dead pages and throttling."""
    out: dict[str, Any] = {}
    for host in HOSTS:
        spec: dict[str, Any] = {
            "latency": draw(
                st.one_of(
                    st.sampled_from([0.0, 0.1, 0.5, 1.0, 3.0]),
                    st.fixed_dictionaries(
                        {"model": st.just("lognormal"), "median": st.sampled_from([0.2, 1.0]), "sigma": st.just(0.6)}
                    ),
                    st.fixed_dictionaries({"model": st.just("uniform"), "low": st.just(0.05), "high": st.just(2.0)}),
                )
            )
        }
        if draw(st.booleans()):
            lines = ["User-agent: *"]
            if draw(st.booleans()):
                lines.append("Disallow: /p1")
            delay = draw(st.sampled_from([None, 0.5, 1, 2, 5]))
            if delay is not None:
                lines.append(f"Crawl-delay: {delay}")
            spec["robots"] = "\n".join(lines) + "\n"
        if draw(st.booleans()):
            spec["fail_rate"] = draw(st.sampled_from([0.2, 0.5, 0.9]))
            spec["fail_status"] = draw(st.sampled_from([500, 503, 429, 404]))
        if draw(st.booleans()):
            spec["dead_rate"] = draw(st.sampled_from([0.1, 0.5]))
        throttle = draw(
            st.sampled_from(
                [
                    None,
                    {"status": 429, "retry_after": 5, "rate": 0.5, "attempts": 1},
                    {"status": 429, "retry_after": 1, "rate": 0.9, "attempts": 2},
                    {"status": 503, "every": 5.0, "duration": 2.0},
                ]
            )
        )
        if throttle is not None:
            spec["throttle"] = throttle
        out[host] = spec
    return out


@st.composite
def crawl_options(draw: st.DrawFn) -> dict[str, Any]:
    crawl: dict[str, Any] = {
        "scope": "any",
        "workers": draw(st.integers(1, 6)),
        "gap": draw(st.sampled_from([0.0, 0.0, 0.25, 1.0, 2.5])),
        "randomize_gap": draw(st.booleans()),
        "normalize": draw(st.sampled_from(["off", "fragment", "rfc3986", "aggressive"])),
        "order": draw(st.sampled_from(["bfs", "dfs", "lifo"])),
        "frontier": draw(st.sampled_from(["per-host", "fifo", "download-slots", "download-slots-one-queue"])),
        "robots": draw(st.booleans()),
        "max_retries": draw(st.integers(0, 3)),
        "backoff_base": draw(st.sampled_from([0.1, 1.0])),
        "max_crawl_delay": draw(st.sampled_from([10.0, 1.0, 0.0])),
        "retry_statuses": draw(st.sampled_from([[429, 503], [429], []])),
    }
    if draw(st.integers(0, 3)) == 0:  # a token bucket per host
        crawl["rate"] = draw(st.sampled_from([0.5, 2.0, 10.0]))
        crawl["burst"] = draw(st.integers(1, 4))
    per_host = draw(st.sampled_from([None, 1, 2, 3, 8]))  # 8 > any worker count
    if per_host is not None:
        crawl["per_host"] = per_host
    for key, values in (("max_pages", [3, 6]), ("max_pages_per_host", [2, 4]), ("depth_limit", [1, 2])):
        if draw(st.integers(0, 3)) == 0:
            crawl[key] = draw(st.sampled_from(values))
    return crawl


@st.composite
def random_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 12))
    urls = [f"http://{draw(st.sampled_from(HOSTS))}/p{i}" for i in range(n)]
    urls[0] = "http://a.com/"
    spellings = ("{u}", "{u}#top", "{u}?", "{U}", "{u}/./", "{u}x")  # "x": a URL the web does not list
    pages: dict[str, list[str]] = {}
    for url in urls:
        targets = draw(st.lists(st.sampled_from(urls), max_size=5))
        pages[url] = [draw(st.sampled_from(spellings)).format(u=t, U=t.upper()) for t in targets]
    for i in range(1, n):  # every page reachable from the start (when all answer)
        pages[urls[draw(st.integers(0, i - 1))]].append(urls[i])
    return {
        "start": "http://a.com/",
        "seed": draw(st.integers(0, 10_000)),
        "crawl": draw(crawl_options()),
        "hosts": draw(hosts()),
        "pages": pages,
    }


def test_the_busiest_host_bound_counts_retry_after() -> None:
    # polite's b.com answers one page 429 with Retry-After: 5; per_host 1,
    # 0.5 s a fetch: robots.txt, then 8 page starts, one interval held 5 s
    s = load_scenario("polite")
    run = simulate(s, series=False)
    assert host_bound(run, "b.com") == pytest.approx(0.5 + 5.0 + 0.5)
    assert host_bound(run, "b.com") <= run.finish_time
    quiet = simulate(s, trace=False, series=False)  # no trace: no holds seen, only the busy term
    assert host_bound(quiet, "b.com") == pytest.approx(0.5 + 4.0)


def check_bounds(data: dict[str, Any]) -> None:
    s = scenario_from_dict(data, path="<random>")
    run = simulate(s, series=False)
    bounds = compute_bounds(s, run)
    values = {"depth": bounds.depth, "busiest_host": bounds.busiest_host, "work": bounds.work}
    for name, value in values.items():
        assert value <= run.finish_time + 1e-9, (name, value, run.finish_time)
    assert max(values.values()) <= run.finish_time + 1e-9
    assert values[bounds.binding] == max(values.values())
    assert 0.0 <= bounds.efficiency <= 1.0 + 1e-9
    # the same bounds without the trace (as large untraced runs compute them)
    quiet = simulate(s, trace=False, series=False)
    assert quiet.finish_time == run.finish_time
    quiet_bounds = compute_bounds(s, quiet)
    assert max(quiet_bounds.depth, quiet_bounds.busiest_host, quiet_bounds.work) <= quiet.finish_time + 1e-9


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_every_bound_is_a_lower_bound(data: dict[str, Any]) -> None:
    check_bounds(data)


@pytest.mark.exhaustive
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_every_bound_is_a_lower_bound_exhaustive(data: dict[str, Any]) -> None:
    check_bounds(data)


@st.composite
def pushback_webs(draw: st.DrawFn) -> tuple[dict[str, Any], float]:
    """A web whose 429 host sets the end: c.com refuses each of its 4-8 pages once
    with Retry-After, so at 1 fetch per host at least ``(pages - 1) * retry_after``
    seconds of holds lie between its starts (the last hold may come after its last
    start, when no retry is left), at least 3 s; a.com and b.com finish within 2.2 s
    (robots.txt, the start page and 8 pages each, at most 0.2 s a fetch, never
    waiting for a worker: 3 workers or more).  Returns the scenario and that hold."""
    held_pages, retry_after = draw(st.integers(4, 8)), draw(st.sampled_from([1, 2, 5]))
    pages: dict[str, list[str]] = {"http://a.com/": []}
    for host, count in (("a.com", draw(st.integers(0, 8))), ("b.com", draw(st.integers(1, 8))), ("c.com", held_pages)):
        urls = [f"http://{host}/p{i}" for i in range(count)]
        pages["http://a.com/"] += urls
        for url in urls:
            pages[url] = draw(st.lists(st.sampled_from(urls), max_size=3))
    fast = st.sampled_from([0.0, 0.05, 0.1, 0.2])
    hosts: dict[str, Any] = {host: {"latency": draw(fast)} for host in ("a.com", "b.com")}
    hosts["c.com"] = {
        "latency": draw(fast),
        "throttle": {"status": 429, "retry_after": retry_after, "rate": 1.0, "attempts": 1},
    }
    crawl = {
        "scope": "any",
        "workers": draw(st.integers(3, 6)),
        "per_host": 1,
        "robots": draw(st.booleans()),
        "max_retries": draw(st.integers(0, 3)),
        "order": draw(st.sampled_from(["bfs", "dfs"])),
        "frontier": draw(st.sampled_from(["per-host", "fifo"])),
        "retry_statuses": [429],
    }
    web = {"start": "http://a.com/", "seed": draw(st.integers(0, 10_000)), "crawl": crawl, "hosts": hosts, "pages": pages}
    return web, (held_pages - 1) * retry_after


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pushback_webs())
def test_the_host_that_pushes_back_is_named_when_it_sets_the_end(case: tuple[dict[str, Any], float]) -> None:
    data, least_hold = case
    s = scenario_from_dict(data, path="<random>")
    run = simulate(s, series=False)
    bounds = compute_bounds(s, run)
    # 1e-9: float rounding of sums of seconds (a bound of 7.999999999999999 against a hold of 8)
    assert least_hold - 1e-9 <= host_bound(run, "c.com") <= run.finish_time + 1e-9
    assert max(bounds.values().values()) <= run.finish_time + 1e-9
    assert bounds.busiest_host_name == "c.com"
    assert summary_dict(run, bounds)["busiest_host"]["host"] == "c.com"
