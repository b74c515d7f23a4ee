"""``crawlsim run SCENARIO [crawler flags] [--json]``: simulate one crawl and
say how long it took, what held it back, and which knob helps -- measured by
rerunning the crawl with each knob turned (:mod:`crawlsim.sim.advisor`).

The readable summary goes to stdout through rich (colour on a terminal,
plain text in a pipe); ``--json`` prints one JSON object instead, the dict of
:func:`crawlsim.views.summary.summary_dict`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from crawlsim.cli_options import add_cluster_flags, add_crawler_flags, count_at_least, overrides_from_args
from crawlsim.commands.common import (
    ArgumentParser,
    add_advise_argument,
    add_scenario_argument,
    add_seed_argument,
    load,
    progress_console,
    simulate_with_bounds,
    stdout_console,
)
from crawlsim.views.summary import render_summary, summary_dict
from crawlsim.views.time_left import PICTURE_PAGES, TimeLeftReport, report_of, section
from crawlsim.errors import UsageError
from crawlsim.outfile import check_writable
from crawlsim.sim.coverage import coverage_of

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario
    from crawlsim.sim.driver import SimRun

NARRATE_LIMIT = 20_000
"""``--narrate`` refuses a web declaring more pages than this (unless max_pages caps the crawl within it)."""


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim run",
        description=(
            "Simulate a scenario's crawl and print the finish time, what was fetched, the three lower bounds "
            "(longest link chain, busiest host, total work) with the binding one marked, and what helps, measured "
            "by rerunning the crawl with 2x workers, per-host limit + 1, half the gap ... (see --advise); then how "
            "the time left a live crawl would have said moved against the real time left (drawn for a crawl of "
            f"{PICTURE_PAGES:,} pages or more, else one line). Crawler flags override the scenario's [crawl] table."
        ),
    )
    add_scenario_argument(parser, optional=True)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the summary")
    parser.add_argument("--top", type=count_at_least(0), default=5, metavar="N",
                        help="hosts listed by busy time (default 5; 0: none)")
    parser.add_argument("--list", action="store_true", help="list the shipped scenarios and exit")
    parser.add_argument(
        "--narrate",
        action="store_true",
        help=(
            "print one line per event instead of the summary: its simulated time and why it happened "
            f"(webs of at most {NARRATE_LIMIT:,} pages, or a max_pages within that)"
        ),
    )
    parser.add_argument(
        "--time-left-png",
        metavar="FILE",
        help="draw how the live time-left bound and estimate moved against the real time left (PNG)",
    )
    add_seed_argument(parser)
    add_advise_argument(parser)
    add_crawler_flags(parser)
    add_cluster_flags(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        return list_shipped()
    if args.narrate and args.json:
        raise UsageError("--narrate prints sentences, --json one object: choose one")
    if args.time_left_png:
        check_writable(args.time_left_png)
    scenario = load(args.scenario, overrides_from_args(args), args.seed)
    if args.narrate:
        return narrate(scenario)
    from crawlsim.commands.run_cluster import cluster_config, run_cluster

    cluster = cluster_config(scenario, args)
    if cluster.nodes > 1:
        return run_cluster(scenario, cluster, args)
    run, bounds = simulate_with_bounds(scenario, args.advise, progress=progress_console(quiet=args.json))
    data = summary_dict(run, bounds, scenario=scenario, top=args.top, coverage=coverage_of(scenario, run))
    report = time_left_report(run)
    if args.json:
        json.dump({**data, "time_left": report.as_dict() if report else None}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        stdout_console().print(render_summary(data))
    time_left(scenario, run, report, args)
    return 0


def time_left_report(run: SimRun) -> TimeLeftReport | None:
    """What a live crawl's time left would have said as this one went, against the
    real time left (:func:`crawlsim.views.time_left.report_of`); None without events."""
    return report_of(run.options, run.trace) if run.trace else None


def time_left(scenario: Scenario, run: SimRun, report: TimeLeftReport | None, args: argparse.Namespace) -> None:
    """The time-left section after the summary (the figures a live crawl would
    have shown, against the real time left; ``--json`` holds them instead), and
    its PNG with ``--time-left-png``."""
    if not args.json:
        print("\n".join(section(report, run.stats.pages_fetched)))
    if args.time_left_png:
        if report is None:
            raise UsageError(f"{scenario.name}: no events recorded, so no time-left picture to draw")
        from crawlsim.views.plots import write_time_left_png

        write_time_left_png(report, args.time_left_png, title=f"{scenario.name}: time left as the crawl went")


def narrate(scenario: Scenario) -> int:
    """Simulate with events recorded and print each event's sentence of why
    (:mod:`crawlsim.views.narrate`).  A web too large to narrate is refused first,
    before any time is spent simulating it."""
    from crawlsim.views.narrate import narrate_trace, narration_line
    from crawlsim.sim.coverage import declared_size
    from crawlsim.sim.driver import simulate

    size = declared_size(scenario.web, NARRATE_LIMIT)
    budget = scenario.options.max_pages
    if size is not None and size > NARRATE_LIMIT and (budget is None or budget > NARRATE_LIMIT):
        raise UsageError(
            f"{scenario.name}: over {NARRATE_LIMIT:,} pages, too many to narrate one event a line; "
            f"add --max-pages {NARRATE_LIMIT} or less"
        )
    run = simulate(scenario, trace=True, series=False)
    out = sys.stdout
    for event, sentence in narrate_trace(run.trace, run.options):
        out.write(narration_line(event, sentence) + "\n")
    return 0


def list_shipped() -> int:
    """Print each shipped scenario's name and title."""
    from crawlsim.scenario import load_scenario
    from crawlsim.scenario.files import list_scenarios

    names = list_scenarios()
    width = max((len(n) for n in names), default=0)
    for name in names:
        print(f"{name:<{width}}  {load_scenario(name).title}")
    return 0


__all__ = ["build_parser", "main"]
