"""Scenarios: one TOML file = a web, crawler options and host latencies.

A scenario is how a person asks crawlsim a what-if without writing Python,
so a mistake in one must come back as one clear line -- which file, which
key, what was expected, what was given -- never a traceback.  The CLI prints
``str(ScenarioError)`` and exits 2.

The smallest scenario::

    start = "http://a.com/"
    seed = 7
    [crawl]                      # any CrawlOptions field; CLI flags override
    workers = 4
    per_host = 1
    [hosts."a.com"]
    latency = 1.0                # or {model = "lognormal", median = 2.0, sigma = 0.5}
    [pages]                      # page URL -> links exactly as written
    "http://a.com/" = ["/x", "x#top", "http://b.com/"]

Beyond that: ``title``, ``description``, ``try`` (suggested experiments);
``[web]`` for a generated web (``kind = "site_tree"`` or ``"power_law"``) and
spelling variants; ``[[traps]]`` (``calendar``, ``session``); per host
``robots``, ``fail_rate``, ``fail_status``, ``dead_rate``, ``throttle`` and
``mirror_of``; ``[hosts."*"]`` for every host not named.  The full reference
is ``docs/reference/scenarios.md``.

Shipped scenarios are found by bare name (``load_scenario("see-it")``) in
``crawlsim/scenarios_data/`` and then in the source tree's ``scenarios/``.
The TOML files live in ``scenarios/``; ``crawlsim/scenarios_data`` is a
symlink to it, so a wheel build copies them into the package (they match the
``*.toml`` package-data rule) while a checkout or an editable install reads
them in place -- and still does if a platform drops the symlink.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from crawlsim.core.limits import BYTES_PER_HOST, BYTES_PER_PAGE, BYTES_PER_TRACED_PAGE, memory_budget, show_bytes
from crawlsim.core.options import CrawlOptions, OptionError, did_you_mean, option_from_value, option_names
from crawlsim.core.priorities import PRIORITIES
from crawlsim.cluster.config import ClusterConfigError, cluster_from_table
from crawlsim.errors import UsageError
from crawlsim.sim.compose import CombinedWeb, MirrorWeb
from crawlsim.sim.explicit import ExplicitWeb, PageSpec
from crawlsim.sim.generated import PowerLawWeb, SiteTreeWeb
from crawlsim.sim.latency import (
    DEFAULT_LATENCY,
    LatencyModel,
    LatencySpecError,
    LatencyTable,
    latency_from_spec,
    show_value,
)
from crawlsim.sim.policies import HostPolicies, HostPolicy, Throttle
from crawlsim.sim.traps import CalendarTrap, SessionTrap
from crawlsim.sim.variants import KINDS, Variants
from crawlsim.sim.web import Web, rfc3986_identity

DEFAULT_SCENARIO = "see-it"
"""The scenario every front end opens when none is named."""

TOP_KEYS = (
    "title", "description", "assumes", "try", "start", "seed", "crawl", "hosts", "pages", "web", "traps", "cluster",
    "client_cost",
)
HOST_KEYS = (
    "latency", "robots_latency", "robots", "fail_rate", "fail_status", "dead_rate", "throttle", "mirror_of", "pages",
)
THROTTLE_KEYS = ("status", "retry_after", "rate", "attempts", "every", "duration")
PAGE_KEYS = ("links", "content", "status", "headers", "latency", "before")
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
TRAP_KEYS: dict[str, tuple[str, ...]] = {
    "calendar": ("kind", "host", "prefix", "start", "linked_from"),
    "session": ("kind", "host", "prefix", "items", "linked_from"),
}
MAX_SECONDS = 86_400.0
"""Upper bound of any duration in a scenario file (a day): beyond it a
simulated crawl's clock and its printed figures stop meaning anything."""
MAX_ZIPF = 10.0
MAX_HOSTS = 10_000_000
"""A generated web's host count: its per-host arrays are built up front."""
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


