"""MkDocs hook: the reference tables written from the code, at build time.

Two kinds of marker in a page's Markdown are replaced as the site builds:

* ``<!-- crawlsim-options -->``: the table of every crawler option, one row
  per key of :data:`crawlsim.core.options.RULES`.  The default comes from the
  :class:`~crawlsim.core.options.CrawlOptions` field, the allowed values from
  the option's rule, the meaning from the field's docstring in
  ``crawlsim/core/options.py``.  So a range is written once (in ``RULES``) and
  a meaning once (beside the field).
* ``<!-- crawlsim-normalization -->``: each normalization mode of
  ``crawlsim.core.urls.MODES`` with its steps and an example link, which
  ``canonicalize`` turns into its canonical form as the site builds.
* ``<!-- crawlsim-help NAME -->``: what ``crawlsim NAME --help`` prints
  (``<!-- crawlsim-help -->`` alone: ``crawlsim --help``), captured from the
  command's own argparse parser at a fixed width of :data:`COLUMNS`.

Why at build time and not as generated files in git: several people add flags
and options at once, and a generated file would be stale after every merge
until someone remembered to regenerate it.  Built here, the page is the parser.
What can still drift is caught by the build itself, which ``mkdocs build
--strict`` turns into a failure (``tests/test_docs.py`` runs it): an option
without a docstring, a marker naming no command, a command of
:data:`crawlsim.cli.COMMANDS` without a marker on the commands page.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

COLUMNS = 100
"""The terminal width the help texts are captured at (argparse wraps to it)."""

COMMANDS_PAGE = "reference/commands.md"
OPTIONS_SOURCE = Path(__file__).resolve().parents[2] / "crawlsim" / "core" / "options.py"
_HELP = re.compile(r"<!-- crawlsim-help(?: ([a-z]+))? -->")
_OPTIONS = "<!-- crawlsim-options -->"
_NORMALIZATION = "<!-- crawlsim-normalization -->"
NORMALIZATION_EXAMPLES: dict[str, tuple[str, str | None]] = {
    "off": ("x#top", "http://a.com/d/"),
    "fragment": ("http://a.com/x#top", None),
    "rfc3986": ("HTTP://Example.COM:80/a/./b/../c#frag", None),
    "aggressive": ("http://WWW.Example.com/Page/?sessionid=99&lang=en", None),
}
"""One link per mode (and the page it is on); the hook computes what each becomes."""


# -- help texts ----------------------------------------------------------------------------


def help_text(command: str | None) -> str:
    """What ``crawlsim [COMMAND] --help`` prints at :data:`COLUMNS` columns."""
    from crawlsim.cli import main

    argv = [command, "--help"] if command else ["--help"]
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(COLUMNS)
    try:
        with contextlib.redirect_stdout(out):
            status = main(argv)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    if status != 0:
        raise PluginError(f"`crawlsim {' '.join(argv)}` exited {status}")
    return out.getvalue()


def _help_block(match: re.Match[str]) -> str:
    from crawlsim.cli import COMMANDS

    command = match[1]
    if command is not None and command not in COMMANDS:
        raise PluginError(f"{match[0]}: crawlsim has no command {command!r}")
    return "```text\n" + help_text(command).rstrip("\n") + "\n```"


def check_every_command_has_a_home(markdown: str) -> None:
    """Every command of ``crawlsim.cli.COMMANDS`` has its help on the commands page."""
    from crawlsim.cli import COMMANDS

    named = {m[1] for m in _HELP.finditer(markdown)}
    missing = [name for name in COMMANDS if name not in named]
    if missing:
        raise PluginError(f"{COMMANDS_PAGE} has no <!-- crawlsim-help NAME --> for: {', '.join(missing)}")


# -- the options table ---------------------------------------------------------------------


def field_docs(source: Path = OPTIONS_SOURCE) -> dict[str, str]:
    """Each ``CrawlOptions`` field's docstring (the string right after it), one line each."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CrawlOptions")
    docs: dict[str, str] = {}
    for stmt, after in zip(cls.body, cls.body[1:]):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                docs[stmt.target.id] = " ".join(str(after.value.value).split())
    return docs


