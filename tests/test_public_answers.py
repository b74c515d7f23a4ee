"""Public answers to the concurrent-crawler question, graded by ``crawlsim check``.

Each file in ``tests/public_answers/`` is an answer someone published (LeetCode
1242/1236 or the interview's ``crawl(start_url, get_urls, max_workers)``), with
its source, licence and, written before the checker ever ran on it, its
verdict under ``--rules leetcode`` and ``--rules interview``: pass, or fail
and the checks that fail (``# verdict-RULES: fail a,b``), plus the checks the
same faults may also fail (``# also-RULES: c,d``).  Each test runs the check
as a user would (``--quick``) and asserts that verdict: the exit status, every
named check failed, no other correctness check failed.  An answer marked
``# racy: yes`` runs three times in all (twice more in the ``exhaustive`` run),
and an answer that repeats another's design (``DESIGN_TWINS``) is graded
only in that run.

Where the checker is wrong, the test is ``xfail(strict=True)`` with the fault
named (``CHECKER_FAULTS``), so the fix that removes the fault turns it into a
pass that must be unmarked.  tests/public_answers/README.md is the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from crawlsim.check import run_check
from crawlsim.check.report import CheckReport

ANSWERS = Path(__file__).resolve().parent / "public_answers"
RULES = ("leetcode", "interview")
HELPERS = {"leetcode_shim"}


@dataclass(frozen=True)
class Verdict:
    """What one answer should get under one rule set, as its file states it."""

    passes: bool
    fails: frozenset[str]
    also: frozenset[str]


def _names(text: str | None) -> frozenset[str]:
    return frozenset(text.split(",")) if text else frozenset()


def written_verdict(path: Path, rules: str) -> Verdict:
    """The ``# verdict-RULES:`` and ``# also-RULES:`` lines of an answer's header."""
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"^# verdict-{rules}: (?:(pass)|fail (\S+))$", text, re.MULTILINE)
    if found is None:
        raise ValueError(f"{path.name} has no '# verdict-{rules}:' line")
    also = re.search(rf"^# also-{rules}: (\S+)$", text, re.MULTILINE)
    return Verdict(found.group(1) == "pass", _names(found.group(2)), _names(also.group(1) if also else None))


def is_racy(path: Path) -> bool:
    return re.search(r"^# racy: yes", path.read_text(encoding="utf-8"), re.MULTILINE) is not None


def answer_files() -> list[Path]:
    return sorted(p for p in ANSWERS.glob("*.py") if p.stem not in HELPERS)


CHECKER_FAULTS: dict[tuple[str, str], str] = {}
"""(answer, rules) -> what makes the checker disagree with the written verdict (the
README's "Disagreements": the five found are fixed, so none is marked now).

A strict xfail: the fix that removes the fault turns it into a pass that
fails the suite until its entry is removed here."""

DESIGN_TWINS = {
    "queue_join_darkalexwang": "queue_join_hzhu3142",
    "queue_join_kamyu104": "queue_join_hzhu3142",
    "fifo_futures_paul0920": "fifo_futures_erjan",
    "dfs_recursive_shubhammachal": "dfs_recursive_mjpeppersdev",
    "bfs_netloc_threemonks": "bfs_sync_oavoservice",
    "bfs_list_kamyu104": "bfs_sync_oavoservice",
}
"""Answer -> the answer whose design (and verdicts) it repeats with another
author's details: each check costs seconds, so the default run grades one of
each design and the exhaustive run the rest."""


def _param(path: Path, rules: str, run: int) -> object:
    marks: list[pytest.MarkDecorator] = []
    fault = CHECKER_FAULTS.get((path.stem, rules))
    if fault:
        marks.append(pytest.mark.xfail(strict=True, reason=fault))
    if run > 1 or path.stem in DESIGN_TWINS:
        marks.append(pytest.mark.exhaustive)
    return pytest.param(path, rules, id=f"{path.stem}-{rules}" + (f"-run{run}" if run > 1 else ""), marks=marks)


GRADINGS = [
    _param(path, rules, run)
    for path in answer_files()
    for rules in RULES
    for run in ((1, 2, 3) if is_racy(path) else (1,))
]


def failed_checks(report: CheckReport) -> set[str]:
    """The correctness checks that failed (notes and timing checks do not decide the exit status)."""
    return {check.name for check in report.checks if check.kind == "correctness" and not check.passed}


@pytest.mark.parametrize(("path", "rules"), GRADINGS)
def test_the_checker_gives_the_written_verdict(path: Path, rules: str) -> None:
    verdict = written_verdict(path, rules)
    report = run_check(f"{path}:crawl", quick=True, rules=rules)
    failed = failed_checks(report)
    shown = report.render()
    assert report.ok == verdict.passes, shown
    assert verdict.fails <= failed, f"expected to fail but passed: {sorted(verdict.fails - failed)}\n{shown}"
    assert failed <= verdict.fails | verdict.also, f"failed, not in the verdict: {sorted(failed - verdict.fails - verdict.also)}\n{shown}"


def test_every_answer_states_its_source_licence_and_both_verdicts() -> None:
    """A file without a verdict would drop out of the grading above unnoticed."""
    readme = (ANSWERS / "README.md").read_text(encoding="utf-8")
    for path in answer_files():
        text = path.read_text(encoding="utf-8")
        for field in ("Source:", "Licence:", "Adapted:", "# style:", "# racy:"):
            assert field in text, f"{path.name} has no {field!r}"
        for rules in RULES:
            written_verdict(path, rules)
        assert f"`{path.name}`" in readme, f"{path.name} is not in public_answers/README.md"
