"""Scheduler behaviour a user relies on, one rule at a time."""

from __future__ import annotations

import json

import pytest

from crawlsim.core import (
    CrawlOptions,
    Event,
    FetchFailed,
    HostDeferred,
    OptionError,
    RetryScheduled,
    Scheduler,
    Skipped,
    event_from_dict,
    event_to_dict,
)
from crawlsim.core.content import ContentIndex, hamming, simhash
from crawlsim.core.seen import BloomSeen, HashSeen
from tests.fakeclock import run_fake


def test_retry_after_defers_the_whole_host() -> None:
    sched = Scheduler(CrawlOptions(workers=4, per_host=2, max_retries=2))
    sched.add_seeds(["http://a.com/1", "http://a.com/2", "http://a.com/3"], 0.0)
    first, second = sched.poll(0.0)
    sched.on_response(first.id, 1.0, status=429, headers={"Retry-After": "10"})
    # the other in-flight request finishes; nothing new may start on a.com before t=11
    sched.on_response(second.id, 2.0, status=200)
    assert sched.poll(2.0) == []
    assert sched.next_wakeup() == 11.0
    started = sched.poll(11.0)
    assert sorted(f.url for f in started) == ["http://a.com/1", "http://a.com/3"]
    events = sched.drain_events()
    assert any(isinstance(e, HostDeferred) and e.reason == "retry-after" and e.until == 11.0 for e in events)
    assert any(isinstance(e, RetryScheduled) and e.url == "http://a.com/1" and e.at == 11.0 for e in events)


def test_retry_after_as_http_date_uses_the_date_header() -> None:
    sched = Scheduler(CrawlOptions())
    sched.add_seeds(["http://a.com/"], 0.0)
    (fetch,) = sched.poll(0.0)
    sched.on_response(
        fetch.id,
        0.0,
        status=503,
        headers={"Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT", "Date": "Wed, 21 Oct 2015 07:28:00 GMT"},
    )
    assert sched.next_wakeup() == 30.0


def test_backoff_grows_and_a_page_that_keeps_failing_is_still_found() -> None:
    sched = Scheduler(CrawlOptions(max_retries=3, backoff_base=1.0, backoff_max=100.0))
    sched.add_seeds(["http://a.com/"], 0.0)
    now, waits = 0.0, []
    while True:
        fetches = sched.poll(now)
        if not fetches:
            break
        sched.on_error(fetches[0].id, now, "timeout")
        wake = sched.next_wakeup()
        if wake is None:
            break
        waits.append(wake - now)
        now = wake
    assert len(waits) == 3
    for attempt, wait in enumerate(waits, start=1):  # base * 2**(n-1), jitter 0.5-1.5x
        assert 0.5 * 2 ** (attempt - 1) <= wait <= 1.5 * 2 ** (attempt - 1)
    assert sched.done
    assert sched.found() == ["http://a.com/"]
    assert sched.failures == {"http://a.com/": "timeout"}
    finals = [e for e in sched.drain_events() if isinstance(e, FetchFailed) and e.final]
    assert len(finals) == 1


def test_non_transient_errors_are_not_retried() -> None:
    sched = Scheduler(CrawlOptions(max_retries=3))
    sched.add_seeds(["http://a.com/"], 0.0)
    (fetch,) = sched.poll(0.0)
    sched.on_error(fetch.id, 0.5, "parse error", transient=False)
    assert sched.done and sched.stats.retries == 0 and sched.stats.failed == 1


def _two_host_blocked_head() -> dict[str, list[str]]:
    return {
        "http://a.com/": ["http://slow.com/1", "http://slow.com/2", "http://b.com/1", "http://b.com/2"],
    }


def test_single_fifo_shows_head_of_line_blocking_and_per_host_queues_do_not() -> None:
    graph = _two_host_blocked_head()
    common = dict(workers=4, per_host=1, gap=5.0, scope="any")
    fifo = run_fake(graph, ["http://a.com/"], CrawlOptions(frontier="fifo", **common))
    mercator = run_fake(graph, ["http://a.com/"], CrawlOptions(frontier="per-host", **common))
    start = {s.url: s.t for s in fifo.starts}
    # b.com/2 waits behind slow.com/2, whose host is in its politeness gap
    assert start["http://b.com/2"] >= start["http://slow.com/2"]
    assert fifo.finish_time > mercator.finish_time


def test_weak_normalization_fetches_one_page_twice_and_it_is_counted() -> None:
    # a relative "./x" is resolved (and so merged) even with normalization off;
    # an absolute one is kept exactly as written
    graph = {"http://a.com/": ["/x", "HTTP://A.COM/x", "/x#top", "./x", "http://a.com/./x"]}
    off = run_fake(graph, ["http://a.com/"], CrawlOptions(normalize="off"))
    safe = run_fake(graph, ["http://a.com/"], CrawlOptions(normalize="rfc3986"))
    assert off.sched.stats.duplicate_fetches == 3
    assert [s.duplicate for s in off.starts].count(True) == 3
    assert {s.page for s in off.starts} == {"http://a.com/", "http://a.com/x"}
    assert safe.sched.stats.duplicate_fetches == 0 and len(safe.starts) == 2


