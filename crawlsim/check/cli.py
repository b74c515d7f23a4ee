"""``crawlsim check FILE.py:FUNCTION | --example NAME [--json] [--trace-out FILE] [--quick] [--rules R] [--seed N]
[--replay SCHEDULE]``.

Exit status: 0 when every correctness check of the chosen rule set passed,
1 when one failed, 2 when the input is unusable (no such file or function, a
syntax error, an import that raises or does not finish, a signature that
cannot be called as ``f(start_url, get_urls, max_workers)``), with a
one-line message and no traceback: those are the user's mistakes to fix,
not crawlsim's.  The user's file only ever runs in a child process
(``sandbox.py``), so whatever it does, the report below is crawlsim's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import sys
import textwrap
from pathlib import Path

from crawlsim.check.cases import CASE_NAMES, RULE_SETS
from crawlsim.check.columns import replay_lines
from crawlsim.check.examples import describe, example_path, list_examples, round_params
from crawlsim.check.grade import run_check
from crawlsim.check.replay import MAX_SEED, parse
from crawlsim.check.report import TRACE_CASE, CheckReport
from crawlsim.check.rounds import ROUND_NAMES, ROUNDS, help_epilog
from crawlsim.check.sandbox import Sandbox
from crawlsim.cli_options import ArgumentParser, add_trace_out_flag
from crawlsim.errors import UsageError


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim check",
        description=textwrap.fill(
            "Grade your own crawl(start_url, get_urls, max_workers) -- or an async def one -- against "
            "simulated services with injected latency, and name the interview rubric level it reaches.",
            79,
        ),
        epilog=help_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the epilog is a paragraph per round, as written
    )
    _add_target(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_trace_out_flag(parser, f"the trace of one case (default {TRACE_CASE})")
    parser.add_argument(
        "--trace-case", metavar="CASE", default=TRACE_CASE, choices=CASE_NAMES, help="which case --trace-out writes"
    )
    parser.add_argument(
        "--explain", action="store_true",
        help="end the report with what no checker can observe, in full (the rest of L6, the 'why' of L5)",
    )
    parser.add_argument(
        "--quick", action="store_true",
        help="smaller webs, about half the time; under --follow-up, only the round's own cases",
    )
    parser.add_argument(
        "--rules",
        choices=RULE_SETS,
        default="interview",
        help=(
            "what counts as correct: leetcode = LeetCode 1242 (exact hostname; no fragments and no "
            "raising get_urls to handle; no limit on threads); interview (default) adds the interview question's "
            "rules (max_workers, fragments, a raising get_urls, deep chains); strict adds ports and userinfo"
        ),
    )
    _add_schedule(parser)
    parser.add_argument(
        "--follow-up",
        metavar="NAME",
        choices=ROUND_NAMES,
        help=(
            f"grade a follow-up round ({', '.join(ROUND_NAMES)}; each round's signature and contract are listed "
            "below): the base cases run first, with no limit, unless --quick"
        ),
    )
    parser.add_argument(
        "--only",
        metavar="CASE,...",
        help=(
            f"run only these cases: base cases ({', '.join(CASE_NAMES)}) and, under --follow-up, the round's own "
            "(listed below); a round's cases all run unless --only names some of them"
        ),
    )
    return parser


def _add_schedule(parser: argparse.ArgumentParser) -> None:
    """Which schedules the race cases explore, or the one shrunk failure to run again."""
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="explore only schedule N in the race cases (the report names the seed that caught a race)",
    )
    parser.add_argument(
        "--replay",
        metavar="SCHEDULE",
        help=(
            "run again the one shrunk failure a report printed (CASE:wWORKERS:lLINKS:sSEED): its web, its workers "
            "and its schedule; exit 1 if a page is fetched twice again, 0 if not"
        ),
    )


def _add_target(parser: argparse.ArgumentParser) -> None:
    """What to check: the user's file, or a shipped answer by name."""
    parser.add_argument(
        "target", metavar="FILE.py:FUNCTION", nargs="?", help="the crawler to check (FUNCTION defaults to crawl)"
    )
    parser.add_argument(
        "--example", metavar="NAME",
        help="check a shipped answer instead, from any folder (e.g. buggy_seen_on_finish; see --list-examples)",
    )
    parser.add_argument(
        "--list-examples", action="store_true", help="list the shipped answers --example takes, and exit"
    )


