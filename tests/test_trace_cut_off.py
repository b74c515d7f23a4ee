"""A trace whose last line was cut (a recording killed while writing it): the
reader names the line as cut off and says how to read the rest -- also when
the cut fell inside a multi-byte UTF-8 character.  A whole line that is not
JSON is named with json's own reason and the column."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlsim.trace.events import TraceError
from crawlsim.trace.jsonl import read_trace

WHOLE = '{"t":0.0,"url":"http://a.test/é","host":"a.test","depth":0,"parent":null,"type":"Discovered"}\n'.encode()
CUT_IN_CHARACTER = WHOLE.index("é".encode()) + 1


@pytest.mark.parametrize("cut_at", [40, CUT_IN_CHARACTER], ids=["mid-json", "mid-character"])
def test_a_cut_last_line_is_named_with_the_step_that_reads_the_rest(tmp_path: Path, cut_at: int) -> None:
    path = tmp_path / "killed.jsonl"
    path.write_bytes(WHOLE + WHOLE[:cut_at])
    with pytest.raises(TraceError, match=r"line 2: cut off: the file ends mid-line.*delete that last line"):
        read_trace(path)
    path.write_bytes(WHOLE)  # the step it names: the line deleted, the rest reads
    assert len(read_trace(path).events) == 1


def test_bad_utf8_inside_a_whole_line_is_not_called_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(WHOLE[:CUT_IN_CHARACTER] + WHOLE[CUT_IN_CHARACTER + 1 :])
    with pytest.raises(TraceError, match="line 1: ") as raised:
        read_trace(path)
    assert "cut off" not in str(raised.value)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"t":"a\tb"}\n', "not JSON: Invalid control character at column 8"),
        (b'{"t":1 2}\n', "not JSON: Expecting ',' delimiter at column 8"),
        (b'{"t":}\n', "not JSON: Expecting value at column 6"),
    ],
    ids=["control-character", "no-comma", "no-value"],
)
def test_a_line_that_is_not_json_says_why_and_where_once(tmp_path: Path, line: bytes, reason: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(line)
    with pytest.raises(TraceError) as raised:
        read_trace(path)
    assert str(raised.value).endswith(f"line 1: {reason}")
