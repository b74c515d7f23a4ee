"""Synthetic webs and latency models: determinism, laziness, reachability,
spelling variants, server behaviour, traps, mirrors."""

from __future__ import annotations

import random
import statistics
import tracemalloc
from collections import deque
from collections.abc import Iterable
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.core.urls import canonicalize, host_of, hostname_of
from crawlsim.sim import (
    CalendarTrap,
    CombinedWeb,
    ExplicitWeb,
    Fixed,
    HostPolicies,
    HostPolicy,
    LatencySpecError,
    LatencyTable,
    LogNormal,
    MirrorWeb,
    PageSpec,
    PowerLawWeb,
    SessionTrap,
    SiteTreeWeb,
    Throttle,
    Uniform,
    Variants,
    Web,
    latency_from_spec,
    spell,
)
from crawlsim.sim.text import WORDS_PER_PAGE, content_text, near_key
from crawlsim.sim.variants import KINDS, RISKY_KINDS, SAFE_KINDS

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def bfs(web: Web, seeds: Iterable[str], mode: str = "rfc3986", limit: int | None = None) -> list[str]:
    """Plain breadth-first search over ``web.links`` (the reference crawl)."""
    queue: deque[str] = deque()
    seen: set[str] = set()
    for s in seeds:
        c = canonicalize(s, None, mode)
        assert c is not None
        if c not in seen:
            seen.add(c)
            queue.append(c)
    order: list[str] = []
    while queue and (limit is None or len(order) < limit):
        url = queue.popleft()
        order.append(url)
        for href in web.links(url):
            c = canonicalize(href, url, mode)
            if c is not None and c not in seen:
                seen.add(c)
                queue.append(c)
    return order


# -- determinism -------------------------------------------------------------------


@FAST
@given(seed=st.integers(0, 2**40), host=st.integers(0, 49), page=st.integers(0, 10_000))
def test_power_law_is_a_function_of_its_seed(seed: int, host: int, page: int) -> None:
    a = PowerLawWeb(20_000, 50, seed=seed, duplicate_rate=0.1, near_duplicate_rate=0.1)
    b = PowerLawWeb(20_000, 50, seed=seed, duplicate_rate=0.1, near_duplicate_rate=0.1)
    url = PowerLawWeb.url(host, page % a.size_of(host))
    assert a.links(url) == b.links(url)
    assert a.response(url) == b.response(url)
    assert a.response(url).content == b.response(url).content


def test_different_seeds_give_different_webs() -> None:
    urls = [PowerLawWeb.url(0, k) for k in range(1, 50)]
    a, b = PowerLawWeb(5000, 10, seed=1), PowerLawWeb(5000, 10, seed=2)
    assert [a.links(u) for u in urls] != [b.links(u) for u in urls]


def test_variants_and_failures_are_deterministic() -> None:
    def build() -> Web:
        web = PowerLawWeb(500, 5, seed=9)
        return web.configure(
            policies=HostPolicies(HostPolicy(fail_rate=0.3, throttle=Throttle(rate=0.2)), seed=9),
            variants=Variants(0.5, seed=9),
        )

    a, b = build(), build()
    for k in range(200):
        url = PowerLawWeb.url(k % 5, k % 40)
        assert a.response(url, attempt=1 + k % 3) == b.response(url, attempt=1 + k % 3)


# -- laziness and speed --------------------------------------------------------


def test_million_page_web_is_lazy_and_small() -> None:
    tracemalloc.start()
    try:
        web = PowerLawWeb(1_000_000, 10_000, seed=1)
        for url in ("http://h0.example/", "http://h0.example/p99999", "http://h9999.example/", "http://h17.example/p3"):
            assert web.links(url)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"building the million-page web allocated {peak} bytes"
    assert sum(web.size_of(h) for h in range(10_000)) == 1_000_000
    assert web.size_of(0) > 50 * web.size_of(9999)  # skewed host sizes
    assert web.host_size("h0.example") == web.size_of(0)