def main(argv: list[str] | None = None) -> int:
    """``crawlsim check``: 0 all correctness checks passed, 1 one failed.

    Unusable input raises a :class:`~crawlsim.errors.UsageError` (a bad flag,
    ``CheckInputError`` for the target, a trace that cannot be written), which
    ``crawlsim``'s one catch prints on one line with exit status 2."""
    args = _parser().parse_args(argv)
    if args.list_examples:
        print(_examples_listing())
        return 0
    _resolve_example(args)
    problem = _unusable(args)
    if problem is not None:
        raise UsageError(problem)
    if args.replay is not None:
        return _replay(args)
    report = _run(args)
    if args.example is not None:
        report.target = f"--example {args.example}"
    wrote = _write_trace(report, args.trace_out, args.trace_case) if args.trace_out else None
    print(report.to_json() if args.json else report.render(explain=args.explain))
    if wrote:  # after the report, where it is read; beside JSON, on stderr
        print(wrote, file=sys.stderr if args.json else sys.stdout)
    return 0 if report.ok else 1


def _replay(args: argparse.Namespace) -> int:
    """``--replay SCHEDULE``: the schedule run once in the sandbox; 1 when it fails again."""
    spec = parse(args.replay)  # a bad string is a one-line error before any child starts
    target = f"--example {args.example}" if args.example is not None else args.target
    with Sandbox(args.target) as box:
        data = box.replay(str(spec))
    print(json.dumps(data, indent=2) if args.json else "\n".join(replay_lines(data, target)))
    return 1 if data["failed"] else 0


def _examples_listing() -> str:
    """``--list-examples``: each shipped answer, the round it answers, and what it shows."""
    names = list_examples()
    width = max(len(name) for name in names)
    lines = ["Shipped answers (`crawlsim check --example NAME`):"]
    for name in names:
        path = example_path(name)
        follow_up = _round_of(path)
        tag = f"[--follow-up {follow_up}] " if follow_up else ""
        lines.append(f"  {name:<{width}}  {tag}{describe(path).replace('``', '`')}")
    return "\n".join(lines)


def _round_of(path: Path) -> str | None:
    """The follow-up round a shipped answer's extra parameters answer, if any."""
    params = round_params(path)
    return next((name for name, round_ in ROUNDS.items() if params and round_.params == params), None)


def _resolve_example(args: argparse.Namespace) -> None:
    """``--example NAME`` -> the shipped file as the target, and its round
    as ``--follow-up`` unless one is given; exactly one of the two targets."""
    if args.example is None:
        if args.target is None:
            raise UsageError("expected FILE.py:FUNCTION or --example NAME (see `crawlsim check --help`)")
        return
    if args.target is not None:
        raise UsageError(f"give FILE.py:FUNCTION or --example NAME, not both (got {args.target!r} and --example)")
    path = example_path(args.example)
    args.target = f"{path}:crawl"
    if args.follow_up is None:
        args.follow_up = _round_of(path)


def _unusable(args: argparse.Namespace) -> str | None:
    """What is wrong with options argparse accepted, before any case runs."""
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        return f"--seed: expected a whole number from 0 to {MAX_SEED}, got {args.seed}"
    if args.replay is not None and (args.seed is not None or args.follow_up or args.only or args.trace_out):
        return "--replay runs one schedule of a base case: not with --seed, --only, --trace-out or a follow-up round"
    if args.trace_out and not Path(args.trace_out).resolve().parent.is_dir():
        return f"cannot write trace {args.trace_out}: its directory does not exist"
    return None


def _only(args: argparse.Namespace) -> list[str] | None:
    """The cases ``--only`` names, plus the one ``--trace-out`` needs."""
    if not args.only:
        return None
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if args.trace_out and args.trace_case not in only:
        only.append(args.trace_case)
    return only


def _run(args: argparse.Namespace) -> CheckReport:
    """Grade the target.  With --json, whatever the user's crawler prints goes
    to stderr so stdout stays valid JSON."""
    redirect = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
    with redirect:
        return run_check(
            args.target, quick=args.quick, only=_only(args), rules=args.rules, seed=args.seed, follow_up=args.follow_up
        )


def _write_trace(report: CheckReport, path: str, case: str) -> str:
    """Write ``case``'s trace to ``path`` (``UsageError`` when it cannot be
    written); the line that says where, and how to replay it."""
    count = report.write_trace(path, case=case)
    replay = f"crawlsim tui --trace {shlex.quote(path)}"
    return f"Wrote the trace of case {case} ({count} events) to {path}: replay it with {replay}"
