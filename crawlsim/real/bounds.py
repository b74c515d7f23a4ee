"""A real crawl's lower bounds, measured from its events.

The bounds' proofs use only what the core guarantees, and a real crawl runs
the same core: its events give the figures the bounds need
(:func:`crawlsim.sim.measured.measured_run`), so ``crawlsim crawl`` reports
the same bounds, binding bound and efficiency as ``crawlsim run``.  Two
cases have none, and the summary says why (``bounds_note``): a crawl its
time limit stopped (fetches left unfinished are not in the figures the
proofs count) and a crawl whose events were not kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crawlsim.sim.bounds import Bounds, compute_bounds
from crawlsim.sim.measured import measured_run

if TYPE_CHECKING:
    from crawlsim.real.results import CrawlResult

ADVICE_NOTE = (
    "a real crawl is not rerun: `crawlsim model TRACE -o SITE.toml` makes a scenario of it, and "
    "`crawlsim run SITE.toml` measures what each knob would do"
)
"""Why a real crawl's summary has no advice."""


def measured(result: CrawlResult) -> tuple[Any, Bounds | None, str]:
    """The crawl as the summary reads it -- its measured
    :class:`~crawlsim.sim.driver.SimRun`, or the result itself when it
    cannot be measured -- its bounds or None, and why there are none."""
    if result.stopped:
        return result, None, f"the crawl was stopped ({result.stopped}), so its unfinished fetches are not counted"
    if not result.events:
        return result, None, "the crawl's events were not kept"
    run = measured_run(
        result.options, result.stats, result.finish_time, result.events, found=result.found, failures=result.failures
    )
    return run, compute_bounds(None, run), ""


__all__ = ["ADVICE_NOTE", "measured"]
