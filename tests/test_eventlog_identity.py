"""A traced run leaves out the web's page identities only when they change nothing.

A traced simulation names each fetch's page (``FetchStarted.page``) and
flags duplicate fetches; asking the web's ``page_of`` for that makes the
core keep every page identity it fetched -- a third of what tracing costs at
100,000 pages.  ``Web.fetches_are_identities`` says when every URL a crawl
can fetch is its own page, so the core's own identity (the URL) gives the
same events.  Checked here on random generated webs, seeds written in odd
spellings and every normalization: the trace and the figures are the same
as with the web's identities, which is what a user of ``crawlsim trace``
relies on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.trace.events import FetchStarted
from crawlsim.core.urls import SAFE_STEPS, canonical_or_raise, parse_steps
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.driver import simulate
from crawlsim.sim.generated import PowerLawWeb, SiteTreeWeb
from crawlsim.sim.web import Web

_SPELLINGS = (
    "{u}",
    "{U}",
    "HTTP://{h}/",
    "https://{h}/",
    "http://www.{h}/",
    "http://{h}:80/",
    "http://{h}/./",
    "{u}#top",
    "{u}/",
    "{u}?sid=1",
    "{u}?b=1&a=2",
    "{u}nothing",
    "http://elsewhere.org/",
)
_TREE_HOSTS = ("a.com", "A.com", "www.a.com", "a.com:80", "a.com:8080", "bücher.de", "a.com.")


@st.composite
def _webs(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        hosts = draw(st.integers(1, 4))
        web: dict[str, Any] = {
            "kind": "power_law",
            "pages": draw(st.integers(hosts, 30)),
            "hosts": hosts,
            "extra_links": draw(st.integers(0, 3)),
        }
        homes = ["http://h0.example/", f"http://h{hosts - 1}.example/p1"]
    else:
        host = draw(st.sampled_from(_TREE_HOSTS))
        web = {
            "kind": "site_tree",
            "host": host,
            "branching": draw(st.integers(1, 3)),
            "depth": draw(st.integers(0, 3)),
        }
        homes = [f"http://{host}/", f"http://{host}/0"]
    if draw(st.integers(0, 4)) == 0:
        web["variant_rate"] = 0.5
    return {"web": web, "homes": homes}


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    drawn = draw(_webs())
    # Half the crawls are ones the promise can cover (rfc3986, no variants,
    # seeds spelled as their pages), so the short cut is taken often; the
    # rest mix in every spelling and normalization, where it must not be.
    covered = draw(st.booleans())
    seeds = []
    for _ in range(draw(st.integers(1, 3))):
        u = draw(st.sampled_from(drawn["homes"]))
        host = u.split("/")[2].split(":")[0]
        spelling = "{u}" if covered else draw(st.sampled_from(_SPELLINGS))
        seeds.append(spelling.format(u=u, U=u.upper(), h=host))
    if covered:
        drawn["web"].pop("variant_rate", None)
    normalizations = ["off", "fragment", "rfc3986", "aggressive", "rfc3986-fragment", "rfc3986+www"]
    crawl: dict[str, Any] = {
        "scope": "any",
        "workers": draw(st.integers(1, 4)),
        "normalize": "rfc3986" if covered else draw(st.sampled_from(normalizations)),
        "max_retries": draw(st.integers(0, 2)),
    }
    out: dict[str, Any] = {"seed": draw(st.integers(0, 1000)), "start": seeds, "crawl": crawl, "web": drawn["web"]}
    if draw(st.booleans()):
        out["hosts"] = {"*": {"fail_rate": 0.3, "dead_rate": 0.2, "latency": 0.5}}
    return out


def _run(data: dict[str, Any], *, truth: bool) -> Any:
    """Simulate ``data`` traced; ``truth``: as if the web promised nothing
    (the core asks ``page_of`` for every fetch, as it always did)."""
    scenario = scenario_from_dict(data, path="<random>")
    if truth:
        scenario.web.spells_identities = False
    return scenario, simulate(scenario)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_trace_is_the_same_without_the_webs_identities(data: dict[str, Any]) -> None:
    scenario, run = _run(data, truth=False)
    _, truth = _run(data, truth=True)
    assert list(run.trace) == list(truth.trace)
    assert run.stats == truth.stats and run.finish_time == truth.finish_time
    assert list(run.series) == list(truth.series)
    # and the promise holds fetch by fetch when the web makes it
    web, steps = scenario.web, scenario.options.normalize_steps
    if web.fetches_are_identities(steps, scenario.seeds):
        assert all(web.page_of(e.url) == e.url for e in run.trace if isinstance(e, FetchStarted))


def _pages_and_links(web: Web, limit: int = 400) -> list[tuple[str, str]]:
    """(page, link as written) for the pages reachable from the web's seeds."""
    seen, queue, out = set(web.seeds), deque(web.seeds), []
    while queue and len(seen) < limit:
        page = queue.popleft()
        for link in web.links(page):
            out.append((page, link))
            url = canonical_or_raise(link, page, SAFE_STEPS)
            if url not in seen:
                seen.add(url)
                queue.append(url)
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.builds(
            PowerLawWeb, st.integers(5, 200), st.integers(1, 5), seed=st.integers(0, 99), extra_links=st.integers(0, 4)
        ),
        st.builds(SiteTreeWeb, st.sampled_from(_TREE_HOSTS), st.integers(1, 3), st.integers(0, 3)),
    )
)
def test_a_web_that_spells_identities_writes_only_them(web: Web) -> None:
    """The promise itself: every link, resolved on its page under the RFC
    3986 steps, is unchanged and is its own page."""
    if not web.spells_identities:
        assert isinstance(web, SiteTreeWeb)  # a host whose URLs are not canonical as written
        return
    for page, link in _pages_and_links(web):
        url = canonical_or_raise(link, page, SAFE_STEPS)
        assert web.page_of(url) == url
        if link.startswith("http"):
            assert url == link


