"""Follow mode (``crawlsim web SCENARIO --follow``): a presenter app and a
follower app share a state channel in ``tmp_path``, as the teacher's terminal
and a student's browser do.

Both apps read one fake clock and have no timers (``animate=False``): the
test calls the presenter's :meth:`publish` and the follower's
:meth:`poll_presenter` where the timers would, and the frame the clock
would draw with ``tick``, so nothing waits on wall time.  What is compared
is what each app's screen says (status and counter lines).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import urllib.request
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.scenario import load_scenario
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.follow import (
    FORMAT,
    SILENT_AFTER,
    FollowerApp,
    FollowError,
    FollowState,
    PresenterApp,
    parse_state,
    read_raw,
    write_state,
)
from crawlsim.tui.widgets import CountersBar, KeyBar, Panel, StatusBar
from tests.test_tui import SIZE, FakeClock

BANNER = "followers: open http://test.invalid/"


def pair(tmp_path: Path, name: str = "see-it") -> tuple[PresenterApp, FollowerApp, FakeClock]:
    """A still presenter on ``name`` and a follower of its channel, on one fake clock."""
    clock = FakeClock()
    channel = tmp_path / "state.json"
    presenter = PresenterApp(load_scenario(name), channel, paused=True, animate=False, threaded=False, clock=clock,
                             banner=lambda: BANNER)
    presenter.publish()  # as `crawlsim web --follow` does before the server starts
    follower = FollowerApp(channel, load_scenario("interview"), animate=False, threaded=False, clock=clock)
    return presenter, follower, clock


def sync(presenter: PresenterApp, follower: FollowerApp) -> None:
    """One publish and one poll: what the two timers do."""
    presenter.publish()
    follower.poll_presenter()


def said(app: CrawlApp, panel: type[Panel] = StatusBar) -> str:
    """What ``app``'s ``panel`` shows, drawn from ``app``'s own view.

    Two apps run in one test, and a widget finds its app through Textual's
    active-app context variable, which names the app started last: reading a
    panel's text the way test_tui does would read the follower's screen for
    both apps.  The tests check the banners to show each read is its own app's."""
    if app.view is None:
        return app.loading
    return app.query_one(panel).draw(app.view, *SIZE).plain


def status(app: CrawlApp) -> str:
    return said(app, StatusBar)


def shown_time(app: CrawlApp) -> float:
    return float(re.search(r"t (\d+\.\d)/", said(app, CountersBar)).group(1))  # type: ignore[union-attr]


def shown_finish(app: CrawlApp) -> float:
    """The finish time on the status line (the new one after "->")."""
    text = status(app)
    match = re.search(r"-> (\d+\.\d) s", text) or re.search(r"finish (\d+\.\d) s", text)
    assert match, text
    return float(match.group(1))


def knobs_line(app: PresenterApp | FollowerApp) -> str:
    """The status bar's second line up to the messages: the knobs."""
    return status(app).splitlines()[1].split("  ")[0].strip()


