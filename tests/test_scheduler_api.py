"""The scheduler's public API is total: a state machine drives random valid
and invalid call sequences and checks, after every step, that a refused call
changed nothing and that the crawl's invariants hold."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.trace.events import Discovered, FetchFailed, FetchStarted, RetryScheduled, Skipped
from crawlsim.core.scheduler import UnknownFetch
from crawlsim.core.urls import split_host

NAN = float("nan")
INF = float("inf")

HREFS = [
    "/a", "/b", "/c", "/a#x", "b", "../c/./d", "http://b.com/", "HTTP://A.COM/b", "http://a.com:80/c",
    "mailto:x@y", "http://[::1", "//c.com/d", "http://[::1]:9/", "https://a.com/", " /a ", "/robots.txt",
]


class Hostile(Exception):
    """Raised by the methods of the hostile objects below."""


def _boom(*args: Any) -> Any:
    raise Hostile("a method of a hostile object ran")


class UnhashableStr(str):
    """A link whose __hash__ raises (the case the issue found)."""

    __hash__ = _boom  # type: ignore[assignment]


class UncomparableStr(str):
    __eq__ = __ne__ = __lt__ = _boom  # type: ignore[assignment]
    __hash__ = str.__hash__


class LyingStr(str):
    """Claims to equal every string (and hashes as a seed does)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return hash("http://a.com/")


class EveryMethodRaises(str):
    __str__ = __repr__ = __len__ = __iter__ = __getitem__ = __contains__ = _boom  # type: ignore[assignment]
    strip = lower = split = partition = startswith = endswith = encode = find = replace = _boom  # type: ignore[assignment]


class FakeStr:
    """Not a str, but says it is one (``__class__``) and breaks everything else."""

    __class__ = property(lambda self: str)  # type: ignore[assignment]
    __hash__ = __eq__ = __repr__ = __str__ = __len__ = _boom  # type: ignore[assignment]


class HugeRepr:
    def __repr__(self) -> str:
        return "x" * 10_000_000


class NotAStrRepr:
    def __repr__(self) -> Any:
        return 5


class HostileFloat(float):
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __hash__ = __add__ = __radd__ = __sub__ = __repr__ = _boom  # type: ignore[assignment]


class HostileInt(int):
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __hash__ = __add__ = __radd__ = __repr__ = _boom  # type: ignore[assignment]


class HostileList(list):  # type: ignore[type-arg]
    __iter__ = __len__ = __getitem__ = _boom  # type: ignore[assignment]