def test_which_crawls_the_promise_covers() -> None:
    web = PowerLawWeb(100, 5)
    rfc = parse_steps("rfc3986")
    assert web.fetches_are_identities(rfc, ["http://h0.example/"])
    assert web.fetches_are_identities(rfc, ["HTTP://H0.example:80/#top", "mailto:x", "http://h0.example/nothing"])
    for seeds in (["https://h0.example/"], ["http://www.h0.example/"], ["http://h0.example/p1/"]):
        assert not web.fetches_are_identities(rfc, seeds), seeds  # another spelling of a page
    for mode in ("off", "aggressive", "rfc3986-fragment"):
        assert not web.fetches_are_identities(parse_steps(mode), ["http://h0.example/"]), mode
    assert SiteTreeWeb("a.com").fetches_are_identities(rfc, ["http://a.com/"])
    assert not SiteTreeWeb("a.com:80").fetches_are_identities(rfc, ["http://a.com/"])
    assert not SiteTreeWeb("bücher.de").spells_identities


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.integers(2, 3), st.sampled_from(["host-hash", "url-hash"]))
def test_a_cluster_trace_is_the_same_without_the_webs_identities(data: dict[str, Any], nodes: int, partition: str) -> None:
    """Each node of a simulated cluster (and a restarted one) takes the same
    rule: links reach a node canonicalized by another, so what it fetches is
    still a seed or a canonical link."""
    config = ClusterConfig(nodes=nodes, partition=partition)
    scenario = scenario_from_dict(data, path="<random>")
    run = simulate_cluster(scenario, config, trace=True)
    truth_scenario = scenario_from_dict(data, path="<random>")
    truth_scenario.web.spells_identities = False
    truth = simulate_cluster(truth_scenario, config, trace=True)
    assert list(run.trace) == list(truth.trace)
    assert run.stats == truth.stats and run.finish_time == truth.finish_time
    assert [list(t) for t in run.node_traces] == [list(t) for t in truth.node_traces]


def test_a_subclass_promises_nothing_it_did_not_say() -> None:
    """A subclass may write links of its own (another spelling of a page),
    so it does not inherit the promise: its traced runs keep asking
    ``page_of``, and a duplicate fetch is still seen as one."""

    class WithWww(PowerLawWeb):
        def _links_at(self, key: Any) -> list[str]:
            return [*super()._links_at(key), "http://www.h0.example/"]

    web = WithWww(20, 2)
    assert not web.spells_identities
    assert not web.fetches_are_identities(parse_steps("rfc3986"), ["http://h0.example/"])
    data = {"seed": 1, "crawl": {"scope": "any", "normalize": "rfc3986"}, "web": {"kind": "power_law", "pages": 20, "hosts": 2}}
    run = simulate(replace(scenario_from_dict(data, path="<subclass>"), web=web))
    assert run.stats.duplicate_fetches == 1  # www.h0.example/ is h0.example/ under another spelling
