"""The tour (docs/tutorials/tour.md): every line runs, and shows what its comment says.

The commands README shows are lines of the tour (a test below), so they run too.

Each line of the tour block is matched to one check below (a line without
one fails the test, so a new line needs its check).  The commands run in
this process through ``crawlsim.cli.main`` in a fresh folder (no interpreter
start per line), as the tour prints them; three get a flag that keeps them
quick and is said where it is added: ``serve`` a time scale (the same
crawl, 50 times faster), ``check`` the quick cases only, ``tui`` runs under
Textual's test pilot.  ``html`` (1,440 crawls) runs once per session as a
child process, its output shared with the page's browser tests
(tests/shared_builds.py).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from crawlsim.cli import main
from tests.shared_builds import SharedBuilds

REPO = Path(__file__).resolve().parent.parent
Check = Callable[..., None]
"""(argv, tmp, capsys), and for the offline page the session's shared builds."""


TOUR = REPO / "docs" / "tutorials" / "tour.md"


def tour() -> list[tuple[str, list[str]]]:
    """(comment, argv) of each line of the tour block."""
    text = TOUR.read_text(encoding="utf-8")
    block = text.split("## A tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines():
        if line.strip():
            command, _, comment = line.partition(" #")
            lines.append((comment.strip(), shlex.split(command)))
    return lines


def readme_commands() -> list[tuple[str, list[str]]]:
    """(comment, argv) of each ``crawlsim`` line in README's sh blocks but the install lines."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("crawlsim "):
                command, _, comment = line.partition(" #")
                lines.append((comment.strip(), shlex.split(command)))
    return lines


def run(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 0) -> str:
    assert main(argv[1:]) == code, argv
    return capsys.readouterr().out


def bare(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "terminal app on the default scenario (see-it)": off a terminal it prints that scenario's run
    out = run(argv, capsys)
    assert out.startswith("see-it: ")


def summary(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "readable summary: finish time, bounds, what measurably helps"
    out = run(argv, capsys)
    assert "finish time" in out and "lower bounds on the finish time" in out
    assert re.search(r"With \S+ workers?: [\d.]+ s \([^)]+\)\.", out)


def one_json(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "one JSON object"
    data = json.loads(run(argv, capsys))
    assert isinstance(data, dict) and data["options"]["workers"] == 1


def side_by_side(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "side by side: finish 19.0 s -> 11.0 s"
    out = run(argv, capsys)
    assert "finish 19.0 s -> 11.0 s" in out
    assert re.search(r"A: per_host=1\s+B: per_host=2", out)


def best_first(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "best-first: hosts take turns": the options line names the order
    out = run(argv, capsys)
    assert "best (host-round-robin)" in out.splitlines()[1]


def sweep_files(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "CSV, JSON and a PNG with the bounds"
    run(argv, capsys)
    out = tmp / "out"
    assert (out / "sweep.csv").read_text(encoding="utf-8").count("\n") == 6  # a header and five points
    rows = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert all({"depth", "busiest_host", "work"} <= set(r.get("bounds", r)) for r in rows)
    assert (out / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def nodes_sweep(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "finish time falls with crawler nodes, beside workers"
    out = run(argv, capsys)
    finish: dict[int, list[float]] = {}
    for line in out.splitlines():
        m = re.match(r"\s+(\d+)\s+(\d+)\s+([\d.,]+) s\s", line)
        if m:
            finish.setdefault(int(m[1]), []).append(float(m[3].replace(",", "")))
    assert sorted(finish) == [1, 4], out
    for workers, times in finish.items():
        assert len(times) == 3 and times[0] > times[1] > times[2], (workers, times)
    assert (tmp / "out" / "nodes" / "sweep.png").is_file()


def chrome_trace(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "Chrome trace-event JSON: open it in Perfetto"
    run(argv, capsys)
    data = json.loads((tmp / "out" / "see-it.json").read_text(encoding="utf-8"))
    events = data["traceEvents"] if isinstance(data, dict) else data
    assert events and all("ph" in e for e in events)
    assert any(e["ph"] == "X" for e in events)  # a fetch is a span on its worker's track


def tui_normalize(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "press n to cycle normalization and watch duplicates"
    import asyncio

    from crawlsim.scenario import load_scenario
    from crawlsim.tui.app import CrawlApp
    from crawlsim.tui.widgets import PagesView, StatusBar

    def duplicates(app: CrawlApp) -> int:
        legend = app.query_one(PagesView).plain().splitlines()[0]
        m = re.search(r"dup\w* (\d+)", legend)
        return int(m[1]) if m else 0  # none left: the legend leaves the state out

    async def drive() -> list[tuple[int, str]]:
        app = CrawlApp(load_scenario(argv[2]), paused=True, animate=False, threaded=False)
        seen = []
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(4):
                await pilot.press("end")
                await pilot.pause()
                seen.append((duplicates(app), app.query_one(StatusBar).plain()))
                await pilot.press("n")
                await pilot.pause()
        return seen

    seen = asyncio.run(drive())
    modes = [re.search(r"normalize (\w+) ·", status)[1] for _, status in seen]  # type: ignore[index]
    assert modes == ["off", "fragment", "rfc3986", "aggressive"]
    counts = [n for n, _ in seen]
    assert counts[0] > counts[1] > counts[2] > counts[3] == 0, counts


def check_fails(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the tour: "exits 1 here: that example is meant to fail (it marks pages seen on finish), and the
    # report says why" -- on the quick cases (the full run is test_check's)
    out = run([*argv, "--quick", "--only", "basic"], capsys, code=1)
    assert "FAIL  basic" in out and "Mark a URL seen when you submit its fetch" in out


def serve_then_crawl(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "the scenario's web over real HTTP on loopback; its first line is ... this command"
    serve = [sys.executable, "-m", "crawlsim", *argv[1:], "--port", "0", "--time-scale", "0.02", "--duration", "120"]
    proc = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        printed = shlex.split(proc.stdout.readline())
        assert printed[:3] == ["crawlsim", "crawl", "http://a.com/"] and "--resolve" in printed
        assert all(
            re.fullmatch(r"[a-z.]+=127\.\d+\.\d+\.\d+:\d+", printed[i + 1])
            for i, a in enumerate(printed)
            if a == "--resolve"
        )
        out = run(printed, capsys)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    fetched = {line.split()[1] for line in out.splitlines() if line.startswith("  200  ")}
    assert len(fetched) == 14  # see-it's fourteen pages, crawled over HTTP


def pasted_crawl(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "paste it in another terminal": the line is the one `serve see-it` prints (port 8000, one
    # loopback address per host); serve_then_crawl runs that line as printed
    serve = [sys.executable, "-m", "crawlsim", "serve", "see-it", "--port", "0", "--layout", "addresses",
             "--duration", "60"]
    proc = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        printed = proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert shlex.split(re.sub(r"(127\.0\.0\.\d+):\d+", r"\1:8000", printed)) == argv


def animation(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "an animation for slides"
    from PIL import Image

    run(argv, capsys)
    with Image.open(tmp / "out" / "crawl.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames > 10


def offline_page(argv: list[str], tmp: Path, capsys: pytest.CaptureFixture[str], shared: SharedBuilds) -> None:
    # "one offline web page for a class: every what-if precomputed"
    # The line's command runs once per session (1,440 crawls), shared with
    # the page's browser tests: the same arguments, -o into a shared folder.
    at = argv.index("-o")
    done = shared.cli((*argv[1:at], *argv[at + 2:]), Path(argv[at + 1]).name)
    assert done.returncode == 0, (argv, done.stderr)
    out = done.stdout
    assert re.search(r"[\d,]+ crawls simulated when it was written", out), out
    page = done.path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(?:script|link|img)[^>]+(?:src|href)=[\"']?https?:", page)  # nothing fetched from a network


CHECKS: list[tuple[Callable[[list[str]], bool], Check]] = [
    (lambda a: a == ["crawlsim"], bare),
    (lambda a: a[1:2] == ["run"] and "--json" in a, one_json),
    (lambda a: a[1:2] == ["run"] and "--priority" in a, best_first),
    (lambda a: a[1:2] == ["run"], summary),
    (lambda a: a[1:2] == ["compare"], side_by_side),
    (lambda a: a[1:2] == ["sweep"] and "--nodes" in a, nodes_sweep),
    (lambda a: a[1:2] == ["sweep"], sweep_files),
    (lambda a: a[1:2] == ["trace"], chrome_trace),
    (lambda a: a[1:2] == ["tui"], tui_normalize),
    (lambda a: a[1:2] == ["check"], check_fails),
    (lambda a: a[1:2] == ["serve"], serve_then_crawl),
    (lambda a: a[1:2] == ["crawl"], pasted_crawl),
    (lambda a: a[1:2] == ["animate"], animation),
    (lambda a: a[1:2] == ["html"], offline_page),
]


def check_for(argv: list[str]) -> Check:
    return next(check for matches, check in CHECKS if matches(argv))


LINES = tour()


def test_every_tour_line_has_a_check_and_a_claim() -> None:
    assert len(LINES) >= 13
    for comment, argv in LINES:
        assert check_for(argv) is not None, argv
        if argv[1:2] != ["check"]:  # check's claim is the tour's sentence after the block
            assert comment, f"a tour line says nothing about what it shows: {argv}"


def test_every_command_readme_shows_is_a_tour_line_with_its_claim() -> None:
    """README shows a few tour lines per reader; each must be one, word for word
    (the comment too), so the tour's checks run README's commands."""
    shown = readme_commands()
    assert len(shown) >= 5
    missing = [" ".join(argv) for comment, argv in shown if (comment, argv) not in LINES]
    assert missing == []


SLOW = {sweep_files, nodes_sweep, animation, tui_normalize, offline_page}
"""Lines that take seconds of CPU (several crawls of 2,000 pages, a GIF, an app, 1,440 crawls)."""
PARAMS = [
    pytest.param(comment, argv, id=" ".join(argv[:3]), marks=[pytest.mark.slow] if check_for(argv) in SLOW else [])
    for comment, argv in LINES
]


@pytest.mark.parametrize(("comment", "argv"), PARAMS)
def test_the_tour_line_shows_what_its_comment_says(
    comment: str,
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.chdir(tmp_path)
    check = check_for(argv)
    if check is offline_page:
        offline_page(argv, tmp_path, capsys, request.getfixturevalue("shared_builds"))
    else:
        check(argv, tmp_path, capsys)