class ScenarioError(UsageError):
    """A scenario cannot be loaded.  ``str()`` is the one line to show:
    ``file: key: message`` (``file: line N, column M: ...`` for TOML syntax)."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None, line: str | None = None):
        self.path = path
        self.key = key
        self.message = message
        super().__init__(": ".join(p for p in (path, line, key, message) if p))


def key_path(*parts: str | int) -> str:
    """Dotted TOML key for messages: ``hosts."b.com".latency.median``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = part if _BARE_KEY.fullmatch(part) else '"' + part.replace('"', '\\"') + '"'
            out += f".{text}" if out else text
    return out


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
    """The parsed TOML, kept for :meth:`reseeded` and for tools that display it."""
    size: WebSize = field(default_factory=lambda: WebSize(), repr=False, compare=False)
    """How big the web is, estimated before anything is crawled (see :meth:`warnings`)."""
    page_latency: Mapping[str, float] = field(default_factory=dict, repr=False, compare=False)
    """Page identity -> its own fetch time in seconds (a ``[pages]`` entry's
    ``latency``, as ``crawlsim model`` writes what a real crawl measured);
    it replaces the host's model for that page's fetches."""
    client_cost: float = 0.0
    """Seconds of the crawler's own work per response, one response at a time
    (``client_cost``, as ``crawlsim model`` writes what a real crawl's CPU
    cost; see :mod:`crawlsim.sim.client`); 0 when the file has none."""

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

    def reseeded(self, seed: int) -> Scenario:
        """The same scenario with another random seed (a different generated
        web; crawler jitter too unless the file fixes ``crawl.seed``)."""
        again = scenario_from_dict({**self.data, "seed": seed}, path=str(self.path or "<scenario>"), name=self.name)
        return replace(again, path=self.path, options=again.options.with_(**_changed(self.options, again.options)))


def _changed(mine: CrawlOptions, fresh: CrawlOptions) -> dict[str, Any]:
    """Options overridden after loading (so :meth:`Scenario.reseeded` keeps them)."""
    return {k: v for k, v in mine.as_mapping().items() if k != "seed" and v != getattr(fresh, k)}


# -- finding files -------------------------------------------------------------


def scenario_dirs() -> list[Path]:
    """Folders searched for shipped scenarios, in order: the package's
    ``scenarios_data`` (installed wheel), then the source tree's ``scenarios``."""
    here = Path(__file__).resolve().parent
    found: list[Path] = []
    for folder in (here / "scenarios_data", here.parent / "scenarios"):
        if folder.is_dir() and folder.resolve() not in found:
            found.append(folder.resolve())
    return found


def list_scenarios() -> list[str]:
    """Names of the shipped scenarios, sorted."""
    names = {p.stem for d in scenario_dirs() for p in d.glob("*.toml")}
    return sorted(names)


def find_scenario(name: str) -> Path:
    """Path of the shipped scenario ``name`` (``"see-it"`` or ``"see-it.toml"``)."""
    stem = name.removesuffix(".toml")
    for folder in scenario_dirs():
        candidate = folder / f"{stem}.toml"
        if candidate.is_file():
            return candidate
    shipped = list_scenarios()
    raise ScenarioError(
        f"no scenario file or shipped scenario named {show_value(name)}{did_you_mean(stem, shipped)}; "
        f"shipped: {', '.join(shipped) or 'none found'}"
    )


def load_scenario(path_or_name: str | os.PathLike[str] = DEFAULT_SCENARIO) -> Scenario:
    """Load a scenario file, or a shipped scenario by bare name.  A name
    that is not found is one :class:`ScenarioError` in the same words for
    every command (a file-like name lists the shipped scenarios too)."""
    given = os.fspath(path_or_name)
    path = Path(given)
    if not path.is_file():
        file_like = os.sep in given or "/" in given
        if not file_like:  # a bare name is a shipped scenario, even if a folder of that name is here
            try:
                path = find_scenario(given)
            except ScenarioError:
                if not given.endswith(".toml"):
                    raise
                file_like = True
        if file_like:
            what = "is a folder, not a scenario file" if path.is_dir() else "no such scenario file"
            raise ScenarioError(f"{what}; shipped scenarios: {', '.join(list_scenarios()) or 'none found'}", path=given)
        given = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ScenarioError(f"cannot read: {reason}", path=given) from None
    scenario = parse_scenario(text, path=given, name=path.stem)
    return replace(scenario, path=path)


