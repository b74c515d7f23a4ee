"""Named best-first priorities (``--order best --priority NAME``): the crawl
really takes the frontier's best URL at every start, the same options give the
same order on every run, and the CLI says which priority it used."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cli import main
from crawlsim.core import CrawlOptions
from crawlsim.trace.events import Discovered, FetchStarted
from crawlsim.core.priorities import PRIORITIES, priority_named
from tests.fakeclock import run_fake

HOSTS = ["a.com", "b.com", "c.org"]


@st.composite
def webs(draw: st.DrawFn) -> tuple[dict[str, list[str]], dict[str, float]]:
    """Pages on a few hosts with paths of varied length, random links, random latencies."""
    n = draw(st.integers(2, 25))
    pages = [f"http://{draw(st.sampled_from(HOSTS))}/{'p' * draw(st.integers(1, 4))}{i}" for i in range(n)]
    pages[0] = "http://a.com/"
    graph = {p: [pages[j] for j in draw(st.lists(st.integers(0, n - 1), max_size=5))] for p in pages}
    latency = {p: draw(st.sampled_from([0.5, 1.0, 2.0, 3.5])) for p in pages}
    return graph, latency


PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(webs(), st.sampled_from(sorted(PRIORITIES)), st.integers(1, 5), st.sampled_from(["per-host", "fifo"]))
def test_every_start_takes_a_best_url_of_the_frontier(web, name: str, workers: int, frontier: str) -> None:
    """With no politeness in the way, each fetch that starts has the lowest
    priority of everything queued at that moment (replayed with a fresh copy
    of the priority over the crawl's own Discovered events, in their order)."""
    graph, latency = web
    opts = CrawlOptions(workers=workers, order="best", priority=name, frontier=frontier, scope="any")
    run = run_fake(graph, ["http://a.com/"], opts, latency=lambda u: latency.get(u, 1.0))
    replay = priority_named(name)
    queued: dict[str, float] = {}
    for event in run.events:
        if isinstance(event, Discovered):
            queued[event.url] = replay(event.url, event.depth)
        elif isinstance(event, FetchStarted) and event.kind == "page":
            mine = queued.pop(event.url)
            assert all(mine <= other for other in queued.values()), (event.url, mine, queued)
    assert not queued  # and nothing was left behind


@PROPS
@given(webs(), st.integers(1, 4))
def test_shallowest_with_one_worker_fetches_in_nondecreasing_depth(web, workers: int) -> None:
    graph, latency = web
    opts = CrawlOptions(workers=1, order="best", priority="shallowest", scope="any")
    run = run_fake(graph, ["http://a.com/"], opts, latency=lambda u: latency.get(u, 1.0))
    depths = [s.depth for s in run.starts]
    assert depths == sorted(depths)
    # and it is BFS's page set: best-first changes the order, never what is found
    bfs = run_fake(graph, ["http://a.com/"], opts.with_(order="bfs", priority=None, workers=workers))
    assert sorted(s.url for s in run.starts) == sorted(s.url for s in bfs.starts)


def test_host_round_robin_lets_hosts_take_turns() -> None:
    """One page links to four pages of a.com and two of b.com: with one worker
    the hosts alternate while both have pages left (BFS would fetch a.com's four
    first).  b.com goes first: a.com's seed was already its first URL."""
    links = [f"http://a.com/{i}" for i in range(4)] + ["http://b.com/0", "http://b.com/1"]
    graph = {"http://a.com/": links}
    opts = CrawlOptions(workers=1, order="best", priority="host-round-robin", scope="any")
    hosts = [s.host for s in run_fake(graph, ["http://a.com/"], opts).starts[1:]]
    assert hosts == ["b.com", "a.com", "b.com", "a.com", "a.com", "a.com"]
    bfs = [s.host for s in run_fake(graph, ["http://a.com/"], opts.with_(order="bfs")).starts[1:]]
    assert bfs[:4] == ["a.com"] * 4


def test_a_priority_with_state_starts_afresh_for_every_crawl() -> None:
    """The same options object crawled twice gives the same order: the
    host-round-robin counts of the first crawl do not leak into the second."""
    links = [f"http://a.com/{i}" for i in range(3)] + ["http://b.com/0"]
    graph = {"http://a.com/": links, "http://b.com/0": ["http://b.com/1", "http://b.com/2"]}
    opts = CrawlOptions(workers=1, order="best", priority="host-round-robin", scope="any")
    first = [s.url for s in run_fake(graph, ["http://a.com/"], opts).starts]
    second = [s.url for s in run_fake(graph, ["http://a.com/"], opts).starts]
    assert first == second
    assert opts.priority is not opts.priority and opts.priority == opts.priority  # a fresh copy, equal by name


def test_run_json_and_summary_name_the_priority(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--priority", "shallowest", "--json"]) == 0
    options = json.loads(capsys.readouterr().out)["options"]
    assert (options["order"], options["priority"]) == ("best", "shallowest")
    assert main(["run", "see-it", "--order", "best", "--set", "priority=host-round-robin", "--advise", "infer"]) == 0
    assert "best (host-round-robin)" in capsys.readouterr().out
    assert main(["run", "see-it", "--json"]) == 0
    assert "priority" not in json.loads(capsys.readouterr().out)["options"]  # bfs: no key, as before


def test_a_scenario_file_can_name_its_priority(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "best.toml"
    path.write_text(
        'start = "http://a.com/"\n[crawl]\nworkers = 1\norder = "best"\npriority = "shortest-url"\n'
        '[pages]\n"http://a.com/" = ["/looooong", "/s"]\n"http://a.com/s" = []\n"http://a.com/looooong" = []\n'
    )
    assert main(["trace", str(path), "-o", "-"]) == 0
    starts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    urls = [e["url"] for e in starts if e["type"] == "FetchStarted"]
    assert urls == ["http://a.com/", "http://a.com/s", "http://a.com/looooong"]