def test_link_generation_is_a_pure_function_of_the_url() -> None:
    """Links are derived on demand, never stored: asking twice (in any order)
    gives the same links, and a million-page web answers pages on every host.
    (What a page costs is measured by benchmarks/link_generation.py.)"""
    web = PowerLawWeb(1_000_000, 10_000, seed=1)
    urls = [PowerLawWeb.url(h, (h * 7919) % web.size_of(h)) for h in range(0, 10_000, 7)]
    first = [web.links(url) for url in urls]
    assert all(first)
    assert [web.links(url) for url in reversed(urls)] == first[::-1]


# -- reachability ------------------------------------------------------------------


@FAST
@given(
    seed=st.integers(0, 2**32),
    hosts=st.integers(1, 40),
    extra=st.integers(1, 3000),
    zipf=st.floats(0.0, 2.0),
    branching=st.integers(1, 6),
    extra_links=st.integers(0, 4),
)
def test_every_power_law_page_is_reachable(
    seed: int, hosts: int, extra: int, zipf: float, branching: int, extra_links: int
) -> None:
    web = PowerLawWeb(hosts + extra, hosts, seed=seed, zipf=zipf, branching=branching, extra_links=extra_links)
    found = bfs(web, web.seeds)
    assert len(found) == hosts + extra
    assert {hostname_of(u) for u in found} == set(web.hosts())
    assert all(web.response(u).status == 200 for u in found[:50])


@pytest.mark.parametrize(("branching", "depth"), [(1, 0), (1, 5), (3, 3), (5, 2)])
def test_every_site_tree_page_is_reachable(branching: int, depth: int) -> None:
    web = SiteTreeWeb("a.com", branching, depth)
    found = bfs(web, web.seeds)
    assert len(found) == web.host_size("a.com")
    assert all(web.response(u).status == 200 for u in found)


def test_missing_pages_and_unknown_hosts_are_404() -> None:
    web = PowerLawWeb(100, 10, seed=1)
    assert web.response(PowerLawWeb.url(9, web.size_of(9))).status == 404
    assert web.response("http://h10.example/").status == 404
    assert web.response("http://elsewhere.org/").status == 404
    assert web.links("http://h10.example/") == []
    tree = SiteTreeWeb("a.com", 2, 2)
    assert tree.response("http://a.com/2").status == 404
    assert tree.response("http://a.com/0/1/0").status == 404


# -- spelling variants ---------------------------------------------------------------


@FAST
@given(host=st.integers(0, 19), page=st.integers(0, 999), kind=st.sampled_from(KINDS), r=st.integers(0, 2**32))
def test_every_variant_names_the_same_page(host: int, page: int, kind: str, r: int) -> None:
    web = PowerLawWeb(2000, 20, seed=3)
    url = PowerLawWeb.url(host, page % web.size_of(host))
    variant = spell(url, kind, r)
    absolute = canonicalize(variant, url, "off")
    assert absolute is not None
    assert web.page_of(absolute) == url
    assert web.links(absolute) == web.links(url)
    assert web.response(absolute).content_key == web.response(url).content_key
    if kind in SAFE_KINDS:
        assert canonicalize(variant, url, "rfc3986") == url
    assert canonicalize(variant, url, "aggressive") == canonicalize(url, None, "aggressive")


def test_site_tree_and_trap_variants_name_the_same_page() -> None:
    tree = SiteTreeWeb("a.com", 3, 2)
    for kind in KINDS:
        variant = canonicalize(spell("http://a.com/1/2", kind, 5), "http://a.com/", "off")
        assert variant is not None and tree.page_of(variant) == "http://a.com/1/2"
    cal = CalendarTrap("a.com")
    assert cal.page_of("HTTP://WWW.A.com:80/cal/2024-03-01/?sid=9#x") == "http://a.com/cal/2024-03-01"


def test_variant_rate_sets_duplicates_that_only_aggressive_removes() -> None:
    web = PowerLawWeb(300, 6, seed=5).configure(variants=Variants(0.3, seed=5))
    written = [link for h in range(6) for k in range(web.size_of(h)) for link in web.links(PowerLawWeb.url(h, k))]
    plain = PowerLawWeb(300, 6, seed=5)
    baseline = [link for h in range(6) for k in range(plain.size_of(h)) for link in plain.links(PowerLawWeb.url(h, k))]
    changed = sum(a != b for a, b in zip(written, baseline, strict=True)) / len(written)
    assert 0.2 < changed < 0.4
    off, rfc, aggressive = (bfs(web, web.seeds, mode) for mode in ("off", "rfc3986", "aggressive"))
    pages = {web.page_of(u) for u in aggressive}
    assert len(pages) == len(aggressive) == 300  # aggressive: every page once, no duplicates
    assert {web.page_of(u) for u in rfc} == pages == {web.page_of(u) for u in off}
    assert len(off) > len(rfc) > len(aggressive)


