"""The scheduler's parts, one invariant each (see crawlsim/core/scheduler.py's
"Theory of operation"): worker lanes, the retry queue, the robots gate, the
page ledger, the frontier's filing of hosts, and the one host key."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlsim.core import CrawlOptions, Discovered, FetchStarted, RobotsLoaded, Scheduler, Skipped
from crawlsim.core.frontier import HostState, PerHostFrontier, SingleQueueFrontier
from crawlsim.core.retry import RetryQueue
from crawlsim.core.slots import WorkerSlots
from crawlsim.core.states import Filing, RobotsEntry, RobotsStatus
from crawlsim.core.urls import canonicalize, host_key, hostname_of, split_host
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.sim.driver import simulate
from tests.conformance import conformance_file

# -- WorkerSlots: the lowest free lane, always ---------------------------------


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), max_size=200))
def test_worker_slots_hand_out_the_lowest_free_lane(ops: list[tuple[bool, int]]) -> None:
    slots = WorkerSlots()
    in_use: set[int] = set()
    for take, pick in ops:
        if take or not in_use:
            lowest_free = min(set(range(len(in_use) + 1)) - in_use)
            lane = slots.take()
            assert lane == lowest_free
            in_use.add(lane)
        else:
            lane = sorted(in_use)[pick % len(in_use)]
            slots.give_back(lane)
            in_use.discard(lane)


# -- RetryQueue: released in time order, each once, never early -----------------


@given(
    st.lists(st.floats(0, 100, allow_nan=False), max_size=40),
    st.lists(st.floats(0, 120, allow_nan=False), max_size=10),
)
def test_retry_queue_releases_in_time_order_and_never_early(ats: list[float], nows: list[float]) -> None:
    queue = RetryQueue()
    for i, at in enumerate(ats):
        queue.add(at, i, "a.com", (i, f"http://a.com/{i}", 0))
    released: list[int] = []
    for now in sorted(nows):
        due = queue.due(now)
        assert all(ats[entry[0]] <= now for _, entry in due)  # type: ignore[index]
        released += [entry[0] for _, entry in due]  # type: ignore[misc]
        assert queue.next_at() is None or queue.next_at() > now  # type: ignore[operator]
    released += [entry[0] for _, entry in queue.due(float("inf"))]  # type: ignore[misc]
    assert released == sorted(range(len(ats)), key=lambda i: (ats[i], i))
    assert len(queue) == 0 and queue.next_at() is None


# -- RobotsGate, through the scheduler -----------------------------------------

ROBOTS = "User-agent: *\nDisallow: /private\n"


def test_robots_gate_asks_first_then_purges_and_blocks() -> None:
    sched = Scheduler(CrawlOptions(workers=4, per_host=2, robots=True))
    sched.add_seeds(["http://a.com/", "http://a.com/private/1", "http://a.com/ok"], 0.0)
    host = sched.host_states()["a.com"]
    assert host.robots_status is RobotsStatus.PENDING
    (robots,) = sched.poll(0.0)  # per_host = 2, yet only robots.txt may start
    assert robots.kind == "robots" and robots.url == "http://a.com/robots.txt"
    assert sched.poll(0.0) == []
    sched.on_response(robots.id, 1.0, status=200, body=ROBOTS)
    assert host.robots_status is RobotsStatus.LOADED and host.robots is host.policy
    assert "http://a.com/private/1" in sched.robots_blocked
    assert "http://a.com/private/1" not in sched.frontier_urls()
    pages = sched.poll(1.0)
    assert {f.url for f in pages} == {"http://a.com/", "http://a.com/ok"}
    sched.on_response(pages[0].id, 2.0, links=["/private/2", "/fine"])
    events = sched.drain_events()
    blocked = [e.url for e in events if isinstance(e, Skipped) and e.reason == "robots"]
    assert blocked == ["http://a.com/private/1", "http://a.com/private/2"]
    assert sum(isinstance(e, RobotsLoaded) for e in events) == 1
    assert "http://a.com/private/2" not in sched.found()


def test_robots_off_leaves_every_host_not_asked() -> None:
    sched = Scheduler(CrawlOptions(workers=2))
    sched.add_seeds(["http://a.com/"], 0.0)
    assert sched.host_states()["a.com"].robots_status is RobotsStatus.NOT_ASKED
    assert [f.kind for f in sched.poll(0.0)] == ["page"]


@pytest.mark.parametrize("frontier", [PerHostFrontier, SingleQueueFrontier])
def test_a_pending_host_starts_only_its_robots_entry(frontier: type) -> None:
    f = frontier(per_host=4)
    host = HostState("a.com", robots_status=RobotsStatus.PENDING)
    f.push(host, (1, "http://a.com/", 0), 0.0)
    assert f.pop(0.0) is None  # its pages wait for robots.txt
    f.push(host, RobotsEntry((float("-inf"), "http://a.com/robots.txt", 0)), 0.0)
    picked = f.pop(0.0)
    assert picked is not None and picked[1].__class__ is RobotsEntry
    assert f.pop(0.0) is None
    host.robots_status = RobotsStatus.LOADED
    f.reconsider(host, 0.0)
    picked = f.pop(0.0)
    assert picked is not None and picked[1] == (1, "http://a.com/", 0)


# -- the frontier files each host where its state says ---------------------------


@given(st.lists(st.tuples(st.sampled_from(["push", "pop", "wait"]), st.integers(0, 2), st.integers(0, 9)), max_size=60))
def test_per_host_frontier_files_hosts_by_their_state(ops: list[tuple[str, int, int]]) -> None:
    frontier = PerHostFrontier(per_host=1)
    hosts = [HostState(f"h{i}.com") for i in range(3)]
    now, seq = 0.0, 0
    for op, h, n in ops:
        host = hosts[h]
        if op == "push":
            seq += 1
            frontier.push(host, (seq, f"http://{host.name}/{seq}", 0), now)
        elif op == "wait":
            host.ready_at = now + n
            frontier.reconsider(host, now)
        else:
            now += n
            picked = frontier.pop(now)
            if picked is not None:
                frontier.reconsider(picked[0], now)
        for host in hosts:
            if not host.queued():
                assert host.filed is Filing.UNFILED
            elif host.ready_at > now:
                assert host.filed is Filing.WAITING and host.filed_key == host.ready_at
            elif host.filed is not Filing.WAITING:  # a WAITING host whose time came is moved by pop()
                assert host.filed is Filing.READY and host.filed_key == host.queued()[0][0]


# -- PageLedger: each true page counted once ---------------------------------------


def test_ledger_counts_a_page_fetched_under_two_spellings_once() -> None:
    sched = Scheduler(CrawlOptions(workers=4, normalize="off"))
    sched.add_seeds(["http://a.com/x", "http://a.com/./x", "http://a.com/y"], 0.0)
    fetches = sched.poll(0.0)
    assert [f.duplicate for f in fetches] == [False, True, False]
    sched.on_response(fetches[0].id, 1.0)
    sched.on_response(fetches[1].id, 1.0)
    sched.on_response(fetches[2].id, 1.0, status=404)
    assert (sched.stats.pages_fetched, sched.stats.duplicate_fetches, sched.stats.failed) == (1, 1, 1)
    assert sched.failures == {"http://a.com/y": "HTTP 404"}


# -- one host key ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "key", "hostname"),
    [
        ("http://A.com:80/x", "a.com", "a.com"),
        ("https://a.com:443/", "a.com", "a.com"),
        ("http://a.com:443/", "a.com:443", "a.com"),
        ("http://user:pw@B.com:8080/", "b.com:8080", "b.com"),
        ("http://[::1]:80/", "[::1]", "[::1]"),
        ("http://[::1]:8080/", "[::1]:8080", "[::1]"),
        ("not a url", "", ""),
    ],
)
def test_host_key_and_hostname(url: str, key: str, hostname: str) -> None:
    assert host_key(url) == key
    assert split_host(url) == (key, hostname)
    assert hostname_of(url) == hostname


def test_weak_normalization_puts_a_default_port_on_its_host() -> None:
    """``http://a.com:80/`` and ``http://a.com/`` are one server: one queue, one politeness gap."""
    sched = Scheduler(CrawlOptions(workers=4, normalize="off", gap=1.0))
    sched.add_seeds(["http://a.com/", "http://a.com:80/p"], 0.0)
    assert list(sched.host_states()) == ["a.com"]
    assert len(sched.poll(0.0)) == 1  # the gap holds the second spelling too