def test_page_of_defines_true_identity() -> None:
    graph = {"http://a.com/": ["http://www.a.com/x/", "/x"]}
    sched_opts = CrawlOptions(normalize="rfc3986", scope="domain")
    run = run_fake(graph, ["http://a.com/"], sched_opts)
    assert run.sched.stats.duplicate_fetches == 0  # without ground truth, rfc3986 cannot see it
    sched = Scheduler(sched_opts, page_of=lambda u: u.replace("www.", "").rstrip("/"))
    sched.add_seeds(["http://a.com/"], 0.0)
    (root,) = sched.poll(0.0)
    sched.on_response(root.id, 1.0, links=graph["http://a.com/"])
    sched.poll(1.0)
    assert sched.stats.duplicate_fetches == 1


def test_malformed_and_foreign_links_are_skipped_with_reasons() -> None:
    graph = {"http://a.com/": ["http://[::1", "mailto:x@a.com", "/ok", "http://b.com/", "/ok#again"]}
    run = run_fake(graph, ["http://a.com/"], CrawlOptions(scope="host"))
    reasons = {(e.href or e.url, e.reason) for e in run.events if isinstance(e, Skipped)}
    assert ("http://[::1", "malformed") in reasons
    assert ("mailto:x@a.com", "scheme") in reasons
    assert ("http://b.com/", "scope") in reasons
    assert ("http://a.com/ok", "seen") in reasons


def test_allow_and_deny_patterns() -> None:
    graph = {"http://a.com/": ["/blog/1", "/shop/1", "/blog/private"]}
    run = run_fake(graph, ["http://a.com/"], CrawlOptions(allow=(r"^http://a\.com/(blog/.*)?$",), deny=("private",)))
    assert sorted(s.url for s in run.starts) == ["http://a.com/", "http://a.com/blog/1"]


def test_domain_scope_admits_subdomains_not_lookalikes() -> None:
    graph = {"http://www.a.com/": ["http://blog.a.com/", "http://a.com/", "http://a.com.evil.com/", "http://xa.com/"]}
    run = run_fake(graph, ["http://www.a.com/"], CrawlOptions(scope="domain"))
    assert sorted(s.host for s in run.starts) == ["a.com", "blog.a.com", "www.a.com"]


def test_content_duplicates_exact_and_near() -> None:
    exact = ContentIndex("exact")
    assert exact.check_and_add("u1", "Hello   World\n") is None
    assert exact.check_and_add("u2", "hello world") == "u1"
    near = ContentIndex("simhash", distance=3)
    article = " ".join(f"word{i}" for i in range(300))
    assert near.check_and_add("a", article) is None
    assert near.check_and_add("b", article + " updated today") == "a"
    assert near.check_and_add("c", " ".join(f"other{i}" for i in range(300))) is None
    assert hamming(simhash(article), simhash(article + " x")) <= 3


def test_content_duplicate_links_are_not_followed() -> None:
    sched = Scheduler(CrawlOptions(content_dedup="exact", scope="any"))
    sched.add_seeds(["http://a.com/", "http://mirror.com/"], 0.0)
    one, two = sched.poll(0.0)
    sched.on_response(one.id, 1.0, links=["/a"], content="same text")
    sched.on_response(two.id, 1.0, links=["/b"], content="SAME  text")
    assert [f.url for f in sched.poll(1.0)] == ["http://a.com/a"]
    assert sched.content_duplicate_of == {"http://mirror.com/": "http://a.com/"}


def test_seen_sets_behave_alike() -> None:
    urls = [f"http://a.com/{i}" for i in range(5000)]
    for seen in (HashSeen(), BloomSeen(10_000, 0.001)):
        assert all(seen.add(u) for u in urls[:2500])
        assert not any(seen.add(u) for u in urls[:2500])
        false_positives = sum(u in seen for u in urls[2500:])
        assert false_positives <= 25  # 1% of 2500; expected ~0.1% for the Bloom filter
    run = run_fake({"http://a.com/": ["/x", "/x"]}, ["http://a.com/"], CrawlOptions(seen="bloom", bloom_capacity=100))
    assert len(run.starts) == 2


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "workers: expected a whole number >= 1, got 0"),
        ({"normalize": "rfc"}, "normalize: unknown normalization 'rfc'"),
        ({"order": "random"}, "order: expected one of bfs, dfs, lifo, best; got 'random'"),
        ({"per_hots": 2}, "per_hots: unknown crawler option; did you mean 'per_host'?"),
        ({"order": "best"}, "priority: order = 'best' needs a priority function"),
    ],
)
def test_bad_options_say_which_key_and_what_was_expected(options: dict, message: str) -> None:
    with pytest.raises(OptionError) as err:
        CrawlOptions.from_mapping(options)
    assert str(err.value).startswith(message)


def test_best_first_follows_the_priority() -> None:
    graph = {"http://a.com/": ["/c", "/a", "/b"]}
    opts = CrawlOptions(workers=1, order="best", priority=lambda url, depth: -ord(url[-1]))
    run = run_fake(graph, ["http://a.com/"], opts)
    assert [s.url for s in run.starts] == ["http://a.com/", "http://a.com/c", "http://a.com/b", "http://a.com/a"]


def test_events_round_trip_through_json() -> None:
    graph = {"http://a.com/": ["/x", "mailto:q", "/x"]}
    run = run_fake(graph, ["http://a.com/"], CrawlOptions(gap=1.0))
    lines = [json.dumps(event_to_dict(e)) for e in run.events]
    back: list[Event] = [event_from_dict(json.loads(line)) for line in lines]
    assert back == run.events
    assert type(back[-1]).__name__ == "Done"
    with pytest.raises(ValueError, match="unknown event type 'Nope'"):
        event_from_dict({"type": "Nope"})
