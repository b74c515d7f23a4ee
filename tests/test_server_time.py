"""Each fetch's server time, apart from the crawler's: what ``crawlsim crawl -o``
records (when the event loop saw each answer arrive) and what ``crawlsim
model`` makes of it (each page's own server time; the crawler's work the
simulation's serial client, at the rerun's concurrency)."""

from __future__ import annotations

import json
import selectors
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.scenario.from_trace import model_from_trace
from crawlsim.trace.events import FetchFailed, FetchFinished, FetchStarted, RetryScheduled
from crawlsim.errors import UsageError
from crawlsim.real.loopwatch import WAITED, ReadyLog
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.trace.jsonl import TraceWriter, read_trace
from crawlsim.sim.driver import simulate


class Key:
    """A selector key as the log reads it (its file descriptor)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd


READ = selectors.EVENT_READ


def test_a_wait_the_data_woke_dates_it_at_the_wakeup() -> None:
    log = ReadyLog()
    log.noted(1.0, 1.030, [(Key(7), READ)])  # blocked 30 ms, woken by socket 7
    assert log.arrival(7, sent=1.0, read=1.040) == pytest.approx(1.030)


def test_data_found_at_once_came_while_the_loop_was_busy() -> None:
    """The loop was busy from 2.000 to 2.010 (another response); its next look
    found socket 7 ready at once: the data came in that stretch, dated at its
    middle -- never before its request was sent."""
    log = ReadyLog()
    log.noted(1.0, 2.000, [(Key(3), READ)])
    log.noted(2.010, 2.010, [(Key(7), READ)])
    assert log.arrival(7, sent=1.5, read=2.011) == pytest.approx(2.005)
    log.noted(3.000, 3.000, [])
    log.noted(3.020, 3.020, [(Key(7), READ)])
    assert log.arrival(7, sent=3.016, read=3.021) == pytest.approx(3.018)  # sent mid-stretch


WRITE = selectors.EVENT_WRITE


def test_a_loop_that_writes_late_times_the_server_from_the_write_not_the_hand_over() -> None:
    """Twisted writes a request in the turn after a wait found its socket writable:
    the server's time runs from there; each of a turn's answers is given once, in
    the order the loop reads them, to the request handed over before its write."""
    from crawlsim.trace.arrival import Exchanges

    log = Exchanges(gap=lambda fd: None)  # no kernel record: the selector's waits alone
    log.noted(1.0, 1.0, [(Key(7), WRITE), (Key(8), WRITE)])  # both written in the turn after 1.0
    log.noted(1.05, 1.08, [(Key(8), READ), (Key(7), READ)])  # blocked 30 ms: both answers woke it
    assert log.answer(sent=0.9) == pytest.approx(0.08)  # socket 8's, read first
    assert log.answer(sent=0.95) == pytest.approx(0.08)
    assert log.answer(sent=0.95) is None  # every answer of the turn given
    log.noted(1.2, 1.2, [(Key(7), READ)])  # more of socket 7's answer: no new exchange
    assert log.answers == []


def test_the_kernels_record_times_the_server_and_a_closed_socket_is_no_answer() -> None:
    from crawlsim.trace.arrival import Exchanges

    gaps = {7: 0.004, 8: -0.5}  # socket 8: nothing came since its request (the peer closed it)
    log = Exchanges(gap=gaps.get)
    log.noted(1.0, 1.0, [(Key(7), WRITE), (Key(8), WRITE)])
    log.noted(1.1, 1.1, [(Key(7), READ), (Key(8), READ)])  # found at once, after a busy stretch
    assert log.answers == [(1.0, 0.004)]
    assert log.written == {8: 1.0}  # still waiting for its answer


def test_the_kernels_gap_is_never_longer_than_the_waits_allow() -> None:
    """The kernel's record counts in clock ticks (4 ms here): an answer that came 1 ms
    after its request can read as 4 ms, longer than the crawler took to see it."""
    from crawlsim.trace.arrival import Exchanges

    log = Exchanges(gap={7: 0.004}.get)
    log.noted(1.0, 1.0, [(Key(7), WRITE)])
    log.noted(1.0005, 1.002, [(Key(7), READ)])  # blocked until the answer came, 2 ms after the write's turn
    assert log.answers == [(1.0, pytest.approx(0.002))]


def test_a_real_tcp_sockets_kernel_gap_is_its_send_to_receive_time() -> None:
    import socket
    import time

    from crawlsim.trace.arrival import kernel_gap

    if not hasattr(socket, "TCP_INFO"):
        pytest.skip("no TCP_INFO: not Linux")
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        peer, _ = server.accept()
        with client, peer:
            client.sendall(b"GET")  # a first exchange, long done...
            peer.recv(3)
            peer.sendall(b"200")
            client.recv(3)
            time.sleep(0.03)
            client.sendall(b"GET")  # ...and a second request, not answered yet
            peer.recv(3)
            before = kernel_gap(client.fileno())
            time.sleep(0.05)  # the server's time: at least this long, whatever the load
            peer.sendall(b"200")
            client.recv(3)
            after = kernel_gap(client.fileno())
            assert before is not None and before < 0  # nothing came since the request
            assert after is not None and after >= 0.05 - 0.011  # within a jiffy (up to 10 ms) of the sleep
            assert client.fileno() >= 0  # looked at, not closed


def test_an_answer_is_dated_by_its_last_data_and_the_next_request_starts_afresh() -> None:
    log = ReadyLog()
    log.noted(0.0, 0.020, [(Key(5), READ)])  # headers
    log.noted(0.020, 0.020 + 2 * WAITED, [(Key(5), READ)])  # the body's last part
    assert log.arrival(5, sent=0.0, read=0.030) == pytest.approx(0.020 + 2 * WAITED)
    assert log.arrival(5, sent=0.031, read=0.040) is None  # nothing seen for a later request
    log.noted(0.0, 0.01, [(Key(9), selectors.EVENT_WRITE)])
    assert log.arrival(9, sent=0.0, read=0.02) is None  # writable is not an answer


# --------------------------------------------------------------------------- the model


def recorded_web(latency: list[float], cost: float, workers: int) -> dict[str, Any]:
    """A tree of pages (3 children each) whose every page takes the server its own known time."""
    urls = [f"http://a.test/p{i}" for i in range(len(latency))]
    pages = {u: {"links": urls[3 * i + 1 : 3 * i + 4], "latency": lat} for i, (u, lat) in enumerate(zip(urls, latency))}
    return {
        "start": urls[0],
        "client_cost": cost,
        "crawl": {"workers": workers, "per_host": workers, "gap": 0.0, "robots": True},
        "hosts": {"a.test": {"latency": 0.01, "robots_latency": 0.005}},
        "pages": pages,
    }


def record(data: dict[str, Any], path: Path) -> float:
    """Write the simulated crawl of ``data`` as a real crawl's recording: its fetches'
    times inflated by the crawler's serial work as a real crawler's are, the Done
    line saying each fetch's server time and the loop's busy time, as ``crawlsim
    crawl -o`` does.  The recording's finish."""
    from crawlsim.views.summary import options_dict

    scenario = scenario_from_dict(data)
    run = simulate(scenario)
    latency = {url: spec["latency"] for url, spec in data["pages"].items()}
    served: dict[str, float] = {}
    for e in run.trace:
        if isinstance(e, FetchStarted):
            served[str(e.fetch_id)] = 0.005 if e.kind == "robots" else latency[e.url]
    cost = data["client_cost"]
    options = {**options_dict(scenario.options), "client_busy": cost * len(served), "client_busy_start": cost,
               "server_time": served}
    writer = TraceWriter(str(path), options=options)
    for e in run.trace:
        writer(e)
    writer.close()
    return run.finish_time


