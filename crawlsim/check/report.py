"""The verdict of `crawlsim check`: checks, the rubric level, rendering.

A :class:`CheckResult` is one line of the report.  ``kind`` separates what
makes the exit status non-zero (``correctness``) from what only informs the
level (``performance``) and from observations that pass or fail no one
(``note``).  ``level`` says which rubric level a check belongs to; the level
reached is the highest one whose checks, and all below it, passed.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from crawlsim.trace.events import Event

if TYPE_CHECKING:
    from crawlsim.check.runner import CaseRun

CheckKind = Literal["correctness", "performance", "note"]
LEVELS = ("below L4", "L4", "L5", "L6-observable")

LEVELS_LINE = (
    "Levels: L4 correct, concurrent; L5 also race-free, clean return; L6-observable also fast at scale."
)
"""The rubric levels in one line (docs/reference/check.md says each in full)."""

UNOBSERVABLE_POINTER = (
    "Not observable by a checker: the rest of L6 and the 'explains why' of L5 (--explain lists them)."
)
"""The one line a report ends with; ``--explain`` prints :data:`UNOBSERVABLE` in full instead."""

UNOBSERVABLE = (
    "Not observable by a checker: the rest of L6 -- robots.txt, memory limits on "
    "the frontier, a distributed design (host partitioning, shared dedupe store, durable frontier, distributed "
    "termination), observability -- and every 'explains why' of L5 (the race, the GIL, when asyncio is the "
    "better choice). Those are for the conversation. Depth and page limits, retries with backoff, timeouts, "
    "a rate limit and per-host politeness are graded by their follow-up rounds (--follow-up depth, pages, "
    "retries, timeout, rate, politeness)."
)

TRACE_CASE = "diamond-50"
"""The case ``--trace-out`` writes by default: fifty pages all linking each other
at eight workers shows the lanes filling, and any duplicate fetch."""


@dataclass
class CheckResult:
    """One check: its name, whether it passed, and why, in plain words."""

    name: str
    passed: bool
    explanation: str
    details: dict[str, Any] = field(default_factory=dict)
    kind: CheckKind = "correctness"
    level: Literal["L4", "L5", "L6"] | None = None
    title: str = ""
    rules: str | None = None
    """The first rule set that requires this check (``leetcode``,
    ``interview`` or ``strict``); ``None`` for notes and timing checks."""
    cause: str | None = None
    """What went wrong, as one word (``dup-fetch``, ``fragment``...): a cause
    is counted once however many checks it fails."""
    same_cause_as: str | None = None
    """The earlier failed check with the same cause, if any."""
    hint: str = ""
    """The fix the explanation ends with (a failed check): a check whose
    cause an earlier one already showed leaves it out, pointing there."""
    remark: bool = False
    """A pass with something to say (a thread died, a race not exercised):
    the report shows it in full instead of folding it into its level's line."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "level": self.level,
            "passed": self.passed,
            "explanation": self.explanation,
            "details": self.details,
            "rules": self.rules,
            "cause": self.cause,
            "same_cause_as": self.same_cause_as,
        }


def plural_causes(n: int) -> str:
    return "1 cause" if n == 1 else f"{n} causes"


def level_reached(checks: Iterable[CheckResult]) -> tuple[str, list[str]]:
    """The level reached and, if it is not the top, what stands in the way
    of the next one (failing check names)."""
    failing: dict[str, list[str]] = {"L4": [], "L5": [], "L6": []}
    for check in checks:
        if check.kind != "note" and check.level is not None and not check.passed:
            failing[check.level].append(check.name)
    for index, level in enumerate(("L4", "L5", "L6")):
        if failing[level]:
            return LEVELS[index], failing[level]
    return LEVELS[-1], []


def mark(check: CheckResult) -> str:
    """The four-letter mark of a report line: a note informs, a failed
    correctness check fails, a failed timing check only warns."""
    if check.kind == "note":
        return "note"
    if check.passed:
        return "PASS"
    return "FAIL" if check.kind == "correctness" else "WARN"


def _check_lines(check: CheckResult, name_width: int, width: int) -> list[str]:
    """One check as report lines: mark, name, then the explanation wrapped
    under itself (a failed check's title first, in brackets)."""
    head = f"  {mark(check)}  {check.name:<{name_width}}  "
    body = check.explanation
    if check.title and not check.passed:
        body = f"[{check.title}] {body}"
    wrapped = textwrap.wrap(body, width=max(40, width - len(head))) or [""]
    return [head + wrapped[0]] + [" " * len(head) + more for more in wrapped[1:]]


