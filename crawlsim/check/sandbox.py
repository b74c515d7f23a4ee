"""Run the user's crawler in a child process, one case at a time.

The parent (this module) never imports the user's file.  It starts
``python -m crawlsim.check.child`` in its own session with ``/dev/null`` as
standard input, sends it one command per case over a pipe and reads back the
case's observations as JSON (plain data: nothing the child sends can run
code here).  Deadlines are the parent's:

* importing the file gets ``IMPORT_TIMEOUT`` seconds;
* each case gets its own deadline (enforced inside the child, which then
  reports how far the crawl got) plus ``ANSWER_GRACE`` seconds for the
  child to answer; a child that does not answer by then (a loop that never
  lets other threads run) is killed.

A child that dies during a case (``os._exit``, a signal, memory) costs that
case alone: it gets a one-line verdict and a fresh child runs the next one.
So does a case that did not return -- its stuck threads go with the old
process instead of slowing the next case.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from crawlsim.check.cases import Case
from crawlsim.check.child import BROKEN_BY_CRAWL
from crawlsim.check.loader import CheckInputError, parse_target
from crawlsim.check.reaper import MARKER_VARIABLE, sweep
from crawlsim.check.runner import CaseRun
from crawlsim.check.wire import ForgedAnswer, checked_loaded, checked_replay, checked_run, checked_shrunk

IMPORT_TIMEOUT = 10.0
"""Seconds the user's file gets to import (module-level code included)."""
ANSWER_GRACE = 5.0
"""Seconds past a case's deadline before a silent child is killed."""
EXPLORE_ALLOWANCE = 30.0
"""Extra seconds a race case gets for the interleaving explorer's schedules."""
SHRINK_TIMEOUT = 120.0
"""Seconds the child gets to shrink one failure (``shrink.py``: at most
``SHRINK_BUDGET`` explorations, most of them of small webs)."""
REPLAY_TIMEOUT = 60.0
"""Seconds the child gets to run the one schedule ``check --replay`` names."""
MAX_ANSWER_BYTES = 256 * 1024**2
"""Longest answer line read from the child (a forged endless line ends there)."""
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class LoadedInfo:
    """What the child reported after importing the target."""

    label: str
    is_async: bool
    source_file: str | None


class _NoAnswer(Exception):
    """The child ended or went silent; the message says which, for a person."""


