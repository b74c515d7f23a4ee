"""Problems found in a run, as data: what kind, which cause, and the
measured facts -- no words.  ``words.py`` turns a finding into sentences;
the JSON report carries the findings themselves (``details["findings"]``),
so a tool can read what was measured without parsing English.

Two families:

* :class:`Finding` -- the run-level findings (how a case ended, worker
  parallelism, threads left running, a race the explorer caught).  Their
  ``kind``/``cause``/``facts`` go into the JSON report verbatim, so their
  shape is part of ``check --json``.
* the per-case problems (:data:`Problem`: a wrong result, a page fetched
  twice, a fetch off the host, a return while fetches were in flight...),
  one frozen dataclass per kind with named fields.  ``problems.py`` finds
  them; ``words.py`` writes one sentence for each.  Each carries its
  ``causes``: the hint categories it calls for, decided here from the
  evidence (a respelled page whose spelling has a ``#`` is a fragment
  problem, not a missing page), never from the words.

Every kind says what its sentence presupposes of how the run ended
(:data:`PRESUPPOSES` for a :class:`Finding`, ``presupposes`` on a problem):
"after the crawl returned" is only written of a crawl that returned, "did
not return" only of one that did not.  The finders keep to it (a thread is
"left running" only by a crawl that came back), and
:func:`presupposition_holds` lets a test hold every sentence to its run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from crawlsim.check import evidence
from crawlsim.check.cases import expected_pages
from crawlsim.check.evidence import ANY_ENDING, CAME_BACK, NOT_RETURNED, RAISED, RETURNED, Ending
from crawlsim.check.runner import CaseRun

PRESUPPOSES: dict[str, frozenset[Ending]] = {
    "crash": NOT_RETURNED,
    "stuck": NOT_RETURNED,
    "too-slow": NOT_RETURNED,
    "workers-quit": ANY_ENDING,
    "narrow-pool": ANY_ENDING,
    "threads-left": CAME_BACK,
    "race-caught": ANY_ENDING,
}
"""How a run ended, for each run-level finding's sentence to be true of it."""


@dataclass(frozen=True)
class Finding:
    """One problem: ``kind`` selects the sentence, ``cause`` is what is
    counted once across checks, ``facts`` are the measured numbers."""

    kind: str
    cause: str
    facts: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def presupposes(self) -> frozenset[Ending]:
        return PRESUPPOSES[self.kind]


def presupposition_holds(item: Finding | Problem, run: CaseRun) -> bool:
    """Whether the run ended the way the sentence of ``item`` takes for granted."""
    return evidence.ending(run) in item.presupposes


def how_it_ended(run: CaseRun) -> Finding | None:
    """For a case that did not return: its process died, it stopped making
    progress (stuck), or it was still fetching at its deadline (too slow)."""
    if not run.timed_out:
        return None
    if run.crash:
        return Finding("crash", "crash", {"message": run.crash})
    pages = {r.page for r in run.records if r.outcome in ("ok", "error")}
    progress = {
        "fetches": len(run.records),
        "pages_done": len(pages),
        "pages_expected": len(expected_pages(run.case)),
    }
    if run.stalled:
        ends = [r.end for r in run.records if r.end is not None]
        return Finding(
            "stuck",
            "timeout",
            {
                **progress,
                "last_fetch_end": round(max(ends), 3) if ends else None,
                "stopped_after": round(min(run.wall, run.timeout), 3),
                "in_flight": [r.url for r in run.in_flight_at_return],
            },
        )
    shape = evidence.parallelism(run)
    return Finding(
        "too-slow",
        "too-slow",
        {**progress, "deadline": run.timeout, "peak": shape.peak, "mean": shape.mean, "max_workers": shape.max_workers},
    )


def idle_workers(run: CaseRun) -> Finding | None:
    """Why fewer workers ran than allowed: threads that quit while work was
    still coming, or fewer than ``max_workers`` ever running at once."""
    shape = evidence.parallelism(run)
    exits = evidence.early_exits(run)
    if exits.quit and exits.started > 1:
        return Finding(
            "workers-quit",
            "idle-timeout",
            {
                "quit": len(exits.quit),
                "started": exits.started,
                "first_quit": min(t.ended or 0.0 for t in exits.quit),
                "last_fetch_start": round(exits.last_fetch_start, 3),
            },
        )
    if 1 < shape.peak < shape.max_workers:
        return Finding(
            "narrow-pool", "workers", {"peak": shape.peak, "mean": shape.mean, "max_workers": shape.max_workers}
        )
    return None