@settings(max_examples=15, deadline=None)
@given(
    latency=st.lists(st.floats(0.001, 0.08), min_size=4, max_size=30),
    cost=st.floats(0.0005, 0.01),
    recorded_at=st.integers(1, 8),
    rerun_at=st.integers(1, 16),
)
def test_the_model_of_a_recording_with_known_server_times_predicts_the_web_itself(
    tmp_path_factory: pytest.TempPathFactory, latency: list[float], cost: float, recorded_at: int, rerun_at: int
) -> None:
    """Whatever the recording's concurrency inflated its fetch times by, the model
    keeps each page's server time and the crawler's own work, so its prediction at
    any other number of workers is the web's own answer there."""
    trace = tmp_path_factory.mktemp("rec") / "rec.jsonl"
    recorded_finish = record(recorded_web(latency, cost, recorded_at), trace)
    model = tomllib.loads(model_from_trace(str(trace)))
    times = {u: p["latency"] for u, p in model["pages"].items()}
    assert times == pytest.approx({f"http://a.test/p{i}": lat for i, lat in enumerate(latency)}, abs=1e-6)
    assert model["client_cost"] == pytest.approx(cost, abs=1e-6)
    as_modelled = simulate(scenario_from_dict(model))
    assert as_modelled.finish_time == pytest.approx(recorded_finish, abs=1e-4)  # the recording, reproduced
    truth = simulate(scenario_from_dict(recorded_web(latency, cost, rerun_at)))
    model["crawl"]["workers"] = model["crawl"]["per_host"] = rerun_at
    predicted = simulate(scenario_from_dict(model))
    assert predicted.stats.pages_fetched == truth.stats.pages_fetched
    assert predicted.finish_time == pytest.approx(truth.finish_time, abs=1e-4)


