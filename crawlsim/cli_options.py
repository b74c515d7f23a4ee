"""Crawler flags shared by every command that runs a crawl (run, compare,
sweep, trace, tui, crawl): one definition, so ``--per-host 2`` means the
same thing everywhere and maps to the option of the same name."""

from __future__ import annotations

import argparse
import ast
from typing import Any

from crawlsim.core.options import (
    CONTENT_DEDUP,
    FRONTIERS,
    ORDERS,
    SCOPES,
    SEEN_KINDS,
    OptionError,
    did_you_mean,
    option_names,
)

FLAGS: list[tuple[str, type, str]] = [
    ("workers", int, "global cap on fetches in flight"),
    ("per_host", int, "cap on fetches in flight to one host"),
    ("gap", float, "minimum seconds between request starts to one host"),
    ("normalize", str, "off | fragment | rfc3986 | aggressive, or steps like rfc3986-dot_segments"),
    ("order", str, f"{' | '.join(o for o in ORDERS if o != 'best')}"),
    ("frontier", str, " | ".join(FRONTIERS)),
    ("scope", str, " | ".join(SCOPES)),
    ("depth_limit", int, "skip links deeper than this"),
    ("max_pages", int, "stop queueing after this many pages"),
    ("max_pages_per_host", int, "stop queueing a host after this many pages"),
    ("max_retries", int, "retries for 429, 503 and transient errors"),
    ("seen", str, " | ".join(SEEN_KINDS)),
    ("content_dedup", str, " | ".join(CONTENT_DEDUP)),
    ("user_agent", str, "the user agent robots.txt rules are matched against"),
]


def add_crawler_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--workers N --per-host N --gap S ... --robots/--no-robots --set k=v``."""
    group = parser.add_argument_group("crawler options (override the scenario's [crawl] table)")
    for name, kind, help_text in FLAGS:
        group.add_argument("--" + name.replace("_", "-"), dest=name, type=kind, default=None, help=help_text)
    group.add_argument("--robots", dest="robots", action=argparse.BooleanOptionalAction, default=None,
                       help="fetch and obey each host's robots.txt first")
    group.add_argument("--randomize-gap", dest="randomize_gap", action=argparse.BooleanOptionalAction, default=None,
                       help="vary each gap by 0.5-1.5x")
    group.add_argument("--set", dest="set", action="append", default=[], metavar="KEY=VALUE",
                       help="any crawler option, e.g. --set max_crawl_delay=5 (repeatable)")


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"workers=4"`` -> ``("workers", 4)``; values are read as Python
    literals when they parse (numbers, true/false, lists), else as strings."""
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key:
        raise OptionError(text, "expected KEY=VALUE, e.g. workers=4")
    if key not in option_names():
        raise OptionError(key, f"unknown crawler option{did_you_mean(key, option_names())}")
    raw = raw.strip()
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if lowered in ("none", "null"):
        return key, None
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    if isinstance(value, list):
        value = tuple(value)
    return key, value


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The crawler options the user set on the command line (flags, then --set)."""
    out: dict[str, Any] = {}
    for name, _, _ in FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            out[name] = value
    for name in ("robots", "randomize_gap"):
        value = getattr(args, name, None)
        if value is not None:
            out[name] = value
    for item in getattr(args, "set", None) or []:
        key, value = parse_assignment(item)
        out[key] = value
    return out