def _wpt_rfc3986_urls() -> list[str]:
    path = conformance_file("urltestdata.json", "WPT URL test data")
    cases = [c for c in json.loads(path.read_text(encoding="utf-8")) if isinstance(c, dict)]
    urls = (canonicalize(c["input"], c.get("base")) for c in cases)
    return [u for u in urls if u is not None]


def test_rfc3986_fast_path_equals_host_key_on_wpt_urls() -> None:
    """The scheduler takes an rfc3986 URL's key as its third "/"-field; that is host_key."""
    urls = _wpt_rfc3986_urls()
    assert len(urls) > 100
    for url in urls:
        field = url.split("/", 3)[2]
        assert "@" in field or field == host_key(url), url
    sched = Scheduler(CrawlOptions(scope="any"))
    sched.add_seeds(urls, 0.0)
    discovered = [e for e in sched.drain_events() if isinstance(e, Discovered)]
    assert {e.url for e in discovered} == set(urls)
    assert all(e.host == host_key(e.url) for e in discovered)


@pytest.mark.parametrize("name", [n for n in list_scenarios() if n != "million"])
def test_every_shipped_scenarios_events_carry_the_host_key(name: str) -> None:
    scenario = load_scenario(name)
    run = simulate(scenario, series=False)
    started = [e for e in run.trace if isinstance(e, FetchStarted)]
    assert started
    for event in started:
        assert event.host == host_key(event.url)
        if canonicalize(event.url) == event.url:  # an rfc3986 canonical URL: the fast path applies
            assert event.url.split("/", 3)[2] == event.host
