"""Hostile trace files, kept as a corpus: every file in ``traces/`` ends
``crawlsim tui --trace`` with exit status 2 and one line naming the file and
the line at fault -- never a traceback, a hang or a runaway allocation --
and every file in ``accepted/`` (legal but odd: one Done, no fetch, one
lane of 100,000, a cluster of one strange node) is drawn by the app, played
and sought to its end, without an error.

The rejected cases run in real processes, under a memory limit and a
timeout: the timeout only guards against a hang (the suite must not stop),
it is not a speed claim.  The corpus's files are read by one process that
runs the command's own ``main`` on each in turn and reports each file's
exit status and output on its own (an interpreter start per file cost
more than the files); the endless line and the million blank lines each
run ``python -m crawlsim tui --trace`` in a process of their own.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from crawlsim.session import read_trace
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.widgets import CountersBar, StatusBar

HERE = Path(__file__).parent
REJECTED = sorted((HERE / "traces").glob("*.jsonl"))
ACCEPTED = sorted((HERE / "accepted").glob("*.jsonl"))
MEMORY_LIMIT = 1 << 30
"""Address space a rejected trace may make the command use (1 GiB): a slot
of a billion once asked for tens of gigabytes of lanes."""
HANG_GUARD = 120

LINE_AT_FAULT: dict[str, int | None] = {
    "array_line": 3,
    "bad_utf8": 7,
    "blank_only": None,
    "duplicate_bool_string": 2,
    "field_missing": 7,
    "field_twice": 7,
    "field_unknown": 7,
    "int_100k_digits": 7,
    "kind_unknown": 2,
    "links_string": 7,
    "nested_100000": 2,
    "nested_object_field": 7,
    "node_failed_in_a_trace_without_nodes": 1,
    "node_huge": 6,
    "node_string": 6,
    "not_json": 1,
    "nul_bytes": 3,
    "slot_billion": 2,
    "slot_float": 2,
    "slot_negative": 2,
    "status_huge": 7,
    "string_line": 3,
    "t_1e308": 1,
    "t_1e400": 1,
    "t_bool": 7,
    "t_infinity": 7,
    "t_minus_infinity": 1,
    "t_nan": 2,
    "t_negative": 7,
    "t_string": 2,
    "truncated_last_line": 64,
    "truncated_mid_line": 7,
    "type_missing": 4,
    "type_number": 4,
    "type_unknown": 4,
    "until_nan": 1,
    "url_lone_surrogate": 2,
    "url_list": 2,
    "url_null": 2,
    "workers_on_a_fetch": 2,
}
"""The line each file's message must name (None: the file as a whole)."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CRAWLSIM_TUI_FORCE"}