def test_risky_variants_survive_rfc3986() -> None:
    url = "http://h1.example/p5"
    for kind in RISKY_KINDS:
        assert canonicalize(spell(url, kind, 1), url, "rfc3986") != url


# -- explicit webs -------------------------------------------------------------------


def test_explicit_links_are_exactly_as_written() -> None:
    web = ExplicitWeb({"http://a.com/": ["/x", "x#top", "http://b.com/"], "http://a.com/x": []})
    assert web.links("http://a.com/") == ["/x", "x#top", "http://b.com/"]
    assert web.links("HTTP://A.com:80/./#frag") == ["/x", "x#top", "http://b.com/"]
    assert web.page_of("http://a.com/x#top") == web.page_of("http://A.COM/./x") == "http://a.com/x"
    assert web.page_of("http://a.com/x/") == "http://a.com/x/"  # a different page
    assert web.response("http://b.com/").status == 200  # linked, no entry: a page without links
    assert web.links("http://b.com/") == []
    assert web.response("https://a.com/").links == ["/x", "x#top", "http://b.com/"]
    assert web.seeds == ("http://a.com/",)
    assert list(web.hosts()) == ["a.com", "b.com"]
    assert (web.host_size("a.com"), web.host_size("b.com"), web.host_size("c.com")) == (2, 1, None)


def test_explicit_page_specs_and_duplicates() -> None:
    web = ExplicitWeb(
        {
            "http://a.com/": PageSpec(("/gone",)),
            "http://a.com/gone": PageSpec(status=410),
            "http://a.com/1": PageSpec(content="same words"),
            "http://m.com/1": PageSpec(content="same words"),
        }
    )
    assert web.response("http://a.com/gone").status == 410
    assert web.response("http://a.com/1").content == web.response("http://m.com/1").content == "same words"
    with pytest.raises(ValueError, match="same page"):
        ExplicitWeb({"http://a.com/": [], "http://A.com/#x": []})


# -- server behaviour ---------------------------------------------------------------


def test_failures_are_transient_and_near_their_rate() -> None:
    web = PowerLawWeb(5000, 1, seed=2).configure(policies=HostPolicies(HostPolicy(fail_rate=0.3, fail_status=503)))
    urls = [PowerLawWeb.url(0, k) for k in range(2000)]
    first = [web.response(u).status for u in urls]
    assert set(first) == {200, 503}
    assert 0.25 < first.count(503) / len(first) < 0.35
    third_try = [web.response(u, attempt=3).status for u, s in zip(urls, first, strict=True) if s == 503]
    assert 0.2 < third_try.count(503) / len(third_try) < 0.4  # a retry draws afresh


def test_dead_pages_stay_dead() -> None:
    web = SiteTreeWeb("a.com", 4, 3).configure(policies=HostPolicies(hosts={"a.com": HostPolicy(dead_rate=0.25)}))
    urls = bfs(SiteTreeWeb("a.com", 4, 3), ["http://a.com/"])
    dead = [u for u in urls if web.response(u).status == 404]
    assert 0.1 < len(dead) / len(urls) < 0.4
    assert all(web.response(u, attempt=4).status == 404 for u in dead)


def test_throttle_by_page_sends_retry_after_then_lets_through() -> None:
    throttle = Throttle(status=429, retry_after=2.5, rate=0.5, attempts=2)
    web = SiteTreeWeb("a.com", 4, 3).configure(policies=HostPolicies(hosts={"a.com": HostPolicy(throttle=throttle)}))
    urls = bfs(SiteTreeWeb("a.com", 4, 3), ["http://a.com/"])
    refused = [u for u in urls if web.response(u).status == 429]
    assert 0.3 < len(refused) / len(urls) < 0.7
    assert web.response(refused[0]).headers == {"Retry-After": "3"}
    assert web.response(refused[0], attempt=2).status == 429
    assert web.response(refused[0], attempt=3).status == 200


