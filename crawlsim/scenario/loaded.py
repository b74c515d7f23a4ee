"""A loaded scenario: what a driver needs to run it, and what its web's size allows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from crawlsim.cluster.config import ClusterConfig
from crawlsim.core.limits import BYTES_PER_HOST, BYTES_PER_PAGE, BYTES_PER_TRACED_PAGE, memory_budget, show_bytes
from crawlsim.core.options import CrawlOptions, OptionError
from crawlsim.scenario.checks import ScenarioError
from crawlsim.sim.latency import LatencyModel, LatencyTable
from crawlsim.sim.web import Web


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"{float(n):.3g}"


@dataclass(frozen=True)
class WebSize:
    """What the loader knows of a web's size before anything is crawled:
    ``pages`` (``None`` if some part never ends), ``hosts``, the ``traps``
    (``(where, kind)``) and which key made the web big (for messages)."""

    pages: int | None = 0
    hosts: int = 0
    traps: tuple[tuple[str, str], ...] = ()
    key: str = ""

    def crawl_pages(self, options: CrawlOptions) -> int | None:
        """Pages a crawl with ``options`` can discover, or None if unbounded."""
        bounds = [b for b in (self.pages, options.max_pages) if b is not None]
        if options.max_pages_per_host is not None and self.hosts:
            bounds.append(options.max_pages_per_host * self.hosts)
        return min(bounds) if bounds else None

    def check_fits(self, options: CrawlOptions, path: str | None) -> None:
        """Refuse, with the estimate, a crawl whose state cannot fit in this
        machine's memory (a web of a billion pages, two billion hosts)."""
        pages = self.crawl_pages(options) or 0
        per_page = BYTES_PER_TRACED_PAGE if options.record_events else BYTES_PER_PAGE
        need = pages * per_page + self.hosts * BYTES_PER_HOST
        have = memory_budget()
        if need > have:
            raise ScenarioError(
                f"a crawl of {_count(pages)} pages on {_count(self.hosts)} hosts needs about {show_bytes(need)} of memory; "
                f"this machine has {show_bytes(have)}; expected a smaller web, or crawl.max_pages",
                path=path,
                key=self.key or None,
            )

    def warnings(self, options: CrawlOptions, path: str | None) -> list[str]:
        out = []
        capped = options.max_pages is not None or options.depth_limit is not None
        capped = capped or options.max_pages_per_host is not None
        for where, kind in self.traps:
            if capped or (kind == "session" and "session_ids" in options.normalize_steps):
                continue
            what = "never ends" if kind == "calendar" else "spells its pages anew on every fetch"
            out.append(
                ": ".join(p for p in (path, where) if p)
                + f": this {kind} trap {what} and nothing caps the crawl; set crawl.max_pages (e.g. max_pages = 1000)"
            )
        return out


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: everything a driver needs to run it."""

    name: str
    title: str
    seeds: list[str]
    seed: int
    options: CrawlOptions
    web: Web
    latency: LatencyTable
    path: Path | None = None
    description: str = ""
    tips: tuple[str, ...] = ()
    """Suggested experiments (the file's ``try`` list), for front ends to show."""
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The parsed TOML, kept for :func:`crawlsim.scenario.files.reseeded` and for tools that display it."""
    size: WebSize = field(default_factory=lambda: WebSize(), repr=False, compare=False)
    """How big the web is, estimated before anything is crawled (see :meth:`warnings`)."""
    page_latency: Mapping[str, float] = field(default_factory=dict, repr=False, compare=False)
    """Page identity -> its own fetch time in seconds (a ``[pages]`` entry's
    ``latency``, as ``crawlsim model`` writes what a real crawl measured);
    it replaces the host's model for that page's fetches."""
    host_contention: Mapping[str, float] = field(default_factory=dict, repr=False, compare=False)
    """Host -> how much its fetches slow down per other fetch in flight to it (a ``[hosts]``
    table's ``contention``, as ``crawlsim model`` learns it; see :mod:`crawlsim.sim.driver`)."""
    client_cost: float = 0.0
    """Seconds of the crawler's own work per response, one response at a time
    (``client_cost``, as ``crawlsim model`` writes what a real crawl's CPU
    cost; see :mod:`crawlsim.sim.client`); 0 when the file has none."""
    cluster: ClusterConfig = field(default_factory=ClusterConfig, repr=False, compare=False)
    """The ``[cluster]`` table, checked once on loading (one node without one)."""

    def latency_for(self, host: str) -> LatencyModel:
        """The latency model of ``host`` (the ``[hosts."*"]`` one if not named)."""
        return self.latency.for_host(host)

    def with_options(self, **overrides: Any) -> Scenario:
        """A copy with crawler options overridden (CLI flags win over the file).

        Raises :class:`ScenarioError` whose key is the option name.
        """
        try:
            options = self.options.with_(**overrides)
        except OptionError as err:
            raise ScenarioError(err.message, key=err.key) from None
        self.size.check_fits(options, str(self.path) if self.path else None)
        return replace(self, options=options)

    def warnings(self) -> list[str]:
        """Things that are allowed but probably not meant, as one line each
        (a trap that nothing caps, a burst without a rate); front ends print
        them before running."""
        out = self.size.warnings(self.options, str(self.path) if self.path else None)
        if self.options.rate is None and self.options.burst != 1:
            out.append(f"burst = {self.options.burst} has no effect without rate (the per-host token bucket is off)")
        return out


__all__ = ["Scenario", "WebSize"]
