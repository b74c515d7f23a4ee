"""Simulation side of crawlsim: synthetic webs and latency models.

Everything here is deterministic from a seed and lazy: a web computes a
page's links when asked, so its size costs nothing until crawled.  The SimPy
driver, bounds and metrics live in sibling modules and import these names;
they take a :class:`SimInput` (what a simulation needs), never a scenario.
"""

from crawlsim.sim.compose import CombinedWeb, MirrorWeb
from crawlsim.sim.explicit import ExplicitWeb, PageSpec
from crawlsim.sim.generated import PowerLawWeb, SiteTreeWeb
from crawlsim.sim.inputs import SimInput
from crawlsim.sim.latency import (
    DEFAULT_LATENCY,
    Fixed,
    LatencyModel,
    LatencySpecError,
    LatencyTable,
    LogNormal,
    Uniform,
    latency_from_spec,
)
from crawlsim.sim.policies import HostPolicies, HostPolicy, Throttle
from crawlsim.sim.text import content_text
from crawlsim.sim.traps import CalendarTrap, SessionTrap
from crawlsim.sim.variants import KINDS as VARIANT_KINDS
from crawlsim.sim.variants import Variants, spell
from crawlsim.sim.web import Response, Web, loose_identity, rfc3986_identity

__all__ = [
    "DEFAULT_LATENCY",
    "VARIANT_KINDS",
    "CalendarTrap",
    "CombinedWeb",
    "ExplicitWeb",
    "Fixed",
    "HostPolicies",
    "HostPolicy",
    "LatencyModel",
    "LatencySpecError",
    "LatencyTable",
    "LogNormal",
    "MirrorWeb",
    "PageSpec",
    "PowerLawWeb",
    "Response",
    "SessionTrap",
    "SimInput",
    "SiteTreeWeb",
    "Throttle",
    "Uniform",
    "Variants",
    "Web",
    "content_text",
    "latency_from_spec",
    "loose_identity",
    "rfc3986_identity",
    "spell",
]
