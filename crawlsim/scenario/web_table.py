"""The ``[web]`` table: a generated web (``site_tree``, ``power_law``) and its spelling variants,
with the hosts a ``power_law`` web sizes (``hosts."hN.example".pages``)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from crawlsim.core.limits import BYTES_PER_HOST, memory_budget, show_bytes
from crawlsim.core.options import did_you_mean
from crawlsim.scenario.checks import Checks, key_path
from crawlsim.sim.generated import PowerLawWeb, SiteTreeWeb
from crawlsim.sim.latency import show_value
from crawlsim.sim.variants import KINDS, Variants
from crawlsim.sim.web import Web


WEB_KINDS = ("explicit", "site_tree", "power_law")
WEB_COMMON_KEYS = ("kind", "variant_rate", "variants")
WEB_KEYS: dict[str, tuple[str, ...]] = {
    "explicit": (),
    "site_tree": ("host", "branching", "depth", "duplicate_rate", "near_duplicate_rate"),
    "power_law": (
        "pages",
        "hosts",
        "zipf",
        "branching",
        "host_branching",
        "extra_links",
        "cross_rate",
        "duplicate_rate",
        "near_duplicate_rate",
    ),
}
MAX_ZIPF = 10.0
MAX_HOSTS = 10_000_000
"""A generated web's host count: its per-host arrays are built up front."""

