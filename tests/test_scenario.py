"""Scenario files: shipped ones load and show what they claim; the explicit
form round-trips exactly; every mistake is one clear line."""

from __future__ import annotations

import tracemalloc
from collections import deque
from pathlib import Path

import pytest

from crawlsim.core.options import CrawlOptions
from crawlsim.core.urls import canonicalize, hostname_of
from crawlsim.scenario import Scenario, ScenarioError, load_scenario
from crawlsim.scenario.checks import key_path
from crawlsim.scenario.files import DEFAULT_SCENARIO, find_scenario, list_scenarios, parse_scenario, reseeded, scenario_dirs
from crawlsim.sim import Fixed, LogNormal, PowerLawWeb, Uniform

REPO = Path(__file__).resolve().parent.parent

BRIEF = """\
start = "http://a.com/"          # or a list of seeds
seed = 7                          # random seed for generated parts
[crawl]                           # any crawler option; CLI flags override
workers = 4
per_host = 1
gap = 0.0
normalize = "rfc3986"             # off | fragment | rfc3986 | aggressive
scope = "any"
robots = false
[hosts."a.com"]
latency = 1.0                     # or {model = "lognormal", median = 2.0, sigma = 0.5} or {model = "uniform", low = 0.5, high = 1.5}
[hosts."b.com"]
latency = 3.0
[pages]                           # page URL -> links exactly as written on that page
"http://a.com/" = ["/x", "x#top", "http://b.com/"]
"""


def crawl_order(scenario: Scenario, limit: int = 100_000) -> list[str]:
    """Reference single-worker FIFO crawl honouring normalize and scope=host."""
    opts = scenario.options
    mode = opts.normalize_steps
    seeds = [canonicalize(s, None, mode) for s in scenario.seeds]
    hosts = {hostname_of(s) for s in seeds if s}
    seen = set(seeds)
    queue = deque(s for s in seeds if s)
    order: list[str] = []
    while queue and len(order) < limit:
        url = queue.popleft()
        order.append(url)
        response = scenario.web.response(url)
        for href in response.links:
            c = canonicalize(href, url, mode)
            if c is None or c in seen or (opts.scope == "host" and hostname_of(c) not in hosts):
                continue
            seen.add(c)
            queue.append(c)
    return order


# -- shipped scenarios ------------------------------------------------------------------


def test_the_shipped_set() -> None:
    names = list_scenarios()
    for required in ("see-it", "isro", "interview", "busiest-host", "trap", "variants", "polite", "million", "mirrors"):
        assert required in names
    assert DEFAULT_SCENARIO == "see-it"
    assert load_scenario().name == "see-it"
    assert REPO / "scenarios" in scenario_dirs()


@pytest.mark.parametrize("name", list_scenarios())
def test_every_shipped_scenario_loads(name: str) -> None:
    scenario = load_scenario(name)
    assert scenario.name == name and scenario.title and scenario.description and scenario.tips
    assert scenario.path == find_scenario(name)
    assert isinstance(scenario.options, CrawlOptions)
    for seed in scenario.seeds:
        assert scenario.web.response(seed).status == 200
        assert scenario.latency_for(hostname_of(seed)).mean > 0
    assert load_scenario(scenario.path).options == scenario.options  # by path too
    assert load_scenario(f"{name}.toml").seeds == scenario.seeds


def test_see_it_shows_duplicates_and_the_slow_host() -> None:
    s = load_scenario("see-it")
    assert s.latency_for("b.com").mean == 3 * s.latency_for("a.com").mean
    assert (s.options.per_host, s.options.scope) == (1, "any")
    pages = crawl_order(s)
    assert 10 <= len(pages) <= 16
    by_host = {h: sum(hostname_of(p) == h for p in pages) for h in ("a.com", "b.com")}
    assert by_host == {h: s.web.host_size(h) for h in ("a.com", "b.com")}
    assert by_host["b.com"] * 3.0 > by_host["a.com"] * 1.0  # b.com is the busiest host
    off = crawl_order(s.with_options(normalize="off"))
    assert len(off) > len(pages)  # spelling duplicates are fetched again
    assert {s.web.page_of(u) for u in off} == set(pages)


