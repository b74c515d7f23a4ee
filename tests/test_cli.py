"""The ``crawlsim`` command line: run, compare and trace print what they
promise, every user mistake is one line and exit status 2, and the dispatcher
loads only what a command needs."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from crawlsim.cli import COMMANDS, main
from crawlsim.scenario import list_scenarios

SEE_IT_TOML = """\
start = "http://a.com/"
seed = 7
[crawl]
workers = 4
per_host = 1
scope = "any"
[hosts."a.com"]
latency = 1.0
[hosts."b.com"]
latency = 3.0
[pages]
"http://a.com/" = ["/x", "x#top", "http://b.com/"]
"http://a.com/x" = ["/", "http://b.com/1"]
"http://b.com/" = ["/1", "/2"]
"""


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def crawlsim_process(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m``-free: the console script's own entry point in a fresh interpreter."""
    code = "import sys; from crawlsim.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


# -- run ----------------------------------------------------------------------


def test_run_json_has_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "run", "see-it", "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in (
        "finish_time",
        "pages_fetched",
        "fetches",
        "duplicate_fetches",
        "bounds",
        "binding_bound",
        "explanation",
    ):
        assert key in data
    assert set(data["bounds"]) == {"depth", "busiest_host", "work"}
    assert data["pages_fetched"] == 14
    assert data["binding_bound"] == "busiest_host"
    assert data["busiest_host"]["host"] == "b.com"
    assert data["finish_time"] >= max(data["bounds"].values())
    assert data["explanation"].startswith("b.com holds the crawl")


def test_run_flags_override_the_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "run", "see-it", "--json", "--workers", "1", "--normalize", "off")
    data = json.loads(out)
    assert data["options"]["workers"] == 1
    assert data["options"]["normalize"] == "off"
    assert data["duplicate_fetches"] > 0  # x#top, HTTP://A.COM/about, a.com:80 spellings
    assert data["wasted_time"] > 0
    assert data["binding_bound"] == "work"


def test_run_summary_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "see-it", "--normalize", "off")
    assert code == 0
    for text in (
        "finish time",
        "pages fetched",
        "duplicate fetches",
        "worker time wasted",
        "failed fetches",
        "utilisation",
        "depth",
        "busiest host",
        "work",
        "<- binding",
        "efficiency",
        "busiest hosts",
        "b.com",
    ):
        assert text in out, text
    assert "\x1b[" not in out  # no colour codes in a pipe


