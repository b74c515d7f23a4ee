"""``crawlsim html SCENARIO -o FILE.html``: the crawl as one offline web page.

A teacher can put the file on a course page, mail it, or open it on a
phone in a room with no server: inline CSS and JavaScript, no request of
any kind.  Every what-if the page offers was simulated here, by the same
scheduler and session code ``crawlsim run`` and the terminal app use
(:mod:`crawlsim.page`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from crawlsim.cli_options import ArgumentParser, add_quiet_flag
from crawlsim.errors import UsageError

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds (a number from 0.01 to 3600); got {text!r}") from None
    if not 0.01 <= value <= 3600:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected seconds from 0.01 to 3600; got {text}")
    return value


MAX_WORDS = 20_000
"""Most characters a ``--title`` or ``--note`` may have: a course page's
words, far below the page's size limit, which the crawls' data needs."""


def check_words(title: str | None, note: str | None, scenario: Scenario) -> None:
    """``UsageError`` before any crawl when the page's title or note (the
    flag's, else the scenario's) is longer than :data:`MAX_WORDS`."""
    for what, flag, given, own in (("title", "--title", title or None, scenario.title),
                                   ("note", "--note", note, scenario.description)):
        text, whose = (given, flag) if given is not None else (own, f"the scenario {scenario.name}'s {what}")
        if len(text) > MAX_WORDS:
            raise UsageError(f"{whose} has {len(text):,} characters; a page's {what} may have at most {MAX_WORDS:,}"
                             f"{'' if given is not None else f' (give a shorter {flag})'}")


def _parser() -> argparse.ArgumentParser:
    from crawlsim.page.build import BUDGET_SECONDS

    parser = ArgumentParser(
        prog="crawlsim html",
        description="Write the crawl as one self-contained web page (no server, no network): the graph of pages "
        "by host, worker lanes, seen set, hosts' politeness, bounds and the advisor's sentence, a clock, and the "
        "terminal app's what-if keys, every setting simulated now.",
    )
    parser.add_argument("scenario", nargs="?", default=None, help="shipped scenario name or .toml path "
                        "(default: see-it; not with --trace)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the page to write")
    parser.add_argument("--trace", metavar="FILE", help="draw this recorded trace (JSONL from crawlsim trace, "
                        "crawl or check --trace-out) instead of simulating; the what-if keys are off")
    parser.add_argument("--title", metavar="TEXT", help="the page's title (default: the scenario's)")
    parser.add_argument("--note", metavar="TEXT",
                        help="the teacher's note at the top (default: the scenario's description)")
    parser.add_argument("--budget", type=_budget, default=BUDGET_SECONDS, metavar="SECONDS",
                        help=f"CPU seconds the what-if crawls may take (default {BUDGET_SECONDS:g}); a web whose "
                        "crawls take longer gets fewer settings, and the page says which")
    add_quiet_flag(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(argv) if argv is not None else None)
    from crawlsim.page import build_page
    from crawlsim.outfile import check_writable, written
    from crawlsim.page.html import MAX_BYTES

    began = time.monotonic()
    if args.trace and args.scenario is not None:
        raise UsageError(f"give a SCENARIO or --trace {args.trace}, not both: a trace is drawn as it was recorded "
                         "(drop the scenario)")
    check_writable(args.output)  # before the crawls, not after them
    if args.trace:
        from crawlsim.trace.jsonl import read_trace

        trace = read_trace(args.trace)  # a bad trace is its one-line TraceError (a UsageError)
        text, offer = build_page(trace=trace, trace_name=Path(args.trace).name, title=args.title, note=args.note)
    else:
        from crawlsim.scenario import load_scenario
        from crawlsim.scenario.files import DEFAULT_SCENARIO

        scenario = load_scenario(args.scenario or DEFAULT_SCENARIO)
        check_words(args.title, args.note, scenario)
        text, offer = build_page(scenario, title=args.title, note=args.note, budget=args.budget)
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise UsageError(f"the page would be {len(data) / 1e6:.1f} MB, over {MAX_BYTES / 1e6:.0f} MB: "
                         "give a smaller --budget or cap the crawl (--max-pages in the scenario)")
    out = Path(args.output)
    with written(out, newline="") as page:  # whole, or not at all (a full disk, a file limit)
        page.write(text)
    if not args.quiet:
        print(f"crawlsim html: wrote {out} ({len(data) / 1e6:.2f} MB) in {time.monotonic() - began:.0f} s", flush=True)
        print(offer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