def tui_on(path: Path) -> subprocess.CompletedProcess[str]:
    """``crawlsim tui --trace PATH`` in a process of its own (no terminal:
    a trace is read, and refused, before the app needs one)."""
    return subprocess.run(
        [sys.executable, "-m", "crawlsim", "tui", "--trace", str(path)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=_env(),
        preexec_fn=_limit_memory,
        check=False,
    )


EACH_FILE = """
import contextlib, io, json, sys, traceback
from crawlsim.cli import main
for path in sys.argv[1:]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["tui", "--trace", path])
        except BaseException:  # whatever escapes main is this file's failure, not the next file's
            traceback.print_exc(file=err)
            code = 1
    print(json.dumps({"path": path, "code": code, "out": out.getvalue(), "err": err.getvalue()}), flush=True)
"""
"""``crawlsim tui --trace`` (its ``main``, as ``python -m crawlsim`` runs it) on each file named, in turn:
one JSON line per file, its exit status and what it wrote to stdout and stderr."""


def tui_on_each(paths: list[Path]) -> dict[str, subprocess.CompletedProcess[str]]:
    """What ``crawlsim tui --trace`` did with each of ``paths``, read in one
    process under the memory limit and the hang guard; a file the process
    never answered for (it hung, or died) gets exit status None and says why."""
    proc = subprocess.Popen(
        [sys.executable, "-c", EACH_FILE, *map(str, paths)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=_env(), preexec_fn=_limit_memory,
    )
    try:
        out, err = proc.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err = f"the process was still reading after {HANG_GUARD} s (a hang?)\n{err}"
    done = {}
    for line in out.splitlines():
        record = json.loads(line)
        done[record["path"]] = subprocess.CompletedProcess([], record["code"], record["out"], record["err"])
    for path in paths:
        if str(path) not in done:
            why = f"no answer for {path.name}: the process ended with {proc.returncode}; its stderr:\n{err[-3000:]}"
            done[str(path)] = subprocess.CompletedProcess([], None, "", why)  # type: ignore[arg-type]
    return done


@pytest.fixture(scope="module")
def refusals() -> dict[str, subprocess.CompletedProcess[str]]:
    """What the command did with every file of ``traces/``."""
    return tui_on_each(REJECTED)


def assert_one_line_refusal(done: subprocess.CompletedProcess[str], path: Path, line: int | None) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert lines[0].startswith(f"crawlsim: error: {path}: "), lines[0]
    if line is not None:
        assert re.match(rf"crawlsim: error: {re.escape(str(path))}: line {line}: \S", lines[0]), lines[0]
    assert done.stdout == ""


def test_the_corpus_names_the_line_of_every_file() -> None:
    assert {p.stem for p in REJECTED} == set(LINE_AT_FAULT)
    assert len(ACCEPTED) >= 15


@pytest.mark.parametrize("path", REJECTED, ids=lambda p: p.stem)
def test_a_hostile_trace_is_one_line_and_exit_2(
    path: Path, refusals: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    assert_one_line_refusal(refusals[str(path)], path, LINE_AT_FAULT[path.stem])


def test_a_line_that_never_ends_is_refused_before_it_is_held(tmp_path: Path) -> None:
    """2 GiB without a newline: refused before it is held (holding it would
    pass the memory limit: a MemoryError)."""
    path = tmp_path / "endless.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"type": "Done", "t": 0.0, "pages": 0, "fetches": 0}\n{"type": "')
        handle.truncate(2 << 30)  # sparse: the rest reads as NUL bytes
    done = tui_on(path)
    assert_one_line_refusal(done, path, 2)
    assert "longer than 16,777,216 bytes" in done.stderr


def test_a_million_blank_lines_end_as_no_events(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_text("\n" * 1_000_000)
    assert_one_line_refusal(tui_on(path), path, None)


def test_a_traceback_would_fail_the_check() -> None:
    """The assertion helper itself rejects what the old reader printed."""
    crash = subprocess.CompletedProcess([], 1, "", "Traceback (most recent call last):\n  ...\nMemoryError\n")
    with pytest.raises(AssertionError):
        assert_one_line_refusal(crash, Path("x.jsonl"), 1)


async def play_to_the_end(path: Path) -> CrawlApp:
    """The app on the trace at ``path``: drawn, stepped, sought to the end
    and back, the why view switched on (Pilot re-raises any error of the app)."""
    app = CrawlApp(trace=read_trace(path), trace_file=str(path), paused=True, animate=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("end", "home", "full_stop", "right", "w", "left", "end")
        await pilot.pause()
        assert app.t == app.end
        assert app.query_one(StatusBar).plain() and app.query_one(CountersBar).plain()
        await pilot.resize_terminal(60, 20)
        await pilot.press("home", "full_stop")
        await pilot.pause()
    return app


@pytest.mark.parametrize("path", ACCEPTED, ids=lambda p: p.stem)
def test_an_odd_but_legal_trace_is_drawn_to_its_end(path: Path) -> None:
    app = asyncio.run(asyncio.wait_for(play_to_the_end(path), HANG_GUARD))
    assert app.return_code in (None, 0)