@dataclass
class CheckReport:
    """All checks of one run of `crawlsim check` on one crawler."""

    target: str
    mode: Literal["threads", "asyncio"]
    quick: bool
    checks: list[CheckResult]
    elapsed: float
    partial: bool = False
    """Only some cases were run (``only=``): the level covers those."""
    runs: dict[str, CaseRun] = field(default_factory=dict, repr=False)
    """The raw observations per case, for traces (not serialised)."""
    rules: str = "interview"
    """The rule set the checks were graded by."""
    seed: int | None = None
    """The ``--seed`` given, if any (race cases explore only that seed)."""
    follow_up: str | None = None
    """The follow-up round graded (``--follow-up``), if any."""
    contract: str | None = None
    """That round's signature and contract."""
    rubric: str | None = None
    """The interview rubric items that round makes observable."""

    @property
    def ok(self) -> bool:
        """Every correctness check passed (the CLI's exit status)."""
        return all(c.passed for c in self.checks if c.kind == "correctness")

    @property
    def level(self) -> str:
        return level_reached(self.checks)[0]

    @property
    def blocking(self) -> list[str]:
        """Checks that keep the crawler from the next level."""
        return level_reached(self.checks)[1]

    def check(self, name: str) -> CheckResult:
        for result in self.checks:
            if result.name == name:
                return result
        raise KeyError(f"no check named {name!r}; have {', '.join(c.name for c in self.checks)}")

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed and c.kind != "note"]

    @property
    def shrunk(self) -> list[tuple[CheckResult, dict[str, Any]]]:
        """Each failed check whose case's failure was shrunk, with the shrunk failure."""
        runs = {name: run.shrunk for name, run in self.runs.items() if run.shrunk}
        return [(c, runs[c.name]) for c in self.failed if c.name in runs]

    # ------------------------------------------------------------ output

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "mode": self.mode,
            "quick": self.quick,
            "partial": self.partial,
            "rules": self.rules,
            "seed": self.seed,
            "follow_up": self.follow_up,
            "contract": self.contract,
            "rubric": self.rubric,
            "ok": self.ok,
            "level": self.level,
            "blocking": self.blocking,
            "elapsed_s": round(self.elapsed, 3),
            "checks": [c.to_dict() for c in self.checks],
            "shrunk": [{"check": check.name, **shrunk} for check, shrunk in self.shrunk],
            "not_observable": UNOBSERVABLE,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def render(self, width: int = 100, explain: bool = False) -> str:
        """The report as plain text (what the CLI prints): the verdict and
        the failures first, then the passes folded to one line per level,
        the notes, and what no checker can see (in full with ``explain``)."""
        lines = [*self._header_lines(width), "", *self._verdict_lines(width), *self._check_lines(width), ""]
        lines += self._shrunk_lines(width)
        lines.extend(textwrap.wrap(UNOBSERVABLE, width=width) if explain else [UNOBSERVABLE_POINTER])
        return "\n".join(lines)

    def _header_lines(self, width: int) -> list[str]:
        """What was checked, how, and under a round its contract."""
        seed = f", --seed {self.seed}" if self.seed is not None else ""
        lines = [
            f"crawlsim check {self.target}  ({self.mode}, {'quick' if self.quick else 'full'} run, "
            f"--rules {self.rules}{seed}, {self.elapsed:.1f} s)",
        ]
        if self.follow_up:
            lines.extend(textwrap.wrap(f"Follow-up round {self.follow_up}: {self.contract}.", width=width))
            lines.extend(textwrap.wrap(f"Makes observable: {self.rubric}.", width=width))
        return lines

    def _verdict_lines(self, width: int) -> list[str]:
        """Correctness, the level reached, the levels' key, and a --seed caveat."""
        verdicts = [self._correctness_line(), self._level_line(), LEVELS_LINE]
        if self.seed is not None:
            # a replay explores one schedule: a pass here says nothing of the others
            verdicts.append(
                f"Races: only schedule {self.seed} was explored (--seed replays one schedule); "
                "run without --seed to explore them all."
            )
        return [line for text in verdicts for line in textwrap.wrap(text, width=width, subsequent_indent="  ")]

    def _check_lines(self, width: int) -> list[str]:
        """The failed checks in full, the passes folded, then the notes and
        the passes with something to say, in full."""
        name_width = max((len(c.name) for c in self.checks), default=4)
        failed = [c for c in self.checks if c.kind != "note" and not c.passed]
        shown = [c for c in self.checks if c.kind == "note" or (c.passed and c.remark)]
        lines = [""] + [line for c in failed for line in _check_lines(c, name_width, width)] if failed else []
        lines += ["", *self._passed_lines(width)]
        return lines + [line for c in shown for line in _check_lines(c, name_width, width)]

    def _shrunk_lines(self, width: int) -> list[str]:
        """Each cause's first failure shrunk to its smallest web (``columns.py``)."""
        from crawlsim.check.columns import shrunk_lines

        lines, causes = [], set()
        for check, shrunk in self.shrunk:
            if (check.cause or check.name) not in causes:
                causes.add(check.cause or check.name)
                lines += [*shrunk_lines(shrunk, self.target, width), ""]
        return lines

    def _passed_lines(self, width: int) -> list[str]:
        """The checks that passed with nothing more to say, one folded line
        per level (a follow-up round's own checks under the round's name):
        the correctness checks, then the performance checks under their own
        heading, as the JSON's ``kind`` tells them apart."""
        head = "  PASS  "
        lines: list[str] = []
        for kind, heading in (("correctness", None), ("performance", "Performance:")):
            groups: dict[str, list[str]] = {}
            for c in self.checks:
                if c.kind == kind and c.passed and not c.remark:
                    groups.setdefault(c.level or self.follow_up or "other", []).append(c.name)
            lines += [heading] if heading and groups else []
            lines += [
                line
                for group, names in groups.items()
                for line in textwrap.wrap(
                    f"{head}{group}: {', '.join(names)}", width=width, subsequent_indent=" " * (len(head) + 4)
                )
            ]
        return lines

    def _correctness_line(self) -> str:
        """How many correctness checks failed, and by how many causes when
        several share one."""
        correctness = [c for c in self.checks if c.kind == "correctness"]
        failed = [c.name for c in correctness if not c.passed]
        if not failed:
            return f"Correctness: all {len(correctness)} checks passed."
        causes = [c for c in correctness if not c.passed and c.same_cause_as is None]
        line = f"Correctness: {len(failed)} of {len(correctness)} checks failed: {', '.join(failed)}"
        if len(causes) < len(failed):
            line += f" ({plural_causes(len(causes))}: {', '.join(c.cause or c.name for c in causes)})"
        return line + "."

    def _level_line(self) -> str:
        """The level reached, what blocks the next one, and whether the run was partial."""
        level_line = f"Level reached: {self.level}"
        if self.blocking:
            level_line += f" (the next level needs: {', '.join(self.blocking)})"
        if self.partial:
            level_line += " -- partial run: only the checks below count"
        return level_line + "."

    def __str__(self) -> str:
        return self.render()

    def __rich__(self) -> Any:
        """Colour for rich consoles (and the terminal app): the plain text with
        PASS/FAIL/WARN marks styled."""
        from rich.text import Text

        text = Text(self.render())
        for word, style in (("PASS", "green"), ("FAIL", "bold red"), ("WARN", "yellow"), ("note", "cyan")):
            text.highlight_words([f"  {word}  "], style=style)
        return text

    # ------------------------------------------------------------ traces

    def trace(self, case: str = TRACE_CASE) -> list[Event]:
        """The events of the user's run of ``case``, for replay."""
        from crawlsim.check.trace import run_events

        if case not in self.runs:
            raise KeyError(f"no run of case {case!r}; have {', '.join(self.runs)}")
        return run_events(self.runs[case])

    def write_trace(self, path: str | Path, case: str = TRACE_CASE) -> int:
        """Write ``case``'s trace as JSONL (one ``event_to_dict`` per line) for
        ``crawlsim tui --trace`` and the notebook, whole or not at all
        (``UsageError`` naming ``path`` when it cannot be written); returns
        the event count."""
        from crawlsim.trace.jsonl import write_trace

        return write_trace(path, self.trace(case))
