"""A generated web whose hosts are not all alike: `hosts."h0.example".pages`
and the host keys every host has (latency, robots, failures, throttle), each
checked like every other key, and the shipped question they answer: one big,
slow host among fifty."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from crawlsim.scenario import ScenarioError, load_scenario
from crawlsim.scenario.files import parse_scenario
from crawlsim.sim.advisor import assess
from crawlsim.sim.driver import simulate
from crawlsim.sim.generated import PowerLawWeb

WEB = '[web]\nkind = "power_law"\npages = 200\nhosts = 10\nzipf = 0\n[crawl]\nscope = "any"\n'


def test_a_host_of_a_generated_web_gets_its_own_size_latency_and_failures() -> None:
    text = WEB + (
        '[hosts."*"]\nlatency = 0.1\n'
        '[hosts."h3.example"]\npages = 95\nlatency = 2.0\nfail_rate = 1.0\nfail_status = 500\n'
        'robots = "User-agent: *\\nCrawl-delay: 3\\n"\n'
    )
    scenario = parse_scenario(text, "x.toml").with_options(robots=True)
    web = scenario.web
    assert isinstance(web, PowerLawWeb)
    assert web.host_size("h3.example") == 95
    assert [web.host_size(f"h{i}.example") for i in (0, 1, 9)] == [20, 20, 20]  # the others keep their share
    assert web.page_count == 9 * 20 + 95
    assert scenario.size.pages == web.page_count
    run = simulate(scenario, series=False)
    assert run.host_page_fetches["h3.example"] > 0
    assert run.host_min_latency["h3.example"] == 2.0
    assert run.host_crawl_delay["h3.example"] == 3.0
    assert all(url.startswith("http://h3.example/") for url in run.failures)
    assert run.failures  # every page of h3.example that was found failed, and only those
    assert run.stats.pages_fetched == 9 * 20


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            WEB + '[hosts."h10.example"]\npages = 5\n',
            'x.toml: hosts."h10.example".pages: the generated web has no host "h10.example"; '
            "its hosts are h0.example .. h9.example",
        ),
        (
            WEB + '[hosts."h12.example"]\nlatency = 5\n',
            'x.toml: hosts."h12.example": the generated web has no host "h12.example"; '
            "its hosts are h0.example .. h9.example",
        ),
        (WEB + '[hosts."h1.example"]\npages = 0\n', 'x.toml: hosts."h1.example".pages: expected a whole number >= 1'),
        (WEB + '[hosts."h1.example"]\npages = "big"\n', 'x.toml: hosts."h1.example".pages: expected a whole number'),
        (WEB + '[hosts."*"]\npages = 5\n', 'x.toml: hosts."*".pages: expected a named host'),
        (
            '[hosts."a.com"]\npages = 5\n[pages]\n"http://a.com/" = []\n',
            'x.toml: hosts."a.com".pages: only a generated web (kind = "power_law") sizes a host; '
            "this web is explicit: list its pages in [pages]",
        ),
        (
            '[web]\nkind = "site_tree"\nhost = "a.com"\n[hosts."a.com"]\npages = 5\n',
            'x.toml: hosts."a.com".pages: only a generated web (kind = "power_law") sizes a host; '
            "this web is site_tree: its size is branching and depth",
        ),
        (
            WEB + '[hosts."h1.example"]\npage = 5\n',
            "x.toml: hosts.\"h1.example\".page: unknown key; did you mean 'pages'?",
        ),
    ],
)
def test_a_bad_host_override_is_one_line_naming_file_and_key(text: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(text, "x.toml")
    message = str(err.value)
    assert message.startswith(expected), message
    assert "\n" not in message


def test_the_command_line_refuses_a_bad_override_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text(WEB + '[hosts."h99.example"]\npages = 5\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "crawlsim", "run", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f'crawlsim: error: {path}: hosts."h99.example".pages: the generated web has no host')
    assert len(done.stderr.splitlines()) == 1


def test_one_big_host_holds_the_crawl_whatever_the_workers() -> None:
    """The shipped question: 50 hosts, one of them ten times larger and slower."""
    scenario = load_scenario("one-big-host")
    web = scenario.web
    assert isinstance(web, PowerLawWeb) and web.host_count == 50
    sizes = [web.host_size(f"h{i}.example") for i in range(50)]
    assert sizes[0] == 10 * sizes[1] and len(set(sizes[1:])) == 1
    run = simulate(scenario, series=False)
    bounds, advice = assess(scenario, run)
    assert bounds.binding == "busiest_host" and bounds.busiest_host_name == "h0.example"
    assert bounds.explanation.startswith("h0.example holds the crawl at")
    by_knob = {c.knob: c for c in advice.counterfactuals}
    assert by_knob["workers"].change > -0.01  # twice the workers: no real change
    assert by_knob["per_host"].finish_time < 0.8 * run.finish_time  # its own limit moves the finish
    assert max(run.host_busy, key=run.host_busy.__getitem__) == "h0.example"
