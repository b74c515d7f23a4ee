"""What the simulation commands share: the argument parser that reports
mistakes on one line, loading a scenario with the user's overrides,
running it with its bounds, and the progress shown while a long one runs.

Progress goes to stderr, and only when stderr is a terminal and the command
was not asked for ``--json``: in a pipe, a log or a script the output is
exactly what it was without it."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console

from crawlsim.cli_options import ArgumentParser  # noqa: F401 (re-exported: every command's parser)

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario
    from crawlsim.sim.bounds import Bounds
    from crawlsim.sim.driver import SimRun


def add_scenario_argument(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    from crawlsim.scenario.files import DEFAULT_SCENARIO

    help_text = "a shipped scenario name (see `crawlsim run --list`) or a .toml file"
    if optional:
        parser.add_argument(
            "scenario", nargs="?", default=DEFAULT_SCENARIO, help=f"{help_text} (default: {DEFAULT_SCENARIO})"
        )
    else:
        parser.add_argument("scenario", help=help_text)


def _seed(text: str) -> int:
    """``--seed``: a whole number in the crawler's seed range, checked here so
    a mistake names the flag (not the scenario file's ``crawl.seed``)."""
    from crawlsim.core.options import RULES

    rule = RULES["seed"]
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if rule.low is not None and rule.high is not None and not rule.low <= value <= rule.high:
        raise argparse.ArgumentTypeError(f"expected a whole number from -2**63 to 2**63-1, got {text}")
    return value


def add_seed_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=_seed,
        default=None,
        metavar="N",
        help="another random seed for the scenario (its web and latencies)",
    )


def load(ref: str, overrides: dict[str, Any] | None = None, seed: int | None = None) -> Scenario:
    """The scenario ``ref`` (a shipped name or a file), reseeded and with the
    user's crawler options applied.  A missing file is the loader's one line
    (:func:`~crawlsim.scenario.load_scenario`), naming it and the shipped scenarios."""
    from crawlsim.scenario import load_scenario
    from crawlsim.scenario.files import reseeded

    scenario = load_scenario(ref)
    if seed is not None:
        scenario = reseeded(scenario, seed)
    if overrides:
        scenario = scenario.with_options(**overrides)
    for warning in scenario.warnings():
        print(f"crawlsim: warning: {warning}", file=sys.stderr)
    return scenario


def portable_ref(ref: str) -> str:
    """``ref`` as another process can load it: an absolute path for a file,
    the bare name for a shipped scenario."""
    path = Path(ref)
    return str(path.resolve()) if path.is_file() else ref


def add_advise_argument(parser: argparse.ArgumentParser) -> None:
    from crawlsim.sim.advisor import ADVISE_MODES, MEASURE_LIMIT

    parser.add_argument(
        "--advise",
        choices=ADVISE_MODES,
        default="auto",
        help=(
            "how the explanation is found: measure = rerun the crawl with 2x workers, per-host limit + 1, "
            "half the gap ... and quote the finish times; infer = from the bounds only; auto (default) = "
            f"measure unless the crawl made more than {MEASURE_LIMIT:,} fetches"
        ),
    )


LONG_RUN_PAGES = 50_000
"""A simulation that may discover more pages than this (``million``; a trap
capped high) shows its phases on a terminal: it takes seconds to minutes."""


def simulate_with_bounds(
    scenario: Scenario, advise: str = "auto", *, progress: Console | None = None
) -> tuple[SimRun, Bounds]:
    """Run the scenario once, then its bounds and the advisor's measured
    explanation (``advise``: see :mod:`crawlsim.sim.advisor`; the advice is
    ``bounds.advice``).  Events are recorded when the scenario's options say
    so (``record_events``), so ``run``, ``compare`` and ``sweep`` agree on
    every figure, duplicate fetches included.  With a ``progress`` console
    (:func:`progress_console`) a long run names the phase it is in."""
    from crawlsim.sim.advisor import assess
    from crawlsim.sim.driver import simulate

    opts = scenario.options
    pages = scenario.size.crawl_pages(opts)
    long_run = pages is None or pages > LONG_RUN_PAGES
    first = f"simulating {pages:,} pages" if pages is not None else "simulating"
    with phases(scenario.name, first, progress if long_run else None) as phase:
        run = simulate(scenario, trace=opts.record_events, series=False)
        phase(f"bounds and advice ({run.stats.fetches:,} fetches in {run.finish_time:,.1f} simulated s)")
        return run, assess(scenario, run, advise)[0]


def progress_console(quiet: bool = False) -> Console | None:
    """stderr's console when progress may be drawn -- stderr is a terminal and
    ``quiet`` (``--json``) is off -- else None."""
    if quiet:
        return None
    console = stderr_console()
    return console if console.is_terminal else None


@contextlib.contextmanager
def phases(label: str, first: str, console: Console | None) -> Iterator[Callable[[str], None]]:
    """A spinner with the elapsed time and the current phase, ``label: phase``
    (``first`` to begin with), on ``console`` (nothing at all when it is None);
    yields the function that names the next phase.  It disappears when done
    (the result is the output)."""
    if console is None:
        yield lambda text: None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, refresh_per_second=4) as bar:
        task = bar.add_task(f"{label}: {first}", total=None)
        yield lambda text: bar.update(task, description=f"{label}: {text}")


PIPE_WIDTH = 100_000
"""Piped output is not wrapped: a sentence stays one line, whatever reads it."""


class _StrippedLines:
    """A text stream that drops the spaces rich pads a table's last column
    with: piped output has no trailing spaces (a diff, ``grep``, a test)."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._pending = ""

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        for line in lines:
            self._out.write(line.rstrip() + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._out.write(self._pending)
            self._pending = ""
        self._out.flush()

    def isatty(self) -> bool:
        return False


def stdout_console(out: IO[str] | None = None) -> Console:
    """Colour on a terminal, never wider than 120; in a pipe or a file, plain
    text, unwrapped (a paragraph is one line) and without trailing spaces.
    Standard output, or ``out`` for a command that passes its stream along."""
    stream = sys.stdout if out is None else out
    console = Console(file=stream, highlight=False)
    if not console.is_terminal:
        console = Console(
            file=_StrippedLines(stream), highlight=False, width=PIPE_WIDTH, color_system=None, soft_wrap=True
        )
    elif console.width > 120:
        console = Console(file=stream, highlight=False, width=120)
    return console


def stderr_console() -> Console:
    return Console(file=sys.stderr, highlight=False)


__all__ = [
    "ArgumentParser",
    "add_advise_argument",
    "add_scenario_argument",
    "add_seed_argument",
    "load",
    "phases",
    "portable_ref",
    "progress_console",
    "simulate_with_bounds",
    "stderr_console",
    "stdout_console",
]