class Sandbox:
    """One user's crawler in a child process (restarted when needed)."""

    def __init__(
        self,
        target: str,
        import_timeout: float = IMPORT_TIMEOUT,
        params: tuple[str, ...] = (),
        round_name: str | None = None,
    ) -> None:
        self.path, self.name = parse_target(target)
        self.target = target
        self.params, self.round_name = params, round_name
        self.import_timeout = import_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._cmd: int | None = None
        self._out: int | None = None
        self._buffer = b""
        self._marker = ""
        """This child's value of ``MARKER_VARIABLE`` (see reaper.py)."""
        self._scratch: str | None = None
        """The child's working directory: a fresh empty folder, removed at the
        end, so a crawl that writes or deletes files in its working directory
        never touches the user's own folder."""
        self.info: LoadedInfo | None = None

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self) -> LoadedInfo:
        """Start a child and import the target in it; raises
        :class:`CheckInputError` with one line when that fails."""
        self._start()
        self._write(
            {
                "op": "load",
                "target": f"{self.path.resolve()}:{self.name}",  # (the child runs elsewhere)
                "params": list(self.params),
                "round": self.round_name,
            }
        )
        try:
            answer = self._read(self.import_timeout)
        except _NoAnswer as exc:
            self.close()
            if "stopped answering" in str(exc):
                raise CheckInputError(
                    f"{self.path}: importing it did not finish within {self.import_timeout:g} s (does it crawl, "
                    'loop or sleep at import time? Put that under `if __name__ == "__main__":`)'
                ) from None
            raise CheckInputError(f"{self.path}: importing it {exc}") from None
        if answer.get("kind") == "input-error" and type(answer.get("message")) is str:
            self.close()
            raise CheckInputError(answer["message"].replace(str(self.path.resolve()), str(self.path))[:2000])
        try:
            is_async, source = checked_loaded(answer)
        except ForgedAnswer as exc:
            self.close()
            raise CheckInputError(f"{self.path}: importing it sent an answer that is not the checker's ({exc})") from None
        self.info = LoadedInfo(f"{self.path}:{self.name}", is_async, source)
        return self.info

    def close(self) -> None:
        """Kill the child and everything it started (see reaper.py); close
        the pipes; remove the scratch folder."""
        if self._proc is not None:
            sweep(self._proc.pid, self._marker)  # its descendants and orphans, by PID
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        for fd in (self._cmd, self._out):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._cmd = self._out = None
        self._buffer = b""

    # ------------------------------------------------------------ cases

    def run(
        self,
        case: Case,
        timeout: float,
        quick: bool,
        termination_slow: float | None = None,
        seeds: list[int] | None = None,
        stall_after: float | None = None,
    ) -> CaseRun:
        """Run one case in the child; whatever happens, return a CaseRun."""
        began = time.perf_counter()
        if self._proc is None or self._proc.poll() is not None:
            try:
                self.load()
            except CheckInputError as exc:
                return _crashed(case, timeout, time.perf_counter() - began, f"the crawler could not be reloaded: {exc}")
        command = {
            "op": "case",
            "name": case.name,
            "quick": quick,
            "termination_slow": termination_slow,
            "timeout": timeout,
            "seeds": seeds,
            "args": list(case.args),
            "stall_after": stall_after,
        }
        try:
            self._write(command)
            answer = self._read(timeout + ANSWER_GRACE + self._post_deadline_work(case))
        except _NoAnswer as exc:
            self.close()
            return _crashed(case, timeout, time.perf_counter() - began, f"the crawler's process {exc}")
        try:
            if answer.get("kind") != "case":
                raise ForgedAnswer(f"kind: expected 'case', got {str(answer.get('kind'))[:40]!r}")
            run = checked_run(case, answer.get("run"))
        except ForgedAnswer as exc:
            self.close()
            why = f"the crawler's process sent an answer that is not the checker's ({exc})"
            return _crashed(case, timeout, time.perf_counter() - began, why)
        if run.timed_out:
            self.close()  # its stuck threads must not slow the next case
        return run

    def shrink(self, case: Case, page: str, quick: bool, timeout: float = SHRINK_TIMEOUT) -> dict[str, Any] | None:
        """``case``'s failure that fetched ``page`` twice, shrunk in the child
        (``replay.shrunk_failure``); None when it could not be shrunk or the
        child did not answer in time (a shrink is extra: it never fails a case)."""
        try:
            if self._proc is None or self._proc.poll() is not None:
                self.load()
            self._write({"op": "shrink", "name": case.name, "quick": quick, "page": page})
            answer = self._read(timeout)
            if answer.get("kind") != "shrunk":
                raise ForgedAnswer("kind: expected 'shrunk'")
            return checked_shrunk(answer.get("result"))
        except (_NoAnswer, ForgedAnswer, CheckInputError):
            self.close()
            return None

    def replay(self, schedule: str, timeout: float = REPLAY_TIMEOUT) -> dict[str, Any]:
        """Run the one schedule a ``check --replay`` string names, in the
        child; its data (``replay.replay``), or :class:`CheckInputError`
        saying why the child gave none."""
        if self._proc is None or self._proc.poll() is not None:
            self.load()
        try:
            self._write({"op": "replay", "schedule": schedule})
            answer = self._read(timeout)
            if answer.get("kind") != "replay":
                raise ForgedAnswer(f"kind: expected 'replay', got {str(answer.get('kind'))[:40]!r}")
            return checked_replay(answer.get("result"))
        except _NoAnswer as exc:
            raise CheckInputError(f"--replay: the crawler's process {exc}") from None
        except ForgedAnswer as exc:
            why = f"sent an answer that is not the checker's ({exc})"
            raise CheckInputError(f"--replay: the crawler's process {why}") from None
        finally:
            self.close()

    @staticmethod
    def _post_deadline_work(case: Case) -> float:
        """Extra seconds for the explorer's schedules on a race case (only
        when the explorer is installed)."""
        if not case.race:
            return 0.0
        return EXPLORE_ALLOWANCE if importlib.util.find_spec("crawlsim.check.interleave") else 0.0

    # ------------------------------------------------------------ plumbing

    def _start(self) -> None:
        self.close()
        cmd_read, cmd_write = os.pipe()
        out_read, out_write = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        env["PYTHONHASHSEED"] = "0"  # set iteration order of strings the same in every run
        env.setdefault("MALLOC_ARENA_MAX", "2")  # glibc's per-thread arenas would eat the address-space limit
        self._marker = env[MARKER_VARIABLE] = secrets.token_hex(12)
        self._scratch = tempfile.mkdtemp(prefix="crawlsim-check-")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "crawlsim.check.child", str(cmd_read), str(out_write)],
                stdin=subprocess.DEVNULL,
                pass_fds=(cmd_read, out_write),
                start_new_session=True,
                env=env,
                cwd=self._scratch,
            )
        finally:
            os.close(cmd_read)
            os.close(out_write)
        self._cmd, self._out = cmd_write, out_read

    def _write(self, message: dict[str, Any]) -> None:
        assert self._cmd is not None
        try:
            os.write(self._cmd, (json.dumps(message) + "\n").encode())
        except (BrokenPipeError, OSError):
            raise _NoAnswer(self._ended()) from None

    def _read(self, timeout: float) -> dict[str, Any]:
        """The child's next answer line as a dict (only its shape is checked
        here; wire.py checks its fields).  Linear in what the child sends:
        chunks are kept in a list and only each new chunk is searched."""
        assert self._out is not None
        deadline = time.monotonic() + timeout
        chunks, size = [self._buffer], len(self._buffer)
        while b"\n" not in chunks[-1]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _NoAnswer(
                    f"stopped answering for {timeout:.0f} s and was stopped (a loop that never lets another thread "
                    "run, such as list(itertools.repeat(url)), or memory running out?)"
                )
            ready, _, _ = select.select([self._out], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise _NoAnswer(self._ended())
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise _NoAnswer(f"sent more than {MAX_ANSWER_BYTES >> 20} MB without ending its answer")
        line, _, self._buffer = b"".join(chunks).partition(b"\n")
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):  # (RecursionError: JSON nested thousands deep)
            raise _NoAnswer("sent something that is not an answer") from None
        if not isinstance(answer, dict):
            raise _NoAnswer("sent something that is not an answer")
        return answer

    def _ended(self) -> str:
        """How the child ended, in words (it has closed its end of the pipe)."""
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            return "closed its pipe to the checker"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"was killed by {name}"
        if code == BROKEN_BY_CRAWL:
            return ("could not answer: the crawl broke the checker's code in its process (closed its file "
                    "descriptors, or replaced json or threading)")
        return f"exited with code {code} (os._exit or sys.exit in the crawl ends its process)"


def _crashed(case: Case, timeout: float, wall: float, message: str) -> CaseRun:
    return CaseRun(case=case, timed_out=True, crash=message, timeout=timeout, wall=round(wall, 3))
