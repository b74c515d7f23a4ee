"""The schedule string, and one controlled run of the schedule it names.

A shrunk failure is written as ``CASE:wWORKERS:lLINKS:sSEED`` -- for
example ``check-then-add:w2:l0-1.2.42:s30``: the case's web cut down to the
numbered links kept (``shrink.case_links``; ``a-b`` is a run of numbers),
crawled with that many workers, on the explorer's schedule ``SEED``.  The
explorer's schedules are named by their seed (its decision sequence: which
preemptible point each seed preempts, ``interleave/strategy.py``) and the
preemptible points come from a calibration run of the same web, so the
string alone reruns the same interleaving: ``crawlsim check FILE
--replay STRING`` (the user's file runs in the sandbox's child, with the
same ``PYTHONHASHSEED`` as when the string was found).

:func:`replay` runs it and returns plain data (it crosses the sandbox's
pipe): the web, the outcome, and the rows of the column-per-thread table
(``columns.py`` draws them).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from crawlsim.check.cases import Case, all_cases, defrag
from crawlsim.check.loader import Target
from crawlsim.check.races import quiet
from crawlsim.check.runner import CaseRun
from crawlsim.check.shrink import SHRINK_BUDGET, case_links, pages_of, reachable, shrink, web_of
from crawlsim.errors import UsageError

MAX_SEED = 2**32 - 1
"""The largest seed (``--seed``, a schedule string's ``sSEED``): the explorer's schedules are named by 32-bit seeds."""
MAX_WORKERS = 64
"""The most workers a schedule string may ask for (every race case has fewer)."""
_FORM = re.compile(r"(?P<case>[a-z0-9-]+):w(?P<workers>\d+):l(?P<links>\d+(?:-\d+)?(?:\.\d+(?:-\d+)?)*):s(?P<seed>\d+)")
_SHAPE = "CASE:wWORKERS:lLINKS:sSEED, as a report prints it (e.g. check-then-add:w2:l0-1.2.42:s30)"


@functools.cache
def shrinkable_cases() -> dict[str, Case]:
    """The cases a schedule string may name: the base cases whose web
    ``--quick`` leaves as it is, so the name alone rebuilds it."""
    quick = {case.name: case.links for case in all_cases(quick=True)}
    return {case.name: case for case in all_cases() if quick.get(case.name) == case.links}


@dataclass(frozen=True)
class ScheduleString:
    """A shrunk web of a case and one schedule of it."""

    case: str
    workers: int
    links: tuple[int, ...]
    seed: int

    def __str__(self) -> str:
        return f"{self.case}:w{self.workers}:l{_runs(self.links)}:s{self.seed}"


def _runs(numbers: Iterable[int]) -> str:
    """``0.1.2.5`` as ``0-2.5``."""
    parts: list[list[int]] = []
    for n in sorted(numbers):
        if parts and n == parts[-1][1] + 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ".".join(f"{a}" if a == b else f"{a}-{b}" for a, b in parts)


def parse(text: str) -> ScheduleString:
    """The schedule ``text`` names, or a :class:`UsageError` saying in one line what is wrong."""
    found = _FORM.fullmatch(text.strip())
    if found is None:
        raise UsageError(f"--replay: expected {_SHAPE}; got {text!r}")
    cases = shrinkable_cases()
    case = cases.get(found["case"])
    if case is None:
        raise UsageError(f"--replay: no case named {found['case']!r} to replay (cases: {', '.join(cases)})")
    workers, seed = int(found["workers"]), int(found["seed"])
    if not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--replay: workers must be 1 to {MAX_WORKERS}, got w{workers}")
    if seed > MAX_SEED:
        raise UsageError(f"--replay: the seed must be 0 to {MAX_SEED}, got s{seed}")
    return ScheduleString(case.name, workers, _link_numbers(found["links"], case), seed)


def _link_numbers(text: str, case: Case) -> tuple[int, ...]:
    """``0-2.5`` as (0, 1, 2, 5), each a link of ``case``."""
    count = len(case_links(case))
    links: set[int] = set()
    for part in text.split("."):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if last >= count:
            raise UsageError(f"--replay: {case.name} has links 0 to {count - 1}; got l{last}")
        if first > last:
            raise UsageError(f"--replay: a run of links goes up (0-2), got l{part}")
        links.update(range(first, last + 1))
    return tuple(sorted(links))


def replay(target: Target, spec: ScheduleString) -> dict[str, Any]:
    """Run ``target`` on the schedule ``spec`` names; what it did, as plain data:
    ``failed`` (a page was fetched twice), ``page``/``fetches``/``race``,
    the web, ``rows`` of the interleaving (``[thread, cell]``) and the
    explorer's ``problems`` (the crawl raised, a deadlock...), at most three."""
    case = shrinkable_cases()[spec.case]
    web = web_of(case, spec.links)
    report = _explored(target, case, spec.links, spec.workers, seeds=[spec.seed], record_lines=True)
    out: dict[str, Any] = {
        "schedule": str(spec), "case": case.name, "start": case.start, "workers": spec.workers,
        "seed": spec.seed, "web": [[page, links] for page, links in web.items()],
        "pages": pages_of(case, spec.links),
        "links": len(spec.links), "failed": report.first is not None,
        "page": None, "fetches": None, "race": None, "rows": [], "problems": report.problems[:3],
    }
    first = report.first
    if first is not None:
        race = str(first.race).replace(f" (seed {spec.seed})", "") if first.race else None
        out.update(page=first.url, fetches=first.fetches, race=race, rows=interleaving(first, web))
    return out


def interleaving(first: Any, web: dict[str, list[str]]) -> list[list[str]]:
    """The failing schedule as table rows ``[thread, cell]``, in the order
    they ran: every ``get_urls`` call (with what it returned) and every line
    that reads the page fetched twice.  A line a thread was paused at (a
    preemption, before the line ran) shows as ``paused before ...`` where
    it paused and as itself where the thread resumed and ran it.  The point
    inside a one-line ``if`` is a row only when a thread paused there."""
    schedule = first.schedule
    calls = {(n.step, n.thread): n.text.removeprefix("get_urls ") for n in schedule.notes
             if n.text.startswith("get_urls ")}
    paused = {(p.step, p.thread) for p in schedule.preemptions}
    rows: list[list[str]] = []
    waiting: dict[str, str] = {}
    for line in schedule.lines:
        if line.thread in waiting:
            rows.append([line.thread, waiting.pop(line.thread)])
        url = calls.get((line.step, line.thread))
        cell = f"get_urls({url}) = [{', '.join(web.get(url, ()))}]" if url else _reads(line, first.url)
        if cell and (line.step, line.thread) in paused:
            rows.append([line.thread, f"paused {'inside' if line.where.after_condition else 'before'} {cell}"])
            waiting[line.thread] = cell
        elif cell and not line.where.after_condition:
            rows.append([line.thread, cell])
    return rows


def _reads(line: Any, url: str) -> str | None:
    """``L43 if link not in seen:`` when the line reads a name holding ``url``
    (a name it only assigns holds the value from before it ran: not counted)."""
    text = line.where.text.split("  #")[0].rstrip()
    code = text
    if code.startswith("for ") and " in " in code:
        code = code.split(" in ", 1)[1]
    elif re.match(r"[\w\s,:\[\].]+=(?!=)", code):
        code = code.split("=", 1)[1]
    names = set(re.findall(r"[A-Za-z_]\w*", code))
    if any(name in names and defrag(value) == url for name, value in line.values):
        return f"L{line.where.line} {text}"
    return None


def page_to_shrink(run: CaseRun) -> str | None:
    """The page a failed run fetched twice -- the race the explorer caught,
    else the first page the timed run fetched twice -- when its case can be
    shrunk (its web is rebuilt from its name; no follow-up round's arguments)."""
    if run.case.args or run.case.name not in shrinkable_cases():
        return None
    if run.race and run.race.get("pages"):
        return str(run.race["pages"][0])
    twice = [page for page, n in Counter(r.page for r in run.records).items() if n > 1]
    return twice[0] if twice else None


def shrunk_failure(target: Target, case: Case, page: str, budget: int = SHRINK_BUDGET) -> dict[str, Any] | None:
    """The failure of ``case`` that fetched ``page`` twice, shrunk
    (``shrink.py``) to the smallest web on which the explorer still fetches
    a page twice -- between the same two lines, when the explorer named
    them on the whole web -- and replayed on its shortest failing schedule
    (fewest steps): :func:`replay`'s data plus what the shrink cost.  None
    when the explorer cannot show it (no source file; a failure only real
    threads show)."""
    if not target.source_file:
        return None
    found: dict[tuple[tuple[int, ...], int], list[Any]] = {}
    caught = _caught(target, case, page) if case.race else None
    wanted = _lines_of(caught)

    def fails(links: tuple[int, ...], workers: int) -> bool:
        report = _explored(target, case, links, workers)
        found[links, workers] = [d for d in report.duplicates if wanted is None or _lines_of(d) == wanted]
        return bool(found[links, workers])

    shrunk = shrink(case, fails, page, budget, known=caught is not None)
    if shrunk is None:
        return None
    failing = found.get((shrunk.links, shrunk.workers)) or [caught]
    shortest = min(failing, key=lambda d: (d.schedule.steps, d.seed))
    shown = replay(target, ScheduleString(case.name, shrunk.workers, shrunk.links, shortest.seed))
    every = reachable(case, range(len(case_links(case))))
    was = {"pages": pages_of(case, every), "links": len(every), "workers": case.max_workers}
    return {**shown, "from": was, "reruns": shrunk.reruns, "budget": budget, "budget_ran_out": shrunk.budget_ran_out}


def _caught(target: Target, case: Case, page: str) -> Any:
    """The explorer's catch on the whole web of a race case: ``page`` fetched twice, else any page."""
    report = _explored(target, case, range(len(case_links(case))), case.max_workers)
    return next((d for d in report.duplicates if d.url == page), report.first)


def _explored(target: Target, case: Case, links: Iterable[int], workers: int, **options: Any) -> Any:
    """The explorer's ``RaceReport`` of ``target`` on the web the link numbers
    make (``options``: ``find_duplicate_fetches``'), its noise kept off the terminal."""
    from crawlsim.check.interleave import find_duplicate_fetches

    with quiet():
        return find_duplicate_fetches(target.function, web=web_of(case, links), start_url=case.start,
                                      files=[str(target.source_file)], max_workers=workers, **options)


def _lines_of(caught: Any) -> tuple[int, int] | None:
    """The two lines a race was caught between (what makes it the same race), or None."""
    race = None if caught is None else caught.race
    return None if race is None else (race.after.line, race.before.line)