def test_throttle_bursts_in_time() -> None:
    throttle = Throttle(status=503, every=10.0, duration=3.0)
    web = SiteTreeWeb("a.com", 2, 2).configure(policies=HostPolicies(HostPolicy(throttle=throttle)))
    statuses = [web.response("http://a.com/0", now=t / 10).status for t in range(1000)]
    assert 0.25 < statuses.count(503) / len(statuses) < 0.35
    assert web.response("http://a.com/0").status == 200  # no clock, no bursts
    t = next(t / 10 for t in range(1000) if web.response("http://a.com/0", now=t / 10).status == 503)
    assert 1 <= int(web.response("http://a.com/0", now=t).headers["Retry-After"]) <= 3


def test_robots_txt_per_host() -> None:
    text = "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"
    web = ExplicitWeb({"http://a.com/": []}).configure(policies=HostPolicies(hosts={"a.com": HostPolicy(robots=text)}))
    assert web.robots_txt("a.com") == web.robots_txt("A.COM") == text
    assert web.robots_txt("b.com") is None
    served = web.response("http://a.com/robots.txt")
    assert (served.status, served.body, served.content) == (200, text, text)
    assert web.response("http://b.com/robots.txt").status == 404


# -- traps ------------------------------------------------------------------------------


def test_calendar_never_ends() -> None:
    cal = CalendarTrap("a.com", "/cal/", date(2024, 12, 30))
    url = "http://a.com/cal/2024-12-30"
    for _ in range(400):
        nxt = cal.links(url)[0]
        url = canonicalize(nxt, url) or ""
    assert url == "http://a.com/cal/2026-02-03"
    assert cal.response("http://a.com/cal/2024-02-30").status == 404


def test_session_trap_is_infinite_unless_session_ids_are_stripped() -> None:
    site = ExplicitWeb({"http://a.com/": []})
    shop = SessionTrap("a.com", "/shop", items=3)
    web = CombinedWeb([shop, site], entries={"http://a.com/": [shop.entry]})
    urls = bfs(web, ["http://a.com/"], "rfc3986", limit=300)
    assert len(urls) == 300  # still going
    assert len({web.page_of(u) for u in urls}) == 5  # home, catalog, three items
    assert len(bfs(web, ["http://a.com/"], "aggressive")) == 5


def test_trap_entry_comes_first_so_depth_first_falls_in() -> None:
    tree = SiteTreeWeb("a.com", 2, 2)
    cal = CalendarTrap("a.com")
    web = CombinedWeb([cal, tree], entries={"http://a.com/": [cal.entry]})
    assert web.links("http://a.com/")[0] == "/cal/2024-01-01"
    assert web.links("http://a.com/0") == tree.links("http://a.com/0")
    assert web.response("http://a.com/9").status == 404  # the tree's verdict, not a blank page


# -- content: mirrors and near-duplicates -----------------------------------------------


def test_mirror_shares_content_under_other_urls() -> None:
    docs = SiteTreeWeb("docs.example", 3, 2)
    web = CombinedWeb([MirrorWeb("mirror.example", "docs.example", docs), docs])
    original, mirror = web.response("http://docs.example/1/2"), web.response("http://mirror.example/1/2")
    assert original.page != mirror.page
    assert original.content_key == mirror.content_key and original.content == mirror.content
    assert web.host_size("mirror.example") == web.host_size("docs.example") == 13
    assert len(bfs(web, ["http://docs.example/", "http://mirror.example/"])) == 26


