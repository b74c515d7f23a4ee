"""``crawlsim trace --format chrome``: Perfetto shows every fetch and every
decision the core emitted, each once, on the right track -- also for a trace
cut short, whose unfinished fetches have no span yet."""

from __future__ import annotations

import io
import json
from collections import Counter
from functools import lru_cache

from hypothesis import given
from hypothesis import strategies as st

from crawlsim.trace.chrome import HOSTS_PID, LINKS_TID, WORKERS_PID, chrome_trace, write_chrome
from crawlsim.trace.events import (
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
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate

HOST_EVENTS = (HostDeferred, RetryScheduled, RobotsLoaded)


@lru_cache(maxsize=None)
def polite_trace() -> tuple[Event, ...]:
    """``polite`` with robots.txt: its trace has every kind of event
    (deferrals, retries, failures, robots.txt, skips)."""
    run = simulate(load_scenario("polite").with_options(robots=True), trace=True, series=False)
    kinds = {type(e) for e in run.trace}
    assert {FetchFailed, Skipped, Done, *HOST_EVENTS} <= kinds
    return tuple(run.trace)


def expected_spans(events: tuple[Event, ...]) -> Counter[tuple[str, int]]:
    """(URL, worker track) of every fetch whose start and end are both in ``events``."""
    started: dict[int, FetchStarted] = {}
    spans: Counter[tuple[str, int]] = Counter()
    for e in events:
        if isinstance(e, FetchStarted):
            started[e.fetch_id] = e
        elif isinstance(e, (FetchFinished, FetchFailed)) and e.fetch_id in started:
            start = started.pop(e.fetch_id)
            spans[(start.url, start.slot + 1)] += 1
    return spans


@given(st.integers(min_value=0, max_value=10_000))
def test_every_event_of_a_prefix_appears_once_on_its_track(cut: int) -> None:
    events = polite_trace()[: cut % (len(polite_trace()) + 1)]
    out = chrome_trace(events)["traceEvents"]

    # a span's name is its URL, then " (duplicate)" or " [reason]" (URLs hold no spaces)
    spans = Counter((e["name"].split(" ")[0], e["tid"]) for e in out if e["ph"] == "X")
    assert spans == expected_spans(events)

    instants = [e for e in out if e["ph"] == "i"]
    links_track = [e for e in instants if (e["pid"], e["tid"]) == (WORKERS_PID, LINKS_TID)]
    host_tracks = [e for e in instants if e["pid"] == HOSTS_PID]
    assert len(links_track) == sum(isinstance(e, (Skipped, Done)) for e in events)
    assert len(host_tracks) == sum(isinstance(e, HOST_EVENTS) for e in events)
    named = {e["tid"]: e["args"]["name"] for e in out if e["ph"] == "M" and e["pid"] == HOSTS_PID and e["tid"]}
    assert all(named[e["tid"]] == e["args"].get("host", named[e["tid"]]) for e in host_tracks)
    assert sorted(named.values()) == sorted({e.host for e in events if isinstance(e, HOST_EVENTS)})


def test_each_worker_track_is_named_once_before_its_first_span() -> None:
    out = chrome_trace(polite_trace())["traceEvents"]
    first_seen: dict[int, int] = {}
    for i, e in enumerate(out):
        if e["pid"] == WORKERS_PID and e["ph"] == "M" and e["name"] == "thread_name" and e["tid"] != LINKS_TID:
            assert e["tid"] not in first_seen, "a worker track named twice"
            first_seen[e["tid"]] = i
    for i, e in enumerate(out):
        if e["ph"] == "X":
            assert first_seen[e["tid"]] < i


@given(st.integers(min_value=0, max_value=10_000), st.sampled_from([(", ", ": "), (",", ":")]), st.booleans())
def test_the_streamed_file_is_json_dump_of_the_whole_trace(cut: int, separators: tuple[str, str], meta: bool) -> None:
    """``crawlsim trace -o FILE.json`` streams the trace (a large crawl's would not fit
    as dicts): the bytes are those of dumping the whole object at once."""
    events = polite_trace()[: cut % (len(polite_trace()) + 1)]
    series = [(0.0, 1, 0), (0.5, 3, 1), (2.0, 0, 0)]
    metadata = {"scenario": "polite", "finish_time": 2.5} if meta else None
    streamed = io.StringIO()
    write_chrome(events, series, streamed, metadata=metadata, separators=separators)
    whole = json.dumps(chrome_trace(events, series, metadata=metadata), separators=separators)
    assert streamed.getvalue() == whole
