"""A real Scrapy crawl with ``crawlsim.integrations.scrapy.TraceRecorder``
becomes a crawlsim trace: it replays, ``crawlsim model`` makes it a
scenario, and that scenario's ``run`` fetches the pages Scrapy fetched.

One real crawl for the module (Scrapy's start-up costs seconds on a loaded
machine): a spider run by ``CrawlerProcess`` in a child process, against a
scenario served on loopback by crawlsim's own server."""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from crawlsim.trace.events import Discovered, Done, FetchFinished, FetchStarted, Skipped
from crawlsim.real.server import ScenarioServer, ServerProcess
from crawlsim.views.session import trace_result
from crawlsim.trace.jsonl import read_trace
from tests.test_real_crawl import make_scenario

SPIDER = """
import json, os, signal, sys
import scrapy
from scrapy.crawler import CrawlerProcess

GIVEN = json.loads(sys.argv[3])

class Site(scrapy.Spider):
    name = "site"
    start_urls = [sys.argv[1]]
    allowed_domains = GIVEN.pop("ALLOWED_DOMAINS", ["127.0.0.1"])
    burn = GIVEN.pop("BURN", 0)  # the CPU work of each callback: a busy crawler

    def parse(self, response):
        sum(range(self.burn))
        if len(sys.argv) > 4 and response.url.endswith(sys.argv[4]):
            os.kill(os.getpid(), signal.SIGKILL)  # killed mid-crawl, as by the OOM killer or kill -9
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)

settings = {
    "EXTENSIONS": {"crawlsim.integrations.scrapy.TraceRecorder": 500},
    "CRAWLSIM_TRACE": sys.argv[2],
    "LOG_LEVEL": "WARNING",
    "TELNETCONSOLE_ENABLED": False,
    **GIVEN,
}
process = CrawlerProcess(settings)
process.crawl(Site)
process.start()
"""
SETTINGS = {"ROBOTSTXT_OBEY": True, "CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 2, "DOWNLOAD_DELAY": 0}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def site(port: int) -> dict[str, Any]:
    """One host of 10 pages, a 404, a redirect, a robots-disallowed page, a
    link to a host outside ``allowed_domains``, and the start page linked
    again (Scrapy's start requests skip its duplicate filter)."""
    a, other = f"http://127.0.0.1:{port}", f"http://127.0.0.2:{port}"
    pages: dict[str, Any] = {
        f"{a}/": [f"/p{i}" for i in range(6)] + ["/gone", "/private/x", f"{other}/", "/moved"],
        f"{a}/gone": {"links": [], "status": 404},
        f"{a}/moved": {"links": [], "status": 301, "headers": {"Location": "/p8"}},
        f"{a}/p8": [],
        f"{a}/p0": ["/", "/p1", "/p6"],
        f"{a}/p1": ["/p2", "/p7"],
        f"{other}/": [],
    }
    return pages


def crawl_with_scrapy(base: str, trace: Path, settings: dict[str, Any], kill_at: str = "") -> None:
    spider = trace.parent / "spider.py"
    spider.write_text(SPIDER)
    done = subprocess.run(
        [sys.executable, str(spider), base + "/", str(trace), json.dumps(settings), *([kill_at] if kill_at else [])],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == (-9 if kill_at else 0), done.stderr[-2000:]


def crawl_site(tmp: Path, settings: dict[str, Any], kill_at: str = "") -> tuple[Path, str]:
    """``site`` served on loopback, crawled by Scrapy with ``settings``; (the trace, the base URL)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    robots = "User-agent: *\nDisallow: /private/\n"
    scenario = make_scenario(site(port), latency=0.01, hosts={f"127.0.0.1:{port}": {"robots": robots}})
    trace = tmp / "crawl.jsonl"
    with ServerProcess(scenario):
        crawl_with_scrapy(base, trace, settings, kill_at)
    return trace, base


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return crawl_site(tmp_path_factory.mktemp("scrapy"), SETTINGS)


def fetched_pages(events: list[Any]) -> set[str]:
    return {e.url for e in events if isinstance(e, FetchFinished) and e.kind == "page" and e.status < 400}


def test_the_recorded_scrapy_crawl_replays_with_its_links_and_lanes(recorded: tuple[Path, str]) -> None:
    from crawlsim.views.session import trace_result

    path, base = recorded
    trace = read_trace(path)
    events = trace.events
    assert fetched_pages(events) == {f"{base}/", f"{base}/moved", *(f"{base}/p{i}" for i in range(9))}
    assert {e.url: e.status for e in events if isinstance(e, FetchFinished) and e.kind == "robots"} == {
        f"{base}/robots.txt": 200
    }
    skipped = {(e.url, e.reason) for e in events if isinstance(e, Skipped)}
    assert (f"{base}/private/x", "robots") in skipped
    assert ("http://127.0.0.2:" + base.rsplit(":", 1)[1] + "/", "scope") in skipped
    parents = {e.url: e.parent for e in events if isinstance(e, Discovered)}
    assert parents[f"{base}/p7"] == f"{base}/p1" and parents[f"{base}/"] is None
    assert parents[f"{base}/p8"] == f"{base}/moved"  # a redirect's target, found at the redirect
    depth = {e.url: e.depth for e in events if isinstance(e, FetchStarted) and e.kind == "page"}
    assert depth[f"{base}/p7"] == 2
    assert max(e.slot for e in events if isinstance(e, FetchStarted)) < SETTINGS["CONCURRENT_REQUESTS"]
    times = [e.t for e in events]
    assert times == sorted(times)
    found = {e.url: i for i, e in reversed(list(enumerate(events))) if isinstance(e, Discovered)}
    started = {e.url: i for i, e in reversed(list(enumerate(events))) if isinstance(e, FetchStarted)}
    assert all(found[url] < started[url] for url in fetched_pages(events))  # found before fetched
    assert trace.options is not None and trace.options["workers"] == 4 and trace.options["per_host"] == 2
    result = trace_result(trace)
    assert result.replay.end == events[-1].t


def test_the_model_of_a_scrapy_crawl_fetches_the_same_pages(
    recorded: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from crawlsim.cli import main

    path, base = recorded
    model = tmp_path / "site.toml"
    assert main(["model", str(path), "-o", str(model)]) == 0
    data = tomllib.loads(model.read_text())
    assert data["crawl"]["workers"] == 4 and data["crawl"]["per_host"] == 2 and data["crawl"]["robots"] is True
    assert data["crawl"]["order"] == "lifo" and data["crawl"]["frontier"] == "download-slots"
    assert data["crawl"]["max_crawl_delay"] == 0 and "recorder" not in data["crawl"]
    moved = data["pages"][base + "/moved"]
    assert moved["status"] == 301 and moved["headers"] == {"Location": base + "/p8"}
    sim_trace = tmp_path / "sim.jsonl"
    capsys.readouterr()
    assert main(["trace", str(model), "-o", str(sim_trace)]) == 0
    assert fetched_pages(read_trace(sim_trace).events) == fetched_pages(read_trace(path).events)
    assert main(["run", str(model)]) == 0
    out = capsys.readouterr().out
    assert "recorded by Scrapy" in out and "second time" in out


def test_scrapys_own_work_per_response_becomes_the_models_client_cost(
    recorded: tuple[Path, str], tmp_path: Path
) -> None:
    """Scrapy's reactor loop was busy for part of the crawl: the trace says how long,
    the model makes it the work per response, and each page takes its server's time:
    its answer's arrival, as the loop's waits tell it, not Scrapy's noticing it."""
    from crawlsim.cli import main
    from crawlsim.trace.events import FetchFinished, FetchStarted

    path, _ = recorded
    recording = read_trace(path)
    busy = recording.options["client_busy"]  # type: ignore[index]
    assert 0 < busy < recording.events[-1].t
    model = tmp_path / "site.toml"
    assert main(["model", str(path), "-o", str(model)]) == 0
    data = tomllib.loads(model.read_text())
    started = {e.fetch_id: e.t for e in recording.events if isinstance(e, FetchStarted)}
    assert data["client_cost"] == pytest.approx(busy / len(started), abs=1e-6)
    assert "per response, one at a time" in data["assumes"] and "client_busy" not in data["crawl"]
    served = {int(fid): t for fid, t in recording.options["server_time"].items()}  # type: ignore[index]
    answers = {e.url: (e.fetch_id, e.t - started[e.fetch_id]) for e in recording.events
               if isinstance(e, FetchFinished) and e.kind == "page"}
    assert {u: p["latency"] for u, p in data["pages"].items()} == {u: served[i] for u, (i, _) in answers.items()}
    assert all(served[i] <= transfer + 1e-6 for i, transfer in answers.values())  # arrived by the time Scrapy saw it
    assert "server's measured time" in data["assumes"]


def test_a_busy_scrapys_server_times_are_the_servers_not_its_own(tmp_path: Path) -> None:
    """Scrapy's loop busy in its callbacks writes requests late and notices answers
    late; each fetch's recorded server time is still the server's own: a host that
    answers at once stays near 0 and one that sleeps 0.2 s near that, far closer
    than the fetch times as Scrapy saw them."""
    port = free_port()
    quick, slow = f"http://127.0.0.1:{port}", f"http://127.0.0.2:{port}"
    pages: dict[str, Any] = {f"{quick}/": [f"/q{i}" for i in range(12)] + [f"{slow}/s{i}" for i in range(12)],
                             **{f"{quick}/q{i}": [] for i in range(12)}, **{f"{slow}/s{i}": [] for i in range(12)}}
    latency = 0.2
    scenario = make_scenario(pages, latency={f"127.0.0.1:{port}": 0.0, f"127.0.0.2:{port}": latency})
    trace = tmp_path / "crawl.jsonl"
    settings = {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 4, "ROBOTSTXT_OBEY": False,
                "ALLOWED_DOMAINS": ["127.0.0.1", "127.0.0.2"], "BURN": 2_000_000}
    with ServerProcess(scenario):
        crawl_with_scrapy(quick, trace, settings)
    recording = read_trace(trace)
    served = {int(fid): t for fid, t in recording.options["server_time"].items()}  # type: ignore[index]
    started = {e.fetch_id: e.t for e in recording.events if isinstance(e, FetchStarted)}
    assert set(served) == set(started)  # every answer's server time was found
    seen: dict[str, list[tuple[float, float]]] = {quick: [], slow: []}
    for e in recording.events:
        if isinstance(e, FetchFinished) and e.url != f"{quick}/":
            seen[e.url.rsplit("/", 1)[0]].append((served[e.fetch_id], e.t - started[e.fetch_id]))
    assert len(seen[quick]) == len(seen[slow]) == 12
    recorded_quick, scrapy_quick = (statistics.median(pair[i] for pair in seen[quick]) for i in (0, 1))
    recorded_slow, scrapy_slow = (statistics.median(pair[i] for pair in seen[slow]) for i in (0, 1))
    assert all(recorded > latency - 0.011 for recorded, _ in seen[slow])  # never less than the server slept
    assert recorded_slow - latency < 0.2 * (scrapy_slow - latency)
    assert recorded_quick < 0.2 * scrapy_quick  # Scrapy's own lateness is not the server's


def test_a_server_that_never_slows_with_concurrency_is_not_learnt_to(tmp_path: Path) -> None:
    """Scrapy's busy loop notices answers later the more it has in flight; the
    server takes its 0.02 s whatever the crowd, and the model learns no contention."""
    from crawlsim.cli import main

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pages: dict[str, Any] = {f"{base}/": [f"/p{i}" for i in range(60)], **{f"{base}/p{i}": [] for i in range(60)}}
    trace, model = tmp_path / "crawl.jsonl", tmp_path / "site.toml"
    settings = {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 8, "ROBOTSTXT_OBEY": False,
                "BURN": 1_000_000}
    with ServerProcess(make_scenario(pages, latency=0.02)):
        crawl_with_scrapy(base, trace, settings)
    assert main(["model", str(trace), "-o", str(model)]) == 0
    hosts = tomllib.loads(model.read_text())["hosts"]
    assert host_peaks(read_trace(trace).events)[f"127.0.0.1:{port}"] > 4  # the crowd varied
    assert not any("contention" in table for table in hosts.values())


def test_a_killed_crawl_leaves_a_trace_of_what_it_did_before(tmp_path: Path) -> None:
    # killed in the callback of /p1: the start page was answered and its callback finished
    # long before, so its answer and links are on disk (flushed after every signal here)
    trace_path, base = crawl_site(tmp_path, {**SETTINGS, "CRAWLSIM_TRACE_FLUSH": 0}, kill_at="/p1")
    events = read_trace(trace_path).events  # every line whole: the reader takes it
    assert not any(isinstance(e, Done) for e in events)
    assert f"{base}/" in fetched_pages(events)
    found = {e.url for e in events if isinstance(e, Discovered) and e.parent == f"{base}/"}
    assert {f"{base}/p{i}" for i in range(6)} <= found
    times = [e.t for e in events]
    assert times == sorted(times)
    assert trace_result(read_trace(trace_path)).replay.end == events[-1].t  # it replays


def test_a_trace_cut_mid_line_is_named_as_cut_off(tmp_path: Path) -> None:
    from crawlsim.trace.events import TraceError

    whole = '{"t":0.0,"url":"http://a.test/","host":"a.test","depth":0,"parent":null,"type":"Discovered"}\n'
    cut = tmp_path / "killed.jsonl"
    cut.write_text(whole + whole[:40])
    with pytest.raises(TraceError, match="line 2: cut off: the file ends mid-line"):
        read_trace(cut)
    cut.write_text(whole)
    assert len(read_trace(cut).events) == 1


def test_links_beyond_depth_limit_are_recorded_as_skipped(tmp_path: Path) -> None:
    trace_path, base = crawl_site(tmp_path, {**SETTINGS, "DEPTH_LIMIT": 1})
    trace = read_trace(trace_path)
    skipped = {(e.url, e.parent, e.reason) for e in trace.events if isinstance(e, Skipped)}
    assert (f"{base}/p6", f"{base}/p0", "depth") in skipped  # p0 is depth 1: its links are depth 2
    assert (f"{base}/p7", f"{base}/p1", "depth") in skipped
    assert f"{base}/p6" not in fetched_pages(trace.events)
    assert trace.options is not None and trace.options["depth_limit"] == 1


# --------------------------------------------------------------------------- the log, without Scrapy


def test_an_answer_is_written_once_its_page_is_settled_and_not_before() -> None:
    from crawlsim.integrations.scrapy_log import ScrapyLog

    written: list[Any] = []
    log = ScrapyLog(written.append)
    log.scheduled(0.0, "http://a.test/", None, 0)
    start = log.reached(0.1, "http://a.test/", "page", 0, 1)
    log.started(0.1, start)
    log.downloaded(0.2, start, 200)
    log.scheduled(0.3, "http://a.test/x", "http://a.test/", 1)  # the callback yields a link
    log.flush()
    assert [type(e).__name__ for e in written] == ["Discovered", "FetchStarted"]  # the answer waits for its links
    log.scheduled(0.4, "http://a.test/y", "http://a.test/", 1)
    log.settle(start)  # the callback is done
    x = log.reached(0.5, "http://a.test/x", "page", 1, 1)
    log.flush()
    assert [type(e).__name__ for e in written][2:] == ["Discovered", "Discovered", "FetchFinished"]
    assert written[-1].links == 2 and written[-1].new_links == 2
    assert log.fetches.keys() == {x}  # nothing is kept of a fetch written whole


def test_a_retried_answer_is_a_failed_attempt_then_the_answer() -> None:
    from crawlsim.scenario.from_trace import Recording
    from crawlsim.trace.events import FetchFailed, RetryScheduled
    from crawlsim.integrations.scrapy_log import ScrapyLog

    log = ScrapyLog()
    log.scheduled(0.0, "http://a.test/", None, 0)
    first = log.reached(0.0, "http://a.test/", "page", 0, 1)
    log.started(0.1, first)
    log.downloaded(0.3, first, 429)
    again = log.reached(0.3, "http://a.test/", "page", 0, 2)
    log.started(0.3, again)
    log.downloaded(0.5, again, 200)
    lost = log.reached(0.5, "http://a.test/x", "page", 1, 1)
    log.left(0.6, lost)
    events = log.events()
    kinds = [type(e).__name__ for e in events]
    assert kinds[:4] == ["Discovered", "FetchStarted", "FetchFailed", "RetryScheduled"]
    failed = [e for e in events if isinstance(e, FetchFailed)]
    assert [(e.reason, e.final) for e in failed] == [("HTTP 429", False), ("no response", True)]
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [2]
    assert events[-1].pages == 1 and events[-1].fetches == 3  # type: ignore[attr-defined]
    rec = Recording.of(events)
    assert rec.pages["http://a.test/"].status == 200 and rec.pages["http://a.test/"].took == pytest.approx(0.2)


def test_a_request_waiting_in_its_slot_is_not_fetch_time() -> None:
    from crawlsim.integrations.scrapy_log import ScrapyLog

    log = ScrapyLog()
    fids = [log.reached(0.0, f"http://a.test/{i}", "page", 0, 1) for i in range(3)]
    for i, fid in enumerate(fids):  # fed in time order, as Scrapy's signals come
        log.started(1.0 * i, fid)  # a one-second DOWNLOAD_DELAY: each waits for the one before
        log.downloaded(1.0 * i + 0.25, fid, 200)
    starts = [e.t for e in log.events() if isinstance(e, FetchStarted)]
    assert starts == [0.0, 1.0, 2.0]


def test_scrapys_settings_become_its_scheduling_in_the_model() -> None:
    """Scrapy's queue, slots, robots.txt and retries as the core's options; what the
    model cannot run as Scrapy does is said, one sentence each."""
    from scrapy.settings import Settings

    from crawlsim.integrations.scrapy_settings import crawl_options, differences

    defaults = Settings({"CONCURRENT_REQUESTS_PER_DOMAIN": 1})
    options = crawl_options(defaults, None, 0.5)
    assert (options["workers"], options["per_host"], options["gap"]) == (16, 1, 0.0)
    assert (options["order"], options["frontier"], options["max_crawl_delay"]) == ("lifo", "download-slots", 0.0)
    assert (options["max_retries"], options["backoff_base"], 429 in options["retry_statuses"]) == (2, 0.0, True)
    assert differences(defaults, options, 0, {"a.test": 3}) == []
    breadth = Settings({"SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue", "DEPTH_PRIORITY": 1,
                        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.ScrapyPriorityQueue"})
    options = crawl_options(breadth, None, 0.5)
    assert (options["order"], options["frontier"]) == ("bfs", "download-slots-one-queue")
    assert differences(breadth, options) == []
    said = differences(Settings({"DEPTH_PRIORITY": -1, "AUTOTHROTTLE_ENABLED": True}), {"order": "lifo"}, 0,
                       {"a.test:8001": 1, "a.test:8002": 2, "b.test": 1})
    assert [s.split(" ", 2)[1] for s in said] == ["DEPTH_PRIORITY", "changed", "keys"]
    assert "a.test:8001, a.test:8002 shared one slot" in said[-1]


def test_only_the_extension_imports_scrapy() -> None:
    code = (
        "import sys, crawlsim.cli, crawlsim.commands.model, crawlsim.integrations.scrapy_log, "
        "crawlsim.integrations.scrapy_settings; print('scrapy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_trace_the_disk_cannot_take_is_said_to_be_lost_and_recording_stops(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import errno
    import os
    from types import SimpleNamespace

    from scrapy import Request, Spider, signals
    from scrapy.settings import Settings
    from scrapy.signalmanager import SignalManager

    from crawlsim.integrations import scrapy as ext

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full to stand in for a full disk")
    monkeypatch.setattr(ext._Loop, "watch", lambda self: None)  # no reactor in this process
    settings = Settings({"CRAWLSIM_TRACE": "/dev/full", "CRAWLSIM_TRACE_FLUSH": 0})
    crawler = SimpleNamespace(settings=settings, signals=SignalManager(), engine=None, stats=None)
    recorder = ext.TraceRecorder.from_crawler(crawler)
    send = crawler.signals.send_catch_log  # as Scrapy sends them: a handler's error is logged, not raised
    send(signals.spider_opened, spider=Spider("site"))
    for i in range(3):  # every write to /dev/full fails: the disk is full
        request = Request(f"http://a.test/{i}")
        send(signals.request_scheduled, request=request, spider=None)
        send(signals.request_reached_downloader, request=request, spider=None)
    assert recorder.file is None  # recording stopped: nothing more piles up in memory
    caplog.clear()
    send(signals.spider_closed, spider=None, reason="finished")
    said = [r.getMessage() for r in caplog.records]
    assert not any("trace written" in s for s in said)
    assert any("/dev/full" in s and os.strerror(errno.ENOSPC) in s for s in said), said


def test_a_link_to_a_host_whose_robots_txt_is_not_answered_yet_waits_for_its_verdict() -> None:
    from crawlsim.integrations.scrapy_log import ScrapyLog

    written: list[Any] = []
    log = ScrapyLog(written.append)
    log.obey_robots = True  # ROBOTSTXT_OBEY
    robots = log.reached(0.0, "http://a.test/robots.txt", "robots", 0, 1)
    log.downloaded(0.1, robots, 200)
    log.robots("a.test", "User-agent: *\nDisallow:\n", "Scrapy")
    log.settle(robots)
    log.scheduled(0.1, "http://a.test/", None, 0)
    home = log.reached(0.2, "http://a.test/", "page", 0, 1)
    log.downloaded(0.3, home, 200)
    for path in ("/ok", "/private/x"):  # the start page links to the second host
        log.scheduled(0.4, f"http://b.test{path}", "http://a.test/", 1)
    log.settle(home)
    log.flush()  # the page is settled, but b.test's robots.txt is not answered yet
    assert not any(getattr(e, "url", "").startswith("http://b.test") for e in written)
    b_robots = log.reached(0.5, "http://b.test/robots.txt", "robots", 0, 1)
    log.downloaded(0.6, b_robots, 200)
    log.robots("b.test", "User-agent: *\nDisallow: /private/\n", "Scrapy")
    log.flush()
    links = [e for e in written if isinstance(e, Discovered | Skipped) and e.url.startswith("http://b.test")]
    assert {(e.url, getattr(e, "reason", None)) for e in links} == {
        ("http://b.test/ok", None),
        ("http://b.test/private/x", "robots"),
    }
    log.close()
    times = [e.t for e in written]
    assert times == sorted(times)


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "1e9", [1]])
def test_a_bad_flush_setting_is_an_error_naming_the_setting(value: object) -> None:
    """Scrapy shows the recorder's start-up error deep in its own traceback:
    the message must say which setting, and what it takes."""
    from types import SimpleNamespace

    from scrapy.settings import Settings
    from scrapy.signalmanager import SignalManager

    from crawlsim.errors import UsageError
    from crawlsim.integrations import scrapy as ext

    settings = Settings({"CRAWLSIM_TRACE": "t.jsonl", "CRAWLSIM_TRACE_FLUSH": value})
    crawler = SimpleNamespace(settings=settings, signals=SignalManager(), engine=None, stats=None)
    with pytest.raises(UsageError, match=r"CRAWLSIM_TRACE_FLUSH: expected seconds from 0 to 86400"):
        ext.TraceRecorder.from_crawler(crawler)


# --------------------------------------------------------------------------- Scrapy's scheduling, modelled


def two_hosts(port: int) -> dict[str, Any]:
    """Nine pages on two hosts, each page's links on both."""
    a, b = f"http://127.0.0.1:{port}", f"http://127.0.0.2:{port}"
    return {
        f"{a}/": ["/a1", "/a2", f"{b}/b1", f"{b}/b2"],
        f"{a}/a1": ["/a3", f"{b}/b3"],
        f"{b}/b1": [f"{b}/b4", f"{a}/a4"],
        **{f"{a}/{p}": [] for p in ("a2", "a3", "a4")},
        **{f"{b}/{p}": [] for p in ("b2", "b3", "b4")},
    }


def recorded_and_modelled(tmp: Path, pages: dict[str, Any], settings: dict[str, Any],
                          latency: Any = 0.05, seed: int | None = None) -> tuple[list[Any], list[Any]]:
    """A real Scrapy crawl of ``pages`` at ``settings`` (``latency`` and ``seed`` as
    ``make_scenario`` takes them), and the simulated crawl of its model: their events."""
    from crawlsim.cli import main

    start = next(iter(pages))
    trace, model, sim = tmp / "crawl.jsonl", tmp / "site.toml", tmp / "sim.jsonl"
    with ServerProcess(make_scenario(pages, latency=latency, seed=seed)):
        crawl_with_scrapy(start.rstrip("/"), trace, {"ALLOWED_DOMAINS": ["127.0.0.1", "127.0.0.2"], **settings})
    assert main(["model", str(trace), "-o", str(model)]) == 0
    assert main(["trace", str(model), "-o", str(sim)]) == 0
    return read_trace(trace).events, read_trace(sim).events


def page_order(events: list[Any]) -> list[str]:
    return [e.url for e in events if isinstance(e, FetchStarted) and e.kind == "page"]


def host_peaks(events: list[Any]) -> dict[str, int]:
    """Each host's most fetches in flight at once."""
    flying: dict[int, str] = {}
    peaks: dict[str, int] = {}
    for e in events:
        if isinstance(e, FetchStarted):
            flying[e.fetch_id] = e.host
            peaks[e.host] = max(peaks.get(e.host, 0), sum(h == e.host for h in flying.values()))
        elif hasattr(e, "fetch_id"):
            flying.pop(e.fetch_id, None)
    return peaks


def test_the_model_fetches_in_scrapys_order(tmp_path: Path) -> None:
    """One request at a time: Scrapy's queue alone decides the order -- the least busy
    host's last-queued URL (``DownloaderAwarePriorityQueue`` over ``LifoMemoryQueue``)."""
    settings = {"CONCURRENT_REQUESTS": 1, "ROBOTSTXT_OBEY": False}
    real, model = recorded_and_modelled(tmp_path, two_hosts(free_port()), settings)
    assert len(page_order(real)) == 9
    assert page_order(model) == page_order(real)


def test_the_model_starts_what_scrapys_download_slot_started_together(tmp_path: Path) -> None:
    """CONCURRENT_REQUESTS_PER_DOMAIN 1, yet every request waiting in the slot when the
    host's robots.txt is answered (or its transfer ends) starts at once: the model's
    download slots do the same, host by host."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pages = {f"{base}/": [f"/p{i}" for i in range(6)], **{f"{base}/p{i}": [] for i in range(6)}}
    settings = {"CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "ROBOTSTXT_OBEY": True}
    real, model = recorded_and_modelled(tmp_path, pages, settings)
    assert host_peaks(real)[f"127.0.0.1:{port}"] > 1
    assert host_peaks(model) == host_peaks(real)
    assert sorted(page_order(model)) == sorted(page_order(real))


def overlapping_starts(events: list[Any]) -> int:
    """Fetches that started while another fetch to their host was in flight."""
    flying: dict[int, str] = {}
    count = 0
    for e in events:
        if isinstance(e, FetchStarted):
            count += e.host in flying.values()
            flying[e.fetch_id] = e.host
        elif hasattr(e, "fetch_id"):
            flying.pop(e.fetch_id, None)
    return count


def seed_for_apart_draws(pages: dict[str, Any], latency: Any, urls: list[str], apart: float) -> int:
    """The first scenario seed under which the served ``urls`` take times at least
    ``apart`` seconds from one another: transfers started together then end apart
    even if a loaded machine starts one late (the draws hang on the URL, so on the port)."""
    for seed in range(1000):
        server = ScenarioServer(make_scenario(pages, latency=latency, seed=seed))
        took = sorted(server.latency(urlsplit(url).netloc, url, 1) for url in urls)
        if min(b - a for a, b in zip(took, took[1:])) >= apart:
            return seed
    raise AssertionError(f"no seed below 1000 draws {urls} {apart} s apart")


def test_the_model_holds_a_url_taken_as_a_download_ends_as_scrapys_slot_does(tmp_path: Path) -> None:
    """Two requests, one per domain: the first two start together (the engine brings
    both at once), but a request taken for a place freed as a download ends reaches the
    slot after the slot started what waited in it, and waits: one at a time after that,
    in Scrapy and in its model.  The two that start together are served 0.1 s apart, so
    they never end together (which would empty the slot at once and start two again)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    pages = {f"{base}/": [f"/p{i}" for i in range(8)], **{f"{base}/p{i}": [] for i in range(8)}}
    settings = {"CONCURRENT_REQUESTS": 2, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "ROBOTSTXT_OBEY": False}
    latency = {f"127.0.0.1:{port}": {"model": "lognormal", "median": 0.1, "sigma": 0.8}}
    seed = seed_for_apart_draws(pages, latency, [f"{base}/p7", f"{base}/p6"], apart=0.1)  # Scrapy's LIFO: last two first
    real, model = recorded_and_modelled(tmp_path, pages, settings, latency=latency, seed=seed)
    assert len(page_order(real)) == 9
    assert page_order(real)[1:3] == [f"{base}/p7", f"{base}/p6"]
    assert overlapping_starts(real) < 3  # the limit held after the first burst
    assert overlapping_starts(model) == overlapping_starts(real)