def _number(x: float) -> str:
    """``100,000``; ``10^18``; ``2^63 - 1`` (a range's end as a person reads it)."""
    if not (isinstance(x, int) or float(x).is_integer()):
        return f"{x:g}"
    n = int(x)
    if abs(n) < 10**12:
        return f"{n:,}"
    sign, n = ("-" if n < 0 else ""), abs(n)
    for k in range(40, 128):
        if n in (2**k, 2**k - 1):
            return f"{sign}2^{k}" + (" - 1" if n == 2**k - 1 else "")
    k = len(str(n)) - 1
    return f"{sign}10^{k}" if n == 10**k else f"{sign}{n:.3g}"


def allowed(rule: Any) -> str:
    """A rule's accepted values, in words (from the rule itself, never by hand)."""
    from crawlsim.core.options import MAX_PATTERN_LENGTH, MAX_PATTERNS, MAX_USER_AGENT, PRIORITIES

    unit = {"seconds": " s", "requests a second": " /s"}.get(rule.unit, "")
    words = {
        "bool": "true, false",
        "choice": ", ".join(f"`{c}`" for c in rule.choices),
        "text": f"printable text, 1-{MAX_USER_AGENT} characters",
        "regexes": f"up to {MAX_PATTERNS} regular expressions of up to {MAX_PATTERN_LENGTH:,} characters",
        "statuses": "HTTP statuses 100-599",
        "normalize": "a mode (`off`, `fragment`, `rfc3986`, `aggressive`) or steps ([Normalization](#normalization))",
        "priority": ", ".join(f"`{p}`" for p in PRIORITIES) + ", or a Python function `priority(url, depth)`",
    }.get(rule.kind)
    if words is None:  # int, number
        low, high = _number(rule.low), _number(rule.high)
        dash = " to " if " " in low + high or low.startswith("-") else "-"
        words = f"{low}{dash}{high}{unit}"
    return f"none or {words}" if rule.optional else words


def _default(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) if value else "none"
    if isinstance(value, (int, float)):
        return _number(value)
    return f"`{value}`"


def options_table() -> str:
    """The Markdown table of every option in ``RULES``."""
    from crawlsim.core.options import RULES, CrawlOptions

    defaults = {f.name: f.default for f in dataclasses.fields(CrawlOptions) if f.init}
    docs = field_docs()
    undocumented = [key for key in RULES if not docs.get(key)]
    if undocumented:
        raise PluginError(f"CrawlOptions fields without a docstring: {', '.join(undocumented)}")
    rows = ["| option | default | allowed | meaning |", "|---|---|---|---|"]
    for key, rule in RULES.items():
        meaning = docs[key].replace("|", "\\|")
        rows.append(f"| `{key}` | {_default(defaults.get(key))} | {allowed(rule)} | {meaning} |")
    return "\n".join(rows)


def normalization_table() -> str:
    """Each mode of ``crawlsim.core.urls.MODES``: its steps and an example, canonicalized here."""
    from crawlsim.core.urls import MODES, STEPS, canonicalize

    missing = [mode for mode in MODES if mode not in NORMALIZATION_EXAMPLES]
    if missing:
        raise PluginError(f"docs/hooks/reference.py: no normalization example for {', '.join(missing)}")
    rows = ["| mode | steps | example |", "|---|---|---|"]
    for mode, steps in MODES.items():
        named = ", ".join(f"`{step}`" for step in STEPS if step in steps) or "none: resolve against the page only"
        href, base = NORMALIZATION_EXAMPLES[mode]
        where = f" on `{base}`" if base else ""
        rows.append(f"| `{mode}` | {named} | `{href}`{where} -> `{canonicalize(href, base, mode)}` |")
    return "\n".join(rows)


# -- the hook ------------------------------------------------------------------------------


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace the markers of one page (MkDocs calls this for every page)."""
    if page.file.src_uri == COMMANDS_PAGE:
        check_every_command_has_a_home(markdown)
    if _OPTIONS in markdown:
        markdown = markdown.replace(_OPTIONS, options_table())
    if _NORMALIZATION in markdown:
        markdown = markdown.replace(_NORMALIZATION, normalization_table())
    return _HELP.sub(_help_block, markdown)
