"""How each simulated host behaves, apart from its pages: robots.txt,
failures and throttling.

These are kept apart from the link structure so that any web (explicit,
tree, power-law, trap) can be given the same server behaviour, and so that a
web with no policies pays nothing for them on the hot path.

Every draw is a hash of (seed, page, attempt): the same scenario fails the
same fetches on every run, and a retry (a higher ``attempt``) gets a fresh,
independent draw, so retries can succeed.  Attempts count from 1, as the
scheduler's ``Fetch.attempt`` does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from crawlsim.sim.hashing import mix64, salt_of, stable_hash, unit

NO_HEADERS: Mapping[str, str] = MappingProxyType({})
"""Shared, read-only empty headers (one object for millions of responses)."""


@dataclass(frozen=True)
class Throttle:
    """A host that answers "slow down" (429 or 503) with ``Retry-After``.

    Two shapes, usable together:

    * per page: a fraction ``rate`` of pages is refused on attempts 1 ..
      ``attempts`` (so a crawler that retries gets through);
    * in time: a burst starts every ``every`` seconds and lasts ``duration``;
      any request in a burst is refused, with ``Retry-After`` set to the rest
      of the burst.  Needs the driver to pass ``now``.
    """

    status: int = 429
    retry_after: float | None = 1.0
    """Seconds sent in ``Retry-After`` for per-page refusals; ``None`` sends none."""
    rate: float = 0.0
    attempts: int = 1
    every: float | None = None
    duration: float = 0.0


@dataclass(frozen=True)
class HostPolicy:
    """One host's server behaviour.  The defaults describe a perfect server
    with no robots.txt (a 404, which means everything is allowed)."""

    robots: str | None = None
    """robots.txt text; ``None`` means the file is missing (404)."""
    fail_rate: float = 0.0
    """Chance that any one attempt fails with ``fail_status`` (transient)."""
    fail_status: int = 503
    dead_rate: float = 0.0
    """Fraction of pages that are permanently 404 (dead links)."""
    throttle: Throttle | None = None

    @property
    def active(self) -> bool:
        """Whether this host can ever answer anything but 200."""
        return bool(self.fail_rate or self.dead_rate or self.throttle)


@dataclass(frozen=True)
class HostPolicies:
    """Policies by lowercase host (``"a.com"``, or ``"a.com:8080"``), with a
    default that applies to every other host."""

    default: HostPolicy = field(default_factory=HostPolicy)
    hosts: Mapping[str, HostPolicy] = field(default_factory=dict)
    seed: int = 0
    active: bool = field(init=False, repr=False, compare=False)
    """Whether any host can answer anything but 200 (else responses skip the checks)."""
    _salt: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        active = self.default.active or any(p.active for p in self.hosts.values())
        object.__setattr__(self, "active", active)
        object.__setattr__(self, "_salt", salt_of(self.seed, "policies"))

    def for_host(self, host: str) -> HostPolicy:
        return self.hosts.get(host, self.default)

    def robots(self, host: str) -> str | None:
        """robots.txt text for ``host``, or ``None`` for a 404."""
        return self.for_host(host.lower()).robots

    def verdict(self, host: str, page: str, attempt: int, now: float | None) -> tuple[int, Mapping[str, str]] | None:
        """A non-200 answer for this attempt at ``page``, or ``None`` to serve it.

        ``attempt`` is 1 for the first try of a URL, 2 for its first retry...
        """
        policy = self.hosts.get(host, self.default)
        if not policy.active:
            return None
        salt = self._salt
        h = stable_hash(page, salt)
        if policy.dead_rate and unit(mix64(h ^ 0xDEAD)) < policy.dead_rate:
            return 404, NO_HEADERS
        throttle = policy.throttle
        if throttle is not None:
            if throttle.every and throttle.duration > 0 and now is not None:
                phase = unit(stable_hash(host, salt)) * throttle.every
                into = (now + phase) % throttle.every
                if into < throttle.duration:
                    wait = max(1, math.ceil(throttle.duration - into))
                    return throttle.status, MappingProxyType({"Retry-After": str(wait)})
            if throttle.rate and attempt <= throttle.attempts and unit(mix64(h ^ 0x7A7E)) < throttle.rate:
                headers = NO_HEADERS
                if throttle.retry_after is not None:
                    headers = MappingProxyType({"Retry-After": str(max(0, math.ceil(throttle.retry_after)))})
                return throttle.status, headers
        if policy.fail_rate and unit(mix64(h ^ (attempt * 0x9E37 + 0xFA11))) < policy.fail_rate:
            return policy.fail_status, NO_HEADERS
        return None


__all__ = ["NO_HEADERS", "HostPolicies", "HostPolicy", "Throttle"]
