"""The terminal app's pure parts: replaying a trace to the state at time t,
the what-if knobs, trace files and the command line -- no Textual needed."""

from __future__ import annotations

import io
import itertools
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlsim.core.options import with_implied_order
from crawlsim.trace.events import event_to_dict
from crawlsim.views.replay import PageState, Replay, describe_event, short_url
from crawlsim.scenario import load_scenario
from crawlsim.views.session import (
    INTERACTIVE_CAP,
    ORDER_CHOICES,
    WORKER_STEPS_BY_ONE,
    Knobs,
    default_speed,
    interactive_cap,
    next_normalize,
    run_session,
    step_workers,
)
from crawlsim.trace.jsonl import load_trace
from crawlsim.sim.driver import simulate


def main(argv: list[str]) -> int:
    """``crawlsim tui ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["tui", *argv])


@pytest.fixture(scope="module")
def see_it():
    scenario = load_scenario("see-it")
    return scenario, simulate(scenario)


def snapshot_of(replay: Replay) -> tuple:
    """Everything a view reads at the current time, for equality checks."""
    return (
        tuple((p.url, p.state, p.note, p.links) for p in replay.page_list),
        tuple((h.name, tuple(h.counts), h.in_flight, h.deferred_until) for h in replay.hosts.values()),
        replay.counters(),
    )


def test_states_follow_the_crawl(see_it) -> None:
    _, run = see_it
    replay = Replay(run.trace, workers=run.options.workers)
    replay.seek(0.0)
    root = replay.pages["http://a.com/"]
    assert root.state == PageState.IN_FLIGHT
    assert replay.pages["http://b.com/img/5"].state == PageState.UNDISCOVERED
    replay.seek(1.0)
    assert root.state == PageState.DONE and root.links == 4
    assert replay.pages["http://a.com/x"].state == PageState.IN_FLIGHT
    assert replay.pages["http://a.com/y"].state == PageState.FRONTIER
    assert replay.pages["http://a.com/y"].parent == "http://a.com/"
    replay.seek(replay.end)
    assert all(p.state == PageState.DONE for p in replay.page_list)
    c = replay.counters()
    assert c.done and c.fetched == run.stats.pages_fetched == 14
    assert c.in_flight == 0 and c.frontier == 0
    assert math.isclose(c.busy, run.busy_time)


def test_counters_match_the_simulation_with_duplicates() -> None:
    scenario = load_scenario("see-it").with_options(normalize="off")
    run = simulate(scenario)
    replay = Replay(run.trace)
    replay.seek(replay.end)
    c = replay.counters()
    assert c.duplicates == run.stats.duplicate_fetches > 0
    assert math.isclose(c.wasted, run.wasted_time)
    dup = [p for p in replay.page_list if p.state == PageState.DUPLICATE]
    assert len(dup) == run.stats.duplicate_fetches
    assert "http://a.com/x#top" in {p.url for p in dup}
    # wasted time grows while a duplicate fetch is in flight
    first = min(s.start for lane in replay.lanes for s in lane if s.duplicate)
    replay.seek(first + 0.5)
    assert math.isclose(replay.counters().wasted, 0.5)


def test_seeking_backward_equals_seeking_fresh(see_it) -> None:
    _, run = see_it
    moving = Replay(run.trace)
    for t in (12.0, 3.5, 19.0, 0.0, 7.25, 7.0, 1.0):
        moving.seek(t)
        fresh = Replay(run.trace)
        fresh.seek(t)
        assert snapshot_of(moving) == snapshot_of(fresh), t


def test_step_times(see_it) -> None:
    _, run = see_it
    replay = Replay(run.trace)
    assert replay.next_time(0.0) == 1.0
    assert replay.next_time(0.5) == 1.0
    assert replay.previous_time(1.0) == 0.0
    assert replay.next_time(replay.end) is None


def test_lanes_hold_one_fetch_at_a_time(see_it) -> None:
    _, run = see_it
    replay = Replay(run.trace, workers=4)
    assert len(replay.lanes) == 4
    assert sum(len(lane) for lane in replay.lanes) == run.stats.fetches
    for lane in replay.lanes:
        for a, b in itertools.pairwise(lane):
            assert a.end <= b.start
    # with b.com the bottleneck, two of the four workers never fetch
    assert sum(1 for lane in replay.lanes if not lane) == 2
    replay.seek(4.5)
    assert replay.current_span(1) is not None and replay.current_span(1).host == "b.com"
    assert replay.current_span(3) is None


def test_series_counts_frontier_and_in_flight(see_it) -> None:
    _, run = see_it
    replay = Replay(run.trace)
    for t, frontier, flight in replay.series:
        replay.seek(t)
        c = replay.counters()
        assert (c.frontier, c.in_flight) == (frontier, flight)
        assert replay.value_at(t) == (frontier, flight)
    assert max(p[2] for p in replay.series) == run.stats.peak_in_flight


def test_politeness_robots_and_retries() -> None:
    scenario = load_scenario("polite")
    run = simulate(scenario)
    replay = Replay(run.trace)
    replay.seek(1.0)
    a = replay.hosts["a.com"]
    assert a.robots == "200" and a.crawl_delay == 2.0
    assert a.waiting(1.0) and a.deferred_reason == "crawl-delay" and a.deferred_until == 2.5
    assert replay.pages["http://a.com/private/admin"].state == PageState.SKIPPED
    assert "robots" in replay.pages["http://a.com/private/admin"].note
    replay.seek(1.8)
    news = replay.pages["http://c.com/news/1"]
    assert news.state == PageState.FRONTIER and "retry" in news.note
    replay.seek(replay.end)
    assert replay.counters().retries == run.stats.retries > 0
    assert not replay.hosts["a.com"].waiting(replay.end + 10)


def test_pages_the_crawl_never_reached_are_drawn() -> None:
    scenario = load_scenario("interview-scope")
    result = run_session(scenario, Knobs.from_options(scenario.options))
    replay = result.replay
    replay.seek(replay.end)
    assert replay.pages["http://blog.a.com/p"].state == PageState.SKIPPED
    assert replay.pages["http://blog.a.com/q"].state == PageState.UNDISCOVERED
    assert replay.pages["http://a.com/x"].state == PageState.FAILED


def test_large_crawls_are_summarised() -> None:
    scenario = load_scenario("busiest-host")
    result = run_session(scenario, Knobs.from_options(scenario.options))
    assert result.replay.large
    hosts = result.replay.host_order()
    assert hosts[0].name == "h0.example" and hosts[0].total == max(h.total for h in hosts)
    assert result.bounds is not None and result.bounds.binding == "busiest_host"


def test_trace_file_round_trip(tmp_path, see_it) -> None:
    _, run = see_it
    path = tmp_path / "see-it.jsonl"
    path.write_text("".join(json.dumps(event_to_dict(e)) + "\n" for e in run.trace))
    events = load_trace(path)
    a, b = Replay(run.trace), Replay(events)
    a.seek(9.0)
    b.seek(9.0)
    assert snapshot_of(a) == snapshot_of(b)


def test_bad_trace_names_the_line(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "Done", "t": 1.0, "pages": 1, "fetches": 1}\n{"type": "Nope", "t": 2}\n')
    with pytest.raises(ValueError, match="line 2: unknown event type 'Nope'"):
        load_trace(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="no events"):
        load_trace(empty)


def test_a_trace_is_read_as_written_whatever_its_line_endings(tmp_path, see_it) -> None:
    """Windows line endings and blank lines read as the same events; bytes
    that are not UTF-8, or a folder, are one clear error naming the file
    (the file is read line by line, so these come up mid-read)."""
    _, run = see_it
    lines = [json.dumps(event_to_dict(e)) for e in run.trace]
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(("\r\n".join(lines[:5]) + "\r\n\r\n" + "\r\n".join(lines[5:]) + "\r\n").encode())
    assert load_trace(crlf) == list(run.trace)
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes("\n".join(lines[:10]).encode() + b"\n\xff\xfe\n" + "\n".join(lines[10:]).encode() + b"\n")
    with pytest.raises(ValueError, match=r"broken\.jsonl: line 11: 'utf-8' codec"):
        load_trace(broken)
    with pytest.raises(ValueError, match="cannot read: Is a directory"):
        load_trace(tmp_path)
    # A device or a FIFO is refused before it is read: /dev/zero would never end a
    # line, a FIFO might never end.  (/dev/null here: without the check it reads
    # as empty and fails with another message, instead of hanging the suite.)
    with pytest.raises(ValueError, match="/dev/null: cannot read: not a regular file"):
        load_trace("/dev/null")


# -- knobs -------------------------------------------------------------------------------


def test_polite_mode_is_per_host_and_gap() -> None:
    knobs = Knobs.from_options(load_scenario("see-it").options)
    assert knobs.polite and knobs.overrides()["per_host"] == 1 and knobs.overrides()["gap"] == 0.0
    off = knobs.toggle_polite()
    assert off.overrides()["per_host"] is None and off.overrides()["gap"] == 0.0
    assert "polite off" in off.describe()
    wider = off.gap_up()  # a gap turns polite mode back on
    assert wider.polite and wider.overrides() == {**knobs.overrides(), "gap": 0.25}
    assert wider.gap_down().gap == 0.0
    assert wider.diff(knobs) == "gap 0→0.25 s"


def test_worker_ladder_and_cycles() -> None:
    knobs = Knobs.from_options(load_scenario("busiest-host").options.with_(workers=1))
    seen = [knobs.workers]
    for _ in range(5):
        knobs = knobs.more_workers()
        seen.append(knobs.workers)
    assert seen == [1, 2, 3, 4, 5, 6]
    assert knobs.fewer_workers().workers == 5
    assert Knobs.from_options(load_scenario("see-it").options.with_(workers=1)).fewer_workers().workers == 1
    assert [next_normalize(m) for m in ("off", "fragment", "rfc3986", "aggressive")] == [
        "fragment",
        "rfc3986",
        "aggressive",
        "off",
    ]
    assert next_normalize(frozenset({"fragment"})) == "off"
    assert knobs.toggle_order().order == "dfs" and knobs.toggle_order().toggle_order().order == "bfs"


def test_the_order_key_runs_each_named_priority_as_the_command_line_would() -> None:
    """``o`` cycles BFS, DFS and every named priority, and each stop runs the
    crawl ``--order X`` / ``--priority NAME`` runs (the same trace)."""
    scenario = load_scenario("see-it")
    knobs = Knobs.from_options(scenario.options)
    seen = []
    for _ in ORDER_CHOICES:
        seen.append(knobs.order_choice)
        direct = {"order": knobs.order_choice} if knobs.order_choice in ("bfs", "dfs") else {"priority": knobs.order_choice}
        via_knobs = simulate(scenario, scenario.options.with_(**knobs.overrides())).trace
        via_flags = simulate(scenario, scenario.options.with_(**with_implied_order(direct))).trace
        assert list(via_knobs) == list(via_flags)
        knobs = knobs.next_order()
    assert seen == list(ORDER_CHOICES) and knobs.order_choice == "bfs"
    assert set(ORDER_CHOICES) >= {"shallowest", "host-round-robin"}


def test_million_is_capped_and_others_are_not() -> None:
    assert interactive_cap(load_scenario("million")) == INTERACTIVE_CAP
    assert interactive_cap(load_scenario("busiest-host")) is None
    assert interactive_cap(load_scenario("trap")) is None
    assert default_speed(19.0) == 1.0 and default_speed(153.0) == 10.0


def test_short_urls_and_event_lines() -> None:
    assert short_url("http://a.com/x#top", "a.com") == "/x#top"
    assert short_url("http://a.com", "a.com") == "/"
    assert short_url("HTTP://A.COM/about", "a.com") == "HTTP://A.COM/about"
    run = simulate(load_scenario("interview"))
    lines = [describe_event(e) for e in run.trace]
    assert lines[0].startswith("found") and lines[-1].startswith("DONE")


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such-scenario"], "no scenario file or shipped scenario named"),
        (["see-it", "--workers", "0"], "workers: expected a whole number >= 1"),
        (["see-it", "--trace", "x.jsonl"], "give a scenario or --trace FILE, not both"),
        (["--trace", "x.jsonl", "--workers", "2"], "crawler flags (workers) need a scenario"),
        (["--trace", "/no/such/trace.jsonl"], "cannot read"),
        (["see-it", "--speed", "0"], "--speed: expected a number > 0"),
    ],
)
def test_user_mistakes_are_one_line(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("crawlsim: error: ") and message in err
    assert err.count("\n") == 1


def test_not_a_terminal_is_refused(capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO())  # not a terminal, even under `pytest -s`
    monkeypatch.delenv("CRAWLSIM_TUI_FORCE", raising=False)
    assert main(["see-it"]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_urls_spelled_with_another_host_case_are_shown_whole() -> None:
    from crawlsim.views.replay import host_and_path

    assert host_and_path("http://a.com/x#top", "a.com") == "a.com/x#top"
    assert host_and_path("HTTP://A.COM/about", "a.com") == "HTTP://A.COM/about"
    assert host_and_path("http://H3.EXAMPLE/p8", "h3.example") == "http://H3.EXAMPLE/p8"
    assert host_and_path("http://a.com:80/x", "a.com") == "a.com:80/x"  # the port spelling, with its host


@given(workers=st.integers(min_value=1, max_value=128))
def test_plus_and_minus_follow_one_rule_and_undo_each_other(workers: int) -> None:
    """+ and - step the same way (by one up to 8, doubling and halving from
    there, as the key bar says), so on the rule's own counts each undoes the other."""
    up, down = step_workers(workers, 1), step_workers(workers, -1)
    assert 1 <= down <= workers <= up <= 128
    by_one = WORKER_STEPS_BY_ONE
    if workers < by_one:
        assert up == workers + 1
    if 1 < workers <= by_one:
        assert down == workers - 1
    if by_one <= workers <= 64:
        assert up == 2 * workers
    rungs = [*range(1, by_one + 1), *(by_one * 2**k for k in range(1, 5))]
    if workers in rungs:
        assert up == workers or step_workers(up, -1) == workers
        assert down == workers or step_workers(down, 1) == workers
