"""Hostile values, one class per block: the checker's sandbox (processes the
crawl starts, answers it forges, exceptions that cannot be printed, files it
deletes), the scheduler's API (objects whose own methods raise or lie) and
the URL layer (links longer than any server takes).

Each case asserts what a user relies on: the exit code, a one-line verdict,
no traceback, nothing left running, nothing of theirs touched.  No sleeps
and no timing: waits are bounded polls for a state to be reached.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from crawlsim.check import main
from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.trace.events import Discovered, Skipped
from crawlsim.core.urls import MAX_URL_LENGTH, canonicalize

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process sweeps read /proc (Linux)")

BFS = """
def bfs(start_url, get_urls):
    seen, queue = {start_url}, [start_url]
    while queue:
        for link in get_urls(queue.pop(0)):
            link = link.partition("#")[0]
            if link not in seen and link.split("/")[2] == start_url.split("/")[2]:
                seen.add(link)
                queue.append(link)
    return sorted(seen)
"""


def write(folder: Path, name: str, body: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(BFS + body)
    return f"{path}:crawl"


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] not in (b"Z", b"X")


def wait_until_gone(pids: list[int], polls: int = 2400) -> list[int]:
    """The PIDs still running after a bounded poll of up to 60 s (each poll a
    short blocking wait on a pipe that never gets data, not a sleep-and-assert;
    it returns as soon as they are gone, so the bound only matters on failure)."""
    read, write_end = os.pipe()
    try:
        for _ in range(polls):
            left = [pid for pid in pids if alive(pid)]
            if not left:
                return []
            select.select([read], [], [], 0.025)
        return [pid for pid in pids if alive(pid)]
    finally:
        os.close(read)
        os.close(write_end)


# -- the sandbox contains every process the crawl starts ------------------------------

FORKS = """
import os, time