def test_without_server_times_an_older_trace_still_models(tmp_path: Path) -> None:
    """A trace written before server times were recorded: each page's measured
    time less the crawler's work, as before."""
    trace = tmp_path / "old.jsonl"
    record(recorded_web([0.02, 0.03, 0.04, 0.05], 0.002, 2), trace)
    lines = trace.read_text().splitlines()
    done = json.loads(lines[-1])
    for key in ("server_time", "client_busy_start"):
        del done["options"][key]
    trace.write_text("\n".join([*lines[:-1], json.dumps(done)]) + "\n")
    events = read_trace(trace).events
    started = {e.fetch_id: e.t for e in events if isinstance(e, FetchStarted)}
    wire = {e.url: e.t - started[e.fetch_id] for e in events if isinstance(e, FetchFinished) and e.kind == "page"}
    model = tomllib.loads(model_from_trace(str(trace)))
    cost = model["client_cost"]
    assert cost == pytest.approx(0.002, abs=1e-6)
    assert {u: p["latency"] for u, p in model["pages"].items()} == pytest.approx(
        {u: max(0.0, w - cost) for u, w in wire.items()}, abs=1e-6)


def test_assumes_counts_the_pages_with_a_server_time_when_only_some_have_one(tmp_path: Path) -> None:
    """A fetch on a connection the server closed has no server time: ``assumes``
    says how many pages take their server's time and what the rest take."""
    trace = tmp_path / "rec.jsonl"
    record(recorded_web([0.02, 0.03, 0.04, 0.05], 0.002, 2), trace)
    lines = trace.read_text().splitlines()
    done = json.loads(lines[-1])
    pages = [e.fetch_id for e in read_trace(trace).events if isinstance(e, FetchStarted) and e.kind == "page"]
    del done["options"]["server_time"][str(pages[-1])]
    trace.write_text("\n".join([*lines[:-1], json.dumps(done)]) + "\n")
    assumes = tomllib.loads(model_from_trace(str(trace)))["assumes"]
    assert "3 of 4 fetched pages take their server's measured time" in assumes
    assert "the rest their measured time less client_cost" in assumes
    assert "each fetched page" not in assumes


@pytest.mark.parametrize("value", [{"1": -0.5}, {"one": 0.1}, [0.1], {"1": "fast"}])
def test_a_bad_server_time_is_one_line_naming_the_key(tmp_path: Path, value: object) -> None:
    trace = tmp_path / "rec.jsonl"
    record(recorded_web([0.02, 0.03], 0.002, 2), trace)
    lines = trace.read_text().splitlines()
    done = json.loads(lines[-1])
    done["options"]["server_time"] = value
    trace.write_text("\n".join([*lines[:-1], json.dumps(done)]) + "\n")
    with pytest.raises(UsageError, match=rf"^{trace}: the Done line's options\.server_time.*expected fetch ids"):
        model_from_trace(str(trace))


# --------------------------------------------------------------------------- a real crawl


