"""Hostile input, round four: resources a command must refuse before it
takes them, signals that must end a command as Ctrl-C does, and names and
callbacks from outside that must fail one page or one line, not a crawl.

Each case asserts what a user relies on: the exit status, one line naming
what was wrong, no traceback, no partial file.  Servers listen on 127.0.0.1;
waits are bounded reads of a state reached, never sleeps.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.trace.jsonl import read_trace

GUARD = 60.0
"""Seconds a bounded wait may take; only a hang reaches it."""


def one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("crawlsim: error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


class SilentServer:
    """A port on 127.0.0.1 that accepts connections and never answers;
    ``connected`` is set once a client has connected."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connected = threading.Event()
        self.held: list[socket.socket] = []

    def accept(self) -> None:
        while True:
            try:
                self.held.append(self.listener.accept()[0])
            except OSError:  # closed
                return
            self.connected.set()


@contextlib.contextmanager
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    thread = threading.Thread(target=server.accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
        server.listener.close()
        thread.join(GUARD)
        for conn in server.held:
            conn.close()


# -- signals: SIGTERM is Ctrl-C -------------------------------------------------------


def test_sigterm_during_a_crawl_writes_its_trace_and_leaves_no_partial_file(tmp_path: Path) -> None:
    """``kill`` while ``crawl -o t.jsonl`` waits on a server: the crawl stops
    as on Ctrl-C (exit 130, the trace of what it did), no hidden .part file."""
    out = tmp_path / "t.jsonl"
    with silent_server() as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "crawlsim", "crawl", f"http://127.0.0.1:{server.port}/", "-o", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        )
        assert server.connected.wait(GUARD)  # the crawl is waiting on its first answer
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 130, err
    assert "crawlsim: interrupted" in err and "Traceback" not in err
    assert read_trace(out)  # whole, and readable as a trace
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


# -- resources: refused before they are taken ------------------------------------------


