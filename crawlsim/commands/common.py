"""What the simulation commands share: the argument parser that reports
mistakes on one line, loading a scenario with the user's overrides, and
running it with its bounds."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from rich.console import Console

from crawlsim.errors import UsageError

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario
    from crawlsim.sim.bounds import Bounds
    from crawlsim.sim.driver import SimRun


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a mistake raises :class:`UsageError` (one line, exit 2)
    instead of printing the usage block and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value outside ``choices`` names the nearest allowed one, as an
        unknown option or a typo in ``--order`` does."""
        choices = action.choices
        if choices is None or value in choices:
            return
        import difflib

        allowed = [str(c) for c in choices]
        close = difflib.get_close_matches(str(value), allowed, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        name = "/".join(action.option_strings) or action.dest
        self.error(f"argument {name}: expected one of {', '.join(allowed)}; got {value!r}{hint}")


def add_scenario_argument(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    from crawlsim.scenario import DEFAULT_SCENARIO

    help_text = "a shipped scenario name (see `crawlsim run --list`) or a .toml file"
    if optional:
        parser.add_argument(
            "scenario", nargs="?", default=DEFAULT_SCENARIO, help=f"{help_text} (default: {DEFAULT_SCENARIO})"
        )
    else:
        parser.add_argument("scenario", help=help_text)


def add_seed_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="another random seed for the scenario (its web and latencies)",
    )


def load(ref: str, overrides: dict[str, Any] | None = None, seed: int | None = None) -> Scenario:
    """The scenario ``ref`` (a shipped name or a file), reseeded and with the
    user's crawler options applied.  A missing file is a :class:`UsageError`
    that names it and lists the shipped scenarios."""
    from crawlsim.scenario import list_scenarios, load_scenario

    path = Path(ref)
    looks_like_file = ref.endswith(".toml") or os.sep in ref or "/" in ref
    if looks_like_file and not path.is_file():
        shipped = ", ".join(list_scenarios()) or "none found"
        what = "is a folder, not a scenario file" if path.is_dir() else "no such scenario file"
        raise UsageError(f"{ref}: {what}; shipped scenarios: {shipped}")
    scenario = load_scenario(ref)
    if seed is not None:
        scenario = scenario.reseeded(seed)
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


def simulate_with_bounds(scenario: Scenario, advise: str = "auto") -> tuple[SimRun, Bounds]:
    """Run the scenario once, then its bounds and the advisor's measured
    explanation (``advise``: see :mod:`crawlsim.sim.advisor`; the advice is
    ``bounds.advice``).  Events are recorded when the scenario's options say
    so (``record_events``), so ``run``, ``compare`` and ``sweep`` agree on
    every figure, duplicate fetches included."""
    from crawlsim.sim.advisor import assess
    from crawlsim.sim.driver import simulate

    opts = scenario.options
    run = simulate(scenario, trace=opts.record_events, series=False)
    return run, assess(scenario, run, advise)[0]


def stdout_console() -> Console:
    """Colour on a terminal, plain text in a pipe; never wider than 120."""
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=100, color_system=None)
    elif console.width > 120:
        console = Console(highlight=False, width=120)
    return console


def stderr_console() -> Console:
    return Console(file=sys.stderr, highlight=False)


__all__ = [
    "ArgumentParser",
    "add_advise_argument",
    "add_scenario_argument",
    "add_seed_argument",
    "load",
    "portable_ref",
    "simulate_with_bounds",
    "stderr_console",
    "stdout_console",
]
