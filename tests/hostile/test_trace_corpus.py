"""Hostile trace files, kept as a corpus: every file in ``traces/`` ends
``crawlsim tui --trace`` with exit status 2 and one line naming the file and
the line at fault -- never a traceback, a hang or a runaway allocation --
and every file in ``accepted/`` (legal but odd: one Done, no fetch, one
lane of 100,000, a cluster of one strange node) is drawn by the app, played
and sought to its end, without an error.

The rejected cases run in real processes, under a memory limit and a
timeout: the timeout only guards against a hang (the suite must not stop),
it is not a speed claim.  The corpus's files are read by one process that
runs the command's own ``main`` on each in turn, each under a hang guard
of its own, and reports each file's exit status and output on its own (an
interpreter start per file cost more than the files).  A file the batch
gives no answer for, or an abnormal one (a hang, an exception out of
``main``, a MemoryError: the memory limit is the batch's), is read again by
its own test in a fresh process under the per-file limits, so a hang or a
leak fails only its own file's test.  The endless line and the million
blank lines each run ``python -m crawlsim tui --trace`` in a process of
their own.
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

from crawlsim.trace.jsonl import read_trace
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.widgets import CountersBar, StatusBar

HERE = Path(__file__).parent
REJECTED = sorted((HERE / "traces").glob("*.jsonl"))
ACCEPTED = sorted((HERE / "accepted").glob("*.jsonl"))
MEMORY_LIMIT = 1 << 30
"""Address space a rejected trace may make the command use (1 GiB): a slot
of a billion once asked for tens of gigabytes of lanes."""
HANG_GUARD = 120
"""Seconds one file may take (a guard against a hang, no test waits for it)."""
BATCH_GUARD = 2 * HANG_GUARD
"""Seconds the batch of every file may take: past one file's hang guard, so
one hanging file still leaves the others their answers."""

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
import contextlib, io, json, signal, sys, traceback
from crawlsim.cli import main
class Hang(BaseException):
    pass
def hang(signum, frame):
    raise Hang
signal.signal(signal.SIGALRM, hang)
guard = float(sys.argv[1])
for path in sys.argv[2:]:
    out, err = io.StringIO(), io.StringIO()
    fault = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        signal.setitimer(signal.ITIMER_REAL, guard)  # this file's own hang guard
        try:
            code = main(["tui", "--trace", path])
        except Hang:
            code, fault = 1, f"still reading after {guard:.0f} s (a hang?)"
        except BaseException as error:  # whatever escapes main is this file's failure, not the next file's
            traceback.print_exc(file=err)
            code, fault = 1, f"{type(error).__name__} escaped main"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    record = {"path": path, "code": code, "out": out.getvalue(), "err": err.getvalue(), "fault": fault}
    print(json.dumps(record), flush=True)
"""
"""``crawlsim tui --trace`` (its ``main``, as ``python -m crawlsim`` runs it) on each file named after
the per-file hang guard (seconds), in turn: one JSON line per file, its exit status, what it wrote to
stdout and stderr, and its fault (None; or a hang, stopped by the file's own timer, or an exception
that escaped ``main``)."""


def _abnormal(record: dict[str, object]) -> bool:
    """Whether the batch's answer for a file cannot be trusted as the file's
    own: a hang, an exception out of ``main`` or a MemoryError (the memory
    limit is the whole batch's: an earlier file may have used it up)."""
    return record["fault"] is not None or "MemoryError" in str(record["err"])


def tui_on_each(paths: list[Path]) -> dict[str, subprocess.CompletedProcess[str] | None]:
    """What ``crawlsim tui --trace`` did with each of ``paths``, read in one
    process under the memory limit, each file under its own hang guard (the
    batch as a whole under a wider one).  A file the batch gave no answer
    for (the process hung in C code, or died) or an abnormal one for
    (:func:`_abnormal`) maps to None: its test reads it again, alone, with
    :func:`tui_on`'s limits, so a hang or a leak is blamed on its own file."""
    proc = subprocess.Popen(
        [sys.executable, "-c", EACH_FILE, str(HANG_GUARD), *map(str, paths)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=_env(), preexec_fn=_limit_memory,
    )
    try:
        out, _ = proc.communicate(timeout=BATCH_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    done: dict[str, subprocess.CompletedProcess[str] | None] = dict.fromkeys(map(str, paths))
    for line in out.splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # a line cut short as the process died: no answer
            continue
        if not _abnormal(record):
            done[record["path"]] = subprocess.CompletedProcess([], record["code"], record["out"], record["err"])
    return done


@pytest.fixture(scope="module")
def refusals() -> dict[str, subprocess.CompletedProcess[str] | None]:
    """What the command did with every file of ``traces/`` in one process
    (None: no answer, or an abnormal one)."""
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
    path: Path, refusals: dict[str, subprocess.CompletedProcess[str] | None]
) -> None:
    done = refusals[str(path)]
    if done is None:  # the batch hung, crashed or ran out of memory on this file: read it alone
        done = tui_on(path)
    assert_one_line_refusal(done, path, LINE_AT_FAULT[path.stem])


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