def crawl(start_url, get_urls, max_workers):
    pids = []
    child = os.fork()
    if child == 0:                      # the child: a grandchild in a session of its own, then exit
        os.setsid()
        if os.fork() == 0:
            if os.fork() == 0:
                os.setsid()
            with open({pids!r}, "a") as f:
                f.write(f"{{os.getpid()}}\\n")
            while True:
                time.sleep(1)
        with open({pids!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        while True:
            time.sleep(1)
    with open({pids!r}, "a") as f:
        f.write(f"{{child}}\\n")
    for _ in range(6000):               # until the three have written their PIDs (at most 60 s on a loaded machine)
        try:
            if len(open({pids!r}).read().split()) >= 3:
                break
        except OSError:
            pass
        time.sleep(0.01)
    return bfs(start_url, get_urls)
"""


def test_processes_the_crawl_forks_and_setsids_end_with_the_check(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids.txt"
    target = write(tmp_path, "forks", FORKS.format(pids=str(pids_file)))
    main([target, "--quick", "--only", "basic", "--json"])
    pids = [int(p) for p in pids_file.read_text().split()]
    assert len(pids) >= 3, "the crawl did not start its three processes"
    assert wait_until_gone(pids) == [], "processes the crawl started are still running after the check"


# -- every value that crosses the pipe is checked -------------------------------------

FORGE = """
import os, sys

def crawl(start_url, get_urls, max_workers):
    os.write(int(sys.argv[-1]), {line!r}.encode() + b"\\n")
    return bfs(start_url, get_urls)
"""

FORGED = {
    "extra field": '{"kind": "case", "run": {"case": "basic", "extra": 1}}',
    "wrong types": '{"kind": "case", "run": {"case": "basic", "records": [{"fetch_id": "x"}]}}',
    "not an object": "[1, 2, 3]",
    "nested deep": "[" * 100_000 + "]" * 100_000,
    "other case": '{"kind": "case", "run": {"case": "no-links"}}',
}


@pytest.mark.parametrize("line", list(FORGED.values()), ids=list(FORGED))
def test_a_forged_answer_is_a_one_line_verdict_not_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], line: str
) -> None:
    target = write(tmp_path, "forges", FORGE.format(line=line))
    assert main([target, "--quick", "--only", "basic"]) == 1
    out, err = capfd.readouterr()
    assert "FAIL  basic" in out
    assert "Traceback" not in out + err


# -- a user's exception is shown, whatever its __str__ does ---------------------------

RAISES = """
class Odd(Exception):
    def __str__(self):
        {body}

def crawl(start_url, get_urls, max_workers):
    raise Odd()
"""


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("raise RuntimeError('no')", "<no message: its __str__ raised RuntimeError>"),
        ("return 5", "<no message: its __str__ returned int, not a string>"),
        ("return 'x' * 10_000_000", "xxx..."),
    ],
    ids=["str raises", "str not a string", "huge message"],
)
def test_an_exception_that_cannot_be_printed_is_still_reported(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], body: str, shown: str
) -> None:
    target = write(tmp_path, "raises", RAISES.format(body=body))
    assert main([target, "--quick", "--only", "basic"]) == 1
    out, err = capfd.readouterr()
    assert "FAIL  basic" in out and "The crawl raised Odd" in out and shown in " ".join(out.split())
    assert "Traceback" not in out + err
    assert max(len(line) for line in out.splitlines()) < 2000


# -- graded code runs in a scratch folder, never the user's ---------------------------

CLEANS_UP = """
import os

def crawl(start_url, get_urls, max_workers):
    for name in os.listdir("."):
        if not name.endswith(".py"):
            os.remove(name)
    with open("junk.txt", "w") as f:
        f.write("written by the crawl")
    return bfs(start_url, get_urls)
"""


def test_a_crawl_that_deletes_files_in_its_folder_leaves_the_users_folder_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keep = tmp_path / "notes.txt"
    keep.write_text("the user's own file")
    target = write(tmp_path, "cleans", CLEANS_UP)
    monkeypatch.chdir(tmp_path)
    assert main([Path(target).name, "--quick", "--only", "basic"]) == 0  # a relative path still imports
    assert keep.read_text() == "the user's own file"
    assert not (tmp_path / "junk.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cleans.py", "notes.txt"]


# -- the scheduler's API against hostile objects --------------------------------------


class UnhashableStr(str):
    def __hash__(self) -> int:
        raise RuntimeError("hostile __hash__")


def test_a_link_whose_hash_raises_neither_raises_nor_loses_the_fetch() -> None:
    s = Scheduler(CrawlOptions())
    s.add_seeds(["http://a.com/"], 0.0)
    (fetch,) = s.poll(0.0)
    s.drain_events()
    s.on_response(fetch.id, 1.0, links=["/ok", UnhashableStr("/x"), object()])
    events = s.drain_events()
    assert [e.url for e in events if isinstance(e, Discovered)] == ["http://a.com/ok", "http://a.com/x"]
    assert [e.reason for e in events if isinstance(e, Skipped)] == ["malformed"]
    assert s.in_flight == 0 and s.frontier_size == 2
    assert all(type(url) is str for url in s.frontier_urls())


# -- links longer than any server takes are refused by their length ------------------


def test_a_link_far_beyond_the_url_length_bound_is_malformed_without_parsing() -> None:
    host = "www." * 150_000 + "a.com"
    for mode in ("rfc3986", "aggressive", "off", "fragment+www"):
        assert canonicalize(f"http://{host}/", mode=mode) is None
    assert canonicalize("http://a.com/" + "x" * (MAX_URL_LENGTH - 13)) is not None
    assert canonicalize("http://a.com/" + "x" * (MAX_URL_LENGTH - 12)) is None


@pytest.mark.parametrize(
    ("host", "ok"),
    [("a" * 63 + ".com", True), ("a" * 64 + ".com", False), ("a." * 126 + "c", True), ("a." * 127 + "c", False)],
    ids=["label 63", "label 64", "host 253", "host 255"],
)
def test_hosts_beyond_what_dns_allows_are_malformed(host: str, ok: bool) -> None:
    for mode in ("rfc3986", "aggressive", "off"):
        assert (canonicalize(f"http://{host}/", mode=mode) is not None) == ok, mode


def test_the_check_child_is_not_left_running_when_the_checker_is_killed(tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG: a checker killed outright during a case (no chance
    to clean up) takes its sandbox with it, though the case's crawl sleeps on."""
    target = write(tmp_path, "slow", "import time\ndef crawl(start_url, get_urls, max_workers):\n    time.sleep(600)\n")
    pid_file = tmp_path / "child.pid"
    script = (
        "import os, sys\n"
        "from crawlsim.check.sandbox import Sandbox\n"
        "box = Sandbox(sys.argv[1]); box.load()\n"
        "box._write({'op': 'case', 'name': 'basic', 'quick': True, 'termination_slow': None, 'timeout': 600.0, "
        "'seeds': None})\n"
        "open(sys.argv[2], 'w').write(str(box._proc.pid))\n"
        "os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, target, str(pid_file)], timeout=120, check=False)
    assert proc.returncode == -9
    assert wait_until_gone([int(pid_file.read_text())]) == []


# -- --max-time holds whatever the pages contain ---------------------------------------

GUARD = 90.0
"""Seconds: only a guard against a hang (before the fix this crawl ran for minutes)."""


class _Pages(http.server.BaseHTTPRequestHandler):
    """``/``: a 1.8 MB page with three links whose hosts are 150,000 ``www.``
    labels deep, and a link to ``/slow``, which answers only after a minute."""

    page = "".join(
        f'<a href="http://{"www." * 150_000}h{i}.com/">far</a>' for i in range(3)
    ) + '<a href="/slow">slow</a>'

    def do_GET(self) -> None:  # noqa: N802 -- http.server's name
        if self.path == "/slow":
            select.select([], [], [], 60.0)  # a server that keeps the fetch in flight
        body = self.page.encode() if self.path == "/" else b"no"
        self.send_response(200 if self.path == "/" else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_max_time_holds_on_a_page_of_links_with_absurd_hosts() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "crawlsim", "crawl", url, "--json", "--no-robots", "--gap", "0",
             "--normalize", "rfc3986+www", "--max-time", "2"],
            capture_output=True, text=True, timeout=GUARD, check=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(proc.stdout)
    assert "time limit of 2 s" in json.dumps(data)
    assert url + "slow" in data.get("not_fetched", {})  # in flight when the limit came: listed, not lost


# -- absurd-but-legal cluster values end -----------------------------------------------


@pytest.mark.parametrize("every", ["1e-6", "1e-300"])
def test_a_checkpoint_every_microsecond_or_less_ends_saying_so(tmp_path: Path, every: str) -> None:
    """Before: two million saves of every node (1e-6) ran for minutes, and
    ``now + 1e-300 == now`` stopped the simulated clock for good."""
    from crawlsim.cluster.failure import MAX_SAVE_ROUNDS
    from crawlsim.scenario.files import find_scenario

    text = find_scenario("see-it").read_text()
    path = tmp_path / "saves.toml"
    path.write_text(text + f"\n[cluster]\nnodes = 2\nfail = [{{node = 1, at = 5.0, recover = 8.0}}]\ncheckpoint = {every}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "crawlsim", "run", str(path), "--json"],
        capture_output=True, text=True, timeout=GUARD, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("crawlsim: warning: cluster.checkpoint")]
    assert warnings, proc.stderr
    checkpoint = json.loads(proc.stdout)["checkpoint"]
    assert checkpoint["saves"] <= 2 * (MAX_SAVE_ROUNDS + 64)  # bounded work, whatever the interval
    assert checkpoint["every"] == float(every) and checkpoint["every_used"] > float(every) and checkpoint["note"]
