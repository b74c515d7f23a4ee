"""``crawlsim notebooks --student DIR`` / ``--teacher DIR``: copies of the
teaching notebooks for a class.

The student edition has its answers and answer-giving checks removed and its
prediction cells blank (see :mod:`crawlsim.notebook.editions`); the teacher
edition is complete.  The source is the notebooks shipped with crawlsim
(package data in an installed copy, ``notebooks/`` in the source tree), or
``--from DIR``.  A non-empty destination is never overwritten without
``--force``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from crawlsim.errors import UsageError
from crawlsim.words import counted


class _Parser(argparse.ArgumentParser):
    """argparse whose mistakes are one :class:`UsageError` line (exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="crawlsim notebooks",
        description="Write the teaching notebooks for a class: a student edition (answers removed, "
        "predictions left blank) or a teacher edition (everything).",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--student", metavar="DIR", type=Path, help="write student copies into DIR")
    which.add_argument("--teacher", metavar="DIR", type=Path, help="write complete teacher copies into DIR")
    parser.add_argument(
        "--from",
        dest="source",
        metavar="DIR",
        type=Path,
        default=None,
        help="read the notebooks from DIR (default: the notebooks shipped with crawlsim)",
    )
    parser.add_argument("--force", action="store_true", help="write into DIR even if it is not empty")
    return parser


def _sources(folder: Path | None) -> list[Path]:
    from crawlsim.notebook.editions import notebooks_in, shipped_notebooks_dir

    if folder is None:
        try:
            folder = shipped_notebooks_dir()
        except FileNotFoundError as err:
            raise UsageError(str(err)) from None
    if not folder.is_dir():
        raise UsageError(f"--from {folder}: not a folder")
    paths = notebooks_in(folder)
    if not paths:
        raise UsageError(f"--from {folder}: no numbered notebooks (01_*.ipynb ...) in it")
    return paths


def _check_destination(dest: Path, force: bool) -> None:
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{dest} exists and is not a folder")
    if dest.is_dir() and any(dest.iterdir()) and not force:
        raise UsageError(f"{dest} is not empty: pass --force to write the notebooks into it anyway")


def main(argv: Sequence[str] | None = None) -> int:
    from crawlsim.notebook.editions import make_editions

    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    edition = "student" if args.student is not None else "teacher"
    dest: Path = args.student if args.student is not None else args.teacher
    paths = _sources(args.source)
    _check_destination(dest, args.force)
    try:
        written = list(make_editions(paths, dest, edition))
    except OSError as err:  # a folder inside a file's path, no permission, a full disk
        raise UsageError(f"{err.filename or dest}: cannot write: {err.strerror or err}") from None
    print(f"wrote {counted(len(written), edition + ' notebook')} to {dest}")
    return 0