def test_duplicates_and_near_duplicates() -> None:
    web = PowerLawWeb(3000, 3, seed=8, duplicate_rate=0.2, near_duplicate_rate=0.2)
    texts = {}
    for h in range(3):
        for k in range(web.size_of(h)):
            texts[PowerLawWeb.url(h, k)] = web.response(PowerLawWeb.url(h, k)).content
    distinct = len(set(texts.values()))
    assert 0.7 < distinct / len(texts) < 0.9  # exact copies share a text
    parent = {
        u: PowerLawWeb.url(int(u[8:].split(".")[0]), (int(u.rsplit("/p", 1)[1]) - 1) // 4) for u in texts if "/p" in u
    }
    diffs = [sum(a != b for a, b in zip(texts[u].split(), texts[p].split(), strict=True)) for u, p in parent.items()]
    near = [d for d in diffs if d == 1]  # a near-duplicate differs in its last word only
    assert 0.1 < len(near) / len(diffs) < 0.3
    assert len(content_text("x").split()) == WORDS_PER_PAGE
    key = "http://a.com/1"
    assert content_text(near_key(key, "v1")).split()[:-1] == content_text(key).split()[:-1]
    assert content_text(near_key(key, "v1")) != content_text(key)


# -- latency models ----------------------------------------------------------------------


def test_lognormal_statistics() -> None:
    model = LogNormal(median=2.0, sigma=0.5)
    rng = random.Random(1)
    samples = [model.sample(rng) for _ in range(20_000)]
    assert statistics.median(samples) == pytest.approx(2.0, rel=0.03)
    assert statistics.fmean(samples) == pytest.approx(model.mean, rel=0.03)
    assert model.mean > model.median


def test_uniform_and_fixed() -> None:
    rng = random.Random(2)
    uniform = Uniform(0.5, 1.5)
    samples = [uniform.sample(rng) for _ in range(10_000)]
    assert min(samples) >= 0.5 and max(samples) <= 1.5
    assert statistics.fmean(samples) == pytest.approx(uniform.mean, rel=0.02)
    assert Fixed(3.0).sample(rng) == Fixed(3.0).mean == Fixed(3.0).median == 3.0


def test_latency_is_seeded() -> None:
    model = LogNormal(1.0, 0.8)
    a, b = random.Random(5), random.Random(5)
    assert [model.sample(a) for _ in range(10)] == [model.sample(b) for _ in range(10)]


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32),
    model=st.one_of(
        st.builds(LogNormal, st.floats(0.001, 100.0), st.floats(0.0, 3.0)),
        st.builds(lambda low, extra: Uniform(low, low + extra), st.floats(0.0, 10.0), st.floats(0.0, 10.0)),
        st.builds(Fixed, st.floats(0.0, 100.0)),
    ),
)
def test_a_sampler_draws_what_sample_draws(seed: int, model: LogNormal | Uniform | Fixed) -> None:
    """The simulation draws through ``sampler`` (fewer calls per fetch); the
    floats, and what is left of the stream, are those of ``sample``."""
    a, b = random.Random(seed), random.Random(seed)
    draw = model.sampler(b)
    assert [draw() for _ in range(300)] == [model.sample(a) for _ in range(300)]
    assert a.random() == b.random()


@pytest.mark.parametrize(
    "spec",
    [
        1.5,
        {"model": "fixed", "value": 2.0},
        {"model": "uniform", "low": 0.5, "high": 1.5},
        {"model": "lognormal", "median": 2.0, "sigma": 0.5},
    ],
)
def test_latency_specs_round_trip(spec: object) -> None:
    model = latency_from_spec(spec)
    assert latency_from_spec(model.to_spec()) == model


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        ("fast", "", "expected seconds"),
        ({"model": "gamma"}, "model", "lognormal"),
        ({"model": "lognormal", "median": 0}, "median", "> 0"),
        ({"model": "uniform", "low": 2, "high": 1}, "high", ">= low"),
        ({"model": "fixed", "valu": 1}, "valu", "did you mean 'value'"),
    ],
)
def test_bad_latency_specs(spec: object, key: str, words: str) -> None:
    with pytest.raises(LatencySpecError) as err:
        latency_from_spec(spec)
    assert err.value.key == key and words in err.value.message


def test_latency_table_falls_back_sensibly() -> None:
    table = LatencyTable(Fixed(1.0), {"a.com": Fixed(2.0)})
    assert table.for_host("a.com").mean == 2.0
    assert table.for_host("A.COM:80").mean == 2.0
    assert table.for_host("www.a.com").mean == 2.0
    assert table.for_host("b.com").mean == 1.0


def test_host_of_generated_pages() -> None:
    web = PowerLawWeb(1000, 10, seed=0)
    assert {host_of(u) for u in bfs(web, web.seeds)} == set(web.hosts())
