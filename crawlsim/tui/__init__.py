"""``crawlsim tui``: the terminal app that animates a crawl and answers "what if".

``main(argv)`` parses ``[SCENARIO] [--trace FILE] [crawler flags]`` and runs
the app.  Textual is imported only when the app starts, so importing this
package (the CLI does, to dispatch) stays cheap and loads no front end.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawlsim.cli_options import add_cluster_flags, add_crawler_flags, overrides_from_args
from crawlsim.core.options import OptionError
from crawlsim.errors import UsageError

if TYPE_CHECKING:
    from textual.app import App

    from crawlsim.trace.events import Event
    from crawlsim.scenario import Scenario
    from crawlsim.trace.jsonl import RecordedTrace
    from crawlsim.tui.follow import FollowerApp


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawlsim tui",
        description=(
            "Watch a simulated crawl on the simulated clock, then change a knob (workers, politeness, gap, "
            "normalization, order: BFS, DFS or a named best-first priority; N/M crawler nodes and P their partition) "
            "and see the finish time move. Keys are listed at the bottom of the screen (the node keys once the run "
            "is a cluster: --nodes N or the scenario's [cluster] table)."
        ),
    )
    parser.add_argument("scenario", nargs="?", help="a shipped scenario name or a .toml path (default: see-it)")
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help="replay a JSONL trace (from `crawlsim trace` or `crawlsim check --trace-out`) as recorded",
    )
    parser.add_argument(
        "--follow",
        metavar="FILE",
        help="read-only: show the crawl a presenter publishes to FILE (what `crawlsim web SCENARIO --follow` "
        "gives each browser); SCENARIO is shown until FILE holds a state",
    )
    parser.add_argument("--paused", action="store_true", help="start with the clock stopped")
    parser.add_argument("--at", type=float, metavar="SECONDS", help="start at this simulated time")
    parser.add_argument("--speed", type=float, metavar="X", help="simulated seconds per real second")
    add_crawler_flags(parser)
    add_cluster_flags(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the terminal app; returns the process exit code.

    A user's mistake (a bad scenario, flag or trace) raises a
    :class:`~crawlsim.errors.UsageError` for ``crawlsim``'s one catch; an app
    that ended through an exception returns Textual's non-zero code, never 0."""
    args = build_parser().parse_args(argv)
    follower = _follower(args) if args.follow else None
    scenario, events = (None, None) if follower is not None else what_to_show(args)
    if _no_terminal():
        raise UsageError("the terminal app needs a terminal; `crawlsim run SCENARIO` prints a summary instead")
    if follower is not None:
        _serve_if_served(follower)
        return _exit_code(follower, follower.run())

    from crawlsim.tui.app import CrawlApp

    app = CrawlApp(
        scenario,
        trace=events,
        trace_file=args.trace or "",
        paused=args.paused,
        at=args.at,
        speed=args.speed,
    )
    _serve_if_served(app)
    return _exit_code(app, app.run())


def _exit_code(app: Any, value: object) -> int:
    """The process exit code of an app that has finished running: Textual's
    ``return_code`` is 1 when the app died on an exception (it has printed the
    traceback), which must not look like success; else the app's own value."""
    if app.return_code:
        return int(app.return_code)
    return int(value or 0)  # type: ignore[call-overload]


def _serve_if_served(app: App[object]) -> None:
    """Under textual-serve (``crawlsim web``), run on :class:`~crawlsim.tui.served.ServedDriver`,
    whose app ends when its browser session does."""
    from crawlsim.tui.served import served_driver

    driver = served_driver()
    if driver is not None:
        app.driver_class = driver


def _no_terminal() -> bool:
    """True when there is no terminal to draw in (textual-serve's pipes set CRAWLSIM_TUI_FORCE)."""
    return not (sys.stdout.isatty() and sys.stdin.isatty()) and not os.environ.get("CRAWLSIM_TUI_FORCE")


def _follower(args: argparse.Namespace) -> FollowerApp:
    """``--follow FILE``: a read-only follower (:mod:`crawlsim.tui.follow`); no other flag applies."""
    from crawlsim.scenario import load_scenario
    from crawlsim.scenario.files import DEFAULT_SCENARIO
    from crawlsim.tui.follow import FollowerApp

    others = [f"--{key.replace('_', '-')}" for key in sorted(overrides_from_args(args))] + [
        flag for flag, given in (("--trace", args.trace), ("--paused", args.paused), ("--at", args.at is not None),
                                 ("--speed", args.speed is not None), ("--nodes", getattr(args, "nodes", None) is not None),
                                 ("--partition", getattr(args, "partition", None) is not None)) if given
    ]
    if others:
        raise OptionError("--follow", f"a follower shows the presenter's crawl as it is; drop {', '.join(others)}")
    return FollowerApp(Path(args.follow), load_scenario(args.scenario or DEFAULT_SCENARIO))


def what_to_show(args: argparse.Namespace) -> tuple[Scenario | None, list[Event] | RecordedTrace | None]:
    """The scenario (with the crawler and cluster flags applied) or the
    trace (with its nodes, for a cluster's) the command line names; a
    ``ValueError`` saying what is wrong with it."""
    from crawlsim.scenario import load_scenario
    from crawlsim.scenario.files import DEFAULT_SCENARIO
    from crawlsim.trace.jsonl import read_trace

    overrides = overrides_from_args(args)
    if args.speed is not None and not args.speed > 0:
        raise OptionError("--speed", f"expected a number > 0, got {args.speed:g}")
    if args.at is not None and not args.at >= 0:
        raise OptionError("--at", f"expected a time >= 0, got {args.at:g}")
    if not args.trace:
        scenario = with_cluster_flags(load_scenario(args.scenario or DEFAULT_SCENARIO), args)
        return (scenario.with_options(**overrides) if overrides else scenario), None
    if args.scenario:
        raise OptionError("--trace", "give a scenario or --trace FILE, not both")
    cluster = [f"--{name}" for name in ("nodes", "partition") if getattr(args, name, None) is not None]
    if overrides or cluster:
        flags = ", ".join([*sorted(overrides), *cluster])
        raise OptionError("--trace", f"crawler flags ({flags}) need a scenario; a trace replays as recorded")
    try:
        return None, read_trace(args.trace)
    except UsageError:
        raise
    except ValueError as err:  # the reader's one error: the file and line, and what is wrong there
        raise UsageError(str(err)) from None


def with_cluster_flags(scenario: Scenario, args: argparse.Namespace) -> Scenario:
    """``scenario`` with ``--nodes``/``--partition`` written into its
    ``[cluster]`` table, where the app's knobs start from
    (:meth:`crawlsim.views.session.Knobs.for_scenario`); a bad value raises
    ``ValueError`` naming the flag."""
    from dataclasses import replace

    from crawlsim.cluster.config import apply_flags

    nodes, partition = getattr(args, "nodes", None), getattr(args, "partition", None)
    if nodes is None and partition is None:
        return scenario
    table = scenario.data.get("cluster")
    config = apply_flags(scenario.cluster, nodes, partition)
    cluster = {**(table if isinstance(table, dict) else {}), "nodes": config.nodes, "partition": config.partition}
    return replace(scenario, data={**scenario.data, "cluster": cluster}, cluster=config)


__all__ = ["build_parser", "main", "what_to_show", "with_cluster_flags"]