@pytest.mark.parametrize(
    ("name", "flags", "says"),
    [
        ("m.gif", ["--seconds", "1e9"], "10,000,000,000 frames"),
        ("m.gif", ["--seconds", "inf"], "inf frames"),
        ("m.gif", ["--fps", "100000"], "800,000 frames"),
        ("m.mp4", ["--seconds", "1e9"], "at most 18,000"),
    ],
)
def test_a_movie_of_absurd_length_is_refused_before_any_frame(
    name: str, flags: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``animate --seconds 1e9`` used to draw frames until memory ran out."""
    assert main(["animate", "see-it", "-o", str(tmp_path / name), "-q", *flags]) == 2
    one_line(capsys.readouterr().err, says)
    assert not list(tmp_path.iterdir())


def test_every_writer_refuses_a_name_too_long_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An output under a folder name of 300 characters (over the file system's
    255) is one line naming it, from every command that writes a file."""
    from tests.test_disk_errors import _writers

    assert main(_writers(tmp_path)["trace"]) == 0  # model's input
    capsys.readouterr()
    for name, argv in _writers(tmp_path / ("n" * 300), tmp_path / "t.jsonl").items():
        assert main(argv) == 2, name
        one_line(capsys.readouterr().err, "too long")


@pytest.mark.parametrize("command", ["run", "tui", "html", "trace", "sweep"])
@pytest.mark.parametrize("shape", ["name", "path"])
def test_a_scenario_name_too_long_to_look_up_is_no_such_scenario(
    command: str, shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario named with 300 characters (over the file system's 255) is not
    a file anyone could have: one line saying no such scenario, not an OSError."""
    given = "x" * 300 if shape == "name" else str(tmp_path / ("y" * 300 + ".toml"))
    output = {"html": ["-o", str(tmp_path / "out.html")], "trace": ["-o", str(tmp_path / "out.jsonl")]}.get(command, [])
    assert main([command, given, *output]) == 2
    one_line(capsys.readouterr().err, "no scenario file" if shape == "name" else "no such scenario file")


# -- sweeps: Dask addresses, huge grids, Ctrl-C ----------------------------------------


@pytest.mark.parametrize(("address", "says"), [("bogus://x", "unknown address scheme"), ("tcp://", "missing port")])
def test_a_bad_dask_address_is_one_line_and_nothing_after(
    address: str, says: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """``--dask bogus://x`` used to be an internal error, then a
    ``Client.__del__`` traceback 20 s later: no Client is made now."""
    import gc

    assert main(["sweep", "see-it", "--workers", "1,2", "--dask", address, "-o", str(tmp_path / "s")]) == 2
    gc.collect()  # a half-made Client would print its traceback here
    one_line(capfd.readouterr().err, f"--dask {address}", says)


def test_a_dask_address_that_never_answers_is_given_up_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A peer that accepts and never answers: one line after the connect
    timeout (shortened here), not a sweep that never exits."""
    from crawlsim.commands import sweep

    monkeypatch.setattr(sweep, "DASK_CONNECT_SECONDS", 0.5)
    with silent_server() as server:
        address = f"tcp://127.0.0.1:{server.port}"
        assert main(["sweep", "see-it", "--workers", "1,2", "--dask", address, "-o", str(tmp_path / "s")]) == 2
    one_line(capsys.readouterr().err, address, "no Dask scheduler answered within 0.5 s")


def test_a_grid_over_the_limit_is_refused_before_it_is_built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many = ",".join(str(n) for n in range(1, 3001))
    gaps = ",".join(f"{n / 10:g}" for n in range(3000))
    assert main(["sweep", "see-it", "--workers", many, "--gap", gaps, "-o", str(tmp_path / "s")]) == 2
    one_line(capsys.readouterr().err, "9,000,000 points", "3,000 workers x 3,000 gap", "at most 10,000")
    assert not (tmp_path / "s").exists()


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(sys.platform != "linux", reason="reads a process's children from /proc")
def test_ctrl_c_during_a_sweep_prints_no_pool_tracebacks(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's group: the pool's
    workers leave it to the sweep, which stops with one line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "crawlsim", "sweep", "million", "--workers", "1,2,4,8", "--jobs", "2",
         "-o", str(tmp_path / "s")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    read, write_end = os.pipe()
    try:
        for _ in range(2400):  # a bounded poll (up to 60 s) for the pool's two workers
            if len(_children(proc.pid)) >= 2 or proc.poll() is not None:
                break
            select.select([read], [], [], 0.025)
    finally:
        os.close(read)
        os.close(write_end)
    assert len(_children(proc.pid)) >= 2
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "crawlsim: interrupted", err


# -- the API: callbacks and trace records from outside ---------------------------------

WEB = {"http://a.com/": ["http://a.com/x"], "http://a.com/x": []}


def _robots_raises(url: str) -> str:
    raise RuntimeError("no robots here")


@pytest.mark.parametrize(("get_robots", "says"), [(_robots_raises, "RuntimeError: no robots here"),
                                                  (lambda url: 42, "get_robots returned")])
def test_a_failing_get_robots_is_a_recorded_failure_not_a_vanished_page(get_robots: object, says: str) -> None:
    from crawlsim.drivers.threaded import crawl

    failures: dict[str, str] = {}
    found = crawl("http://a.com/", lambda url: WEB.get(url, []), 2, robots=True, get_robots=get_robots,
                  failures=failures)
    assert found == []  # RFC 9309: a robots.txt that cannot be read disallows the host
    assert says in failures["http://a.com/"] and "get_robots failed" in failures["http://a.com/"]


@pytest.mark.parametrize("which", ["get_robots", "get_urls"])
def test_ctrl_c_inside_a_callback_ends_the_crawl(which: str) -> None:
    from crawlsim.drivers.threaded import crawl

    def pressed(url: str) -> list[str]:
        raise KeyboardInterrupt

    get_urls = pressed if which == "get_urls" else lambda url: WEB.get(url, [])
    get_robots = pressed if which == "get_robots" else lambda url: None
    with pytest.raises(KeyboardInterrupt):
        crawl("http://a.com/", get_urls, 2, robots=True, get_robots=get_robots)


@pytest.mark.parametrize("record", [[1, 2], "Done", None, 3.5])
def test_an_event_record_that_is_not_an_object_is_a_trace_error(record: object) -> None:
    from crawlsim.trace.events import TraceError, event_from_dict

    with pytest.raises(TraceError, match="an event must be a JSON object"):
        event_from_dict(record)  # type: ignore[arg-type]


def test_serving_more_hosts_than_open_files_is_one_line(tmp_path: Path) -> None:
    """900 hosts, a socket each, under ``ulimit -n 256``: asyncio skips the
    sockets it cannot make without a word; serve says what ran out."""
    import resource

    text = (Path(__file__).parents[2] / "scenarios" / "busiest-host.toml").read_text(encoding="utf-8")
    many = tmp_path / "many.toml"
    many.write_text(text.replace("\nhosts = 40\n", "\nhosts = 900\n"), encoding="utf-8")
    assert "hosts = 900" in many.read_text(encoding="utf-8")

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    proc = subprocess.run(
        [sys.executable, "-m", "crawlsim", "serve", str(many), "--port", "0", "--layout", "ports", "--duration", "0.05"],
        capture_output=True, text=True, timeout=GUARD, preexec_fn=few_files,
    )
    assert proc.returncode == 2, proc.stderr
    one_line(proc.stderr, "Too many open files", "900 hosts", "ulimit -n")