def threads_left(runs: dict[str, CaseRun]) -> Finding | None:
    """Threads Python would wait for at exit, still running after the crawl
    returned (or raised): only cases whose call came back are looked at, and
    the ones that did not are named apart."""
    came_back = {name: run for name, run in runs.items() if evidence.ending(run) in PRESUPPOSES["threads-left"]}
    left = {name: evidence.left_running(run) for name, run in came_back.items()}
    left = {name: threads for name, threads in left.items() if threads}
    if not left:
        return None
    name, threads = next(iter(left.items()))
    return Finding(
        "threads-left",
        "threads-left",
        {
            "case": name,
            "ended": evidence.ending(runs[name]),
            "threads": len(threads),
            "thread": threads[0].name,
            "where": threads[0].left_at,
            "cases": len(left),
            "of_cases": len(came_back),
            "not_returned": [n for n in runs if n not in came_back],
            "per_case": {case: [f"{t.name} at {t.left_at}" for t in ts] for case, ts in left.items()},
        },
    )


def race_caught(run: CaseRun) -> Finding | None:
    """What the interleaving explorer caught on a race case."""
    if not run.race:
        return None
    return Finding(
        "race-caught",
        "dup-fetch",
        {
            "seed": run.race.get("seed"),
            "pages": list(run.race.get("pages") or []),
            "switches": list(run.race.get("switches") or []),
            "text": run.race.get("text"),
            "schedules": run.race.get("schedules"),
            "seconds": run.race.get("seconds"),
            "replayed": bool(run.race.get("replayed")),
        },
    )


# ---------------------------------------------------------------- per-case problems

DUPLICATES_SHOWN = 3
"""Pages fetched twice that the explanation names one by one."""
#
# One dataclass per kind of problem; ``problems.py`` finds them in this order
# (a case's explanation reads in the same order), ``words.py`` writes each.


@dataclass(frozen=True)
class RunEnded:
    """The crawl did not return: ``found`` says how (crash, stuck, too slow)."""

    presupposes: ClassVar[frozenset[Ending]] = NOT_RETURNED

    found: Finding

    @property
    def causes(self) -> tuple[str, ...]:
        return (self.found.cause,)


@dataclass(frozen=True)
class Raised:
    """The crawl raised instead of returning."""

    presupposes: ClassVar[frozenset[Ending]] = RAISED

    error: str
    """The exception as the report shows it (``Type: message at where``)."""
    error_type: str
    failed_urls: tuple[str, ...]
    """URLs whose ``get_urls`` raised on purpose (a SimulatedFetchError only)."""

    @property
    def causes(self) -> tuple[str, ...]:
        if self.error_type == "SimulatedFetchError":
            return ("error",)
        return ("recursion",) if self.error_type == "RecursionError" else ()


@dataclass(frozen=True)
class BadReturn:
    """The return value is not a list of URL strings."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    what: str
    causes: tuple[str, ...] = ("bad-return",)


@dataclass(frozen=True)
class ListedTwice:
    """URLs the result lists more than once."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    causes: tuple[str, ...] = ("listed-twice",)


@dataclass(frozen=True)
class FragmentsReturned:
    """Returned URLs that still carry a ``#fragment``."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    causes: tuple[str, ...] = ("fragment",)


@dataclass(frozen=True)
class OffHostReturned:
    """Returned pages whose hostname is not the start URL's."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    start_host: str
    causes: tuple[str, ...] = ("scope",)


@dataclass(frozen=True)
class Respelled:
    """Returned URLs naming an expected page, but spelled otherwise than the links."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    causes: tuple[str, ...] = ("extra",)


@dataclass(frozen=True)
class Unreachable:
    """Returned pages on the start host that its pages do not link to;
    ``via`` are the out-of-scope pages that do (the crawl went through them)."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    via: tuple[str, ...]

    @property
    def causes(self) -> tuple[str, ...]:
        return ("scope",) if self.via else ("extra",)


@dataclass(frozen=True)
class MissedAsSpelled:
    """Expected pages the result has only under another spelling:
    ``pairs`` are (expected URL, the spelling returned)."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    pairs: tuple[tuple[str, str], ...]

    @property
    def causes(self) -> tuple[str, ...]:
        return ("fragment",) if any("#" in returned for _, returned in self.pairs) else ("missing",)


@dataclass(frozen=True)
class DroppedOnHost:
    """Pages of the start host that fetched pages linked to (``linked_by``)
    and the crawl turned away: its scope test is too narrow.  The evidence:
    ``went_on`` (it started other fetches after the link came back),
    ``lingered`` (seconds it stayed before returning, at least
    ``problems.LINGER``, else ``None``), ``prefix`` (every page fetched starts
    with the start URL and none of these does: the test is a prefix)."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    linked_by: tuple[str, ...]
    start: str
    prefix: bool
    went_on: bool
    lingered: float | None

    @property
    def causes(self) -> tuple[str, ...]:
        return ("prefix-scope",) if self.prefix else ("narrow-scope",)