def test_a_real_crawl_records_each_fetchs_server_time_within_its_measured_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crawl of a served site at 4 workers: every fetch has a server time, never more
    than its own start-to-finish time, and the model takes its pages' times from them
    and reruns the same pages."""
    from crawlsim.cli import main
    from crawlsim.real.server import ServerProcess
    from tests.test_real_crawl import make_scenario

    pages: dict[str, object] = {"http://a.test/": [f"/p{i}" for i in range(12)]}
    pages.update({f"http://a.test/p{i}": [f"/p{(i + 1) % 12}"] for i in range(12)})
    trace, site = tmp_path / "rec.jsonl", tmp_path / "site.toml"
    with ServerProcess(make_scenario(pages, latency=0.02)) as server:
        resolve = [f"--resolve={h}={a}:{p}" for h, (a, p) in server.resolve().items()]
        flags = ["--workers", "4", "--per-host", "4", "--gap", "0", "-o", str(trace), "--json"]
        assert main(["crawl", "http://a.test/", *resolve, *flags]) == 0
    recording = read_trace(trace)
    served = {int(k): v for k, v in recording.options["server_time"].items()}  # type: ignore[index]
    started = {e.fetch_id: e.t for e in recording.events if isinstance(e, FetchStarted)}
    ended = {e.fetch_id: e for e in recording.events if isinstance(e, FetchFinished)}
    assert set(served) == set(started) == set(ended)
    assert all(0 <= served[i] <= ended[i].t - started[i] for i in served)
    assert main(["model", str(trace), "-o", str(site)]) == 0
    model = tomllib.loads(site.read_text())
    by_url = {e.url: served[i] for i, e in ended.items() if e.kind == "page"}
    assert {u: p["latency"] for u, p in model["pages"].items()} == pytest.approx(by_url, abs=1e-6)
    capsys.readouterr()
    assert main(["run", str(site), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pages_fetched"] == 13


# --------------------------------------------------------------------------- 429, then 200


def test_a_page_that_answered_429_then_200_is_retried_after_its_wait_then_followed() -> None:
    data = {
        "start": "http://a.test/",
        "crawl": {"workers": 2, "per_host": 2, "gap": 0.0, "robots": False},
        "hosts": {"*": {"latency": 0.01}},
        "pages": {
            "http://a.test/": ["/busy", "/b"],
            "http://a.test/busy": {"links": ["/c"], "before": [{"status": 429, "headers": {"Retry-After": "2"}}]},
        },
    }
    run = simulate(scenario_from_dict(data))
    answers = [e for e in run.trace if isinstance(e, (FetchFailed, FetchFinished)) and e.url == "http://a.test/busy"]
    assert [getattr(e, "reason", None) or e.status for e in answers] == ["HTTP 429", 200]  # type: ignore[union-attr]
    assert run.stats.pages_fetched == 4  # /c, linked only from the page's 200, was reached
    starts = [e.t for e in run.trace if isinstance(e, FetchStarted) and e.url == "http://a.test/busy"]
    assert starts[1] - answers[0].t == pytest.approx(2.0)


def test_a_bad_earlier_answer_names_its_key() -> None:
    from crawlsim.scenario import ScenarioError

    data = {"start": "http://a.test/", "pages": {"http://a.test/": {"links": [], "before": [{"status": "soon"}]}}}
    with pytest.raises(ScenarioError, match=r'pages\."http://a\.test/"\.before\[0\]\.status'):
        scenario_from_dict(data)


def recorded_retries(path: Path, told: list[int] | None = None) -> dict[str, Any]:
    """A simulated crawl, written as a trace, of a web where /told answers 429 with
    Retry-After: 2 once and /backoff 503 with no Retry-After once; the model of it
    (with the Done line's list of fetch ids answered with a Retry-After, when given)."""
    data = {
        "start": "http://a.test/",
        "crawl": {"workers": 2, "per_host": 2, "gap": 0.0, "robots": False, "backoff_base": 0.5},
        "hosts": {"*": {"latency": 0.01}},
        "pages": {
            "http://a.test/": ["/told", "/backoff"],
            "http://a.test/told": {"links": [], "before": [{"status": 429, "headers": {"Retry-After": "2"}}]},
            "http://a.test/backoff": {"links": [], "before": [{"status": 503}]},
        },
    }
    run = simulate(scenario_from_dict(data))
    options: dict[str, Any] = {"workers": 2, "per_host": 2, "gap": 0.0, "robots": False}
    if told is not None:
        options["retry_after_sent"] = told
    writer = TraceWriter(str(path), options=options)
    for e in run.trace:
        writer(e)
    writer.close()
    return tomllib.loads(model_from_trace(str(path)))["pages"]


def test_only_a_retry_the_server_asked_for_is_modelled_with_a_retry_after(tmp_path: Path) -> None:
    """A 503 whose wait was the crawler's own backoff is modelled as the bare status
    (the model's backoff applies), a 429 whose wait the server set keeps its Retry-After."""
    pages = recorded_retries(tmp_path / "rec.jsonl")
    assert pages["http://a.test/told"]["before"] == [{"status": 429, "headers": {"Retry-After": "2"}}]
    assert pages["http://a.test/backoff"]["before"] == [{"status": 503}]


def test_the_recordings_list_of_retry_afters_is_what_decides(tmp_path: Path) -> None:
    pages = recorded_retries(tmp_path / "rec.jsonl", told=[])  # the crawler saw no Retry-After
    assert pages["http://a.test/told"]["before"] == [{"status": 429}]
    trace = tmp_path / "bad.jsonl"
    with pytest.raises(UsageError, match=rf"^{trace}: the Done line's options\.retry_after_sent .*expected a list"):
        recorded_retries(trace, told=["soon"])  # type: ignore[list-item]


def test_a_recorded_429_then_200_is_modelled_as_it_happened(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A served host that refuses every page's first attempt with 429: the model's
    pages answer 429 with the wait the crawler took before their 200, and its rerun
    fetches the same pages with as many retries."""
    from crawlsim.cli import main
    from crawlsim.real.server import ServerProcess
    from tests.test_real_crawl import make_scenario

    pages: dict[str, object] = {"http://a.test/": ["/p1", "/p2"], "http://a.test/p1": ["/p3"]}
    throttle = {"throttle": {"status": 429, "retry_after": 0.2, "rate": 1.0, "attempts": 1}}
    trace, site = tmp_path / "rec.jsonl", tmp_path / "site.toml"
    with ServerProcess(make_scenario(pages, latency=0.005, hosts={"a.test": throttle})) as server:
        resolve = [f"--resolve={h}={a}:{p}" for h, (a, p) in server.resolve().items()]
        assert main(["crawl", "http://a.test/", *resolve, "--gap", "0", "-o", str(trace), "--json"]) == 0
    real = json.loads(capsys.readouterr().out)
    assert main(["model", str(trace), "-o", str(site)]) == 0
    model = tomllib.loads(site.read_text())
    recording = read_trace(trace)
    waits = {e.url: e.at - e.t for e in recording.events if isinstance(e, RetryScheduled)}
    assert len(waits) == 4
    throttled = {e.fetch_id for e in recording.events if isinstance(e, FetchFailed) and e.reason == "HTTP 429"}
    assert set(recording.options["retry_after_sent"]) == throttled  # type: ignore[index]
    for url, spec in model["pages"].items():
        assert "status" not in spec  # 200 in the end
        (answer,) = spec["before"]
        assert answer["status"] == 429 and float(answer["headers"]["Retry-After"]) == pytest.approx(waits[url], abs=1e-3)
    capsys.readouterr()
    assert main(["run", str(site), "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert sim["pages_fetched"] == real["pages_fetched"] == 4
    assert sim["retries"] == real["retries"] == 4


def test_the_crawl_trace_writer_gives_the_loop_its_selector_back_when_the_crawl_ends(tmp_path: Path) -> None:
    """The busy-time stamp wraps the loop's selector on the first event; once the
    crawl is Done its wrapper is gone, so the server-time log (or anything else
    that wrapped the selector first) can take its own off too."""
    import asyncio

    from crawlsim.commands.crawl import _CpuStampedWriter
    from crawlsim.trace.events import Done
    from crawlsim.real.loopwatch import ReadyLog

    async def crawl() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        selector = loop._selector  # type: ignore[attr-defined]
        original = selector.select
        log = ReadyLog()
        log.install(loop)
        writer = _CpuStampedWriter(str(tmp_path / "t.jsonl"), {})
        writer(Done(t=0.0, pages=0, fetches=0))
        await asyncio.sleep(0)  # the loop waits in its selector once more
        log.uninstall()
        return selector.select == original, writer.idle >= 0.0

    restored, counted = asyncio.run(crawl())
    assert restored and counted
