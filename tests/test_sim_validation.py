"""The simulator against arithmetic: finish times worked out by hand on small
webs must come out exactly, and on random webs the finish time is never
below any of the three lower bounds.

Every latency here is a whole or half second, so every sum is exact in
floating point and the hand-computed times can be compared with ``==``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.core.urls import MODES, canonical_is_fixpoint, canonicalize
from crawlsim.scenario import Scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.bounds import compute_bounds
from crawlsim.sim.driver import simulate


def scenario(pages: dict[str, list[str]], latency: dict[str, float], start: str, **crawl: Any) -> Scenario:
    """A hand-written web; every host at a fixed latency; robots off."""
    data = {
        "start": start,
        "seed": 1,
        "crawl": {"scope": "any", "robots": False, **crawl},
        "hosts": {host: {"latency": value} for host, value in latency.items()},
        "pages": pages,
    }
    return scenario_from_dict(data, path="<test>")


def finish(s: Scenario) -> float:
    return simulate(s, trace=False, series=False).finish_time


def star(k: int) -> dict[str, list[str]]:
    """A root on a.com linking to k leaf pages on a.com."""
    return {"http://a.com/": [f"/{i}" for i in range(k)]}


# -- a chain --------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("n, latency", [(1, 1.0), (5, 0.5), (8, 2.0)])
def test_chain_takes_n_times_latency(n: int, latency: float, workers: int) -> None:
    # Page i links only to page i+1: each fetch can start only when the one
    # before it has finished, whatever the workers: n * L.
    pages = {f"http://a.com/{i}": [f"/{i + 1}"] if i + 1 < n else [] for i in range(n)}
    s = scenario(pages, {"a.com": latency}, "http://a.com/0", workers=workers)
    run = simulate(s)
    assert run.finish_time == n * latency
    bounds = compute_bounds(s, run)
    assert bounds.depth == n * latency  # the chain *is* the longest discovery chain
    assert bounds.binding == "depth" or bounds.busiest_host == n * latency


# -- a star on one host ---------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2, 8])
def test_star_with_one_request_per_host(workers: int) -> None:
    # The root (L) reveals k children; with per_host = 1 they go one at a
    # time whatever the workers: L + k * L.  k = 6, L = 1 -> 7.
    s = scenario(star(6), {"a.com": 1.0}, "http://a.com/", workers=workers, per_host=1)
    assert finish(s) == 1.0 + 6 * 1.0


@pytest.mark.parametrize(
    "k, c, workers, expected",
    [
        (7, 3, 8, 1 + math.ceil(7 / 3)),  # 3 at a time: rounds of 3, 3, 1 -> 1 + 3 = 4
        (6, 3, 8, 1 + math.ceil(6 / 3)),  # exactly two rounds -> 3
        (7, 3, 2, 1 + math.ceil(7 / 2)),  # only 2 workers: the smaller cap binds -> 5
        (5, 10, 10, 1 + 1),  # more slots than children: one round -> 2
    ],
)
def test_star_with_several_requests_per_host(k: int, c: int, workers: int, expected: float) -> None:
    # per_host = c (and workers >= c): the k children go in rounds of c, each
    # round one latency: L + ceil(k / c) * L.  With fewer workers than c, the
    # workers are the cap instead.
    s = scenario(star(k), {"a.com": 1.0}, "http://a.com/", workers=workers, per_host=c)
    assert finish(s) == expected


def test_star_with_a_gap_longer_than_the_latency() -> None:
    # per_host = 1, gap g = 2 > L = 0.5: the gap counts between request
    # *starts*, the first start at t = 0.  Root: starts 0, ends 0.5.  Child i
    # (i = 1..k) may start at max(end of the previous fetch, (i) * g) = i * g,
    # since i * g >= (i - 1) * g + L.  The last (k = 4) starts at 8, ends 8.5.
    s = scenario(star(4), {"a.com": 0.5}, "http://a.com/", workers=4, per_host=1, gap=2.0)
    assert finish(s) == 4 * 2.0 + 0.5


def test_star_with_a_gap_shorter_than_the_latency() -> None:
    # g = 0.5 < L = 1: each start waits for the previous fetch (per_host = 1),
    # which already leaves more than g between starts: the gap costs nothing.
    # (k + 1) * L = 5.
    s = scenario(star(4), {"a.com": 1.0}, "http://a.com/", workers=4, per_host=1, gap=0.5)
    assert finish(s) == 5.0


def test_star_with_a_gap_and_two_requests_per_host() -> None:
    # per_host = 2, gap = 1, L = 3, k = 4:
    #   root    0 -> 3                 (children found at 3)
    #   child1  3 -> 6                 (gap since 0 long over)
    #   child2  4 -> 7                 (second slot, but starts 1 s after child1)
    #   child3  6 -> 9                 (both slots busy until child1 ends at 6)
    #   child4  7 -> 10                (child2 ends at 7; 7 >= 6 + 1)
    s = scenario(star(4), {"a.com": 3.0}, "http://a.com/", workers=8, per_host=2, gap=1.0)
    run = simulate(s)
    assert run.finish_time == 10.0
    starts = sorted(e.t for e in run.trace if type(e).__name__ == "FetchStarted")
    assert starts == [0.0, 3.0, 4.0, 6.0, 7.0]


# -- two hosts, one slow, at 1..8 workers ---------------------------------------

TWO_HOSTS = {
    # the root on fast a.com (1 s) links first to two pages on slow b.com
    # (3 s), then to four more pages on a.com
    "http://a.com/": ["http://b.com/1", "http://b.com/2", "/a1", "/a2", "/a3", "/a4"],
}


@pytest.mark.parametrize(
    "workers, expected",
    [
        # Everything is found when the root ends at t = 1; then the six fetches
        # are handed out greedily in discovery order (b1, b2, a1..a4 -- BFS)
        # to whichever worker is free.  No per-host limit, no gap.
        (1, 11.0),  # all in a row: 1 + 3 + 3 + 1 * 4
        (2, 6.0),  # b1, b2 on both workers 1 -> 4; then a1, a2 4 -> 5; a3, a4 5 -> 6
        (3, 5.0),  # b1, b2, a1 at 1; a2 at 2; a3 at 3; a4 at 4 (three free) -> 5
        (4, 4.0),  # b1, b2, a1, a2 at 1; a3, a4 at 2 -> 3; b's end at 4
        (5, 4.0),  # from here on, the chain root -> b.com page binds: 1 + 3
        (6, 4.0),
        (7, 4.0),
        (8, 4.0),
    ],
)
def test_two_hosts_one_slow_no_politeness(workers: int, expected: float) -> None:
    s = scenario(TWO_HOSTS, {"a.com": 1.0, "b.com": 3.0}, "http://a.com/", workers=workers)
    run = simulate(s)
    assert run.finish_time == expected
    bounds = compute_bounds(s, run)
    assert bounds.depth == 4.0
    assert run.finish_time >= max(bounds.depth, bounds.busiest_host, bounds.work)


@pytest.mark.parametrize("workers", range(1, 9))
def test_two_hosts_one_slow_one_request_per_host(workers: int) -> None:
    # per_host = 1: one worker does everything in a row, 1 + 3 * 2 + 1 * 4 = 11.
    # Two or more: each host runs its own queue from t = 1, and the crawl ends
    # with the slower one: max(1 + 4 * 1, 1 + 2 * 3) = 7.  Extra workers idle.
    s = scenario(TWO_HOSTS, {"a.com": 1.0, "b.com": 3.0}, "http://a.com/", workers=workers, per_host=1)
    run = simulate(s)
    expected = 11.0 if workers == 1 else max(1 + 4 * 1.0, 1 + 2 * 3.0)
    assert run.finish_time == expected
    bounds = compute_bounds(s, run)
    if workers >= 2:
        assert bounds.binding == "busiest_host"
        assert bounds.busiest_host_name == "b.com"
        assert bounds.busiest_host == 6.0  # its two pages back to back; the 1 s before is the depth
    else:
        assert bounds.binding == "work" and bounds.work == 11.0


# -- random webs: never faster than a bound --------------------------------------

HOSTS = ("a.com", "b.com", "c.com")


@st.composite
def random_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 12))
    urls = [f"http://{draw(st.sampled_from(HOSTS))}/p{i}" for i in range(n)]
    urls[0] = "http://a.com/"
    spellings = ("{u}", "{u}#top", "{u}?", "{U}", "{u}/./")
    pages: dict[str, list[str]] = {}
    for url in urls:
        targets = draw(st.lists(st.sampled_from(urls), max_size=5))
        pages[url] = [draw(st.sampled_from(spellings)).format(u=t, U=t.upper()) for t in targets]
    # keep every page reachable: page i is also linked from some earlier page
    for i in range(1, n):
        pages[urls[draw(st.integers(0, i - 1))]].append(urls[i])
    latency = {
        h: draw(
            st.one_of(
                st.sampled_from([0.5, 1.0, 1.5, 3.0]),
                st.fixed_dictionaries(
                    {
                        "model": st.just("lognormal"),
                        "median": st.sampled_from([0.5, 1.0]),
                        "sigma": st.sampled_from([0.2, 0.6]),
                    }
                ),
                st.fixed_dictionaries({"model": st.just("uniform"), "low": st.just(0.2), "high": st.just(2.0)}),
            )
        )
        for h in HOSTS
    }
    crawl = {
        "workers": draw(st.integers(1, 6)),
        "gap": draw(st.sampled_from([0.0, 0.0, 0.25, 1.0, 2.5])),
        "normalize": draw(st.sampled_from(["off", "fragment", "rfc3986", "aggressive"])),
        "order": draw(st.sampled_from(["bfs", "dfs"])),
        "frontier": draw(st.sampled_from(["per-host", "per-host", "fifo"])),
        "randomize_gap": draw(st.booleans()),
    }
    per_host = draw(st.sampled_from([None, 1, 2, 3]))
    if per_host is not None:
        crawl["per_host"] = per_host
    return {"seed": draw(st.integers(0, 10_000)), "pages": pages, "latency": latency, "crawl": crawl}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_finish_time_is_never_below_a_bound(case: dict[str, Any]) -> None:
    data = {
        "start": "http://a.com/",
        "seed": case["seed"],
        "crawl": {"scope": "any", "robots": False, **case["crawl"]},
        "hosts": {h: {"latency": spec} for h, spec in case["latency"].items()},
        "pages": case["pages"],
    }
    s = scenario_from_dict(data, path="<random>")
    run = simulate(s, series=False)
    bounds = compute_bounds(s, run)
    values = {"depth": bounds.depth, "busiest_host": bounds.busiest_host, "work": bounds.work}
    for name, value in values.items():
        assert run.finish_time >= value - 1e-9, (name, value, run.finish_time)
    assert values[bounds.binding] == max(values.values())
    assert bounds.binding_value == max(values.values())
    assert 0.0 <= bounds.efficiency <= 1.0 + 1e-9


# -- the scheduler's short cut relies on this ------------------------------------


@pytest.mark.parametrize(
    "href, base",
    [
        ("HTTP://A.COM:80/./x/../y?b=2#f", None),
        ("../x/./y", "http://a.com/b/c/"),
        ("http://a.com/%7Euser/", None),
        ("//b.com", "https://a.com/"),
        ("http://a.com/a b", None),
        ("http://xn--nxasmq6b.com/", None),
    ],
)
def test_rfc3986_forms_are_fixpoints(href: str, base: str | None) -> None:
    # The scheduler skips a link that is *written* exactly as an already-seen
    # URL without canonicalizing it; that is sound only where a canonical form
    # canonicalizes to itself from any page (canonical_is_fixpoint).
    once = canonicalize(href, base)
    assert once is not None
    for other_base in (None, "http://z.org/q/", "https://a.com/deep/er/"):
        assert canonicalize(once, other_base) == once
    assert canonical_is_fixpoint(MODES["rfc3986"])
    assert not canonical_is_fixpoint(MODES["aggressive"])