def test_run_a_scenario_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(SEE_IT_TOML)
    code, out, _ = run_cli(capsys, "run", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["scenario"] == "mine"
    assert data["pages_fetched"] == 5


def test_run_list_names_every_shipped_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "--list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == list_scenarios()


# -- compare --------------------------------------------------------------------


def test_compare_two_configurations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", "see-it", "--set", "workers=1", "--set", "workers=4")
    assert code == 0
    assert "finish 26.0 s -> 19.0 s (-27%)" in out
    assert "A: workers=1" in out and "B: workers=4" in out
    assert "binding bound" in out


def test_compare_one_configuration_against_the_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", "busiest-host", "--set", "per_host=4,workers=16", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["a"]["options"]["per_host"] == 1
    assert data["b"]["options"]["per_host"] == 4 and data["b"]["options"]["workers"] == 16
    assert data["b"]["finish_time"] < data["a"]["finish_time"]


# -- trace ------------------------------------------------------------------------


def test_trace_jsonl_replays_as_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.core.events import FetchStarted, event_from_dict

    path = tmp_path / "t.jsonl"
    code, out, _ = run_cli(capsys, "trace", "see-it", "-o", str(path))
    assert code == 0 and "wrote" in out
    events = [event_from_dict(json.loads(line)) for line in path.read_text().splitlines()]
    assert sum(isinstance(e, FetchStarted) for e in events) == 14
    assert type(events[-1]).__name__ == "Done"


def test_trace_chrome_json_opens_in_perfetto(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    code, _, _ = run_cli(capsys, "trace", "see-it", "-o", str(path), "--normalize", "off", "--gap", "0.5")
    assert code == 0
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    assert spans and all(e["dur"] >= 0 and e["ts"] >= 0 for e in spans)
    assert len(spans) > 14  # with normalize off, duplicate spellings are fetched too
    # http://a.com:80/ is still fetched as its own spelling, but it is the same server as
    # http://a.com/: one host key, one politeness track (it was a second host before issue 14)
    assert {e["cat"] for e in spans} == {"a.com", "b.com"}
    assert any(":80/" in e["name"] for e in spans)
    assert all(e["tid"] >= 1 for e in spans)  # worker tracks; 0 is the links track
    assert any(e["name"].endswith("(duplicate)") for e in spans)
    phases = {e["ph"] for e in events}
    assert {"M", "X", "C", "i"} <= phases
    names = {e["name"] for e in events if e["ph"] == "i"}
    assert "skipped (seen)" in names and "deferred (gap)" in names
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert counters == {"frontier", "in flight"}
    # no two spans on one worker track overlap
    by_track: dict[int, list[tuple[float, float]]] = {}
    for e in spans:
        by_track.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for spans_on_track in by_track.values():
        spans_on_track.sort()
        assert all(a_end <= b_start + 1e-6 for (_, a_end), (b_start, _) in itertools.pairwise(spans_on_track))


def test_trace_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "trace", "see-it", "-o", "-")
    assert code == 0
    assert all(json.loads(line)["type"] for line in out.splitlines())


# -- mistakes: one line, exit 2 ------------------------------------------------------


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["run", "see-it", "--workers", "x"], 'workers: expected a whole number, got "x"'),
        (["run", "see-it", "--workers", "0"], "workers: expected a whole number >= 1, got 0"),
        (["run", "see-it", "--set", "wrkers=3"], "did you mean 'workers'?"),
        (["run", "see-it", "--normalize", "rfc9999"], "unknown normalization 'rfc9999'"),
        (["run", "nope"], "shipped: busiest-host"),
        (["run", "no/such/file.toml"], "no/such/file.toml: no such scenario file; shipped scenarios: "),
        (["rn"], "unknown command 'rn'; did you mean 'run'?"),
        (["compare", "see-it"], "compare needs one or two --set"),
        (["trace", "see-it", "-o", "out.txt"], "expected a .jsonl or .json file"),
        (["trace", "see-it"], "the following arguments are required: -o/--output"),
        (["sweep", "see-it", "--workers", "1,x"], "--workers: expected a whole number, got 'x'"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("crawlsim: error: ")
    assert err.count("\n") == 1, err
    assert expected in err


def test_a_broken_scenario_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(SEE_IT_TOML.replace("latency = 3.0", "latency = -3.0"))
    code, _, err = run_cli(capsys, "run", str(path))
    assert code == 2
    assert err.count("\n") == 1 and str(path) in err and "latency" in err


def test_no_traceback_in_a_real_process() -> None:
    result = crawlsim_process("run", "missing-scenario.toml")
    assert result.returncode == 2
    assert result.stderr.startswith("crawlsim: error: missing-scenario.toml: no such scenario file")
    assert "Traceback" not in result.stderr


# -- the dispatcher ------------------------------------------------------------------


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ") and not line.startswith("  -")]
    assert listed == list(COMMANDS)
    assert {"run", "compare", "sweep", "trace", "tui", "check", "serve", "crawl", "animate", "web", "notebooks"} == set(COMMANDS)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim import __version__

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"crawlsim {__version__}"


def test_command_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and "usage: crawlsim run" in out and "--per-host" in out


def test_bare_crawlsim_in_a_pipe_prints_the_see_it_summary() -> None:
    result = crawlsim_process()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("see-it: See it")
    assert "<- binding" in result.stdout


def test_run_loads_no_front_end() -> None:
    code = (
        "import io, sys, contextlib\n"
        "from crawlsim.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['run', 'see-it']) == 0\n"
        "print(','.join(m for m in ('textual', 'matplotlib', 'ipywidgets', 'dask') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_a_missing_subcommand_module_breaks_only_itself(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(COMMANDS, "animate", ("crawlsim.no_such_module", "main", "x"))
    code, _, err = run_cli(capsys, "animate")
    assert code == 2 and "`crawlsim animate` is not available here" in err
    code, out, _ = run_cli(capsys, "run", "see-it", "--json")
    assert code == 0 and json.loads(out)["pages_fetched"] == 14


def test_bare_crawlsim_in_a_terminal_opens_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from crawlsim import cli

    calls: list[tuple[str, list[str]]] = []

    def fake_entry(name: str) -> Callable[[list[str]], int]:
        def entry(argv: list[str]) -> int:
            calls.append((name, argv))
            return 0

        return entry

    monkeypatch.setattr(cli, "_entry", fake_entry)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    assert cli.main([]) == 0
    assert calls == [("tui", [])]
