"""The ``[hosts]`` tables: each host's latency, robots.txt, failures, throttling and mirrors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crawlsim.scenario.checks import Checks, key_path
from crawlsim.sim.latency import DEFAULT_LATENCY, LatencyModel, LatencyTable, show_value
from crawlsim.sim.policies import HostPolicies, HostPolicy, Throttle


HOST_KEYS = (
    "latency", "robots_latency", "robots", "fail_rate", "fail_status", "dead_rate", "throttle", "mirror_of", "pages",
    "contention",
)
THROTTLE_KEYS = ("status", "retry_after", "rate", "attempts", "every", "duration")

class HostsTable(Checks):
    """``[hosts."NAME"]`` -> the latency table, the host policies and the mirrors."""

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
            self.contention(spec, host, raw)
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

    def contention(self, spec: Mapping[str, Any], host: str, raw: str) -> None:
        """How much a host's fetches slow down while others to it are in flight (``crawlsim model``
        learns it from a recording): a fetch that starts with ``k`` others in flight to the host
        takes ``1 + contention * k`` times its latency -- a server sharing its bandwidth or its
        CPU between connections."""
        if "contention" not in spec:
            return
        key = key_path("hosts", raw, "contention")
        if host == "*":
            raise self.fail(key, 'a learnt contention belongs to one host, e.g. [hosts."a.com"]')
        self.host_contention[host] = self.number(spec["contention"], key, maximum=100.0)

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


__all__ = ["HOST_KEYS", "THROTTLE_KEYS", "HostsTable"]