@dataclass(frozen=True)
class Missing:
    """Reachable pages absent from the result.  ``never_fetched_but_linked``
    were returned as links (by ``linked_by``) and never fetched; ``failed``
    are pages whose ``get_urls`` raised."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    never_fetched_but_linked: tuple[str, ...]
    linked_by: tuple[str, ...]
    failed: tuple[str, ...]

    @property
    def causes(self) -> tuple[str, ...]:
        if self.failed:
            return ("error",)
        return ("early-return",) if self.never_fetched_but_linked else ("missing",)


@dataclass(frozen=True)
class DuplicatePage:
    """One page fetched more than once, and what led to it."""

    page: str
    times: int
    spellings: tuple[str, ...]
    linked_from: tuple[str, ...]
    """Pages whose fetch had returned a link to it before its second fetch started."""
    parents_overlapped: bool
    """Two or more of ``linked_from`` were in flight at the same moment."""
    second_while_first: bool
    """The second fetch started while the first was still in flight."""


@dataclass(frozen=True)
class DuplicateFetches:
    """Pages fetched more than once, most-fetched first (``listed``: the
    first ``DETAIL_LIMIT`` with their evidence), out of ``pages`` such pages
    and ``wasted`` extra fetches."""

    presupposes: ClassVar[frozenset[Ending]] = ANY_ENDING

    listed: tuple[DuplicatePage, ...]
    pages: int
    wasted: int

    @property
    def shown(self) -> tuple[DuplicatePage, ...]:
        """The few a sentence names."""
        return self.listed[:DUPLICATES_SHOWN]

    @property
    def causes(self) -> tuple[str, ...]:
        respelled = any("#" in s for d in self.shown if len(d.spellings) > 1 for s in d.spellings)
        return ("fragment",) if respelled else ("dup-fetch",)


@dataclass(frozen=True)
class SharedLinksDuplicated:
    """On a case where pages in flight together share links: ``hit`` of the
    ``shared`` links were fetched twice.  Most of them means the seen set is
    marked too late; a few means check and add are not one step."""

    presupposes: ClassVar[frozenset[Ending]] = ANY_ENDING

    hit: int
    shared: int

    @property
    def systematic(self) -> bool:
        return 2 * self.hit >= self.shared

    causes: tuple[str, ...] = ()


@dataclass(frozen=True)
class OffHostFetched:
    """Fetches of URLs whose hostname is not the start URL's."""

    presupposes: ClassVar[frozenset[Ending]] = ANY_ENDING

    urls: tuple[str, ...]
    start_host: str
    causes: tuple[str, ...] = ("scope",)


@dataclass(frozen=True)
class ReturnedInFlight:
    """The crawl returned at ``wall`` seconds with these fetches in flight
    (``late``: some started only after the return)."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    wall: float
    late: bool
    causes: tuple[str, ...] = ("early-return",)


@dataclass(frozen=True)
class ReturnedUnfetched:
    """Returned pages whose fetch had not completed when the crawl returned."""

    presupposes: ClassVar[frozenset[Ending]] = RETURNED

    urls: tuple[str, ...]
    causes: tuple[str, ...] = ("early-return",)


@dataclass(frozen=True)
class RaceCaught:
    """The interleaving explorer's catch; ``timed_run_duplicated``: the timed
    run on real threads fetched a page twice too (else only a controlled
    switch between check and add shows the race)."""

    presupposes: ClassVar[frozenset[Ending]] = ANY_ENDING

    found: Finding
    timed_run_duplicated: bool

    @property
    def causes(self) -> tuple[str, ...]:
        return (self.found.cause,)


@dataclass(frozen=True)
class ThreadDied:
    """An exception killed one of the crawl's threads (``others``: how many more died)."""

    presupposes: ClassVar[frozenset[Ending]] = ANY_ENDING

    death: str
    others: int
    cause: str

    @property
    def causes(self) -> tuple[str, ...]:
        return (self.cause,)


Problem = Union[
    RunEnded,
    Raised,
    BadReturn,
    ListedTwice,
    FragmentsReturned,
    OffHostReturned,
    Respelled,
    Unreachable,
    MissedAsSpelled,
    DroppedOnHost,
    Missing,
    DuplicateFetches,
    SharedLinksDuplicated,
    OffHostFetched,
    ReturnedInFlight,
    ReturnedUnfetched,
    RaceCaught,
    ThreadDied,
]

GENERIC_CAUSES = frozenset({"missing", "extra"})
"""Causes that only restate the symptom: a specific one is shown instead when there is one."""


def causes_of(problems: tuple[Problem, ...]) -> list[str]:
    """Every cause the problems call for, each once, in the order first called."""
    return list(dict.fromkeys(cause for problem in problems for cause in problem.causes))


def main_cause(problems: tuple[Problem, ...]) -> str | None:
    """The one word for what went wrong: the first specific cause."""
    causes = causes_of(problems)
    chosen = [c for c in causes if c not in GENERIC_CAUSES] or causes
    return chosen[0] if chosen else None


@dataclass(frozen=True)
class CleanRun:
    """A case that passed, in figures: what its one-line summary says."""

    pages: int
    fetches: int
    retries: int
    peak: int
    wall: float
    groups: tuple[tuple[tuple[str, ...], bool], ...]
    """Each group of pages meant to be in flight together (sorted) and whether they were."""
    failing: tuple[str, ...]
    """Pages whose ``get_urls`` raised on purpose (sorted)."""
    explorer_limit: str | None = None
    """Why the interleaving explorer could not run every schedule under its control (``races.py``)."""
