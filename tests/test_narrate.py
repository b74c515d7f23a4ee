"""The narrator's sentences state the scheduler's real decisions.

Each test drives a real :class:`Scheduler` until it makes one decision, then
checks the narrator's sentence for that decision's event against the event
and against what the scheduler itself reports (``host_states()``, stats,
``found()``): the narrator explains, it never decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.cli import main
from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.core.options import CrawlOptions
from crawlsim.core.fetch import Fetch
from crawlsim.core.scheduler import Scheduler
from crawlsim.views.narrate import Narrator, narrate_trace, narration_line, seconds
from crawlsim.views.replay import host_of_url
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate


class Drive:
    """A scheduler and a narrator fed with its events as they happen, so a
    sentence can be compared with the scheduler's state at that moment."""

    def __init__(self, options: CrawlOptions, page_of: Callable[[str], str] | None = None) -> None:
        self.sched = Scheduler(options, page_of=page_of)
        self.narrator = Narrator(options)
        self.told: list[tuple[Event, str]] = []

    def _tell(self) -> list[tuple[Event, str]]:
        new = [(e, self.narrator.narrate(e)) for e in self.sched.drain_events()]
        self.told.extend(new)
        return new

    def seed(self, *urls: str, t: float = 0.0) -> list[tuple[Event, str]]:
        self.sched.add_seeds(list(urls), t)
        return self._tell()

    def poll(self, t: float) -> tuple[list[Fetch], list[tuple[Event, str]]]:
        fetches = self.sched.poll(t)
        return fetches, self._tell()

    def answer(self, fetch: Fetch, t: float, **kwargs: object) -> list[tuple[Event, str]]:
        self.sched.on_response(fetch.id, t, **kwargs)  # type: ignore[arg-type]
        return self._tell()

    def error(self, fetch: Fetch, t: float, reason: str, *, transient: bool) -> list[tuple[Event, str]]:
        self.sched.on_error(fetch.id, t, reason, transient=transient)
        return self._tell()


