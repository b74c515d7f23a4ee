"""A scenario's tables built into a :class:`~crawlsim.scenario.loaded.Scenario`.

Each TOML table has its builder beside what it builds
(``crawl_table.py``, ``hosts_table.py``, ``pages_table.py``,
``web_table.py``, ``traps_table.py``; ``[cluster]`` is
:mod:`crawlsim.cluster.config`'s); :class:`Builder` checks the top-level
keys, composes the parts into one web and keeps the result of every check
on the :class:`Scenario`, so no reader checks the file's data again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crawlsim.cluster.config import ClusterConfig, ClusterConfigError, cluster_from_table
from crawlsim.scenario.crawl_table import CrawlTable
from crawlsim.scenario.hosts_table import HostsTable
from crawlsim.scenario.loaded import Scenario, WebSize
from crawlsim.scenario.pages_table import PagesTable
from crawlsim.scenario.traps_table import TrapsTable
from crawlsim.scenario.web_table import WebTable
from crawlsim.sim.compose import CombinedWeb, MirrorWeb
from crawlsim.sim.explicit import ExplicitWeb
from crawlsim.sim.generated import PowerLawWeb, SiteTreeWeb
from crawlsim.sim.latency import LatencyTable, show_value
from crawlsim.sim.web import Web

TOP_KEYS = (
    "title", "description", "assumes", "try", "start", "seed", "crawl", "hosts", "pages", "web", "traps", "cluster",
    "client_cost", "margin", "recorded_margin",
)


class Builder(CrawlTable, HostsTable, PagesTable, WebTable, TrapsTable):
    """One scenario file's builder: the tables' builders, composed."""

    def build(self, data: Mapping[str, Any], name: str) -> Scenario:
        self.known(data, TOP_KEYS)
        title = self.string(data.get("title", name), "title")
        description = self.string(data.get("description", ""), "description")
        self.string(data.get("assumes", ""), "assumes")
        self.margin(data.get("margin", 0.0), "margin")  # the summary reads it (a model's, crawlsim model)
        self.margin(data.get("recorded_margin", 0.0), "recorded_margin")  # what crawlsim model measured
        tips = tuple(self.strings(data.get("try", []), "try"))
        seed = self.integer(data.get("seed", 0), "seed", minimum=None)
        latency, policies, mirrors = self.hosts(data.get("hosts", {}), seed)
        if "pages" not in data and "web" not in data:
            raise self.fail("", "expected a [pages] table (links by page) or a [web] table (a generated web)")
        sizes = self.host_sizes(data.get("hosts", {}))
        generated, variants = self.generated(data.get("web", {}), seed, "pages" in data, sizes)
        explicit = self.pages(data["pages"]) if "pages" in data else None
        traps, entries = self.traps(data.get("traps", []), seed)
        if isinstance(generated, PowerLawWeb) and explicit is None and not traps:
            self.hosts_exist(data.get("hosts", {}), generated, {host for host, _ in mirrors})
        parts: list[Web] = [*traps, *([generated] if generated else []), *([explicit] if explicit else [])]
        web = self.combine(parts, entries)
        if mirrors:
            web = CombinedWeb([*(MirrorWeb(host, of, web) for host, of in mirrors), web])
        seeds = self.start(data.get("start"), explicit or generated or web)
        options = self.options(data.get("crawl", {}), seed)
        cluster = self.cluster(data.get("cluster"))
        size = self.size(explicit, generated, latency)
        size.check_fits(options, self.path)
        web.configure(seeds=seeds, policies=policies, variants=variants)
        return Scenario(
            name=name,
            title=title,
            seeds=seeds,
            seed=seed,
            options=options,
            web=web,
            latency=latency,
            description=description,
            tips=tips,
            data=dict(data),
            size=size,
            page_latency=self.page_latency,
            host_contention=self.host_contention,
            client_cost=self.number(data.get("client_cost", 0.0), "client_cost"),
            cluster=cluster,
        )


    def cluster(self, value: object) -> ClusterConfig:
        """The ``[cluster]`` table, checked by its owner (:mod:`crawlsim.cluster.config`)."""
        try:
            return cluster_from_table(value)
        except ClusterConfigError as err:
            raise self.fail(err.key, err.message) from None

    def size(self, explicit: ExplicitWeb | None, generated: Web | None, latency: LatencyTable) -> WebSize:
        """The web's size from its parameters alone (nothing is generated)."""
        pages: int | None = 0
        hosts = len(latency.hosts)
        key = ""
        if explicit is not None:
            pages = len(explicit.pages)
            hosts += len(set(explicit.hosts()))
        if isinstance(generated, PowerLawWeb):
            pages = (pages or 0) + generated.page_count
            hosts += generated.host_count
            key = "web.pages"
        elif isinstance(generated, SiteTreeWeb):
            pages = (pages or 0) + (generated.host_size(generated.host) or 0)
            hosts += 1
            key = "web.depth"
        if self._traps:
            pages = None
        return WebSize(pages, hosts, tuple(self._traps), key)

    def start(self, value: object, web: Web) -> list[str]:
        if value is None:
            if not web.seeds:
                raise self.fail("start", "missing; expected a start URL or a list of them")
            return list(web.seeds)
        if isinstance(value, str):
            return [self.url(value, "start")]
        if not isinstance(value, list) or not value:
            raise self.fail("start", f"expected a URL or a non-empty list of URLs, got {show_value(value)}")
        return [self.url(v, f"start[{i}]") for i, v in enumerate(value)]


__all__ = ["TOP_KEYS", "Builder"]
