"""Progress of a long export (``crawlsim animate``), on stderr, with rich.

Shown only on a terminal: piped into a file, run by CI, asked for
``--quiet``, or called from Python (the default), it says nothing, so
the command's stdout stays exactly the lines naming the files written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Stages:
    """The stages of one export, each a bar (a spinner when its size is
    unknown).  With no progress object, every call does nothing."""

    def __init__(self, progress: Any = None) -> None:
        self._progress = progress
        self._task: Any = None

    def start(self, label: str, total: int | None = None) -> None:
        """End the current stage and begin ``label`` with ``total`` steps."""
        self.done()
        if self._progress is not None:
            self._task = self._progress.add_task(label, total=total)

    def advance(self, steps: int = 1) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, steps)

    def done(self) -> None:
        """Mark the current stage complete (a spinner becomes a full bar)."""
        if self._progress is not None and self._task is not None:
            task = self._progress.tasks[-1]
            total = task.total if task.total is not None else max(task.completed, 1)
            self._progress.update(self._task, total=total, completed=total)
            self._task = None


@contextmanager
def stages(enabled: bool) -> Iterator[Stages]:
    """:class:`Stages` drawn on stderr when ``enabled`` and stderr is a
    terminal; silent ones otherwise."""
    if not enabled:
        yield Stages()
        return
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        yield Stages()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        steps = Stages(bar)
        try:
            yield steps
        finally:
            steps.done()


__all__ = ["Stages", "stages"]
