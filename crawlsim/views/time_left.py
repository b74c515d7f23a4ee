"""How a crawl's time-left figures moved against the real time left, after the crawl.

While a crawl runs it says how long is left (:mod:`crawlsim.sim.time_left`):
a lower bound over the pages known so far and an estimate.  Once it is over
the real time left at every instant is known (the finish less ``t``), so the
report can show how far to trust the two: whether the bound ever went above
the truth (never, but for what its latency floor assumed: its margin), and
the estimate's error from a quarter of the way on.  The same report serves a
simulated run (``crawlsim run``) and a real one (``crawlsim crawl``); a
picture in the terminal here, a PNG in :func:`crawlsim.views.plots.draw_time_left`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from crawlsim.core.options import CrawlOptions
from crawlsim.sim.time_left import Moment, time_left_series
from crawlsim.trace.events import Event
from crawlsim.words import counted, signed_percent

CHECKPOINTS = (0.25, 0.5, 0.75)
"""Where the estimate's error is quoted: a quarter, half and three quarters of the way."""
PICTURE_PAGES = 100
"""Pages a crawl must have fetched for the report to draw its picture and quote the
estimate's errors; below it, one line.  A few dozen pages' links cannot tell how many
pages are still unknown: over the shipped scenarios (``benchmarks/time_left_sim.py``)
every crawl of 400 pages or more kept its estimate within 34% of the real time left
from a quarter to three quarters of the way, and every crawl of 3 to 81 pages but one
was off by 268% to 1,900% at worst; 100 sits between them.  The lower bound needs no
such size: the one line still says whether it was ever above the real time left."""


@dataclass(frozen=True)
class TimeLeftReport:
    """The figures as they stood during the crawl, against the finish."""

    finish: float
    moments: Sequence[Moment]

    def truth(self, moment: Moment) -> float:
        return max(0.0, self.finish - moment.t)

    def bound_excess(self) -> float:
        """The most the lower bound ever stood above the real time left (0 or less: never)."""
        return max((m.lower - self.truth(m) for m in self.moments), default=0.0)

    def proven_excess(self) -> float:
        """The same for the bound less its margin (politeness alone)."""
        return max((m.proven - self.truth(m) for m in self.moments), default=0.0)

    def largest_margin(self) -> float:
        return max((m.lower - m.proven for m in self.moments), default=0.0)

    def error_at(self, share: float) -> float | None:
        """The estimate's error, relative to the real time left, at ``share`` of the way."""
        moment = next((m for m in self.moments if m.t >= share * self.finish), None)
        if moment is None or self.truth(moment) <= 0:
            return None
        return (moment.estimate - self.truth(moment)) / self.truth(moment)

    def worst_error(self, start: float = CHECKPOINTS[0], end: float = CHECKPOINTS[-1]) -> float | None:
        """The largest relative error of the estimate between ``start`` and ``end`` of the way."""
        errors = [
            abs(m.estimate - self.truth(m)) / self.truth(m)
            for m in self.moments
            if start * self.finish <= m.t <= end * self.finish and self.truth(m) > 0
        ]
        return max(errors, default=None)

    def as_dict(self) -> dict[str, Any]:
        """The ``time_left`` section of ``--json``."""
        return {
            "bound_excess": round(self.bound_excess(), 6),
            "bound_margin": round(self.largest_margin(), 6),
            "bound_excess_less_margin": round(self.proven_excess(), 6),
            "estimate_error": {f"{share:.0%}": _rounded(self.error_at(share)) for share in CHECKPOINTS},
            "estimate_worst_error": _rounded(self.worst_error()),
            "moments": [
                [round(m.t, 3), round(m.lower, 3), round(m.estimate, 3), round(m.low, 3), round(m.high, 3)]
                for m in self.moments
            ],
        }

    def bound_line(self) -> str:
        """Whether the lower bound was ever above the real time left, and by how much."""
        excess, margin = self.bound_excess(), self.largest_margin()
        if excess <= 1e-9:
            return "the lower bound was never above the real time left"
        return (
            f"the lower bound was above the real time left by up to {excess:.2f} s "
            f"(its latency margin: up to {margin:.2f} s)"
        )

    def lines(self) -> list[str]:
        """The report in words: the bound against the truth, the estimate's errors."""
        bound = self.bound_line()
        errors = [(share, self.error_at(share)) for share in CHECKPOINTS]
        said = ", ".join(f"{signed_percent(error)} at {share:.0%}" for share, error in errors if error is not None)
        worst = self.worst_error()
        estimate = f"the estimate's error: {said or 'none measured'}"
        if worst is not None:
            estimate += f" (at most {worst:.0%} from 25% to 75% of the way)"
        return [bound, estimate]


def report_of(
    options: CrawlOptions, events: Iterable[Event], floor: Mapping[str, float] | None = None
) -> TimeLeftReport | None:
    """The report of a recorded crawl (None with no events or nothing fetched)."""
    moments = time_left_series(options, events, floor)
    if not moments or moments[-1].t <= 0:
        return None
    return TimeLeftReport(moments[-1].t, moments)


def picture(report: TimeLeftReport, width: int = 60, height: int = 10) -> list[str]:
    """The figures against the real time left, drawn in text: ``.`` the real time
    left, ``e`` the estimate, ``L`` the lower bound (the later mark wins a cell)."""
    top = max(report.finish, max((m.lower for m in report.moments), default=0.0)) or 1.0
    grid = [[" "] * width for _ in range(height)]
    for moment in report.moments:
        col = min(width - 1, int(moment.t / report.finish * (width - 1)))
        for value, mark in ((min(moment.estimate, top), "e"), (moment.lower, "L"), (report.truth(moment), ".")):
            row = height - 1 - min(height - 1, int(value / top * (height - 1)))
            if mark == "." or grid[row][col] == " ":
                grid[row][col] = mark
    axis = f"{_secs(top):>8} |"
    rows = [((axis if i == 0 else " " * 9 + "|") + "".join(cells)).rstrip() for i, cells in enumerate(grid)]
    rows.append(" " * 9 + "+" + "-" * width)
    rows.append(" " * 10 + f"0 s{_secs(report.finish):>{width - 3}}")
    rows.append(" " * 10 + ". real time left   e estimate (capped at the top)   L lower bound")
    return rows


def section(report: TimeLeftReport | None, pages: int, stopped: str | None = None) -> list[str]:
    """The report's section after a crawl of ``pages`` pages fetched (``run`` and
    ``crawl`` alike): a heading, the picture, what it shows; one line for a crawl
    smaller than :data:`PICTURE_PAGES`, whose estimate means nothing yet.  Without
    a report, why: the crawl was ``stopped`` (the reason it was), so the real time
    left, which the figures are measured against, is unknown; or it recorded nothing."""
    heading = "time left, as the crawl went (lower bound: known pages only; estimate: from the discovery rate):"
    if report is None:
        why = f"the crawl was stopped ({stopped})" if stopped else "the crawl recorded no events (or fetched nothing)"
        return [heading, f"  not measured: {why}"]
    if pages < PICTURE_PAGES:
        return [
            f"time left, as the crawl went: {report.bound_line()}; {counted(pages, 'page')} fetched, too few "
            f"for the estimate to mean anything (it needs {PICTURE_PAGES:,}; --time-left-png draws both)"
        ]
    return [heading, *picture(report), *(f"  {line}" for line in report.lines())]


def _secs(value: float) -> str:
    return f"{value:,.1f} s"


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


__all__ = ["CHECKPOINTS", "PICTURE_PAGES", "TimeLeftReport", "picture", "report_of", "section"]