class WebTable(Checks):
    """``[web]`` -> a generated web and its variants."""

    def host_sizes(self, value: object) -> dict[str, int]:
        """``hosts."NAME".pages``: a generated host's own page count (host -> count,
        as written); checked against the web in :meth:`power_law`."""
        sizes: dict[str, int] = {}
        for raw, spec in (value if isinstance(value, Mapping) else {}).items():
            if isinstance(spec, Mapping) and "pages" in spec:
                key = key_path("hosts", raw, "pages")
                if raw == "*":
                    raise self.fail(key, 'expected a named host, e.g. [hosts."h0.example"]; [web] pages sizes the rest')
                sizes[raw] = self.integer(spec["pages"], key, minimum=1, maximum=(1 << 32) - 1)
        return sizes

    def generated(
        self, value: object, seed: int, has_pages: bool, sizes: Mapping[str, int] | None = None
    ) -> tuple[Web | None, Variants | None]:
        """The ``[web]`` table: a generated web (``None`` for ``explicit``, whose
        pages are the ``[pages]`` table) and its spelling variants.  ``sizes``
        are the hosts given their own page count (a ``power_law`` web's only)."""
        web = self.table(value, "web", '{kind = "power_law", pages = 1000, hosts = 10}')
        kind = self.web_kind(web, has_pages)
        self.known(web, WEB_COMMON_KEYS + WEB_KEYS[kind], "web")
        variants = self.variants(web, seed) if "variant_rate" in web or "variants" in web else None
        if sizes and kind != "power_law":
            raise self.fail(
                key_path("hosts", next(iter(sizes)), "pages"),
                f'only a generated web (kind = "power_law") sizes a host; this web is {kind}'
                + (": list its pages in [pages]" if kind == "explicit" else ": its size is branching and depth"),
            )
        if kind == "explicit":
            if not has_pages:
                raise self.fail("web.kind", 'kind = "explicit" needs a [pages] table')
            return None, variants
        dup, near = self.duplicate_rates(web)
        if kind == "site_tree":
            return self.site_tree(web, seed, dup, near), variants
        return self.power_law(web, seed, dup, near, sizes or {}), variants

    def web_kind(self, web: Mapping[str, Any], has_pages: bool) -> str:
        """``web.kind``; it defaults to ``explicit`` beside a ``[pages]`` table
        (or when ``[web]`` is empty), and must be given otherwise."""
        kind = web.get("kind", "explicit" if has_pages or not web else None)
        if kind is None:
            raise self.fail("web.kind", f"missing; expected one of {', '.join(WEB_KINDS[1:])}")
        if kind not in WEB_KINDS:
            hint = did_you_mean(kind, WEB_KINDS) if isinstance(kind, str) else ""
            raise self.fail("web.kind", f"expected one of {', '.join(WEB_KINDS)}; got {show_value(kind)}{hint}")
        return str(kind)

    def variants(self, web: Mapping[str, Any], seed: int) -> Variants:
        """``web.variant_rate`` and ``web.variants`` (the kinds; all by default)."""
        kinds = self.strings(web.get("variants", list(KINDS)), "web.variants")
        for i, k in enumerate(kinds):
            if k not in KINDS:
                raise self.fail(
                    f"web.variants[{i}]",
                    f"expected one of {', '.join(KINDS)}; got {show_value(k)}{did_you_mean(k, KINDS)}",
                )
        return Variants(self.rate(web.get("variant_rate", 0.1), "web.variant_rate"), tuple(kinds), seed)

    def duplicate_rates(self, web: Mapping[str, Any]) -> tuple[float, float]:
        """``web.duplicate_rate`` and ``web.near_duplicate_rate``: together at most 1."""
        dup = self.rate(web.get("duplicate_rate", 0.0), "web.duplicate_rate")
        near = self.rate(web.get("near_duplicate_rate", 0.0), "web.near_duplicate_rate")
        if dup + near > 1.0:
            raise self.fail(
                "web.near_duplicate_rate", f"expected duplicate_rate + near_duplicate_rate <= 1, got {dup + near:g}"
            )
        return dup, near

    def web_int(self, web: Mapping[str, Any], name: str, default: int, minimum: int, maximum: int | None = None) -> int:
        """A whole-number ``web.<name>``."""
        return self.integer(web.get(name, default), f"web.{name}", minimum=minimum, maximum=maximum)

    def site_tree(self, web: Mapping[str, Any], seed: int, dup: float, near: float) -> SiteTreeWeb:
        return SiteTreeWeb(
            self.host(web.get("host", "a.com"), "web.host"),
            branching=self.web_int(web, "branching", 3, 1, 1000),
            depth=self.web_int(web, "depth", 3, 0, 64),
            seed=seed,
            duplicate_rate=dup,
            near_duplicate_rate=near,
        )

    def power_law(
        self, web: Mapping[str, Any], seed: int, dup: float, near: float, sizes: Mapping[str, int]
    ) -> PowerLawWeb:
        self.host_memory(web.get("hosts", 100))
        host_count = self.web_int(web, "hosts", 100, 1, MAX_HOSTS)
        page_count = self.web_int(web, "pages", max(10_000, host_count), host_count, (1 << 32) - 1)
        host_pages = self.numbered_hosts(sizes, host_count)
        return PowerLawWeb(
            page_count,
            host_count,
            seed=seed,
            zipf=self.number(web.get("zipf", 1.0), "web.zipf", maximum=MAX_ZIPF),
            branching=self.web_int(web, "branching", 4, 1, 1000),
            host_branching=self.web_int(web, "host_branching", 8, 1, 1000),
            extra_links=self.web_int(web, "extra_links", 3, 0, 1000),
            cross_rate=self.rate(web.get("cross_rate", 0.1), "web.cross_rate"),
            duplicate_rate=dup,
            near_duplicate_rate=near,
            host_pages=host_pages,
        )

    def numbered_hosts(self, sizes: Mapping[str, int], host_count: int) -> dict[int, int]:
        """``hosts."hN.example".pages`` by host number; a name the generated web
        does not have is refused, naming the ones it has."""
        out: dict[int, int] = {}
        for raw, count in sizes.items():
            m = re.fullmatch(r"h(0|[1-9]\d*)\.example", raw.lower())
            if m is None or int(m[1]) >= host_count:
                last = f"h{host_count - 1}.example"
                names = "h0.example" if host_count == 1 else f"h0.example .. {last}"
                raise self.fail(
                    key_path("hosts", raw, "pages"), f"the generated web has no host {show_value(raw)}; its hosts are {names}"
                )
            out[int(m[1])] = count
        total = sum(out.values())
        if total >= 1 << 32:
            raise self.fail(key_path("hosts", next(iter(sizes)), "pages"), "expected fewer than 2**32 pages in all")
        return out

    def hosts_exist(self, value: Mapping[str, Any], web: PowerLawWeb, mirrors: set[str]) -> None:
        """Every host named in ``[hosts]`` is one of the generated web's (or a
        mirror of one): a misspelt name is refused rather than quietly unused."""
        for raw in value:
            if raw != "*" and raw.lower() not in mirrors and web.host_size(raw) is None:
                last = web.host_count - 1
                names = "h0.example" if last == 0 else f"h0.example .. h{last}.example"
                raise self.fail(
                    key_path("hosts", raw), f"the generated web has no host {show_value(raw)}; its hosts are {names}"
                )

    def host_memory(self, raw_hosts: object) -> None:
        """Refuse a host count whose per-host arrays would not fit in memory,
        estimated before the web builds them (and before the count's range is checked)."""
        if isinstance(raw_hosts, (int, float)) and not isinstance(raw_hosts, bool) and math.isfinite(raw_hosts):
            need, have = int(raw_hosts) * BYTES_PER_HOST, memory_budget()
            if need > have:
                raise self.fail(
                    "web.hosts",
                    f"{int(raw_hosts):,} hosts need about {show_bytes(need)} of memory; this machine has "
                    f"{show_bytes(have)}; expected at most {MAX_HOSTS:,}",
                )


__all__ = ["MAX_HOSTS", "WEB_COMMON_KEYS", "WEB_KEYS", "WEB_KINDS", "WebTable"]
