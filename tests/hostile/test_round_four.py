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
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.session import read_trace

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
