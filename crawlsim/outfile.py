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

Every output file of every command goes through here, so they share one
policy for a missing folder: it is made (``-o out/trace.jsonl`` in a fresh
checkout), and a folder that cannot be made (a file in the way, no
permission) is the one ``UsageError`` line.  :func:`check_writable` asks the
same questions before a command starts its work (a crawl, a page of a
thousand simulations), so an output that cannot be written is refused in
its first second, not after the work.  :func:`written` is for text;
:func:`replaced` hands an encoder (a GIF, an MP4, a PNG) a temporary path
to write instead, with the target's suffix, so it picks the same format.
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


def make_folder(folder: str | Path, path: str | Path | None = None) -> None:
    """Make ``folder`` (and its parents) unless it exists; ``UsageError``
    naming ``path`` (default: the folder) when it cannot be made."""
    folder, shown = Path(folder), path if path is not None else folder
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{shown}: cannot write: {folder} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise cannot_write(shown, err) from None


def check_folder(path: str | Path) -> None:
    """``path``'s folder, made when missing (:func:`make_folder`)."""
    make_folder(Path(path).parent, path)


def check_writable(path: str | Path) -> None:
    """``UsageError`` now, rather than after the work, when ``path`` cannot
    be written (a folder, no permission, a name too long); a missing folder
    is made, as for every output file.  The check is the write's own first
    step: the temporary file :func:`replaced` would make, made and removed."""
    target, special = _target(path)
    if special:
        if not os.access(target, os.W_OK):
            raise UsageError(f"{path}: cannot write: no permission")
        return
    _remove(_temporary(target, path))


def _target(path: str | Path) -> tuple[Path, bool]:
    """``path`` with its folder made, refused when it is a folder or its name
    cannot be a file's (too long); and whether it is a device or a FIFO."""
    target = Path(path)
    try:
        check_folder(target)
        if target.is_dir():
            raise UsageError(f"{path}: cannot write: is a folder; expected a file name")
    except OSError as err:
        raise cannot_write(path, err) from None
    return target, _special(target)


def _temporary(target: Path, path: str | Path) -> str:
    """The name of a new empty temporary file beside ``target``, with its
    suffix; ``UsageError`` naming ``path`` when it cannot be made."""
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".part{target.suffix}", dir=target.parent)
        os.close(fd)
    except OSError as err:
        raise cannot_write(path, err) from None
    return temp


def _special(path: Path) -> bool:
    """An existing target that is not a regular file (a device, a FIFO)."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


@contextmanager
def replaced(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write it through: renamed over
    ``path`` when the block ends, removed when it raises (an ``OSError``
    becomes a ``UsageError`` naming ``path``).  A device is written in place."""
    target, special = _target(path)
    if special:
        try:
            yield target
        except OSError as err:
            raise cannot_write(path, err) from None
        return
    temp = _temporary(target, path)
    try:
        yield Path(temp)
        os.chmod(temp, 0o644)  # mkstemp's 0600 would make the file private; open() with the usual umask gives 0644
        os.replace(temp, target)
    except BaseException as err:
        _remove(temp)
        if isinstance(err, OSError):
            raise cannot_write(path, err) from None
        raise


@contextmanager
def written(path: str | Path, *, newline: str | None = None) -> Iterator[IO[str]]:
    """Open ``path`` for writing text; it appears complete when the block
    ends, or not at all when the block raises (an ``OSError`` is re-raised
    as a ``UsageError`` naming ``path``)."""
    with replaced(path) as temp, temp.open("w", encoding="utf-8", newline=newline) as out:
        yield out


def _remove(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


__all__ = ["cannot_write", "check_folder", "check_writable", "make_folder", "replaced", "written"]
