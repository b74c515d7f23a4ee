"""The same mistake reads the same in every command: a bad ``--port``, a
scenario that does not exist, a port that is taken; ``-q`` means one thing;
``crawlsim html`` is given a scenario or a trace, never both silently."""

from __future__ import annotations

import argparse
import errno
import os
import socket
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.commands import html, web
from crawlsim.commands.serve import build_parser as serve_parser
from crawlsim.notebook.movie import build_parser as animate_parser

TRACE = Path(__file__).parent / "hostile" / "accepted" / "done_only.jsonl"


def error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one error line ``crawlsim ARGV`` prints (exit 2), without its prefix."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("crawlsim: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err.removeprefix("crawlsim: error: ").strip()


@pytest.mark.parametrize("port", ["http", "70000", "-1"])
def test_a_bad_port_is_refused_in_one_wording_by_web_and_serve(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    said = {
        command: error_line(capsys, [command, "see-it", "--port", port]).replace(f"crawlsim {command}", "CMD")
        for command in ("web", "serve")
    }
    shown = repr(port) if not port.lstrip("-").isdigit() else port
    expected = "argument --port: expected a port number {}; got " + shown + " (see `CMD --help`)"
    assert said["web"] == expected.format("1-65535")
    assert said["serve"] == expected.format("0-65535 (0: any free port)")


@pytest.mark.parametrize("name", ["nosuch", "nosuch.toml", "no/such/file.toml"])
def test_a_missing_scenario_reads_the_same_in_every_command(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = {
        "run": ["run", name],
        "web": ["web", name],
        "serve": ["serve", name],
        "html": ["html", name, "-o", str(tmp_path / "page.html")],
    }
    said = {command: error_line(capsys, argv) for command, argv in commands.items()}
    assert len(set(said.values())) == 1, said
    assert name in said["run"] and "see-it" in said["run"]  # names the mistake and what exists
    assert list(tmp_path.iterdir()) == []


def test_a_taken_port_is_one_line_and_exit_2_from_web_and_serve(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        web_said = error_line(capsys, ["web", "see-it", "--port", str(port)])
        serve_said = error_line(capsys, ["serve", "see-it", "--layout", "ports", "--port", str(port)])
    assert web_said == f"cannot listen on 127.0.0.1 port {port}: Address already in use"
    assert serve_said == f"cannot listen on 127.0.0.1 port {port}: Address already in use; try --port 0"


@pytest.fixture
def only_127_0_0_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as macOS has it by default: of 127.0.0.0/8, only 127.0.0.1 is up."""
    bind = socket.socket.bind

    def macos_bind(self: socket.socket, address: tuple[str, int]) -> None:
        host = address[0]
        if host.startswith("127.") and host != "127.0.0.1":
            raise OSError(errno.EADDRNOTAVAIL, os.strerror(errno.EADDRNOTAVAIL))
        bind(self, address)

    monkeypatch.setattr(socket.socket, "bind", macos_bind)


@pytest.mark.usefixtures("only_127_0_0_1")
def test_serving_on_absent_loopback_addresses_is_one_line_with_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    said = error_line(capsys, ["serve", "see-it", "--layout", "addresses", "--port", "0"])
    assert said.startswith("cannot listen on 127.0.0.2: this machine has no address 127.0.0.2"), said
    assert "sudo ifconfig lo0 alias 127.0.0.2" in said and said.endswith("or use --layout ports")


@pytest.mark.usefixtures("only_127_0_0_1")
def test_serve_falls_back_to_ports_where_only_127_0_0_1_is_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "see-it", "--port", "0", "--duration", "0.001"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "--resolve a.com=127.0.0.1:" in first and "--resolve b.com=127.0.0.1:" in first, first


@pytest.mark.usefixtures("only_127_0_0_1")
def test_crawling_an_absent_loopback_address_is_one_line_not_a_crawl_of_timeouts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = error_line(capsys, ["crawl", "http://a.com/", "--resolve", "a.com=127.0.0.2:8000"])
    assert said.startswith("--resolve a.com=127.0.0.2:8000: this machine has no address 127.0.0.2"), said
    assert "sudo ifconfig lo0 alias 127.0.0.2" in said


@pytest.mark.usefixtures("only_127_0_0_1")
def test_a_start_url_on_an_absent_loopback_address_is_one_line_not_a_crawl_of_timeouts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = error_line(capsys, ["crawl", "http://127.0.0.2:8000/"])
    assert said.startswith("http://127.0.0.2:8000/: this machine has no address 127.0.0.2"), said
    assert "sudo ifconfig lo0 alias 127.0.0.2" in said


@pytest.mark.usefixtures("only_127_0_0_1")
def test_only_absent_ipv4_loopback_addresses_are_refused() -> None:
    from crawlsim.real.flags import loopback_absent

    assert loopback_absent("127.0.0.2") and loopback_absent("127.1.2.3")
    assert not loopback_absent("127.0.0.1") and not loopback_absent("::1") and not loopback_absent("8.8.8.8")


def quiet_help(parser: argparse.ArgumentParser) -> str | None:
    [action] = [a for a in parser._actions if "-q" in a.option_strings]
    assert action.option_strings == ["-q", "--quiet"]
    return action.help


def test_quiet_means_one_thing_in_every_command() -> None:
    assert quiet_help(html._parser()) == quiet_help(animate_parser())
    assert "nothing but errors" in (quiet_help(html._parser()) or "")
    assert not any("-q" in a.option_strings for a in (*web._parser()._actions, *serve_parser()._actions))


def test_html_refuses_a_scenario_with_a_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "page.html"
    said = error_line(capsys, ["html", "isro", "--trace", str(TRACE), "-o", str(out)])
    assert said.startswith(f"give a SCENARIO or --trace {TRACE}, not both")
    assert not out.exists()
    assert main(["html", "--trace", str(TRACE), "-o", str(out), "-q"]) == 0  # the trace alone draws
    assert out.stat().st_size > 0 and capsys.readouterr().out == ""


# -- one --set grammar, one trace spelling, placeholders that say what they are ------------


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "see-it"],
        ["trace", "see-it", "-o", "-"],
        ["sweep", "see-it", "--no-plot", "-j", "1"],
        ["compare", "see-it", "--a", "workers=1"],
        ["crawl", "http://127.0.0.1:9/"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_set_is_one_option_in_every_command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``--set workers=2,per_host=2`` is refused alike everywhere, with the spelling that works."""
    said = error_line(capsys, [*argv, "--set", "workers=2,per_host=2"])
    meant = "did you mean --set workers=2 --set per_host=2?"
    assert said == f"--set 'workers=2,per_host=2': one KEY=VALUE per --set; {meant}"


def test_set_means_the_same_in_run_compare_and_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One ``--set per_host=2``: the run's finish, compare's both sides, the sweep's one point."""
    import json

    assert main(["run", "see-it", "--workers", "2", "--set", "per_host=2", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["finish_time"]
    assert main(["compare", "see-it", "--workers", "2", "--set", "per_host=2", "--b", "workers=1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["a"]["finish_time"] == run
    argv = ["sweep", "see-it", "--set", "per_host=2", "--workers", "2", "-j", "1", "--no-plot", "--json"]
    assert main([*argv, "-o", str(tmp_path)]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["per_host"] == 2 and row["finish_time"] == run


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["compare", "see-it", "--set", "workers=1", "--set", "workers=4"],
         "did you mean --a workers=1 --b workers=4?"),
        (["compare", "see-it", "--set", "workers=2,per_host=2"], "did you mean --b workers=2 --b per_host=2?"),
        (["sweep", "see-it", "--set", "per_host=1,2"], "did you mean --vary per_host=1,2?"),
        (["check", "mine.py", "--trace", "mine.jsonl"], "did you mean --trace-out mine.jsonl?"),
        (["crawl", "http://127.0.0.1:9/", "--trace", "t.jsonl"], "did you mean --trace-out t.jsonl?"),
    ],
    ids=["compare-sides", "compare-one-side", "sweep-list", "check-trace", "crawl-trace"],
)
def test_an_old_spelling_says_the_new_one(argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The spellings that changed meaning exit 2 with the one that works, never silently do something else."""
    assert error_line(capsys, argv).endswith(meant)


HELPED = ["run", "compare", "sweep", "trace", "tui", "check", "serve", "crawl", "model", "animate", "web", "html", "notebooks"]


@pytest.mark.parametrize("command", HELPED)
def test_every_placeholder_says_what_it_is(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No ``--timeout TIMEOUT`` (argparse's raw name), and a rate is not ``S`` (seconds)."""
    import re

    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    placeholders = re.finditer(r"--([a-z-]+) ([A-Z_]+)\b", text)
    units = {"PORT", "SECONDS"}  # a flag named for its unit: --port PORT, --seconds SECONDS
    raw = [m[0] for m in placeholders if m[1].replace("-", "_").upper() == m[2] and m[2] not in units]
    assert raw == []
    assert "--rate S" not in text and "--rate S," not in text


def test_crawl_takes_allow_and_deny() -> None:
    from crawlsim.cli_options import overrides_from_args
    from crawlsim.commands.crawl import build_parser

    args = build_parser().parse_args(["http://a.test/", "--allow", r"/docs/", "--allow", "/blog/", "--deny", r"\.pdf$"])
    assert overrides_from_args(args) == {"allow": ("/docs/", "/blog/"), "deny": (r"\.pdf$",)}


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["run", "see-it", "--set", "workers=2", "--workers", "4"],
         "workers given twice, as --workers 4 and --set workers=2: give it once"),
        (["run", "see-it", "--set", "workers=2", "--set", "workers=3"],
         "workers given twice, as --set workers=2 and --set workers=3: give it once"),
        (["trace", "see-it", "-o", "-", "--no-robots", "--set", "robots=true"],
         "robots given twice, as --no-robots and --set robots=true: give it once"),
        (["compare", "see-it", "--a", "workers=1", "--b", "workers=2", "--workers", "8"],
         "workers=8 for both sides is overridden by --a workers=1 and --b workers=2: drop one of them"),
        (["compare", "see-it", "--a", "workers=1", "--a", "workers=2"],
         "workers given twice, as --a workers=1 and --a workers=2: give it once"),
        (["run", "see-it", "--top", "-1"],
         "argument --top: expected a whole number from 0; got '-1' (see `crawlsim run --help`)"),
        (["sweep", "see-it", "--workers", "1,,2"],
         "--workers: expected one or more comma-separated values, none empty; got '1,,2'"),
    ],
    ids=["flag-and-set", "set-twice", "robots", "compare-both-sides", "side-twice", "top-negative", "sweep-empty-value"],
)
def test_a_setting_that_would_be_dropped_unsaid_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Options that contradict each other, or a value that would quietly do nothing,
    exit 2 naming both spellings, never run with one of them dropped."""
    assert error_line(capsys, argv) == said


def test_the_same_value_twice_and_a_side_over_a_shared_flag_still_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--workers", "4", "--set", "workers=4", "--top", "0"]) == 0
    assert "4 workers" in capsys.readouterr().out
    assert main(["compare", "see-it", "--a", "workers=1", "--workers", "8"]) == 0
    assert "workers 1 -> 8" in capsys.readouterr().out
