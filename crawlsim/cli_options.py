"""Crawler flags shared by every command that runs a crawl (run, compare,
sweep, trace, tui, crawl): one definition, so ``--per-host 2`` means the
same thing everywhere and maps to the option of the same name.

Flag values are read as text and handed to the core's one validation
(:func:`crawlsim.core.options.option_from_text`), so ``--gap inf`` and
``--set gap=inf`` are refused with the same words as ``gap = inf`` in a
scenario file (which reads a string such as ``per_host = "none"`` the same
way: :func:`crawlsim.core.options.option_from_value`).  Enumerated values
(``--order``, ``--normalize``, ``--priority``, ...) suggest the nearest
allowed value on a typo.

``--priority NAME`` picks a named best-first priority
(:mod:`crawlsim.core.priorities`) and implies ``--order best`` when no
order is given; with another order it is a mistake, not silently ignored."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from crawlsim.core.options import (
    CONTENT_DEDUP,
    FRONTIERS,
    ORDERS,
    PRIORITIES,
    SCOPES,
    SEEN_KINDS,
    OptionError,
    did_you_mean,
    option_from_text,
    option_from_value,
    option_names,
    with_implied_order,
)
from crawlsim.errors import UsageError

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario

FLAGS: list[tuple[str, type, str]] = [
    ("workers", int, "global cap on fetches in flight"),
    ("per_host", int, "cap on fetches in flight to one host"),
    ("gap", float, "minimum seconds between fetch starts to one host"),
    ("rate", float, "token bucket: fetch starts a second to one host (none: off)"),
    ("burst", int, "token bucket: starts a host may make at once (with --rate)"),
    ("normalize", str, "off | fragment | rfc3986 | aggressive, or steps like rfc3986-dot_segments"),
    ("order", str, f"{' | '.join(ORDERS)} (best needs --priority)"),
    ("priority", str, f"best-first order: {' | '.join(PRIORITIES)} (implies --order best)"),
    ("frontier", str, " | ".join(FRONTIERS)),
    ("scope", str, " | ".join(SCOPES)),
    ("depth_limit", int, "skip links deeper than this"),
    ("max_pages", int, "stop queueing after this many pages"),
    ("max_pages_per_host", int, "stop queueing a host after this many pages"),
    ("max_retries", int, "retries for 429, 503 and transient errors"),
    ("max_retry_after", float, "a Retry-After longer than this many seconds fails the page instead of holding its host"),
    ("seen", str, " | ".join(SEEN_KINDS)),
    ("content_dedup", str, " | ".join(CONTENT_DEDUP)),
    ("user_agent", str, "the user agent robots.txt rules are matched against"),
]


METAVARS = {"rate": "PER_SECOND", "priority": "NAME", "normalize": "MODE", "user_agent": "TEXT"}
"""What a flag's value is, where its kind alone does not say (``--rate`` is a
rate, not seconds); else :func:`metavar` names it by kind."""


def metavar(name: str, kind: type) -> str:
    """The placeholder ``--help`` shows for crawler flag ``name``: ``N``,
    ``SECONDS``, or what the value is (``--rate PER_SECOND``, ``--scope KIND``)."""
    return METAVARS.get(name) or ("N" if kind is int else "SECONDS" if kind is float else "KIND")


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a mistake raises :class:`UsageError` (one line, exit 2)
    instead of printing the usage block and exiting.  Every command's parser
    is one of these, so every flag fails the same way."""

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



def add_trace_out_flag(parser: argparse.ArgumentParser, what: str, *short: str) -> None:
    """``--trace-out FILE``, the one spelling for writing a trace (``--trace
    FILE`` reads one, in ``tui`` and ``html``).  The old ``--trace FILE`` of
    the writing commands says the new spelling and exits 2, so it never
    silently means the other thing."""
    parser.add_argument(*short, "--trace-out", dest="trace_out", metavar="FILE",
                        help=f"write {what} as JSONL (replay: crawlsim tui --trace FILE)")
    parser.add_argument("--trace", action=_TraceRenamed, metavar="FILE", help=argparse.SUPPRESS)


class _TraceRenamed(argparse.Action):
    """``--trace FILE`` given to a command that writes traces: the did-you-mean line."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        raise UsageError(
            f"{parser.prog} writes its trace with --trace-out FILE (--trace FILE reads one, in tui and html); "
            f"did you mean --trace-out {values}?"
        )


MAX_PORT = 65535


def count_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type=`` for a whole number from ``low`` (``--top 0``: none listed),
    refused otherwise in one line rather than quietly doing nothing."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low}; got {text!r}")
        return value

    return count


def port_number(low: int = 1) -> Callable[[str], int]:
    """An argparse ``type=`` for a TCP port from ``low`` (0: any free port)
    to 65535: every server command refuses a bad ``--port`` in these words."""

    def port(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= MAX_PORT:
            shown = repr(text) if value is None else str(value)
            free = " (0: any free port)" if low == 0 else ""
            raise argparse.ArgumentTypeError(f"expected a port number {low}-{MAX_PORT}{free}; got {shown}")
        return value

    return port


def cannot_listen(host: str, port: int, err: OSError, hint: str = "") -> UsageError:
    """The one line for a server that cannot listen (a busy port, an address
    this machine lacks), in the system's words for the error number (asyncio
    wraps them in its own sentence)."""
    import os

    reason = os.strerror(err.errno) if err.errno else str(err)
    return UsageError(f"cannot listen on {host} port {port}: {reason}{'; ' + hint if hint else ''}")


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """``-q``/``--quiet``, one meaning in every command that has it: no
    progress and nothing on stdout; errors and warnings still go to stderr."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print nothing but errors and warnings: no progress bar, no 'wrote' line")


