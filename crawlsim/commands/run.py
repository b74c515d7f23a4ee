"""``crawlsim run SCENARIO [crawler flags] [--json]``: simulate one crawl and
say how long it took, what held it back, and which knob would help.

The readable summary goes to stdout through rich (colour on a terminal,
plain text in a pipe); ``--json`` prints one JSON object instead, the dict of
:func:`crawlsim.commands.summary.summary_dict`.
"""

from __future__ import annotations

import json
import sys

from crawlsim.cli_options import add_crawler_flags, overrides_from_args
from crawlsim.commands.common import (
    ArgumentParser,
    add_scenario_argument,
    add_seed_argument,
    load,
    simulate_with_bounds,
    stdout_console,
)
from crawlsim.commands.summary import render_summary, summary_dict
from crawlsim.sim.coverage import coverage_of


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim run",
        description=(
            "Simulate a scenario's crawl and print the finish time, what was fetched, the three lower bounds "
            "(longest link chain, busiest host, total work) with the binding one marked, and a one-sentence "
            "diagnosis. Crawler flags override the scenario's [crawl] table."
        ),
    )
    add_scenario_argument(parser, optional=True)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the summary")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="hosts listed by busy time (default 5)")
    parser.add_argument("--list", action="store_true", help="list the shipped scenarios and exit")
    add_seed_argument(parser)
    add_crawler_flags(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        return list_shipped()
    scenario = load(args.scenario, overrides_from_args(args), args.seed)
    run, bounds = simulate_with_bounds(scenario)
    data = summary_dict(run, bounds, scenario=scenario, top=args.top, coverage=coverage_of(scenario, run))
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        stdout_console().print(render_summary(data))
    return 0


def list_shipped() -> int:
    """Print each shipped scenario's name and title."""
    from crawlsim.scenario import list_scenarios, load_scenario

    names = list_scenarios()
    width = max((len(n) for n in names), default=0)
    for name in names:
        print(f"{name:<{width}}  {load_scenario(name).title}")
    return 0


__all__ = ["build_parser", "main"]