def test_isro_reproduces_the_hand_trace() -> None:
    s = load_scenario("isro")
    assert s.options.workers == 1
    assert crawl_order(s) == [
        "http://isro.gov.in/",
        "http://isro.gov.in/missions",
        "http://isro.gov.in/gallery",
        "http://wikipedia.org/ISRO",
        "http://isro.gov.in/missions/chandrayaan",
        "http://isro.gov.in/missions/gaganyaan",
        "http://wikipedia.org/Chandrayaan-3",
    ]


def test_interview_answers() -> None:
    assert sorted(crawl_order(load_scenario("interview"))) == ["http://a.com/", "http://a.com/x", "http://a.com/y"]
    scope = load_scenario("interview-scope")
    assert sorted(crawl_order(scope)) == [f"http://a.com/{p}" for p in ("", "1", "2", "3", "x")]
    assert scope.web.response("http://a.com/x").status == 500


def test_busiest_host_bounds_the_crawl() -> None:
    s = load_scenario("busiest-host")
    web = s.web
    assert isinstance(web, PowerLawWeb)
    biggest = web.size_of(0) * s.latency_for("h0.example").mean
    total = web.page_count * s.latency_for("h0.example").mean
    assert biggest > total / 4  # past about four workers, h0.example sets the pace
    assert s.options.per_host == 1


def test_trap_scenario_has_infinite_traps_behind_the_first_links() -> None:
    s = load_scenario("trap")
    assert s.options.max_pages is not None
    home = s.web.links("http://a.com/")
    assert home[0].startswith("/cal/") and home[1].startswith("/shop")
    pages = crawl_order(s, limit=s.options.max_pages)
    assert sum("/cal/" not in p and "/shop" not in p for p in pages) == 40  # BFS gets the whole site


def test_variants_scenario_has_duplicates_until_aggressive() -> None:
    s = load_scenario("variants")
    counts = {m: len(crawl_order(s.with_options(normalize=m))) for m in ("off", "rfc3986", "aggressive")}
    assert counts["off"] > counts["rfc3986"] > counts["aggressive"] == 400


def test_polite_scenario_behaviour() -> None:
    s = load_scenario("polite")
    assert s.options.robots
    robots = s.web.robots_txt("a.com")
    assert robots is not None and "Disallow: /private/" in robots and "Crawl-delay: 2" in robots
    api = [s.web.response(f"http://b.com/api/{i}") for i in range(1, 7)]
    refused = [r for r in api if r.status == 429]
    assert refused and all(r.headers["Retry-After"] == "5" for r in refused)
    assert all(s.web.response(f"http://b.com/api/{i}", attempt=2).status == 200 for i in range(1, 7))


def test_million_scenario_is_lazy() -> None:
    tracemalloc.start()
    try:
        s = load_scenario("million")
        s.web.links(s.seeds[0])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000  # nothing stored per page or per edge
    assert isinstance(s.web, PowerLawWeb) and s.web.page_count == 1_000_000 and s.web.host_count == 10_000
    assert s.options.workers == 64


def test_mirrors_scenario_shares_content() -> None:
    s = load_scenario("mirrors")
    a, b = s.web.response("http://docs.example/2/1"), s.web.response("http://mirror.example/2/1")
    assert a.page != b.page and a.content == b.content
    sizes = {host: s.web.host_size(host) for host in s.web.hosts()}
    assert sizes == {"mirror.example": 40, "docs.example": 40, "start.example": 1}


# -- the explicit form ---------------------------------------------------------------------


