"""Files that several test modules need and that take many CPU seconds to
make, made once per test session and shared by every pytest-xdist worker.

``crawlsim html see-it`` simulates every setting the page's keys reach
(1,440 crawls): the page's browser tests open its file, README's tour
checks what the same command printed and wrote.  A session fixture alone
would still build it once per xdist worker (each is its own process), so,
as pytest-xdist's documentation suggests, the first worker to ask runs the
command into the session's shared temporary folder while holding a file
lock; the others wait on the lock (using no CPU) and read what it left.
Outside xdist the folder is this session's own.  Nothing is kept between
sessions: every run of the suite builds from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Built:
    """One ``crawlsim`` command's exit status, output and the file it wrote."""

    path: Path
    returncode: int
    stdout: str
    stderr: str


class SharedBuilds:
    """``crawlsim`` commands run at most once per session, whoever asks first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def cli(self, args: tuple[str, ...], out_name: str) -> Built:
        """``crawlsim *args -o <shared folder>/out_name``, run once."""
        key = hashlib.sha256("\0".join((*args, out_name)).encode()).hexdigest()[:16]
        folder = self.root / key
        record = folder / "done.json"
        with FileLock(str(folder) + ".lock"):
            if not record.exists():
                folder.mkdir(exist_ok=True)
                out = folder / out_name
                done = subprocess.run(
                    [sys.executable, "-m", "crawlsim", *args, "-o", str(out)], cwd=ROOT, capture_output=True,
                    text=True, timeout=1800, check=False,
                )
                fields = {"path": str(out), "returncode": done.returncode, "stdout": done.stdout,
                          "stderr": done.stderr}
                record.write_text(json.dumps(fields), encoding="utf-8")
            fields = json.loads(record.read_text(encoding="utf-8"))
        return Built(Path(fields["path"]), fields["returncode"], fields["stdout"], fields["stderr"])


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this session sees (this session's own
    outside xdist: the parent of a lone session's basetemp holds older runs)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.getbasetemp().parent / "shared-builds"
    return tmp_path_factory.mktemp("shared-builds")
