"""Every page a real crawl found, accounted for: fetched, or lost and why.

The accounting is :mod:`crawlsim.sim.found`'s, over the maps the crawl's
coordinator keeps (a :class:`~crawlsim.real.results.CrawlResult` is a
:class:`~crawlsim.sim.found.Recorded`), so a replay of the crawl's trace,
which reads the same maps from the events, counts the same pages.

Links the time limit left unexamined on a page whose links were being
admitted when it came (``CrawlResult.links_dropped``) are not pages found:
they were never resolved, so they name no page yet.  They are counted per
page instead (``crawl --json``'s ``links_not_examined``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crawlsim.sim.coverage import Coverage
from crawlsim.sim.found import found_coverage

if TYPE_CHECKING:
    from crawlsim.real.results import CrawlResult


def real_coverage(result: CrawlResult) -> Coverage:
    """Pages found, fetched and lost (:func:`crawlsim.sim.found.found_coverage`),
    with what the scope left out said in the crawl's own flags."""
    return found_coverage(result, result.options)


__all__ = ["real_coverage"]