class HostileHeaders(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        return [(EveryMethodRaises("Retry-After"), EveryMethodRaises("1"))]


HOSTILE_MAKERS: dict[str, Any] = {
    "unhashable": lambda: UnhashableStr("/u"),
    "unhashable seed": lambda: UnhashableStr("http://a.com/"),
    "uncomparable": lambda: UncomparableStr("/c"),
    "lying": lambda: LyingStr("/l"),
    "lying seed": lambda: LyingStr("http://a.com/"),
    "every method raises": lambda: EveryMethodRaises("/e"),
    "fake str": FakeStr,
    "huge repr": HugeRepr,
    "repr not a str": NotAStrRepr,
}


@dataclasses.dataclass(frozen=True)
class HostileLink:
    """Stands for a hostile object in drawn data (hypothesis itself hashes
    and prints what it draws); the rules build the object just before the call."""

    name: str

    def make(self) -> Any:
        return HOSTILE_MAKERS[self.name]()


def real(values: list[Any]) -> list[Any]:
    return [v.make() if isinstance(v, HostileLink) else v for v in values]


HOSTILE_LINKS = st.sampled_from(sorted(HOSTILE_MAKERS)).map(HostileLink)
JUNK = st.one_of(st.none(), st.integers(-3, 3), st.binary(max_size=3), st.just([1]), st.just(NAN), st.just(("/a",)),
                 HOSTILE_LINKS)
LINKS = st.lists(st.one_of(st.sampled_from(HREFS), JUNK), max_size=6)
RETRY_AFTER = st.sampled_from(
    ["1", "0", "2.5", "1000000000", "1e999", "nan", "-1", "inf", "x", "Fri, 31 Dec 9999 23:59:59 GMT", ""]
)
HEADERS = st.one_of(
    st.none(),
    st.fixed_dictionaries({"Retry-After": RETRY_AFTER}),
    st.fixed_dictionaries({"retry-after": RETRY_AFTER, "Date": st.just("Mon, 30 Nov 2026 14:00:00 GMT")}),
    st.just({"Retry-After": None, 3: "x"}),
)
ROBOTS = st.sampled_from(
    ["", "User-agent: *\nDisallow: /b", "User-agent: *\nCrawl-delay: 1e999", "User-agent: *\nCrawl-delay: nan",
     "User-agent: *\nCrawl-delay: 0.5", "User-agent: *\nDisallow: /"]
)
GOOD_STATUS = st.sampled_from([200, 200, 200, 404, 429, 503, 500, 301])
BAD_STATUS = st.sampled_from([None, "200", -1, NAN, True, 600, 99, 200.0])
BAD_NOW = st.sampled_from([NAN, INF, -INF, "1", None, True, 10**400])
BAD_LINKS = st.sampled_from(["/a/b", b"/a", 5, None])


@st.composite
def option_sets(draw: st.DrawFn) -> CrawlOptions:
    return CrawlOptions(
        workers=draw(st.integers(1, 4)),
        per_host=draw(st.none() | st.integers(1, 2)),
        gap=draw(st.sampled_from([0.0, 0.0, 0.5, 2.0])),
        order=draw(st.sampled_from(["bfs", "dfs"])),
        frontier=draw(st.sampled_from(["per-host", "fifo"])),
        normalize=draw(st.sampled_from(["rfc3986", "off", "fragment", "aggressive"])),
        scope=draw(st.sampled_from(["host", "any"])),
        robots=draw(st.booleans()),
        max_retries=draw(st.integers(0, 2)),
        max_retry_after=draw(st.sampled_from([0.0, 3.0, 120.0])),
        max_pages=draw(st.none() | st.integers(1, 8)),
        seed=draw(st.integers(0, 3)),
    )


def snapshot(s: Scheduler) -> tuple[Any, ...]:
    """Everything a caller can observe (events are drained after every step)."""
    hosts = tuple(
        (h.name, h.in_flight, h.ready_at, h.pages, h.crawl_delay, str(h.robots)) for h in s.host_states().values()
    )
    return (
        s.in_flight, s.frontier_size, s.frontier_urls(), s.found(), dataclasses.asdict(s.stats),
        dict(s.failures), set(s.robots_blocked), s.next_wakeup(), s.done, s.pending_retries, hosts,
    )


class SchedulerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.sched = Scheduler()
        self.opts = CrawlOptions()
        self.now = 0.0
        self.given = False  # has any valid `now` been given yet?
        self.flying: dict[int, Any] = {}
        self.events: list[Any] = []
        self.refused = 0

    @initialize(opts=option_sets())
    def setup(self, opts: CrawlOptions) -> None:
        self.sched = Scheduler(opts)
        self.opts = opts

    # -- helpers -----------------------------------------------------------------

    def drain(self) -> None:
        self.events += self.sched.drain_events()

    def refused_call(self, call: Any, errors: tuple[type[BaseException], ...] = (TypeError, ValueError)) -> None:
        before = snapshot(self.sched)
        with pytest.raises(errors):
            call()
        assert snapshot(self.sched) == before, "a refused call changed the scheduler"
        assert self.sched.drain_events() == [], "a refused call emitted events"
        self.refused += 1

    def tick(self, dt: float) -> float:
        self.now += dt
        self.given = True
        return self.now

    # -- valid calls -------------------------------------------------------------

    @rule(urls=st.lists(st.one_of(st.sampled_from(["http://a.com/", "http://b.com/x", "http://[::1]:9/"]), JUNK),
                        max_size=3), dt=st.sampled_from([0.0, 0.5]))
    def add_seeds(self, urls: list[Any], dt: float) -> None:
        self.sched.add_seeds(real(urls), self.tick(dt))
        self.drain()

    @rule(dt=st.sampled_from([0.0, 0.25, 1.0, 5.0]))
    def poll(self, dt: float) -> None:
        for fetch in self.sched.poll(self.tick(dt)):
            assert fetch.id not in self.flying
            self.flying[fetch.id] = fetch
        self.drain()

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), status=GOOD_STATUS, links=LINKS, headers=HEADERS, robots=ROBOTS,
          dt=st.sampled_from([0.0, 1.0]))
    def respond(self, data: st.DataObject, status: int, links: list[Any], headers: Any, robots: str, dt: float) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        fetch = self.flying.pop(fid)
        body = robots if fetch.kind == "robots" else None
        self.sched.on_response(fid, self.tick(dt), status=status, links=real(links), headers=headers, body=body)
        self.drain()

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), transient=st.booleans(), dt=st.sampled_from([0.0, 1.0]))
    def fail(self, data: st.DataObject, transient: bool, dt: float) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        del self.flying[fid]
        self.sched.on_error(fid, self.tick(dt), "timeout", transient=transient)
        self.drain()

    # -- invalid calls: refused, nothing changes -----------------------------------

    @rule(url=st.sampled_from(["http://a.com/", "", b"http://a.com/"]))
    def seeds_as_one_string(self, url: Any) -> None:
        self.refused_call(lambda: self.sched.add_seeds(url, self.now))

    @rule(now=BAD_NOW)
    def poll_at_a_bad_time(self, now: Any) -> None:
        self.refused_call(lambda: self.sched.poll(now))

    @precondition(lambda self: self.given)
    @rule(back=st.sampled_from([1e-9, 1.0, 1e9]))
    def poll_back_in_time(self, back: float) -> None:
        self.refused_call(lambda: self.sched.poll(self.now - back))

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), status=BAD_STATUS)
    def respond_with_bad_status(self, data: st.DataObject, status: Any) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        self.refused_call(lambda: self.sched.on_response(fid, self.now, status=status, links=["/a"]))

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), links=BAD_LINKS)
    def respond_with_links_not_a_list(self, data: st.DataObject, links: Any) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        self.refused_call(lambda: self.sched.on_response(fid, self.now, links=links))

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), now=BAD_NOW, kind=st.sampled_from(["response", "error"]))
    def answer_at_a_bad_time(self, data: st.DataObject, now: Any, kind: str) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        if kind == "response":
            self.refused_call(lambda: self.sched.on_response(fid, now, links=["/a"]))
        else:
            self.refused_call(lambda: self.sched.on_error(fid, now, "timeout"))

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), bad=st.sampled_from(["headers", "body", "reason", "transient"]))
    def answer_with_a_bad_argument(self, data: st.DataObject, bad: str) -> None:
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        calls = {
            "headers": lambda: self.sched.on_response(fid, self.now, status=503, headers=[("Retry-After", "1")]),
            "body": lambda: self.sched.on_response(fid, self.now, body=5),
            "reason": lambda: self.sched.on_error(fid, self.now, None),
            "transient": lambda: self.sched.on_error(fid, self.now, "x", transient="no"),
        }
        self.refused_call(calls[bad])

    @rule(fid=st.sampled_from([0, -1, 10**6, 10**30]), kind=st.sampled_from(["response", "error"]))
    def answer_an_unknown_fetch(self, fid: int, kind: str) -> None:
        if fid in self.flying:
            return
        if kind == "response":
            self.refused_call(lambda: self.sched.on_response(fid, self.now), (UnknownFetch,))
        else:
            self.refused_call(lambda: self.sched.on_error(fid, self.now, "timeout"), (KeyError,))

    @rule(fid=st.sampled_from(["1", None, 1.0, True, [1]]))
    def answer_with_a_bad_fetch_id(self, fid: Any) -> None:
        self.refused_call(lambda: self.sched.on_response(fid, self.now))

    @precondition(lambda self: self.flying)
    @rule(data=st.data(), bad=st.sampled_from(["now", "status", "fetch_id", "links", "final_url", "reason", "headers"]))
    def answer_with_a_hostile_object(self, data: st.DataObject, bad: str) -> None:
        """A hostile object in any argument: refused as the wrong type, or
        taken by its characters/value; either way no method of it runs (a
        `Hostile` raised here is a failure) and a refusal changes nothing."""
        fid = data.draw(st.sampled_from(sorted(self.flying)))
        calls = {
            "now": lambda: self.sched.on_response(fid, HostileFloat(self.now)),
            "status": lambda: self.sched.on_response(fid, self.now, status=HostileInt(200)),
            "fetch_id": lambda: self.sched.on_response(HostileInt(fid), self.now),
            "links": lambda: self.sched.on_response(fid, self.now, links=HostileList(["/a"])),
            "final_url": lambda: self.sched.on_response(fid, self.now, final_url=EveryMethodRaises("http://a.com/z")),
            "reason": lambda: self.sched.on_error(fid, self.now, EveryMethodRaises("timeout"), transient=False),
            "headers": lambda: self.sched.on_response(fid, self.now, status=503, headers=HostileHeaders()),
        }
        before = snapshot(self.sched)
        try:
            calls[bad]()
        except (TypeError, ValueError) as err:
            assert not isinstance(err, Hostile)
            assert snapshot(self.sched) == before, "a refused call changed the scheduler"
            assert self.sched.drain_events() == []
            return
        del self.flying[fid]
        self.drain()

    # -- invariants ----------------------------------------------------------------

    @invariant()
    def limits_hold(self) -> None:
        s = self.sched
        assert s.in_flight == len(self.flying) <= self.opts.workers
        per_host = self.opts.per_host or self.opts.workers
        for host in s.host_states().values():
            assert 0 <= host.in_flight <= per_host
        assert Counter(f.host for f in self.flying.values()) == +Counter(
            {h.name: h.in_flight for h in s.host_states().values()}
        )

    @invariant()
    def everything_waiting_or_flying_is_seen(self) -> None:
        s = self.sched
        found = set(s.found())
        assert set(s.frontier_urls()) <= found
        assert {f.url for f in self.flying.values() if f.kind == "page"} <= found

    @invariant()
    def time_and_done_are_consistent(self) -> None:
        s = self.sched
        wake = s.next_wakeup()
        assert wake is None or math.isfinite(wake)
        assert s.done == (s.frontier_size == 0 and s.in_flight == 0 and s.pending_retries == 0)

    @invariant()
    def events_agree_with_stats(self) -> None:
        s, ev = self.sched, self.events
        starts = [e for e in ev if isinstance(e, FetchStarted)]
        assert sum(e.kind == "page" for e in starts) == s.stats.fetches
        assert sum(e.kind == "robots" for e in starts) == s.stats.robots_fetches
        assert sum(e.duplicate for e in starts) == s.stats.duplicate_fetches
        assert sum(isinstance(e, Discovered) for e in ev) == s.stats.discovered
        assert sum(isinstance(e, RetryScheduled) for e in ev) == s.stats.retries
        assert Counter(e.reason for e in ev if isinstance(e, Skipped)) == +s.stats.skipped
        first_tries = [e.url for e in starts if e.kind == "page" and e.attempt == 1]
        assert len(first_tries) == len(set(first_tries)), "a URL was fetched twice"
        # every final failure of a page is in failures, with its reason
        for e in ev:
            if isinstance(e, FetchFailed) and e.final and e.kind == "page":
                assert e.url in s.failures


