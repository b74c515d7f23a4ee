"""Problems found in a run, as data: what kind, which cause, and the
measured facts -- no words.  ``words.py`` turns a finding into sentences;
the JSON report carries the findings themselves (``details["findings"]``),
so a tool can read what was measured without parsing English.

This covers the run-level findings (how a case ended, worker parallelism,
threads left running, a race the explorer caught); the per-page findings
of a case (missing, extra, duplicate pages) are still written by
``judge.py`` directly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from crawlsim.check import evidence
from crawlsim.check.cases import expected_pages
from crawlsim.check.runner import CaseRun


@dataclass(frozen=True)
class Finding:
    """One problem: ``kind`` selects the sentence, ``cause`` is what is
    counted once across checks, ``facts`` are the measured numbers."""

    kind: str
    cause: str
    facts: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


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
    """Threads Python would wait for at exit, still running after the crawl returned."""
    left = {name: evidence.left_running(run) for name, run in runs.items()}
    left = {name: threads for name, threads in left.items() if threads}
    if not left:
        return None
    name, threads = next(iter(left.items()))
    return Finding(
        "threads-left",
        "threads-left",
        {
            "case": name,
            "threads": len(threads),
            "thread": threads[0].name,
            "where": threads[0].left_at,
            "cases": len(left),
            "of_cases": len(runs),
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
        },
    )
