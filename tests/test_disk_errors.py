"""A file that cannot be written is one line and exit 2, and never left half-written looking complete.

``/dev/full`` fails every write with "No space left on device" (as a full
disk does); a file standing where a folder should be fails every create.
Both work as root, where permission bits do not.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.trace.events import Done
from crawlsim.errors import UsageError
from crawlsim.outfile import written
from crawlsim.trace.jsonl import TraceWriter, read_trace, write_trace

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "tests" / "fixtures" / "site" / "index.html"
FULL = "/dev/full"
needs_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full on this system")


def _one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("crawlsim: error: ") and "Traceback" not in err, err
    for word in words:
        assert word in err, err


@needs_full
@pytest.mark.parametrize("fmt", ["jsonl", "chrome"])
def test_trace_to_a_full_disk_is_one_line(capsys, fmt: str) -> None:
    assert main(["trace", "see-it", "-o", FULL, "--format", fmt]) == 2
    _one_line(capsys.readouterr().err, FULL, "No space left on device")


@needs_full
def test_a_crawl_whose_trace_fills_the_disk_is_one_line(capsys) -> None:
    assert main(["crawl", str(SITE), "-o", FULL]) == 2
    err = capsys.readouterr().err
    _one_line(err, FULL, "No space left on device")


def test_a_file_where_a_folder_should_be_is_one_line(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\n")
    assert main(["trace", "see-it", "-o", str(blocker / "t.jsonl")]) == 2
    _one_line(capsys.readouterr().err, "is not a folder")
    assert main(["crawl", str(SITE), "-o", str(blocker / "t.jsonl")]) == 2
    _one_line(capsys.readouterr().err, str(blocker))
    assert main(["notebooks", "--student", str(blocker / "sub")]) == 2
    _one_line(capsys.readouterr().err, "Not a directory")
    assert main(["notebooks", "--student", str(blocker)]) == 2
    _one_line(capsys.readouterr().err, "not a folder")
    assert blocker.read_text() == "not a folder\n"


def test_a_sweep_into_a_file_is_one_line(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    assert main(["sweep", "see-it", "--workers", "1,2", "--no-plot", "-o", str(blocker / "out")]) == 2
    _one_line(capsys.readouterr().err, str(blocker))


def _writers(out: Path, trace: Path | None = None) -> dict[str, list[str]]:
    """Every command that writes a file, each writing under ``out`` (model reads ``trace``)."""
    return {
        "trace": ["trace", "see-it", "-o", str(out / "t.jsonl")],
        "model": ["model", str(trace or out / "t.jsonl"), "-o", str(out / "site.toml")],
        "html": ["html", "isro", "-o", str(out / "p.html"), "--budget", "0.01", "-q"],
        "animate": ["animate", "see-it", "-o", str(out / "m.gif"), "--fps", "2", "--seconds", "1", "--size",
                    "300x200", "-q"],
        "stills": ["animate", "see-it", "--frames", "end", "-o", str(out / "s.png"), "--dpi", "30", "-q"],
        "sweep": ["sweep", "see-it", "--workers", "1,2", "-o", str(out / "sweep")],
        "crawl": ["crawl", str(SITE), "-o", str(out / "c.jsonl")],
        "serve": ["serve", "see-it", "--port", "0", "--layout", "ports", "--hosts-file", str(out / "hosts.json"),
                  "--duration", "0.05"],
    }


WROTE = {"trace": "t.jsonl", "model": "site.toml", "html": "p.html", "animate": "m.gif", "stills": "s-end.png",
         "sweep": "sweep/sweep.png", "crawl": "c.jsonl", "serve": "hosts.json"}


def test_every_writer_makes_a_missing_folder(tmp_path: Path, capsys) -> None:
    """One policy for a missing output folder, in every command: it is made
    (two levels here, each command into a folder of its own)."""
    trace = tmp_path / "trace" / "new" / "deeper" / "t.jsonl"
    for name in WROTE:
        out = tmp_path / name / "new" / "deeper"
        assert main(_writers(out, trace)[name]) == 0, (name, capsys.readouterr().err)
        assert (out / WROTE[name]).stat().st_size > 0, name
    capsys.readouterr()
    assert not [p for p in tmp_path.rglob(".*")], "a temporary file was left"


def test_every_writer_refuses_a_folder_it_cannot_make_in_one_line(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\n")
    assert main(_writers(tmp_path)["trace"]) == 0  # model's input must exist for it to reach -o
    capsys.readouterr()
    for name, argv in _writers(blocker / "sub", tmp_path / "t.jsonl").items():
        assert main(argv) == 2, name
        _one_line(capsys.readouterr().err, str(blocker))
    assert blocker.read_text() == "not a folder\n"


def test_a_movie_that_fails_half_way_keeps_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys) -> None:
    from crawlsim.notebook import writers

    def half_then_full(path: Path, *args: object) -> int:
        Path(path).write_bytes(b"GIF89a half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writers, "write_gif", half_then_full)
    movie = tmp_path / "m.gif"
    movie.write_bytes(b"the old, whole movie")
    assert main(_writers(tmp_path)["animate"]) == 2
    _one_line(capsys.readouterr().err, str(movie), "No space left on device")
    assert movie.read_bytes() == b"the old, whole movie"
    assert [p.name for p in tmp_path.iterdir()] == ["m.gif"]


def test_a_sweep_plot_that_fails_keeps_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from matplotlib.figure import Figure

    def half_then_full(self: Figure, path: Path, *args: object, **kwargs: object) -> None:
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", half_then_full)
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "sweep.png").write_bytes(b"the old plot")
    assert main(_writers(tmp_path)["sweep"]) == 2
    _one_line(capsys.readouterr().err, "No space left on device")
    assert (folder / "sweep.png").read_bytes() == b"the old plot"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]


def test_a_live_trace_appears_whole_at_the_end_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import crawlsim.trace.jsonl as jsonl

    target = tmp_path / "live.jsonl"
    target.write_text("the old, complete trace\n")
    live = TraceWriter(str(target))
    live(Done(1.0, 0, 0))
    assert target.read_text() == "the old, complete trace\n"  # never torn while the crawl runs
    live.close()
    assert read_trace(target).events == [Done(1.0, 0, 0)]

    def full(event: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    live = TraceWriter(str(target))
    monkeypatch.setattr(jsonl, "trace_line", full)
    live(Done(2.0, 0, 0))  # the disk fills: the crawl goes on, the trace is given up
    with pytest.raises(UsageError, match="No space left on device"):
        live.close()
    assert read_trace(target).events == [Done(1.0, 0, 0)]
    assert [p.name for p in tmp_path.iterdir()] == ["live.jsonl"]


def test_a_failed_write_leaves_the_old_file_and_no_partial_one(tmp_path: Path) -> None:
    target = tmp_path / "trace.jsonl"
    target.write_text("the old, complete trace\n")
    with pytest.raises(RuntimeError), written(target) as out:
        out.write("half of a new one")
        raise RuntimeError("the writer died half-way")
    assert target.read_text() == "the old, complete trace\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.jsonl"]


def test_a_finished_write_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "trace.jsonl"
    target.write_text("old\n")
    assert write_trace(target, [Done(1.5, 0, 0)]) == 1
    assert read_trace(target).events == [Done(1.5, 0, 0)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.jsonl"]
    assert target.stat().st_mode & 0o644 == 0o644  # readable like any file open() makes


@needs_full
def test_the_trace_writers_name_the_file_when_the_disk_is_full() -> None:
    with pytest.raises(UsageError, match=re.escape(f"{FULL}: cannot write: No space left on device")):
        write_trace(FULL, [Done(1.5, 0, 0)] * 10_000)
    live = TraceWriter(FULL)
    for _ in range(10_000):
        live(Done(1.5, 0, 0))  # a live crawl is not interrupted by its trace
    with pytest.raises(UsageError, match="No space left on device"):
        live.close()
    assert os.path.exists(FULL)  # a device is written in place, never renamed over or removed


def test_one_jsonl_writer_beside_the_reader() -> None:
    """Only crawlsim/trace/jsonl.py turns events into trace lines."""
    def writes_lines(text: str) -> bool:
        return bool(re.search(r"json\.dumps\(\s*event_to_dict", text)) or (
            "event_to_dict(" in text and "json.dumps(data" in text
        )

    writers = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "crawlsim").rglob("*.py")
        if writes_lines(path.read_text(encoding="utf-8"))
    ]
    assert writers == ["crawlsim/trace/jsonl.py"]
