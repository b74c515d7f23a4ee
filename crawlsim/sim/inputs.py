"""What a simulation needs: the one protocol ``crawlsim.sim`` takes.

A crawl is simulated from five things: the crawler's options, the web, the
seed URLs, the random seed of the latency draws, and each host's latency
model.  :func:`~crawlsim.sim.driver.simulate`, the bounds, the advisor and
the coverage report ask for nothing else, so they take a :class:`SimInput`
rather than a loaded scenario.

Why a protocol and not :class:`crawlsim.scenario.Scenario`: the scenario
loader reads TOML files and builds webs *from* this package, so it sits a
layer above it (``pyproject.toml``'s import-linter contract: ``sim`` may
not import ``scenario``).  A ``Scenario`` satisfies :class:`SimInput`
structurally, without naming it; so does any small object a test or a
notebook builds by hand (``tests/test_sim_input.py``).

The advisor's reruns change only the options, which :func:`simulate` takes
as an argument, so the protocol needs no way to copy itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from crawlsim.core.options import CrawlOptions
from crawlsim.sim.latency import LatencyModel
from crawlsim.sim.web import Web


@runtime_checkable
class SimInput(Protocol):
    """Everything :func:`~crawlsim.sim.driver.simulate` reads (read-only).

    ``isinstance(x, SimInput)`` checks only that the five names exist (as
    ``runtime_checkable`` does); their types are the type checker's job."""

    @property
    def options(self) -> CrawlOptions:
        """The crawler's options (a rerun passes other options to ``simulate``)."""
        ...

    @property
    def web(self) -> Web:
        """The web crawled: links, responses, robots.txt and true page identities."""
        ...

    @property
    def seeds(self) -> Sequence[str]:
        """The start URLs, as written."""
        ...

    @property
    def seed(self) -> int:
        """Seeds the latency draws: the same seed gives the same trace."""
        ...

    def latency_for(self, host: str) -> LatencyModel:
        """The latency model of ``host`` (sampled once per fetch)."""
        ...


__all__ = ["SimInput"]
