"""The ``[cluster]`` table of a scenario and the ``--nodes``/``--partition``
flags: how many crawler nodes, how URLs are split between them, and what a
message between two nodes costs.

::

    [cluster]
    nodes = 4
    partition = "host-hash"      # consistent-hash | url-hash | round-robin
    link_latency = 0.01          # seconds per message, or a latency table
    batch = 16                   # URLs per message (a full batch is sent at once)
    flush = 0.05                 # seconds a node waits to fill a batch
    vnodes = 64                  # virtual nodes per node on the consistent-hash ring

Every value is checked here once; a mistake is a :class:`ClusterConfigError`
naming the key and what was expected (the scenario loader adds the file).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crawlsim.core.options import did_you_mean, show_value
from crawlsim.sim.latency import Fixed, LatencyModel, LatencySpecError, latency_from_spec

PARTITIONS = ("host-hash", "consistent-hash", "url-hash", "round-robin")
KEYS = ("nodes", "partition", "link_latency", "batch", "flush", "vnodes")
MAX_NODES = 1024
"""A simulated cluster's size: each node is a scheduler and a SimPy lane set."""
MAX_BATCH = 1_000_000
MAX_VNODES = 10_000
MAX_SECONDS = 86_400.0
DEFAULT_LINK_LATENCY = 0.005
"""Seconds per message between two nodes of one data centre (a few ms)."""


class ClusterConfigError(ValueError):
    """A bad ``[cluster]`` value: ``key`` is the dotted key, ``message`` what was expected."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class ClusterConfig:
    """A checked cluster description (``nodes = 1``: today's single process)."""

    nodes: int = 1
    partition: str = "host-hash"
    link_latency: LatencyModel = field(default_factory=lambda: Fixed(DEFAULT_LINK_LATENCY))
    batch: int = 1
    """URLs per message: a node sends as soon as it holds this many for one peer."""
    flush: float = 0.0
    """Seconds a node holds a part-filled batch before sending it (0: at once)."""
    vnodes: int = 64

    def with_(self, **changes: Any) -> ClusterConfig:
        """A copy with ``changes`` applied, each checked as in a file."""
        table = {k: getattr(self, k) for k in KEYS}
        table["link_latency"] = self.link_latency.to_spec()
        table.update(changes)
        return cluster_from_table(table)


def _integer(table: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ClusterConfigError(f"cluster.{key}", f"expected a whole number {low:,}-{high:,}, got {show_value(value)}")
    return value


def _seconds(table: Mapping[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or not 0 <= value <= MAX_SECONDS:
        raise ClusterConfigError(f"cluster.{key}", f"expected seconds 0-{MAX_SECONDS:,.0f}, got {show_value(value)}")
    return float(value)


def cluster_from_table(table: object) -> ClusterConfig:
    """Check a ``[cluster]`` table (already parsed TOML, or ``None``)."""
    if table is None:
        return ClusterConfig()
    if not isinstance(table, Mapping):
        raise ClusterConfigError("cluster", f"expected a table such as {{nodes = 4}}, got {show_value(table)}")
    for key in table:
        if key not in KEYS:
            hint = did_you_mean(str(key), KEYS)
            raise ClusterConfigError(f"cluster.{key}", f"unknown key{hint}; expected one of {', '.join(KEYS)}")
    partition = table.get("partition", "host-hash")
    if partition not in PARTITIONS:
        hint = did_you_mean(str(partition), PARTITIONS)
        raise ClusterConfigError("cluster.partition", f"expected {' | '.join(PARTITIONS)}, got {show_value(partition)}{hint}")
    try:
        latency = latency_from_spec(table.get("link_latency", DEFAULT_LINK_LATENCY))
    except LatencySpecError as err:
        key = "cluster.link_latency" + (f".{err.key}" if err.key else "")
        raise ClusterConfigError(key, err.message) from None
    return ClusterConfig(
        nodes=_integer(table, "nodes", 1, 1, MAX_NODES),
        partition=partition,
        link_latency=latency,
        batch=_integer(table, "batch", 1, 1, MAX_BATCH),
        flush=_seconds(table, "flush", 0.0),
        vnodes=_integer(table, "vnodes", 64, 1, MAX_VNODES),
    )


def apply_flags(config: ClusterConfig, nodes: object = None, partition: object = None) -> ClusterConfig:
    """``config`` with the ``--nodes``/``--partition`` flags (text or None) applied,
    checked with the file's words."""
    changes: dict[str, Any] = {}
    if nodes is not None:
        text = str(nodes).strip()
        if not text.isdigit():
            raise ClusterConfigError("--nodes", f"expected a whole number 1-{MAX_NODES:,}, got {show_value(nodes)}")
        changes["nodes"] = int(text)
    if partition is not None:
        changes["partition"] = partition
    try:
        return config.with_(**changes) if changes else config
    except ClusterConfigError as err:
        flag = err.key.replace("cluster.", "--")
        raise ClusterConfigError(flag if flag.removeprefix("--") in changes else err.key, err.message) from None


__all__ = ["PARTITIONS", "ClusterConfig", "ClusterConfigError", "apply_flags", "cluster_from_table"]
