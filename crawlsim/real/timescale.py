"""Scale a scenario's clock: the same web, every duration multiplied by one factor.

A scenario written for teaching has one-second latencies; served for real,
a crawl of it would take minutes.  ``scale_scenario(s, 0.05)`` turns 1 s
into 50 ms *everywhere a duration appears* -- host latencies, robots.txt
``Crawl-delay``, throttle ``retry_after``/``every``/``duration``, numeric
``Retry-After`` headers written on pages, and the crawler's ``gap``,
backoff and ``max_crawl_delay``, and each per-second rate (a token
bucket's ``rate``) divided by it -- so the scaled crawl is the original
crawl played faster, and simulating the scaled scenario predicts what
serving it does.  Scaling is done on the parsed TOML (``scenario.data``)
and the result re-validated by the normal loader, so a scaled scenario is
an ordinary scenario.

One thing does not scale: the simulated web rounds a throttle's
``Retry-After`` up to whole seconds (as real servers send it), so a
throttled host waits at least 1 s in both the simulation and the served
web.  Both sides agree, which is what a fidelity comparison needs.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from typing import Any

from crawlsim.core.options import RULES
from crawlsim.scenario import Scenario, ScenarioError
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.latency import DEFAULT_LATENCY

TIME_OPTIONS = ("gap", "backoff_base", "backoff_max", "max_crawl_delay")
"""Crawler options measured in seconds (scaled with the web)."""
RATE_OPTIONS = tuple(key for key, rule in RULES.items() if rule.unit.endswith(" a second"))
"""Crawler options counted per second (divided by the factor), as their rules say."""

_CRAWL_DELAY = re.compile(r"^(\s*crawl-delay\s*:\s*)([0-9]*\.?[0-9]+)", re.IGNORECASE | re.MULTILINE)
_DEFAULTS = {"backoff_base": 1.0, "backoff_max": 60.0, "max_crawl_delay": 10.0}


def scale_latency_spec(spec: Any, factor: float) -> Any:
    """A latency spec (number or model table) with its durations scaled."""
    if isinstance(spec, bool):
        return spec
    if isinstance(spec, (int, float)):
        return spec * factor
    if isinstance(spec, Mapping):
        out = dict(spec)
        for key in ("value", "low", "high", "median"):
            if isinstance(out.get(key), (int, float)) and not isinstance(out.get(key), bool):
                out[key] = out[key] * factor
        return out  # sigma is a shape, not a duration
    return spec


def scale_robots(text: str, factor: float) -> str:
    """robots.txt with every ``Crawl-delay`` value scaled."""
    return _CRAWL_DELAY.sub(lambda m: f"{m[1]}{_fmt(float(m[2]) * factor)}", text)


def scale_data(data: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """The parsed TOML of a scenario with every duration scaled by ``factor``."""
    if not (isinstance(factor, (int, float)) and math.isfinite(factor) and factor > 0):
        raise ScenarioError(f"expected a time scale > 0, got {factor!r}", key="time_scale")
    out = copy.deepcopy(dict(data))
    hosts = out.setdefault("hosts", {})
    if isinstance(hosts, dict):
        _scale_hosts(hosts, factor)
    pages = out.get("pages")
    if isinstance(pages, dict):
        for spec in pages.values():
            headers = spec.get("headers") if isinstance(spec, dict) else None
            if isinstance(headers, dict):
                _scale_retry_after(headers, factor)
    crawl = out.setdefault("crawl", {})
    if isinstance(crawl, dict):
        _scale_crawl(crawl, factor)
    return out


def _scale_hosts(hosts: dict[str, Any], factor: float) -> None:
    """Scale each ``[hosts]`` entry in place.  The ``"*"`` entry gets the
    default latency written out first: an unwritten default would otherwise
    stay unscaled."""
    star = hosts.setdefault("*", {})
    if isinstance(star, dict) and "latency" not in star:
        star["latency"] = DEFAULT_LATENCY.to_spec()
    for spec in hosts.values():
        if isinstance(spec, dict):
            _scale_host(spec, factor)


def _scale_host(spec: dict[str, Any], factor: float) -> None:
    """One host's latency, robots.txt Crawl-delay and throttle timings, in place."""
    if "latency" in spec:
        spec["latency"] = scale_latency_spec(spec["latency"], factor)
    if isinstance(spec.get("robots"), str):
        spec["robots"] = scale_robots(spec["robots"], factor)
    throttle = spec.get("throttle")
    if isinstance(throttle, dict):
        for key in ("retry_after", "every", "duration"):
            if _is_number(throttle.get(key)):
                throttle[key] = throttle[key] * factor


def _scale_retry_after(headers: dict[str, Any], factor: float) -> None:
    """A page's numeric ``Retry-After`` header (seconds), in place; an HTTP date is left alone."""
    for name, value in headers.items():
        if name.lower() == "retry-after" and isinstance(value, str) and _is_float(value):
            headers[name] = _fmt(float(value) * factor)


def _scale_crawl(crawl: dict[str, Any], factor: float) -> None:
    """The crawler's durations, in place; those left at their default are
    written out scaled (the default itself does not scale)."""
    for key in TIME_OPTIONS:
        value = crawl.get(key, _DEFAULTS.get(key))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            crawl[key] = value * factor
    for key in RATE_OPTIONS:
        value = crawl.get(key)
        if _is_number(value):
            crawl[key] = value / factor


def scale_scenario(scenario: Scenario, factor: float) -> Scenario:
    """``scenario`` with its clock scaled (see the module docstring).

    Options overridden after loading (``with_options``) are kept, their
    durations scaled too.
    """
    if factor == 1:
        return scenario
    fresh = scenario_from_dict(
        scale_data(scenario.data, factor), path=str(scenario.path or "<scenario>"), name=scenario.name
    )
    base = scenario_from_dict(dict(scenario.data), path=str(scenario.path or "<scenario>"), name=scenario.name)
    changed = {k: v for k, v in scenario.options.as_mapping().items() if v != getattr(base.options, k)}
    for key in TIME_OPTIONS:
        if key in changed:
            changed[key] = changed[key] * factor
    for key in RATE_OPTIONS:
        if _is_number(changed.get(key)):
            changed[key] = changed[key] / factor
    return fresh.with_options(**changed) if changed else fresh


def scale_options(options: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """Crawler option overrides with their durations (and rates) scaled."""
    scaled = {k: (v * factor if k in TIME_OPTIONS and _is_number(v) else v) for k, v in options.items()}
    return {k: (v / factor if k in RATE_OPTIONS and _is_number(v) else v) for k, v in scaled.items()}


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _fmt(value: float) -> str:
    return f"{value:.6g}"


__all__ = ["TIME_OPTIONS", "scale_data", "scale_latency_spec", "scale_options", "scale_robots", "scale_scenario"]