async def test_the_follower_shows_the_presenters_crawl_knobs_and_time(tmp_path: Path) -> None:
    presenter, follower, clock = pair(tmp_path)
    async with presenter.run_test(size=SIZE) as ppilot, follower.run_test(size=SIZE) as fpilot:
        sync(presenter, follower)
        await fpilot.pause()
        assert "see-it" in status(follower)  # the channel's scenario, not the fallback
        assert knobs_line(follower) == knobs_line(presenter)
        assert "following the presenter" in status(follower) and BANNER not in status(follower)
        assert BANNER in status(presenter) and "following" not in status(presenter)  # two screens, read apart
        assert "->" not in status(follower) and "->" not in status(presenter)  # each ran its crawl once
        before = shown_finish(follower)
        for key in ("plus", "plus", "right_square_bracket", "o", "n"):  # workers 4 -> 6, a larger gap, order, normalize
            await ppilot.press(key)
        sync(presenter, follower)
        await fpilot.pause()
        assert "workers 6" in knobs_line(follower) and "gap 0.25 s" in knobs_line(follower)
        assert knobs_line(follower) == knobs_line(presenter)
        await ppilot.press("p")  # politeness off: a shorter crawl
        sync(presenter, follower)
        await fpilot.pause()
        assert "polite off" in knobs_line(follower)
        assert shown_finish(follower) == shown_finish(presenter) < before
        assert "polite off: finish" in status(follower)  # the follower compares runs as the presenter does
        await ppilot.press("N")  # a second crawler node: the cluster knobs travel too
        sync(presenter, follower)
        await fpilot.pause()
        assert "2 nodes" in knobs_line(follower) and knobs_line(follower) == knobs_line(presenter)
        assert shown_finish(follower) == shown_finish(presenter)
        await ppilot.press("right", "right", "right")  # seek, still paused
        sync(presenter, follower)
        await fpilot.pause()
        assert shown_time(presenter) > 0 and shown_time(follower) == shown_time(presenter)
        assert "paused" in status(follower)
        await ppilot.press("space")  # play: the follower runs on the presenter's clock
        sync(presenter, follower)
        clock.advance(0.4)
        presenter.tick()
        follower.tick()  # the follower's own frame, between polls
        await fpilot.pause()
        assert "playing" in status(follower)
        assert shown_time(follower) == shown_time(presenter) > 0.4
        await ppilot.press("space")
        sync(presenter, follower)
        clock.advance(3.0)
        follower.tick()
        await fpilot.pause()
        assert "paused" in status(follower) and shown_time(follower) == shown_time(presenter)


async def test_the_follower_switches_scenario_with_the_presenter(tmp_path: Path) -> None:
    presenter, follower, _ = pair(tmp_path)
    async with presenter.run_test(size=SIZE) as ppilot, follower.run_test(size=SIZE) as fpilot:
        presenter.open_scenario(load_scenario("interview"))  # what `c` and a pick do
        await ppilot.pause()
        sync(presenter, follower)
        await fpilot.pause()
        assert "interview" in status(follower).splitlines()[0]
        assert shown_finish(follower) == shown_finish(presenter)


async def test_the_follower_is_read_only(tmp_path: Path) -> None:
    presenter, follower, clock = pair(tmp_path)
    async with presenter.run_test(size=SIZE), follower.run_test(size=SIZE) as fpilot:
        sync(presenter, follower)
        await fpilot.pause()
        knobs, t, finish = knobs_line(follower), shown_time(follower), shown_finish(follower)
        await fpilot.press("plus", "p", "right_square_bracket", "n", "o", "space", "right", "end", "r", "f", "c")
        clock.advance(5.0)
        follower.tick()
        await fpilot.click("#timeline", offset=(30, 0))
        await fpilot.pause()
        assert (knobs_line(follower), shown_time(follower), shown_finish(follower)) == (knobs, t, finish)
        assert "paused" in status(follower) and len(follower.screen_stack) == 1  # no scenario picker
        keys = [description for _, description, _, _ in follower.query_one(KeyBar).items()]
        assert keys == ["quit"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"format": "crawlsim-follow/1", "scenario": "see-it", "knobs": {"work', "not a JSON state"),
        ("\x00\xff garbage", "not a JSON state"),
        ("[1, 2, 3]", "not a crawlsim-follow/1 state"),
        (None, "scenario"),  # unknown scenario: filled in below
        ({"knobs": {"workers": 10**9}}, "workers"),
        ({"knobs": {"gap": -1}}, "gap"),
        ({"knobs": {"nodes": 10**6}}, "nodes"),
        ({"knobs": {"partition": "by-moon-phase"}}, "partition"),
        ({"knobs": {"gap": 1e6}}, "gap"),
        ({"knobs": {"order": "random"}}, "order"),
        ({"knobs": {"normalize": "agressive"}}, "normalize"),
        ({"speed": "NaN"}, "NaN is not a number"),
        ({"speed": 1e9}, "speed"),
        ({"t": -3}, "t:"),
        ({"playing": "yes"}, "playing"),
    ],
)
async def test_a_bad_state_is_survived_and_said(tmp_path: Path, text: object, reason: str) -> None:
    presenter, follower, _ = pair(tmp_path)
    channel = presenter.channel
    async with presenter.run_test(size=SIZE) as ppilot, follower.run_test(size=SIZE) as fpilot:
        await ppilot.press("plus")
        sync(presenter, follower)
        await fpilot.pause()
        good = (knobs_line(follower), shown_finish(follower))
        assert "workers 5" in good[0]
        channel.write_text(bad_state(channel, text), encoding="utf-8")
        follower.poll_presenter()
        await fpilot.pause()
        said = status(follower)
        assert (knobs_line(follower), shown_finish(follower)) == good
        assert "ignored its latest state" in said and reason in said.replace("\n", " ")
        presenter._published = None  # the presenter's next write puts a good state back
        sync(presenter, follower)
        await fpilot.pause()
        assert "ignored" not in status(follower)