MACHINE = settings(max_examples=50, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestSchedulerAPI(SchedulerMachine.TestCase):  # type: ignore[misc,valid-type]
    """README's command: 50 random call sequences of up to 40 steps per run."""

    settings = MACHINE


@pytest.mark.exhaustive
class TestSchedulerAPIExhaustive(SchedulerMachine.TestCase):  # type: ignore[misc,valid-type]
    """The exhaustive step (``-m exhaustive``, run by .ci/run): 300 sequences."""

    settings = settings(MACHINE, max_examples=300)


# -- the misuses the issue found, one by one ------------------------------------------


def started(opts: CrawlOptions | None = None, seed: str = "http://a.com/") -> tuple[Scheduler, Any]:
    s = Scheduler(opts or CrawlOptions())
    s.add_seeds([seed], 0.0)
    (fetch,) = s.poll(0.0)
    s.drain_events()
    return s, fetch


def test_a_none_among_links_is_skipped_and_nothing_is_lost() -> None:
    s, fetch = started()
    s.on_response(fetch.id, 1.0, links=["/ok", None, "/lost"])
    events = s.drain_events()
    assert [e.url for e in events if isinstance(e, Discovered)] == ["http://a.com/ok", "http://a.com/lost"]
    assert [(e.reason, e.href) for e in events if isinstance(e, Skipped)] == [("malformed", "None")]
    assert s.in_flight == 0 and s.frontier_size == 2


def test_a_string_of_links_or_seeds_is_refused() -> None:
    s, fetch = started()
    with pytest.raises(TypeError, match="links"):
        s.on_response(fetch.id, 1.0, links="/abc")
    s.on_response(fetch.id, 1.0, links=["/abc"])  # still in flight: can be answered properly
    with pytest.raises(TypeError, match="urls"):
        Scheduler().add_seeds("http://a.com/", 0.0)


@pytest.mark.parametrize("status", [None, "200", -1, NAN, True, 600])
def test_a_status_that_is_not_an_http_status_is_refused(status: Any) -> None:
    s, fetch = started()
    with pytest.raises((TypeError, ValueError), match="status"):
        s.on_response(fetch.id, 1.0, status=status)
    assert s.in_flight == 1 and s.stats.pages_fetched == 0


def test_nan_time_is_refused_and_a_retry_is_always_released() -> None:
    s, fetch = started()
    with pytest.raises(ValueError, match="now"):
        s.on_error(fetch.id, NAN, "timeout")
    with pytest.raises(ValueError, match="now"):
        s.poll(NAN)
    s.on_error(fetch.id, 1.0, "timeout")
    wake = s.next_wakeup()
    assert wake is not None and math.isfinite(wake)
    assert [f.url for f in s.poll(wake)] == ["http://a.com/"]


def test_an_unknown_fetch_is_a_key_error_naming_the_id() -> None:
    s, fetch = started()
    s.on_response(fetch.id, 1.0)
    with pytest.raises(KeyError) as err:
        s.on_response(fetch.id, 2.0)
    assert f"no fetch {fetch.id} is in flight" in str(err.value)


@pytest.mark.parametrize(
    ("retry_after", "fails"),
    [("1000000000", True), ("Fri, 31 Dec 9999 23:59:59 GMT", True), ("121", True), ("120", False),
     ("1e999", False), ("nan", False), ("-5", False), ("soon", False)],
)
def test_retry_after_beyond_the_cap_fails_the_page_instead_of_holding_the_host(retry_after: str, fails: bool) -> None:
    s, fetch = started()
    headers = {"Retry-After": retry_after, "Date": "Mon, 30 Nov 2026 14:00:00 GMT"}
    s.on_response(fetch.id, 1.0, status=503, headers=headers)
    if fails:
        assert s.failures == {"http://a.com/": "retry-after too long"} and s.done
    else:
        wake = s.next_wakeup()
        assert s.failures == {} and wake is not None and wake <= 1.0 + 120
        assert [f.attempt for f in s.poll(wake)] == [2]


def test_robots_txt_with_a_retry_after_beyond_the_cap_means_disallow_all() -> None:
    s, fetch = started(CrawlOptions(robots=True, max_retry_after=10))
    assert fetch.kind == "robots"
    s.on_response(fetch.id, 1.0, status=429, headers={"Retry-After": "11"})
    assert s.done and s.robots_blocked == {"http://a.com/"}
    assert any(isinstance(e, FetchFailed) and e.reason == "retry-after too long" for e in s.drain_events())


def test_ipv6_literals_are_hosts_and_a_seed_is_in_its_own_scope() -> None:
    assert split_host("http://[::1]:8080/x") == ("[::1]:8080", "[::1]")
    s, fetch = started(seed="http://[::1]:9/")
    assert (fetch.url, fetch.host) == ("http://[::1]:9/", "[::1]:9")
    s.on_response(fetch.id, 1.0, links=["/a", "http://[::2]:9/"])
    assert s.frontier_urls() == ["http://[::1]:9/a"]


@pytest.mark.parametrize(
    ("fetch_id", "now", "links", "error"),
    [
        (99, 1.0, [], UnknownFetch),
        ("1", 1.0, [], TypeError),
        (None, 1.0, [], TypeError),
        (1, -1.0, [], ValueError),
        (1, NAN, [], ValueError),
        (1, "1", [], TypeError),
        (1, 1.0, "/a", TypeError),
        (1, 1.0, None, TypeError),
    ],
)
def test_a_refused_response_changes_nothing_and_any_iterable_of_links_is_taken(
    fetch_id: object, now: object, links: object, error: type[Exception]
) -> None:
    sched = Scheduler(CrawlOptions(workers=2, scope="any"))
    sched.add_seeds(["http://a.com/"], now=0.0)
    (fetch,) = sched.poll(0.0)
    assert fetch.id == 1
    with pytest.raises(error):
        sched.on_response(fetch_id, now, links=links)  # type: ignore[arg-type]
    assert sched.in_flight == 1 and sched.stats.pages_fetched == 0
    sched.on_response(fetch.id, 1.0, links=iter(["/b", "/c"]))
    assert [f.url for f in sched.poll(1.0)] == ["http://a.com/b", "http://a.com/c"]
