"""A mistyped value of an enumerated flag is one line naming the flag, the
values allowed and the nearest one -- the same on every command (they all
build their parser from crawlsim.cli_options.ArgumentParser)."""

from __future__ import annotations

import pytest

from crawlsim.cli import main


@pytest.mark.parametrize(
    ("argv", "flag", "meant"),
    [
        (["animate", "see-it", "--layout", "hots"], "--layout", "host"),
        (["check", "x.py", "--rules", "strictt"], "--rules", "strict"),
        (["run", "see-it", "--normalize", "agressive"], "normalize", "aggressive"),
        (["sweep", "see-it", "--advise", "mesure"], "--advise", "measure"),
    ],
)
def test_a_typo_in_an_enumerated_value_is_one_line_with_a_suggestion(
    argv: list[str], flag: str, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1, err
    assert flag in lines[0] and f"'{meant}'" in lines[0] and "usage:" not in err
