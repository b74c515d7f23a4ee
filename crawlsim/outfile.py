"""Write an output file whole or not at all, and say in one line why not.

Why: a trace or a table written to a full disk used to end in a traceback
and leave a half-written file behind that looked like a finished one.
:func:`written` writes to a temporary file in the same folder and renames it
over the target only once everything is written, so a reader sees the old
file or the new one, never a torn one; on any failure the temporary file is
removed and an ``OSError`` becomes a :class:`~crawlsim.errors.UsageError`
naming the path (one line, exit status 2).

A target that exists and is not a regular file (``/dev/full``,
``/dev/stdout``, a FIFO) is written in place: renaming over a device would
replace it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from crawlsim.errors import UsageError


def cannot_write(path: str | Path, err: OSError) -> UsageError:
    """The one line for a file that cannot be written."""
    return UsageError(f"{path}: cannot write: {err.strerror or err}")


def check_folder(path: str | Path, *, make: bool = False) -> None:
    """``UsageError`` unless ``path``'s folder exists (made first with ``make``)."""
    parent = Path(path).parent
    if parent.exists() and not parent.is_dir():
        raise UsageError(f"{path}: cannot write: {parent} is not a folder")
    if make:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise cannot_write(path, err) from None
    elif not parent.is_dir():
        raise UsageError(f"{path}: cannot write: no such folder {str(parent)!r}")


def _special(path: Path) -> bool:
    """An existing target that is not a regular file (a device, a FIFO)."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


@contextmanager
def written(path: str | Path, *, make_folder: bool = False, newline: str | None = None) -> Iterator[IO[str]]:
    """Open ``path`` for writing text; it appears complete when the block
    ends, or not at all when the block raises (an ``OSError`` is re-raised
    as a ``UsageError`` naming ``path``)."""
    target = Path(path)
    check_folder(target, make=make_folder)
    if target.is_dir():
        raise UsageError(f"{path}: cannot write: is a folder; expected a file name")
    if _special(target):
        try:
            with target.open("w", encoding="utf-8", newline=newline) as out:
                yield out
        except OSError as err:
            raise cannot_write(path, err) from None
        return
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as err:
        raise cannot_write(path, err) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as out:
            yield out
        os.chmod(temp, 0o644)  # mkstemp's 0600 would make the file private; open() with the usual umask gives 0644
        os.replace(temp, target)
    except BaseException as err:
        _remove(temp)
        if isinstance(err, OSError):
            raise cannot_write(path, err) from None
        raise


def remove_partial(path: str | Path) -> None:
    """Remove a regular file a failed writer left half-written (a device stays)."""
    target = Path(path)
    if target.exists() and not _special(target):
        _remove(str(target))


def _remove(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


__all__ = ["cannot_write", "check_folder", "remove_partial", "written"]
