"""`crawlsim check --example NAME`: the shipped answers run from any folder,
by name, as README's interview example does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crawlsim.check import examples

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = ROOT / "examples" / "interview"


def main(argv: list[str]) -> int:
    from crawlsim.cli import main

    return main(["check", *argv])


def test_an_example_runs_by_name_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # README's command, typed outside the checkout
    assert main(["--example", "buggy_seen_on_finish", "--quick", "--only", "seen-race"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"FAIL\s+seen-race", out)


def test_every_shipped_answer_is_listed_with_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-examples"]) == 0
    out = capsys.readouterr().out
    for path in ANSWERS.glob("*.py"):
        line = next(line for line in out.splitlines() if line.split()[:1] == [path.stem])
        assert examples.describe(path).split()[0] in line
    assert "[--follow-up depth]" in next(line for line in out.splitlines() if "reference_depth" in line)


def test_a_round_answer_is_graded_in_its_round(capsys: pytest.CaptureFixture[str]) -> None:
    """``--example reference_depth`` grades the depth round, no --follow-up needed."""
    assert main(["--example", "buggy_depth_start_is_one", "--quick", "--only", "basic"]) == 1
    assert "depth" in capsys.readouterr().out.splitlines()[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--example", "buggy_seen_on_finsh"], "did you mean 'buggy_seen_on_finish'?"),
        ([], "expected FILE.py:FUNCTION or --example NAME"),
        (["mine.py", "--example", "reference_threadpool"], "not both"),
    ],
    ids=["typo", "neither", "both"],
)
def test_example_mistakes_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_the_answers_ship_as_package_data() -> None:
    """crawlsim/examples_data is the answers' folder (a wheel copies the
    ``.py`` files of a package's folder; a checkout reads them in place)."""
    assert (ROOT / "crawlsim" / "examples_data").resolve() == ANSWERS.resolve()
    assert examples.examples_dir().resolve() == ANSWERS.resolve()
    assert "--example buggy_seen_on_finish" in (ROOT / "README.md").read_text(encoding="utf-8")