def bad_state(channel: Path, text: object) -> str:
    """``text`` as it is, or the good state in ``channel`` with ``text``'s keys changed."""
    if isinstance(text, str):
        return text
    data = json.loads(channel.read_text(encoding="utf-8"))
    if text is None:
        data["scenario"] = "no-such-scenario"
        return json.dumps(data)
    assert isinstance(text, dict)
    for key, value in text.items():
        if isinstance(value, dict):
            data[key].update(value)
        else:
            data[key] = value
    return json.dumps(data).replace('"NaN"', "NaN")


async def test_the_follower_says_when_the_presenter_stops_or_goes_silent(tmp_path: Path) -> None:
    presenter, follower, clock = pair(tmp_path)
    async with presenter.run_test(size=SIZE) as ppilot, follower.run_test(size=SIZE) as fpilot:
        await ppilot.press("space")
        sync(presenter, follower)
        clock.advance(SILENT_AFTER + 1)  # no heartbeat since
        follower.poll_presenter()
        await fpilot.pause()
        assert "the presenter is silent" in status(follower)
        await ppilot.press("q")  # the presenter quits: it says so on the channel
        follower.poll_presenter()
        await fpilot.pause()
        assert "the presenter has stopped" in status(follower) and "playing" not in status(follower)


async def test_a_follower_started_before_any_state_waits_and_then_follows(tmp_path: Path) -> None:
    clock = FakeClock()
    channel = tmp_path / "state.json"
    follower = FollowerApp(channel, load_scenario("interview"), animate=False, threaded=False, clock=clock)
    async with follower.run_test(size=SIZE) as fpilot:
        assert "waiting for the presenter" in status(follower) and "interview" in status(follower)
        presenter = PresenterApp(load_scenario("see-it"), channel, paused=True, animate=False, threaded=False,
                                 clock=clock)
        presenter.publish()
        follower.poll_presenter()
        await fpilot.pause()
        assert "see-it" in status(follower) and "following the presenter" in status(follower)


def test_the_channel_round_trips_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    state = FollowState("see-it", 5, True, 1, 0.5, ("fragment", "lowercase"), "dfs", 1.5, 1000.0, True, 2.0,
                        why=True, beat=1001.0, stopped=False)
    path = tmp_path / "state.json"
    write_state(path, state)
    write_state(path, state)
    assert parse_state(read_raw(path)) == state
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_channel_that_is_not_a_file_is_said_and_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)  # nobody writes to it: reading it as a file would wait forever
    with pytest.raises(FollowError, match="is not a file"):
        read_raw(fifo)
    with pytest.raises(FollowError, match="is not a file"):
        read_raw(tmp_path)


def _nested(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    _nested,
    max_leaves=12,
)
GOOD = json.loads(
    FollowState("see-it", 4, True, 1, 0.5, "rfc3986", "bfs", 0.0, 0.0, False, 1.0).to_json()
)


@settings(max_examples=150)
@given(st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(sorted(GOOD)), json_values, max_size=4).map(
        lambda changed: json.dumps({**GOOD, **changed}).encode()),
))
def test_no_bytes_make_the_reader_fail_other_than_by_saying_why(raw: bytes) -> None:
    try:
        state = parse_state(raw)
    except FollowError as err:
        assert str(err)
    else:
        assert isinstance(state, FollowState) and state.speed > 0 and state.t >= 0
        assert json.loads(state.to_json())["format"] == FORMAT


