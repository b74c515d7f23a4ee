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
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.cli import COMMANDS, main
from crawlsim.scenario.files import list_scenarios

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


@pytest.mark.parametrize("name", ["polite", "see-it", "busiest-host"])
def test_the_busiest_hosts_table_ranks_the_bounds_host_first(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # polite's bound named a.com (Crawl-delay) while its table ranked it last by busy time
    code, out, _ = run_cli(capsys, "run", name, "--json")
    assert code == 0
    data = json.loads(out)
    ranked = [row["bound"] for row in data["top_hosts"]]
    assert data["top_hosts"][0]["host"] == data["busiest_host"]["host"]
    assert ranked == sorted(ranked, reverse=True)
    assert ranked[0] == data["bounds"]["busiest_host"]


@pytest.mark.parametrize("nodes", [[], ["--nodes", "2"]])
def test_each_hosts_fetches_are_the_summarys_kind(nodes: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # polite printed "fetches 27; 3 robots.txt" beside "a.com, 8 fetches" and
    # a hosts table summing to 30: the hosts counted their robots.txt as fetches
    code, out, _ = run_cli(capsys, "run", "polite", *nodes, "--json")
    assert code == 0
    data = json.loads(out)
    hosts = data["top_hosts"]
    assert len(hosts) == 3  # every host of polite is listed, so the rows add up to the crawl
    assert sum(row["fetches"] for row in hosts) == data["fetches"]
    assert sum(row["robots_fetches"] for row in hosts) == data["robots_fetches"]
    for row in hosts:  # the busy time is still every fetch the host answered
        assert row["mean_latency"] == pytest.approx(row["busy"] / (row["fetches"] + row["robots_fetches"]), abs=1e-6)
    if data["busiest_host"] is not None:
        busiest = next(row for row in hosts if row["host"] == data["busiest_host"]["host"])
        assert data["busiest_host"]["fetches"] == busiest["fetches"]
        assert data["busiest_host"]["robots_fetches"] == busiest["robots_fetches"]


def test_the_busiest_host_line_shows_its_robots_txt_apart(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "polite")
    assert code == 0
    assert "a.com, 7 fetches + 1 robots.txt" in out
    assert "a.com, 8 fetches" not in out


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
    code, out, _ = run_cli(capsys, "compare", "see-it", "--a", "workers=1", "--b", "workers=4")
    assert code == 0
    assert "finish 26.0 s -> 19.0 s (-27%)" in out
    assert "A: workers=1" in out and "B: workers=4" in out
    assert "binding bound" in out


def test_compare_one_configuration_against_the_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "compare", "busiest-host", "--b", "per_host=4", "--b", "workers=16", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["a"]["options"]["per_host"] == 1
    assert data["b"]["options"]["per_host"] == 4 and data["b"]["options"]["workers"] == 16
    assert data["b"]["finish_time"] < data["a"]["finish_time"]


# -- trace ------------------------------------------------------------------------


def test_trace_jsonl_replays_as_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.trace.events import FetchStarted, event_from_dict

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
    # http://a.com/: one host key, one politeness track (a port that is the scheme's default is no other host)
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
        (["compare", "see-it"], "compare needs --a KEY=VALUE or --b KEY=VALUE"),
        (["trace", "see-it", "-o", "out.txt"], "expected a .jsonl or .json file"),
        (["trace", "see-it"], "the following arguments are required: -o/--output"),
        (["sweep", "see-it", "--workers", "1,x"], 'workers: expected a whole number, got "x"'),
        # enumerated values suggest the nearest allowed one, in every command and spelling
        (["run", "see-it", "--normalize", "agressive"], "did you mean 'aggressive'?"),
        (["run", "see-it", "--set", "normalize=rfc3986+sort_qeury"], "did you mean 'sort_query'?"),
        (["sweep", "see-it", "--normalize", "off,agressive"], "did you mean 'aggressive'?"),
        (["run", "see-it", "--order", "bsf"], "did you mean 'bfs'?"),
        (["run", "see-it", "--seen", "blom"], "did you mean 'bloom'?"),
        (["run", "see-it", "--frontier", "fifi"], "did you mean 'fifo'?"),
        (
            ["run", "see-it", "--advise", "mesure"],
            "argument --advise: expected one of auto, measure, infer; got 'mesure'; did you mean 'measure'?",
        ),
        (["crawl", "http://a.test/", "--content-dedup", "simhsh"], "did you mean 'simhash'?"),
        (["serve", "see-it", "--layout", "adresses"], "did you mean 'addresses'?"),
        (["trace", "see-it", "-o", "x.json", "--format", "chrom"], "did you mean 'chrome'?"),
        # best-first: a named priority, or a clear refusal
        (["run", "see-it", "--order", "best"], "needs a priority function: a name (shallowest, host-round-robin"),
        (["run", "see-it", "--priority", "shalowest"], "did you mean 'shallowest'?"),
        (["run", "see-it", "--order", "dfs", "--priority", "shallowest"], "a priority orders a best-first crawl only"),
        (["run", "see-it", "--per-host", "nothing"], 'per_host: expected a whole number (or none), got "nothing"'),
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
    assert {"run", "compare", "sweep", "trace", "tui", "check", "serve", "crawl", "animate", "web", "html", "notebooks", "model"} == set(COMMANDS)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim import __version__

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip().startswith(f"crawlsim {__version__} (")


def test_version_names_the_build_that_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """A checkout (README's editable install) runs the .py files: pure Python;
    an installed compiled build says so (.ci/run asserts that side)."""
    import crawlsim.core.scheduler as scheduler

    _, out, _ = run_cli(capsys, "--version")
    built = not scheduler.__file__.endswith(".py")
    assert out.strip().endswith("(compiled with Cython)" if built else "(pure Python)")


def test_version_says_compiled_when_the_hot_modules_load_from_extensions(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.machinery

    from crawlsim import build_info

    def spec_of(name: str) -> importlib.machinery.ModuleSpec:
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        return importlib.machinery.ModuleSpec(name, None, origin=f"/site/{name.replace('.', '/')}{suffix}")

    monkeypatch.setattr(build_info.importlib.util, "find_spec", spec_of)
    assert build_info.compiled_modules() == list(build_info.COMPILED_MODULES)
    _, out, _ = run_cli(capsys, "--version")
    assert out.strip().endswith("(compiled with Cython)")


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


# -- one parser per option, whatever the spelling ---------------------------------------------


SPELLED = [
    ("per_host", "none"),
    ("per_host", "3"),
    ("gap", "0.5"),
    ("depth_limit", "none"),
    ("max_pages", "1e3"),
    ("normalize", "rfc3986+sort_query"),
    ("order", "dfs"),
    ("priority", "host-round-robin"),
    ("seen", "hash"),
    ("retry_statuses", "429,500"),
    ("robots", "true"),
]


def _option_spelled(spelling: str, key: str, text: str) -> object:
    """Option ``key`` as ``text`` reaches the crawl through ``spelling``."""
    import argparse

    from crawlsim.cli_options import FLAGS, add_crawler_flags, overrides_from_args
    from crawlsim.commands.sweep import build_parser as sweep_parser
    from crawlsim.commands.sweep import grid_from_args, points
    from crawlsim.scenario import load_scenario
    from crawlsim.scenario.files import parse_scenario

    base = load_scenario("see-it")
    if spelling == "toml":
        order = 'order = "best"\n' if key == "priority" else ""
        page = '[pages]\n"http://a.com/" = []\n'
        literal = _toml_literal(key, text)
        text_toml = f'start = "http://a.com/"\n[crawl]\n{order}{key} = {literal}\n{page}'
        return getattr(parse_scenario(text_toml, "x.toml").options, key)
    if spelling == "sweep":
        grid = grid_from_args(sweep_parser().parse_args(["see-it", "--set", f"{key}={text}", "--workers", "2"]))
        return getattr(base.with_options(**points(grid)[0]).options, key)
    parser = argparse.ArgumentParser()
    add_crawler_flags(parser)
    if spelling == "flag" and key not in {name for name, _, _ in FLAGS}:
        pytest.skip(f"{key} has no flag of its own")
    argv = ["--" + key.replace("_", "-"), text] if spelling == "flag" else ["--set", f"{key}={text}"]
    return getattr(base.with_options(**overrides_from_args(parser.parse_args(argv))).options, key)


def _toml_literal(key: str, text: str) -> str:
    """How a file writes ``text``: a string for text options and for none
    (TOML has no null), else TOML's own number, boolean or list."""
    from crawlsim.core.options import RULES

    if text == "none" or RULES[key].kind in ("choice", "normalize", "text", "priority"):
        return f'"{text}"'
    return f"[{text}]" if key == "retry_statuses" else text


@pytest.mark.parametrize(("key", "text"), SPELLED)
def test_every_spelling_of_an_option_means_the_same(key: str, text: str) -> None:
    """`--per-host none`, `--set per_host=none`, `per_host = "none"` in a file and
    `sweep --set per_host=none` give one value: one parser per option kind."""
    values = {s: _option_spelled(s, key, text) for s in ("set", "toml", "sweep")}
    if key in {"per_host", "gap", "depth_limit", "max_pages", "normalize", "order", "priority", "seen"}:
        values["flag"] = _option_spelled("flag", key, text)
    assert len({repr(v) for v in values.values()}) == 1, values
    if text == "none":
        assert values["set"] is None


@pytest.mark.parametrize("spelling", ["flag", "set", "toml", "sweep"])
def test_a_bad_value_is_refused_with_the_same_words_in_every_spelling(spelling: str) -> None:
    from crawlsim.core.options import OptionError
    from crawlsim.scenario import ScenarioError

    with pytest.raises((OptionError, ScenarioError)) as caught:
        _option_spelled(spelling, "normalize", "agressive")
    assert "unknown normalization 'agressive'" in str(caught.value)
    assert str(caught.value).endswith("did you mean 'aggressive'?")


# -- progress: on a terminal's stderr only, never with --json ----------------------------------


@pytest.fixture
def terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> Callable[[], str]:
    """stderr as a terminal (a rich console that says it is one); returns what was drawn."""
    import io

    from rich.console import Console

    from crawlsim.commands import common

    buffer = io.StringIO()
    monkeypatch.setattr(common, "stderr_console", lambda: Console(file=buffer, force_terminal=True, width=100))
    return buffer.getvalue


def test_sweep_counts_its_runs_on_a_terminal_and_is_quiet_otherwise(
    tmp_path: Path, terminal_stderr: Callable[[], str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sweep", "see-it", "--workers", "1,2", "--jobs", "1", "--no-plot", "-o", str(tmp_path)]
    assert main(argv) == 0
    assert "see-it: 2 runs in 1 process" in terminal_stderr() and "2/2" in terminal_stderr()
    drawn = len(terminal_stderr())
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    assert len(terminal_stderr()) == drawn  # --json: nothing drawn
    assert [row["workers"] for row in json.loads(capsys.readouterr().out)] == [1, 2]


def test_sweep_in_a_pipe_prints_no_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "see-it", "--workers", "1,2", "--jobs", "1", "--no-plot", "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().err == ""


def test_a_long_run_names_its_phase_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, terminal_stderr: Callable[[], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`crawlsim run million` takes most of a minute: on a terminal a spinner
    names the phase (see-it stands in for it, with the threshold lowered)."""
    from crawlsim.commands import common

    monkeypatch.setattr(common, "LONG_RUN_PAGES", 10)
    assert main(["run", "see-it", "--json"]) == 0
    assert terminal_stderr() == ""
    assert main(["run", "see-it"]) == 0
    assert "see-it: simulating 14 pages" in terminal_stderr()
    assert "see-it: bounds and advice (14 fetches in 19.0 simulated s)" in terminal_stderr()
    assert "finish" in capsys.readouterr().out
    monkeypatch.setattr(common, "LONG_RUN_PAGES", 50_000)
    before = terminal_stderr()
    assert main(["run", "see-it"]) == 0
    assert terminal_stderr() == before  # a short run: no spinner flashing by


# -- serve's first line is a crawl command that works as printed ------------------------------


def test_serve_first_line_is_a_crawl_command_that_works_as_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """Real HTTP on loopback: `crawlsim serve see-it --port 0` in a child process,
    then its first line, unedited, run as `crawlsim` runs it: it reaches the
    served hosts and crawls with the scenario's politeness, not crawl's defaults
    (per host 2, robots.txt obeyed, start host only)."""
    import shlex

    serve = [sys.executable, "-m", "crawlsim", "serve", "see-it", "--port", "0", "--time-scale", "0.02"]
    proc = subprocess.Popen([*serve, "--duration", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once every host listens
        argv = shlex.split(first)
        assert argv[:3] == ["crawlsim", "crawl", "http://a.com/"]
        code = main(argv[1:])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "politeness: robots.txt NOT read (--no-robots); per host at most 1 fetch at a time" in out
    assert "4 workers in all; scope: any" in out
    fetched = {line.split()[1] for line in out.splitlines() if line.startswith("  200  ")}
    assert len(fetched) == 14 and {"http://a.com/", "http://b.com/"} <= fetched


def test_crawl_written_to_a_file_is_unwrapped_and_unpadded_as_run_is(tmp_path: Path) -> None:
    """`crawlsim crawl ... > out.txt`: a paragraph stays one line and no line
    ends in spaces, as `crawlsim run ... > out.txt` writes."""
    import shlex

    serve = [sys.executable, "-m", "crawlsim", "serve", "see-it", "--port", "0", "--time-scale", "0.02"]
    proc = subprocess.Popen([*serve, "--duration", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        argv = shlex.split(proc.stdout.readline())  # printed once every host listens
        with (tmp_path / "out.txt").open("w") as out:
            done = subprocess.run([sys.executable, "-m", "crawlsim", *argv[1:]], stdout=out, timeout=120)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert done.returncode == 0
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert [line for line in lines if line != line.rstrip()] == []
    banner = [line for line in lines if line.startswith("4 workers, ")]
    assert len(banner) == 1 and banner[0].endswith("scope any"), lines[:8]


# -- the tour (docs/tutorials/tour.md) ---------------------------------------------------------------------------


REPO = Path(__file__).resolve().parent.parent


def tour_lines() -> list[list[str]]:
    """The commands of the tour's block (docs/tutorials/tour.md), comments dropped."""
    import shlex

    text = (REPO / "docs" / "tutorials" / "tour.md").read_text(encoding="utf-8")
    block = text.split("## A tour", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_tour_writes_only_under_a_git_ignored_folder() -> None:
    outputs = [argv[argv.index("-o") + 1] for argv in tour_lines() if "-o" in argv]
    assert outputs and all(Path(o).parts[0] == "out" for o in outputs), outputs
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert "out/" in ignored


def test_the_quick_lines_of_the_tour_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run`, `compare` and `trace` lines, exactly as the tour prints them, in a
    fresh folder (the others need a terminal, a server or a minute)."""
    monkeypatch.chdir(tmp_path)
    quick = [argv for argv in tour_lines() if argv[1:2] and argv[1] in {"run", "compare", "trace"}]
    assert len(quick) >= 5
    for argv in quick:
        assert main(argv[1:]) == 0, argv
        assert capsys.readouterr().err == "", argv
    assert (tmp_path / "out" / "see-it.json").is_file()


def test_serve_spells_a_named_priority_for_crawl() -> None:
    from crawlsim.real.flags import scenario_flags
    from crawlsim.scenario.files import parse_scenario

    text = 'start = "http://a.com/"\n[crawl]\norder = "best"\npriority = "shallowest"\n[pages]\n"http://a.com/" = []\n'
    scenario = parse_scenario(text, "x.toml")
    flags = scenario_flags(scenario.options, list(scenario.data["crawl"]))
    assert flags[flags.index("--order") : flags.index("--order") + 2] == ["--order", "best"]
    assert flags[flags.index("--priority") + 1] == "shallowest"


def _numeric_options() -> list[str]:
    from crawlsim.core.options import RULES

    return sorted(k for k, r in RULES.items() if r.kind in ("int", "number"))


NUMERIC = _numeric_options()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(NUMERIC), st.one_of(st.integers(-10, 10**6), st.floats(allow_nan=True), st.none()))
def test_text_and_file_values_agree_or_fail_alike(key: str, value: float | None) -> None:
    """A number (or none) written as text -- a flag or --set -- and the same
    number in a file (a TOML number; none as "none", TOML having no null): the
    same stored value, or the same refusal."""
    from crawlsim.core.options import OptionError, option_from_text, option_from_value

    text = "none" if value is None else repr(value)
    results = []
    native = "none" if value is None else value
    for read in (lambda: option_from_text(key, text), lambda: option_from_value(key, native)):
        try:
            results.append(("ok", read()))  # equal values (a TOML 0 stays an int, text 0 reads as 0.0)
        except OptionError as err:
            results.append(("error", err.message.split(", got")[0]))  # the same refusal (it quotes the input as given)
    assert len(set(results)) == 1, results


def test_compare_names_the_priority_and_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "see-it", "--a", "order=bfs", "--b", "priority=shallowest", "--advise", "infer"]) == 0
    assert "options: order bfs -> best; priority none -> shallowest" in capsys.readouterr().out
    assert main(["compare", "see-it", "--a", "per_host=none", "--b", "per_host=1", "--advise", "infer"]) == 0
    assert "options: per_host none -> 1" in capsys.readouterr().out