def only(told: Iterable[tuple[Event, str]], cls: type[Event], **match: object) -> tuple[Event, str]:
    """The one told event of class ``cls`` whose fields equal ``match``."""
    found = [(e, s) for e, s in told if isinstance(e, cls) and all(getattr(e, k) == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


def opts(**kw: object) -> CrawlOptions:
    return CrawlOptions(**{"robots": False, "gap": 0.0, "scope": "any", **kw})  # type: ignore[arg-type]


# -- fetches and politeness -------------------------------------------------------


def test_a_busy_host_is_named_with_the_in_flight_count_the_scheduler_has() -> None:
    d = Drive(opts(workers=2, per_host=1))
    d.seed("http://a.com/", "http://a.com/x", "http://b.com/")
    fetches, told = d.poll(0.0)
    assert [f.url for f in fetches] == ["http://a.com/", "http://b.com/"]  # a.com/x waits: a.com is at its limit
    started, sentence = only(told, FetchStarted, url="http://b.com/")
    a = d.sched.host_states()["a.com"]
    assert a.in_flight == 1 and d.sched.options.per_host == 1
    assert f"a.com is busy ({a.in_flight}/1 in flight)" in sentence
    assert f"b.com/ starts on worker {started.slot + 1}" in sentence  # type: ignore[attr-defined]
    assert "all 2 workers busy" in sentence


def test_the_gap_deferral_names_the_host_and_the_time_the_scheduler_set() -> None:
    d = Drive(opts(workers=2, gap=2.0))
    d.seed("http://a.com/", "http://a.com/x", "http://b.com/")
    _, told = d.poll(0.0)
    deferred, sentence = only(told, HostDeferred, host="a.com")
    assert deferred.reason == "gap"  # type: ignore[attr-defined]
    assert d.sched.host_states()["a.com"].ready_at == deferred.until == 2.0  # type: ignore[attr-defined]
    assert "a.com" in sentence and "before t=2 (2 s, the gap)" in sentence
    # b.com started in the same instant, while a.com (with /x queued) waits for its gap
    _, b_sentence = only(told, FetchStarted, url="http://b.com/")
    assert "a.com waits (gap) until t=2" in b_sentence
    fetches, _ = d.poll(1.0)
    assert fetches == []  # the scheduler really holds a.com/x until the gap is over


def test_crawl_delay_from_robots_txt_is_told_on_load_and_on_the_next_start() -> None:
    d = Drive(opts(robots=True, workers=1))
    d.seed("http://a.com/")
    (robots,), told = d.poll(0.0)
    _, sentence = only(told, FetchStarted, kind="robots")
    assert "a.com is new: its robots.txt goes first" in sentence
    told = d.answer(robots, 1.0, status=200, body="User-agent: *\nCrawl-delay: 3\n")
    loaded, sentence = only(told, RobotsLoaded)
    assert loaded.crawl_delay == 3.0  # type: ignore[attr-defined]
    assert "Crawl-delay 3 s" in sentence and "1 queued URL is checked" in sentence
    _, told = d.poll(1.0)
    deferred, sentence = only(told, HostDeferred)
    assert deferred.reason == "crawl-delay" and deferred.until == 4.0  # type: ignore[attr-defined]
    assert "Crawl-delay" in sentence and "before t=4 (3 s" in sentence


def test_retry_after_defers_the_host_and_the_retry_is_told() -> None:
    d = Drive(opts(workers=1, max_retries=2))
    d.seed("http://a.com/")
    (page,), _ = d.poll(0.0)
    told = d.answer(page, 1.0, status=429, headers={"Retry-After": "5"})
    deferred, sentence = only(told, HostDeferred)
    assert deferred.reason == "retry-after" and deferred.until == 6.0  # type: ignore[attr-defined]
    assert "Retry-After" in sentence and "before t=6" in sentence
    failed, sentence = only(told, FetchFailed)
    assert not failed.final and "a retry follows" in sentence  # type: ignore[attr-defined]
    retry, sentence = only(told, RetryScheduled)
    assert retry.at == 6.0 and retry.attempt == 2  # type: ignore[attr-defined]
    assert "waits 5 s (HTTP 429): try 2 at t=6" in sentence
    assert d.poll(5.0)[0] == []
    (again,), told = d.poll(6.0)
    assert again.attempt == 2
    assert "(try 2)" in only(told, FetchStarted)[1]


def test_a_final_failure_and_done_are_told() -> None:
    d = Drive(opts(workers=1))
    d.seed("http://a.com/")
    (page,), _ = d.poll(0.0)
    told = d.error(page, 1.0, "connection refused", transient=False)
    failed, sentence = only(told, FetchFailed)
    assert failed.final  # type: ignore[attr-defined]
    assert sentence == "a.com/ failed for good (connection refused): recorded as failed"
    _, told = d.poll(1.0)
    _, sentence = only(told, Done)
    assert d.sched.done and "the crawl is done (1 URL queued, 1 fetch)" in sentence


def test_a_duplicate_fetch_is_told_as_wasted() -> None:
    d = Drive(opts(workers=1, normalize="rfc3986"), page_of=lambda u: u.rstrip("/"))
    d.seed("http://a.com/x")
    (page,), _ = d.poll(0.0)
    d.answer(page, 1.0, links=["/x/"])
    _, told = d.poll(1.0)
    started, sentence = only(told, FetchStarted)
    assert started.duplicate and d.sched.stats.duplicate_fetches == 1  # type: ignore[attr-defined]
    assert "a.com/x/ starts on worker 1, though it is a.com/x under another spelling: a duplicate fetch" in sentence


def test_finished_says_how_many_links_were_new() -> None:
    d = Drive(opts(workers=1))
    d.seed("http://a.com/")
    (page,), _ = d.poll(0.0)
    told = d.answer(page, 1.0, links=["/x", "/y", "/x", "/"])
    finished, sentence = only(told, FetchFinished)
    assert finished.new_links == 2 and len(d.sched.found()) == 3  # type: ignore[attr-defined]
    assert "a.com/ answered 200: 4 links, 2 new (frontier 2, 0 in flight)" in sentence


# -- links found, queued or dropped ---------------------------------------------------


def test_discovered_and_seen_links() -> None:
    d = Drive(opts(workers=1))
    told = d.seed("http://a.com/")
    assert only(told, Discovered)[1] == (
        "a.com/ is new (a seed, depth 0): added to the seen set (1 URL) and to a.com's queue (1 waiting)"
    )
    (page,), _ = d.poll(0.0)
    told = d.answer(page, 1.0, links=["/y", "/"])
    _, sentence = only(told, Discovered, url="http://a.com/y")
    assert "linked from a.com/, depth 1" in sentence and "seen set (2 URLs)" in sentence
    _, sentence = only(told, Skipped, reason="seen")
    assert sentence == "a.com/ (linked from a.com/) is already in the seen set: dropped"


@pytest.mark.parametrize(
    ("options", "link", "reason", "expected"),
    [
        (opts(depth_limit=0), "/deep", "depth", "a.com/deep would be at depth 1, beyond the depth limit 0: skipped"),
        (opts(max_pages=1), "/more", "cap", "a.com/more: the page budget is spent (max_pages 1 queued): skipped"),
        (opts(max_pages_per_host=1), "/more", "cap", "max_pages_per_host 1 queued: skipped"),
        (opts(scope="host"), "http://b.com/", "scope", "b.com/ is outside the crawl's scope (host"),
        (opts(), "mailto:x@a.com", "scheme", "mailto:x@a.com is not http(s): skipped"),
        (opts(), "http://[::1", "malformed", "http://[::1 is not a URL that parses: skipped"),
    ],
)
def test_each_skip_reason_is_told(options: CrawlOptions, link: str, reason: str, expected: str) -> None:
    d = Drive(options)
    d.seed("http://a.com/")
    (page,), _ = d.poll(0.0)
    told = d.answer(page, 1.0, links=[link])
    _, sentence = only(told, Skipped, reason=reason)
    assert expected in sentence
    assert d.sched.found() == ["http://a.com/"]  # the scheduler really did not queue it


def test_robots_disallow_is_told_for_a_new_link_and_for_a_queued_url() -> None:
    d = Drive(opts(robots=True, workers=1))
    d.seed("http://a.com/", "http://a.com/private/early")
    (robots,), _ = d.poll(0.0)
    told = d.answer(robots, 1.0, status=200, body="User-agent: *\nDisallow: /private\n")
    _, sentence = only(told, Skipped, reason="robots")
    assert sentence == "a.com's robots.txt disallows a.com/private/early: taken out of its queue, never fetched"
    (page,), _ = d.poll(1.0)
    told = d.answer(page, 2.0, links=["/private/late"])
    _, sentence = only(told, Skipped, reason="robots")
    assert sentence == "a.com's robots.txt disallows a.com/private/late: skipped"
    d.poll(2.0)
    started = {e.url for e, _ in d.told if isinstance(e, FetchStarted)}
    assert not any("/private" in url for url in started)


# -- every event, one line, in time order --------------------------------------------


def check_waiting_claims(sched: Scheduler, told: list[tuple[Event, str]]) -> None:
    """What a start's sentence says of the hosts that wait is what the scheduler
    has just after the poll (within one poll a host at its limit stays there,
    and one held until a later time cannot start)."""
    hosts = sched.host_states()
    for e, sentence in told:
        if not isinstance(e, FetchStarted):
            continue
        for name, k, limit in re.findall(r"(\S+) is busy \((\d+)/(\d+) in flight\)", sentence):
            assert hosts[name].in_flight == int(k) == int(limit) == sched.options.per_host
        for name, why, until in re.findall(r"(\S+) waits \(([\w-]+)\) until t=([\d.]+)", sentence):
            assert seconds(hosts[name].ready_at) == until and hosts[name].ready_at > e.t


HOSTS = ("a.com", "b.com", "c.com")
PATHS = ("/", "/x", "/y", "/z")
URLS = [f"http://{h}{p}" for h in HOSTS for p in PATHS]


@settings(max_examples=100)
@given(
    links=st.lists(st.lists(st.sampled_from(URLS), max_size=5), min_size=len(URLS), max_size=len(URLS)).map(
        lambda pages: dict(zip(URLS, pages, strict=True))
    ),
    workers=st.integers(1, 3),
    per_host=st.one_of(st.none(), st.integers(1, 2)),
    gap=st.sampled_from([0.0, 0.5, 2.0]),
    latencies=st.lists(st.sampled_from([0.25, 1.0, 1.5]), min_size=1, max_size=6),
    fails=st.sets(st.sampled_from(URLS), max_size=3),
)
def test_every_event_gets_one_line_with_its_time(
    links: dict[str, list[str]],
    workers: int,
    per_host: int | None,
    gap: float,
    latencies: list[float],
    fails: set[str],
) -> None:
    options = opts(workers=workers, per_host=per_host, gap=gap, max_retries=1)
    d = Drive(options)
    d.seed(*(f"http://{h}/" for h in HOSTS))
    open_: list[tuple[float, Fetch]] = []
    now, n = 0.0, 0
    while not d.sched.done:
        fetches, told = d.poll(now)
        check_waiting_claims(d.sched, told)
        for f in fetches:
            open_.append((now + latencies[n % len(latencies)], f))
            n += 1
        wake = d.sched.next_wakeup()
        if not open_:
            assert wake is not None
            now = wake
            continue
        open_.sort(key=lambda pair: (pair[0], pair[1].id))
        if wake is not None and wake < open_[0][0]:
            now = wake
            continue
        now, f = open_.pop(0)
        if f.url in fails:
            d.error(f, now, "timeout", transient=True)
        else:
            d.answer(f, now, links=links.get(f.url, []))
    d.poll(now)  # the poll that sees the crawl over announces Done
    events = [e for e, _ in d.told]
    lines = [narration_line(e, s) for e, s in d.told]
    assert isinstance(events[-1], Done)
    assert all(s.strip() for _, s in d.told)
    assert [e.t for e in events] == sorted(e.t for e in events)
    for e, line in zip(events, lines, strict=True):
        assert line.startswith(f"t={seconds(e.t)} s  ")
        assert float(line[2:].split(" ", 1)[0]) == pytest.approx(e.t, abs=5e-4)


# -- the command line ----------------------------------------------------------------


def test_run_narrate_prints_one_line_per_event(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "see-it", "--narrate"])
    out, err = capsys.readouterr()
    scenario = load_scenario("see-it")
    trace = simulate(scenario, trace=True, series=False).trace
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert len(lines) == len(trace)
    expected = [narration_line(e, s) for e, s in narrate_trace(trace, scenario.options)]
    assert lines == expected
    assert lines[-1].startswith(f"t={seconds(trace[-1].t)} s  the frontier is empty")


def test_run_narrate_with_json_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "see-it", "--narrate", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--narrate" in err


def test_run_narrate_refuses_a_web_too_large_but_not_a_capped_one(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "million", "--narrate"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "too many to narrate" in err
    code = main(["run", "million", "--narrate", "--max-pages", "20", "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and "the crawl is done" in out.splitlines()[-1]


def test_a_bloom_false_positive_is_told_as_one_not_as_seen() -> None:
    d = Drive(opts(workers=1, seen="bloom", bloom_capacity=10, bloom_error_rate=0.5))
    d.seed("http://a.com/")
    (page,), _ = d.poll(0.0)
    told = d.answer(page, 1.0, links=[f"/p{i}" for i in range(40)] + ["/p0"])
    discovered = {e.url for e, _ in d.told if isinstance(e, Discovered)}
    seen_skips = [(e, s) for e, s in told if isinstance(e, Skipped) and e.reason == "seen"]
    false_positives = [s for e, s in seen_skips if e.url not in discovered]  # type: ignore[attr-defined]
    assert false_positives, "a 64-bit filter holding 40 URLs must answer 'seen' for some new one"
    assert all("(a false positive): dropped, never fetched" in s for s in false_positives)
    repeat = [s for e, s in seen_skips if e.url == "http://a.com/p0"]  # type: ignore[attr-defined]
    assert repeat == ["a.com/p0 (linked from a.com/) is already in the seen set: dropped"]


# -- the frontier counts, kept per event, equal a walk over every host ----------------


def walk_waiting(narrator: Narrator, t: float) -> tuple[int, list[str]]:
    """The frontier's size and the held hosts (in order of first mention), by
    walking every host as the narrator once did for each sentence."""
    total, held = 0, []
    limit, robots = narrator.options.per_host, narrator.options.robots
    for name, host in narrator.hosts.items():
        waiting = len(host.queued) + sum(1 for at in host.retries.values() if at <= t)
        total += waiting
        busy = bool(limit) and host.in_flight >= (limit or 0)
        if waiting and (busy or host.until > t or (robots and not host.robots_loaded)):
            held.append(name)
    return total, held


EVENT_HOSTS = ("a.com", "b.com", "c.com", "d.com", "e.com")


@st.composite
def event_runs(draw: st.DrawFn) -> list[Event]:
    """Events in any order a trace could hold them, times mostly rising (now and
    then falling, as a merged real trace may), over a few hosts and URLs."""
    events: list[Event] = []
    t = 0.0
    for _ in range(draw(st.integers(1, 60))):
        t = max(0.0, t + draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.5, -1.0])))
        host = draw(st.sampled_from(EVENT_HOSTS))
        url = f"http://{host}/{draw(st.integers(0, 3))}"
        kind = draw(st.sampled_from(["page", "page", "robots"]))
        events.append(
            draw(
                st.sampled_from(
                    [
                        Discovered(t, url, host, 1, None),
                        FetchStarted(t, 1, url, host, kind, 1, 2, 0, url, False),  # type: ignore[arg-type]
                        FetchFinished(t, 1, url, host, kind, 200, 0, 0),  # type: ignore[arg-type]
                        FetchFailed(t, 1, url, host, kind, "timeout", False),  # type: ignore[arg-type]
                        RetryScheduled(t, url, host, 2, t + draw(st.sampled_from([0.0, 0.5, 3.0])), "backoff"),
                        HostDeferred(t, host, t + draw(st.sampled_from([0.5, 2.0])), "gap"),  # type: ignore[arg-type]
                        RobotsLoaded(t, host, 200, None, False),
                        Skipped(t, url, None, "robots"),  # type: ignore[arg-type]
                    ]
                )
            )
        )
    return events


PER_HOST = st.one_of(st.none(), st.integers(1, 2))


@settings(max_examples=50, deadline=None)
@given(events=event_runs(), per_host=PER_HOST, robots=st.booleans())
def test_the_frontier_and_the_held_hosts_equal_a_walk_over_every_host(
    events: list[Event], per_host: int | None, robots: bool
) -> None:
    check_counts_against_the_walk(events, per_host, robots)


@pytest.mark.exhaustive
@settings(max_examples=1000, deadline=None)
@given(events=event_runs(), per_host=PER_HOST, robots=st.booleans())
def test_the_frontier_and_the_held_hosts_equal_a_walk_over_every_host_exhaustive(
    events: list[Event], per_host: int | None, robots: bool
) -> None:
    check_counts_against_the_walk(events, per_host, robots)


def check_counts_against_the_walk(events: list[Event], per_host: int | None, robots: bool) -> None:
    """After every event, the narrator's kept counts are the walk's."""
    narrator = Narrator(opts(per_host=per_host, robots=robots))
    for e in events:
        narrator.narrate(e)
        total, held = walk_waiting(narrator, e.t)
        assert narrator.waiting.total == total
        name = e.host if not isinstance(e, Skipped) else host_of_url(e.url)
        but = narrator.hosts[name]
        named = [h.name for h in narrator.waiting.first_held(len(EVENT_HOSTS), but=but)]
        assert named == [other for other in held if other != name]
        assert narrator.waiting.held_count(but=but) == len(named)