def parse_scenario(text: str, path: str = "<scenario>", name: str | None = None) -> Scenario:
    """Parse scenario TOML text; ``path`` is only used in messages."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ScenarioError(
            "invalid TOML: arrays or tables nested too deeply (a scenario needs at most a few levels)", path=path
        ) from None
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        where = _TOML_POSITION.search(message)
        line = f"line {where[1]}, column {where[2]}" if where else None
        message = _TOML_POSITION.sub("", message)
        raise ScenarioError(f"invalid TOML: {message}", path=path, line=line) from None
    return scenario_from_dict(data, path=path, name=name)


def scenario_from_dict(data: Mapping[str, Any], path: str = "<scenario>", name: str | None = None) -> Scenario:
    """Build a scenario from already-parsed TOML (a notebook can pass a dict)."""
    return _Builder(path).build(data, name or Path(path).stem or "scenario")


# -- validation and building ---------------------------------------------------


class _Builder:
    """Checks one scenario's values and builds its parts; every complaint is
    a :class:`ScenarioError` naming the file and the dotted key."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.page_latency: dict[str, float] = {}
        self._trap_of: dict[str, int] = {}
        self._traps: list[tuple[str, str]] = []

    def fail(self, key: str, message: str) -> ScenarioError:
        return ScenarioError(message, path=self.path, key=key or None)

    # small checkers ------------------------------------------------------------

    def table(self, value: object, key: str, example: str = "") -> dict[str, Any]:
        if not isinstance(value, dict):
            hint = f" such as {example}" if example else ""
            raise self.fail(key, f"expected a table{hint}, got {show_value(value)}")
        return value

    def known(self, table: Mapping[str, Any], allowed: Sequence[str], *prefix: str | int) -> None:
        for k in table:
            if k not in allowed:
                raise self.fail(
                    key_path(*prefix, k),
                    f"unknown key{did_you_mean(k, allowed)}; expected one of {', '.join(allowed)}",
                )

    def number(
        self, value: object, key: str, *, minimum: float = 0.0, positive: bool = False, maximum: float = MAX_SECONDS
    ) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise self.fail(key, f"expected a number, got {show_value(value)}")
        if not math.isfinite(value):
            raise self.fail(key, f"expected a finite number, got {show_value(value)}")
        if value < minimum or (positive and value == minimum):
            raise self.fail(key, f"expected a number {'>' if positive else '>='} {minimum:g}, got {value!r}")
        if value > maximum:
            raise self.fail(key, f"expected a number <= {maximum:g}, got {value!r}")
        return float(value)

    def integer(self, value: object, key: str, *, minimum: int | None = 0, maximum: int | None = None) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 1e6 in a file means a million
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, got {show_value(value)}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"expected a whole number >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.fail(key, f"expected a whole number <= {maximum}, got {value!r}")
        return value

    def rate(self, value: object, key: str) -> float:
        rate = self.number(value, key)
        if rate > 1.0:
            raise self.fail(key, f"expected a rate between 0 and 1, got {value!r}")
        return rate

    def string(self, value: object, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {show_value(value)}")
        return value

    def strings(self, value: object, key: str) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of strings, got {show_value(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{i}]", f"expected a string, got {show_value(item)}")
        return list(value)

    def url(self, value: object, key: str) -> str:
        url = self.string(value, key)
        if rfc3986_identity(url) is None:
            raise self.fail(key, f'expected an absolute http(s) URL such as "http://a.com/", got {show_value(url)}')
        return url

    def status(self, value: object, key: str) -> int:
        return self.integer(value, key, minimum=100, maximum=599)

    def host(self, value: object, key: str) -> str:
        host = self.string(value, key).strip().lower()
        if not host or "/" in host or " " in host or "@" in host:
            raise self.fail(key, f'expected a host name such as "a.com", got {show_value(value)}')
        return host

    # the parts --------------------------------------------------------------------

    def build(self, data: Mapping[str, Any], name: str) -> Scenario:
        self.known(data, TOP_KEYS)
        title = self.string(data.get("title", name), "title")
        description = self.string(data.get("description", ""), "description")
        self.string(data.get("assumes", ""), "assumes")
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
        try:  # the [cluster] table: checked by its owner, crawlsim.cluster.config
            cluster_from_table(data.get("cluster"))
        except ClusterConfigError as err:
            raise self.fail(err.key, err.message) from None
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
            client_cost=self.number(data.get("client_cost", 0.0), "client_cost"),
        )

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

    def options(self, value: object, seed: int) -> CrawlOptions:
        """The [crawl] table, checked by the core's one set of rules
        (:data:`crawlsim.core.options.RULES`), with ``"none"`` for "no limit"
        as on the command line (``per_host = "none"``); this only adds the
        file's name."""
        crawl = self.table(value, "crawl", "{workers = 4}")
        known = option_names()
        values: dict[str, Any] = {}
        for k, v in crawl.items():
            if k not in known:
                raise self.fail(key_path("crawl", k), f"unknown crawler option{did_you_mean(k, known)}")
            try:
                values[k] = option_from_value(k, v)
            except OptionError as err:
                raise self.fail(f"crawl.{err.key}", err.message) from None
        if values.get("order") == "best" and values.get("priority") is None:
            names = ", ".join(f'"{n}"' for n in PRIORITIES)
            raise self.fail("crawl.order", f'order = "best" needs a priority function: add priority = one of {names}')
        if values.get("priority") is not None and values.get("order") != "best":
            raise self.fail("crawl.priority", 'a priority orders a best-first crawl only; add order = "best"')
        values.setdefault("seed", seed)
        try:
            return CrawlOptions.from_mapping(values)
        except OptionError as err:
            raise self.fail(f"crawl.{err.key}", err.message) from None

    def hosts(self, value: object, seed: int) -> tuple[LatencyTable, HostPolicies, list[tuple[str, str]]]:
        hosts = self.table(value, "hosts", '{"a.com" = {latency = 1.0}}')
        default_latency = DEFAULT_LATENCY
        latencies: dict[str, LatencyModel] = {}
        default_policy = HostPolicy()
        policies: dict[str, HostPolicy] = {}
        mirrors: list[tuple[str, str]] = []
        for raw, spec in hosts.items():
            host = raw.lower() if raw == "*" else self.host(raw, key_path("hosts", raw))
            spec = self.table(spec, key_path("hosts", raw), "{latency = 1.0}")
            self.known(spec, HOST_KEYS, "hosts", raw)
            if "latency" in spec:
                model = self.latency(spec["latency"], "hosts", raw, "latency")
                if host == "*":
                    default_latency = model
                else:
                    latencies[host] = model
            self.robots_latency(spec, host, raw)
            policy = self.policy(spec, raw)
            if host == "*":
                default_policy = policy
            elif policy != HostPolicy():
                policies[host] = policy
            if "mirror_of" in spec:
                key = key_path("hosts", raw, "mirror_of")
                if host == "*":
                    raise self.fail(key, 'every host cannot be a mirror; name the mirror host, e.g. [hosts."m.com"]')
                of = self.host(spec["mirror_of"], key)
                if of == host:
                    raise self.fail(key, f"a host cannot mirror itself, got {show_value(of)}")
                mirrors.append((host, of))
        return LatencyTable(default_latency, latencies), HostPolicies(default_policy, policies, seed), mirrors

    def robots_latency(self, spec: Mapping[str, Any], host: str, raw: str) -> None:
        """A host's measured robots.txt fetch time (``crawlsim model`` writes it), kept with the pages' own."""
        if "robots_latency" not in spec:
            return
        key = key_path("hosts", raw, "robots_latency")
        if host == "*":
            raise self.fail(key, 'a measured robots.txt time belongs to one host, e.g. [hosts."a.com"]')
        seconds = self.number(spec["robots_latency"], key)
        for scheme in ("http", "https"):
            self.page_latency[f"{scheme}://{host}/robots.txt"] = seconds

    def latency(self, value: object, *prefix: str) -> LatencyModel:
        try:
            return latency_from_spec(value)
        except LatencySpecError as err:
            raise self.fail(key_path(*prefix, *([err.key] if err.key else [])), err.message) from None

    def policy(self, spec: Mapping[str, Any], raw: str) -> HostPolicy:
        def key(*rest: str) -> str:
            return key_path("hosts", raw, *rest)

        robots = spec.get("robots")
        if robots is not None:
            robots = self.string(robots, key("robots"))
        throttle = None
        if "throttle" in spec:
            t = self.table(spec["throttle"], key("throttle"), "{status = 429, retry_after = 2, rate = 0.3}")
            self.known(t, THROTTLE_KEYS, "hosts", raw, "throttle")
            retry_after = t.get("retry_after", 1.0)
            every = t.get("every")
            throttle = Throttle(
                status=self.status(t.get("status", 429), key("throttle", "status")),
                retry_after=self.number(retry_after, key("throttle", "retry_after")),
                rate=self.rate(t.get("rate", 0.0), key("throttle", "rate")),
                attempts=self.integer(t.get("attempts", 1), key("throttle", "attempts"), minimum=1),
                every=None if every is None else self.number(every, key("throttle", "every"), positive=True),
                duration=self.number(t.get("duration", 0.0), key("throttle", "duration")),
            )
            if not throttle.rate and not throttle.every:
                raise self.fail(
                    key("throttle"), "expected rate (a share of pages) or every and duration (bursts in time)"
                )
        return HostPolicy(
            robots=robots,
            fail_rate=self.rate(spec.get("fail_rate", 0.0), key("fail_rate")),
            fail_status=self.status(spec.get("fail_status", 503), key("fail_status")),
            dead_rate=self.rate(spec.get("dead_rate", 0.0), key("dead_rate")),
            throttle=throttle,
        )

    def pages(self, value: object) -> ExplicitWeb:
        pages = self.table(value, "pages", '{"http://a.com/" = ["/x"]}')
        specs: dict[str, PageSpec] = {}
        first_spelling: dict[str, str] = {}
        for url, spec in pages.items():
            key = key_path("pages", url)
            ident = rfc3986_identity(url)
            if ident is None:
                raise self.fail(
                    key, f'expected pages keyed by absolute http(s) URLs such as "http://a.com/", got {show_value(url)}'
                )
            if ident in first_spelling:
                raise self.fail(key, f"same page as {show_value(first_spelling[ident])} ({ident}); list each page once")
            first_spelling[ident] = url
            if isinstance(spec, list):
                specs[url] = PageSpec(tuple(self.strings(spec, key)))
            elif isinstance(spec, dict):
                self.known(spec, PAGE_KEYS, "pages", url)
                headers = self.table(spec.get("headers", {}), key_path("pages", url, "headers"))
                for name, text in headers.items():
                    self.string(text, key_path("pages", url, "headers", name))
                content = spec.get("content")
                if "latency" in spec:
                    self.page_latency[ident] = self.number(spec["latency"], key_path("pages", url, "latency"))
                specs[url] = PageSpec(
                    links=tuple(self.strings(spec.get("links", []), key_path("pages", url, "links"))),
                    content=None if content is None else self.string(content, key_path("pages", url, "content")),
                    status=self.status(spec.get("status", 200), key_path("pages", url, "status")),
                    headers=dict(headers),
                    before=self.earlier_answers(spec.get("before", []), "pages", url, "before"),
                )
            else:
                raise self.fail(
                    key,
                    f"expected a list of links as written, or a table {{links = [...], status = 404}}; got {show_value(spec)}",
                )
        return ExplicitWeb(specs)

    def earlier_answers(self, value: object, *prefix: str) -> tuple[tuple[int, dict[str, str]], ...]:
        """``pages.URL.before``: the page's answers to its first attempts, in order."""
        if not isinstance(value, list):
            raise self.fail(key_path(*prefix), 'expected a list such as [{status = 429, headers = '
                                               f'{{"Retry-After" = "1"}}}}], got {show_value(value)}')
        answers = []
        for i, answer in enumerate(value):
            entry = self.table(answer, key_path(*prefix, i))
            self.known(entry, ("status", "headers"), *prefix, i)
            headers = self.table(entry.get("headers", {}), key_path(*prefix, i, "headers"))
            answers.append((self.status(entry.get("status"), key_path(*prefix, i, "status")),
                            {name: self.string(text, key_path(*prefix, i, "headers", name))
                             for name, text in headers.items()}))
        return tuple(answers)

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

    def traps(self, value: object, seed: int) -> tuple[list[Web], dict[str, list[str]]]:
        """The traps, and the links that lead into them by page (``linked_from``)."""
        if not isinstance(value, list):
            raise self.fail("traps", f"expected [[traps]] tables (a list), got {show_value(value)}")
        traps: list[Web] = []
        entries: dict[str, list[str]] = {}
        for i, spec in enumerate(value):
            where = f"traps[{i}]"
            spec = self.table(spec, where, '{kind = "calendar", host = "a.com"}')
            kind = spec.get("kind")
            if kind not in TRAP_KEYS:
                hint = did_you_mean(kind, TRAP_KEYS) if isinstance(kind, str) else ""
                raise self.fail(
                    f"{where}.kind", f"expected one of {', '.join(TRAP_KEYS)}; got {show_value(kind)}{hint}"
                )
            self.known(spec, TRAP_KEYS[kind], "traps", i)
            host = self.host(spec.get("host", "a.com"), f"{where}.host")
            prefix = self.string(spec.get("prefix", "/cal/" if kind == "calendar" else "/shop"), f"{where}.prefix")
            if not prefix.startswith("/") or prefix.strip("/") == "":
                raise self.fail(f"{where}.prefix", f'expected a path such as "/cal/", got {show_value(prefix)}')
            trap: CalendarTrap | SessionTrap
            if kind == "calendar":
                trap = CalendarTrap(host, prefix, self.day(spec.get("start", date(2024, 1, 1)), f"{where}.start"))
            else:
                items = self.integer(spec.get("items", 5), f"{where}.items", minimum=1, maximum=10_000)
                trap = SessionTrap(host, prefix, items, seed=seed)
            linked_from = self.url(spec.get("linked_from", f"http://{host}/"), f"{where}.linked_from")
            entries.setdefault(linked_from, []).append(trap.entry)
            self._traps.append((where, kind))
            self._trap_of.setdefault(linked_from, i)
            traps.append(trap)
        return traps, entries

    def day(self, value: object, key: str) -> date:
        if isinstance(value, date):
            return value
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        raise self.fail(key, f"expected a date such as 2024-01-01, got {show_value(value)}")

    def combine(self, parts: list[Web], entries: dict[str, list[str]]) -> Web:
        if len(parts) == 1 and not entries:
            return parts[0]
        probe = CombinedWeb(parts)
        for url, i in self._trap_of.items():
            loc = probe._locate(url)
            if loc is None or loc[2] is None:
                raise self.fail(
                    f"traps[{i}].linked_from",
                    f"no page {show_value(url)} in this web to link the trap from; name one of its pages",
                )
        return CombinedWeb(parts, entries)


__all__ = [
    "DEFAULT_SCENARIO",
    "Scenario",
    "ScenarioError",
    "WebSize",
    "find_scenario",
    "key_path",
    "list_scenarios",
    "load_scenario",
    "parse_scenario",
    "scenario_dirs",
    "scenario_from_dict",
]