def test_the_brief_form_round_trips_exactly(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(BRIEF)
    s = load_scenario(path)
    assert (s.name, s.path, s.seeds, s.seed) == ("mine", path, ["http://a.com/"], 7)
    o = s.options
    assert (o.workers, o.per_host, o.gap, o.normalize, o.scope, o.robots, o.seed) == (
        4,
        1,
        0.0,
        "rfc3986",
        "any",
        False,
        7,
    )
    assert s.latency_for("a.com") == Fixed(1.0) and s.latency_for("b.com") == Fixed(3.0)
    assert s.web.links("http://a.com/") == ["/x", "x#top", "http://b.com/"]
    assert s.web.links("http://a.com/x") == [] and s.web.response("http://a.com/x").status == 200
    assert s.web.page_of("http://a.com/x#top") == "http://a.com/x"


def test_latency_forms_and_defaults() -> None:
    s = parse_scenario(
        """
        [hosts."*"]
        latency = {model = "uniform", low = 0.5, high = 1.5}
        [hosts."a.com"]
        latency = {model = "lognormal", median = 2.0, sigma = 0.5}
        [pages]
        "http://a.com/" = []
        """
    )
    assert s.latency_for("a.com") == LogNormal(2.0, 0.5)
    assert s.latency_for("zzz.org") == Uniform(0.5, 1.5)
    assert parse_scenario('[pages]\n"http://a.com/" = []').latency_for("a.com") == Fixed(1.0)


def test_start_list_and_generated_defaults() -> None:
    s = parse_scenario(
        'start = ["http://h1.example/", "http://h2.example/"]\n[web]\nkind = "power_law"\npages = 50\nhosts = 5'
    )
    assert s.seeds == ["http://h1.example/", "http://h2.example/"]
    assert parse_scenario('[web]\nkind = "site_tree"\nhost = "t.org"').seeds == ["http://t.org/"]


def test_cli_overrides() -> None:
    s = load_scenario("see-it")
    t = s.with_options(workers=1, normalize="off", per_host=None)
    assert (t.options.workers, t.options.normalize, t.options.per_host) == (1, "off", None)
    assert s.options.workers == 4 and t.web is s.web
    with pytest.raises(ScenarioError, match=r"workrs: unknown crawler option; did you mean 'workers'\?"):
        s.with_options(workrs=2)
    with pytest.raises(ScenarioError, match="workers: expected a whole number >= 1"):
        s.with_options(workers=0)


def test_reseeding_changes_the_generated_web_and_keeps_overrides() -> None:
    s = load_scenario("busiest-host").with_options(workers=3)
    t = reseeded(s, 99)
    assert t.seed == 99 and t.options.workers == 3 and t.options.seed == 99
    probe = [PowerLawWeb.url(0, k) for k in range(1, 30)]
    assert [s.web.links(u) for u in probe] != [t.web.links(u) for u in probe]


# -- validation -----------------------------------------------------------------------------


def test_key_path_quotes_like_toml() -> None:
    assert key_path("hosts", "b.com", "latency", "median") == 'hosts."b.com".latency.median'
    assert key_path("pages", "http://a.com/", 2) == 'pages."http://a.com/"[2]'


PAGE = '\n[pages]\n"http://a.com/" = []\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[crawl]\nwrokers = 4" + PAGE, "bad.toml: crawl.wrokers: unknown crawler option; did you mean 'workers'?"),
        ('strat = "http://a.com/"' + PAGE, "bad.toml: strat: unknown key; did you mean 'start'?"),
        (
            '[hosts."a.com"]\nlatncy = 1' + PAGE,
            "bad.toml: hosts.\"a.com\".latncy: unknown key; did you mean 'latency'?",
        ),
        ('[crawl]\nworkers = "four"' + PAGE, 'bad.toml: crawl.workers: expected a whole number, got "four"'),
        ("[crawl]\nworkers = 0" + PAGE, "bad.toml: crawl.workers: expected a whole number >= 1, got 0"),
        ('[crawl]\nrobots = "yes"' + PAGE, 'bad.toml: crawl.robots: expected true or false, got "yes"'),
        ('[crawl]\nper_host = "nobody"' + PAGE, 'bad.toml: crawl.per_host: expected a whole number (or none), got "nobody"'),
        ('[crawl]\nnormalize = "rfc"' + PAGE, "bad.toml: crawl.normalize: unknown normalization 'rfc'"),
        (
            '[hosts."b.com"]\nlatency = {model = "lognormal", median = "fast"}' + PAGE,
            'bad.toml: hosts."b.com".latency.median: expected a number of seconds, got "fast"',
        ),
        (
            '[hosts."b.com"]\nlatency = {model = "lognorm", median = 1}' + PAGE,
            'bad.toml: hosts."b.com".latency.model: expected one of fixed, uniform, lognormal; got "lognorm"; did you mean',
        ),
        ('[hosts."b.com"]\nlatency = "slow"' + PAGE, 'bad.toml: hosts."b.com".latency: expected seconds as a number'),
        (
            '[hosts."b.com"]\nlatency = {model = "uniform", low = 1}' + PAGE,
            'bad.toml: hosts."b.com".latency.high: missing; a uniform latency needs low, high',
        ),
        ('[pages]\n"http://a.com/" = "/x"', 'bad.toml: pages."http://a.com/": expected a list of links as written'),
        ('[pages]\n"http://a.com/" = ["/x", 3]', 'bad.toml: pages."http://a.com/"[1]: expected a string, got 3'),
        ('[pages]\n"a.com/" = []', 'bad.toml: pages."a.com/": expected pages keyed by absolute http(s) URLs'),
        (
            '[web]\nkind = "powerlaw"',
            "bad.toml: web.kind: expected one of explicit, site_tree, power_law; got \"powerlaw\"; did you mean 'power_law'?",
        ),
        (
            '[web]\nkind = "power_law"\npages = 5\nhosts = 10',
            "bad.toml: web.pages: expected a whole number >= 10, got 5",
        ),
        (
            '[hosts."a.com"]\nfail_rate = 1.5' + PAGE,
            'bad.toml: hosts."a.com".fail_rate: expected a rate between 0 and 1, got 1.5',
        ),
        (
            '[hosts."a.com"]\nthrottle = {rate = 0.5, retry = 2}' + PAGE,
            "hosts.\"a.com\".throttle.retry: unknown key; did you mean 'retry_after'?",
        ),
        (
            '[web]\nkind = "site_tree"\n[[traps]]\nkind = "calender"',
            "bad.toml: traps[0].kind: expected one of calendar, session",
        ),
        (
            '[web]\nkind = "site_tree"\n[[traps]]\nkind = "calendar"\nhost = "z.com"',
            'bad.toml: traps[0].linked_from: no page "http://z.com/"',
        ),
        (
            'start = "ftp://x"' + PAGE,
            'bad.toml: start: expected an absolute http(s) URL such as "http://a.com/", got "ftp://x"',
        ),
        # the command line's rules, in its words: a priority alone means order = "best"
        ('[crawl]\norder = "best"' + PAGE, "bad.toml: crawl.priority: order = 'best' needs a priority function: a name (shallowest"),
        ('[crawl]\norder = "dfs"\npriority = "shallowest"' + PAGE, 'bad.toml: crawl.priority: a priority orders a best-first crawl only; got order dfs (use order "best")'),
        ('[crawl]\norder = "best"\npriority = "shalowest"' + PAGE, "bad.toml: crawl.priority: expected one of shallowest, host-round-robin, shortest-url (or a function in Python); got 'shalowest'; did you mean 'shallowest'?"),
        ("seed = 1", "bad.toml: expected a [pages] table (links by page) or a [web] table"),
        ("[crawl]\nworkers = \n" + PAGE, "bad.toml: line 2, column 11: invalid TOML:"),
        ('title = "x"\n[pages\n', "bad.toml: line 2, column 7: invalid TOML:"),
    ],
)
def test_errors_name_file_key_and_expectation(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    message = str(err.value)
    assert message.startswith(str(tmp_path)), message
    assert expected in message, message
    assert "\n" not in message and "Traceback" not in message


def test_unknown_shipped_name_suggests_the_nearest() -> None:
    with pytest.raises(
        ScenarioError, match=r"no scenario file or shipped scenario named \"see_it\"; did you mean 'see-it'\?"
    ):
        load_scenario("see_it")
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario("/no/such/dir/x.toml")


def test_errors_are_value_errors_with_parts(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('[hosts."b.com"]\nlatency = -1' + PAGE)
    with pytest.raises(ValueError) as err:
        load_scenario(path)
    assert isinstance(err.value, ScenarioError)
    assert (err.value.path, err.value.key) == (str(path), 'hosts."b.com".latency')
    assert err.value.message == "expected a number >= 0, got -1"


def test_a_priority_alone_means_best_first_in_a_file_as_on_the_command_line() -> None:
    """One rule for [crawl] and the flags: `priority = NAME` alone orders the crawl best-first,
    as `--priority NAME` does."""
    scenario = parse_scenario('[crawl]\npriority = "shallowest"' + PAGE)
    assert scenario.options.order == "best"
    assert scenario.options.priority is not None