def test_follow_needs_a_terminal_and_no_other_flags(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from crawlsim.cli import main

    assert main(["web", "see-it", "--follow"]) == 2  # pytest's stdin is not a terminal
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--follow runs the presenter's app in this terminal" in err
    assert main(["tui", "--follow", str(tmp_path / "s.json"), "--workers", "3", "--paused"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and re.search(r"drop --workers, --paused", err)


class Terminal:
    """A command in a pseudo-terminal of 160 x 48 (the teacher's), its output
    kept by a thread that drains it; :meth:`wait_for` waits on that thread,
    not on a clock."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
        self.master = master
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = ""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the terminal closed: the command ended
                chunk = b""
            with self._changed:
                self.output += chunk.decode("utf-8", "replace")
                self._changed.notify_all()
            if not chunk:
                return

    def wait_for(self, pattern: str, timeout: float = 120.0) -> re.Match[str]:
        with self._changed:
            found = self._changed.wait_for(lambda: re.search(pattern, self.output) or not self._reader.is_alive(),
                                           timeout=timeout)
        match = re.search(pattern, self.output)
        assert found and match, f"no {pattern!r} in the terminal; its end: {self.output[-2000:]!r}"
        return match

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        os.close(self.master)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_web_follow_runs_the_presenter_here_serves_followers_and_cleans_up(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "TERM": "xterm-256color", "TMPDIR": str(tmp_path)}
    for name in ("CRAWLSIM_TUI_FORCE", "COLUMNS", "LINES"):  # the terminal's own size, not the runner's
        env.pop(name, None)
    teacher = Terminal([sys.executable, "-m", "crawlsim", "web", "see-it", "--follow", "--port", str(port)], env)
    try:
        teacher.wait_for(rf"followers: open http://127\.0\.0\.1:{port}/")  # the app is up, the server listening
        assert [p.name.startswith("crawlsim-follow-") for p in tmp_path.iterdir()] == [True]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60) as page:
            assert page.status == 200 and "following the presenter" in page.read().decode()  # the page's title
        os.write(teacher.master, b"q")
        assert teacher.proc.wait(timeout=60) == 0
        teacher.wait_for(rf"the presenter quit; stopped serving http://127\.0\.0\.1:{port}/")
    finally:
        teacher.stop()
    assert list(tmp_path.iterdir()) == []  # the state's private folder is gone
    with socket.socket() as probe:  # and nothing listens on the port any more
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))


def test_web_follow_on_a_busy_port_is_one_line(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from crawlsim.cli import main

    monkeypatch.setenv("CRAWLSIM_TUI_FORCE", "1")  # past the terminal check, to the port check
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert main(["web", "see-it", "--follow", "--port", str(busy.getsockname()[1])]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "cannot listen on 127.0.0.1 port" in err


ORPHAN_PARENT = """
import subprocess, sys
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, start_new_session=True)
print(f"server pid {server.pid}", flush=True)
sys.stdin.read()  # until the test kills this process
"""


@pytest.mark.slow
def test_the_followers_server_stops_when_its_presenter_is_killed(tmp_path: Path) -> None:
    """A presenter killed with SIGKILL (or whose terminal closed) cannot stop
    its server: the server notices it was orphaned and stops.  Its output is
    a pipe to this test through the killed parent, so its end is the pipe's
    end -- waited for, not polled."""
    channel = tmp_path / "state.json"
    write_state(channel, FollowState("see-it", 4, True, 1, 0.0, "rfc3986", "bfs", 0.0, 0.0, False, 1.0))
    port = free_port()
    serve = [sys.executable, "-m", "crawlsim", "web", "see-it", "--port", str(port), "--serve-followers", str(channel)]
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN_PARENT, *serve], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert parent.stdout is not None
    lines: list[str] = []
    started = threading.Event()

    def read() -> None:
        for line in parent.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if "crawlsim web: open" in line:
                started.set()
        started.set()  # the output ended

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    server_pid = 0
    try:
        assert started.wait(timeout=120) and any("crawlsim web: open" in line for line in lines), lines
        server_pid = int(next(line for line in lines if line.startswith("server pid")).split()[-1])
        parent.kill()
        parent.wait(timeout=30)
        reader.join(timeout=120)  # the pipe ends when the orphaned server has exited
        assert not reader.is_alive(), "the followers' server outlived its presenter"
    finally:
        if reader.is_alive() and server_pid:
            os.killpg(server_pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
        parent.wait(timeout=30)
        for pipe in (parent.stdin, parent.stdout):
            if pipe is not None:
                pipe.close()