def add_crawler_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers N --per-host N --gap S ... --robots/--no-robots --set k=v``."""
    group = parser.add_argument_group("crawler options (override the scenario's [crawl] table)")
    for name, kind, help_text in FLAGS:
        group.add_argument(
            "--" + name.replace("_", "-"), dest=name, default=None, metavar=metavar(name, kind), help=help_text
        )
    for name, what in (("allow", "only"), ("deny", "never")):
        group.add_argument(f"--{name}", dest=name, action="append", default=None, metavar="REGEX",
                           help=f"{what} crawl URLs matching this regular expression (repeatable)")
    group.add_argument("--robots", dest="robots", action=argparse.BooleanOptionalAction, default=None,
                       help="fetch and obey each host's robots.txt first")
    group.add_argument("--randomize-gap", dest="randomize_gap", action=argparse.BooleanOptionalAction, default=None,
                       help="vary each gap by 0.5-1.5x")
    group.add_argument("--set", dest="set", action="append", default=[], metavar="KEY=VALUE",
                       help="any crawler option, one per --set, e.g. --set max_crawl_delay=5 (repeatable)")


_NEXT_KEY = re.compile(r",(?=\s*[A-Za-z_][A-Za-z0-9_-]*\s*=)")
"""A comma that starts another ``key=`` (``retry_statuses=[429,503]`` has none)."""


def parse_assignment(text: str, flag: str = "--set") -> tuple[str, Any]:
    """``"workers=4"`` -> ``("workers", 4)``: one option, its value read and
    checked as that option takes it (numbers, true/false, none, lists like
    [429, 503], a TOML string like "My Bot").  Two options in one
    (``workers=2,per_host=2``) are refused with the spelling that works, on
    every command alike."""
    parts = split_assignments(text)
    if len(parts) > 1:
        meant = " ".join(f"{flag} {part}" for part in parts)
        raise UsageError(f"{flag} {text!r}: one KEY=VALUE per {flag}; did you mean {meant}?")
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key:
        raise OptionError(text, "expected KEY=VALUE, e.g. workers=4")
    if key not in option_names():
        raise OptionError(key, f"unknown crawler option{did_you_mean(key, option_names())}")
    return key, option_from_text(key, _unquoted(raw))


def split_assignments(text: str) -> list[str]:
    """``"workers=2,per_host=2"`` -> ``["workers=2", "per_host=2"]``: the
    options a comma-joined text holds (one, for ``retry_statuses=[429,503]``)."""
    return [part.strip() for part in _NEXT_KEY.split(text)]


def _unquoted(raw: str) -> str:
    """A TOML string (``"My Bot"``, ``'x'``) as TOML reads it, as in a
    scenario file; anything else as written."""
    import tomllib

    text = raw.strip()
    if len(text) < 2 or text[0] not in "\"'" or text[-1] != text[0]:
        return raw
    try:
        return str(tomllib.loads(f"v = {text}")["v"])
    except tomllib.TOMLDecodeError:
        return raw


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The crawler options the user set on the command line (flags, then --set)."""
    out: dict[str, Any] = {}
    for name, _, _ in FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            out[name] = option_from_text(name, value) if isinstance(value, str) else value
    for name in ("robots", "randomize_gap"):
        value = getattr(args, name, None)
        if value is not None:
            out[name] = value
    for name in ("allow", "deny"):
        patterns = getattr(args, name, None)
        if patterns:
            out[name] = option_from_value(name, list(patterns))
    given = {name: _spelled(args, name) for name in out}
    for item in getattr(args, "set", None) or []:
        key, value = parse_assignment(item)
        if key in out and out[key] != value:
            raise UsageError(f"{key} given twice, as {given[key]} and --set {item.strip()}: give it once")
        out[key] = value
        given[key] = f"--set {item.strip()}"
    return with_implied_order(out)


def _spelled(args: argparse.Namespace, name: str) -> str:
    """How the user gave option ``name`` as a flag: ``--workers 4``, ``--no-robots``, ``--allow`` ..."""
    flag = "--" + name.replace("_", "-")
    value = getattr(args, name, None)
    if isinstance(value, bool):
        return flag if value else f"--no-{flag[2:]}"
    return f"{flag} {value}" if isinstance(value, str) else flag


def add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--nodes N --partition P`` (override the scenario's ``[cluster]`` table)."""
    from crawlsim.cluster.config import PARTITIONS

    group = parser.add_argument_group("cluster (override the scenario's [cluster] table)")
    group.add_argument("--nodes", dest="nodes", default=None, metavar="N",
                       help="crawler nodes, each with the crawl's workers, per-host limit and gap (1: one process)")
    group.add_argument("--partition", dest="partition", default=None, metavar="P",
                       help=f"how URLs are split between nodes: {' | '.join(PARTITIONS)}")


def warn_cluster_ignored(scenario: Scenario | None, command: str, instead: str) -> bool:
    """Say on stderr, in one line, that ``crawlsim COMMAND`` runs ``scenario``
    as one process although its ``[cluster]`` table asks for several nodes
    (``instead``: what it does, e.g. "tracing one process"); True when it
    said so (None, a replayed trace: nothing to say).  The one place the
    commands without a cluster view admit it: when a view learns to show
    nodes, its command stops calling this."""
    import sys

    if scenario is None:
        return False
    nodes = scenario.cluster.nodes
    if nodes <= 1:
        return False
    print(
        f"crawlsim {command}: this scenario's [cluster] table ({nodes} nodes) is not supported here yet; {instead}",
        file=sys.stderr,
    )
    return True
