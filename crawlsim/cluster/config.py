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
    fail = [{node = 2, at = 30.0, recover = 60.0}]   # node 2 dies at 30 s (recover: optional)
    checkpoint = 10.0            # each node saves its state every 10 s; a recovering node resumes from it

Every value is checked here once; a mistake is a :class:`ClusterConfigError`
naming the key and what was expected (the scenario loader adds the file).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crawlsim.core.options import MAX_SETTING_SECONDS, did_you_mean, show_value
from crawlsim.errors import UsageError
from crawlsim.sim.latency import Fixed, LatencyModel, LatencySpecError, latency_from_spec
from crawlsim.trace.cluster import MAX_NODES

PARTITIONS = ("host-hash", "consistent-hash", "url-hash", "round-robin")
KEYS = ("nodes", "partition", "link_latency", "batch", "flush", "vnodes", "fail", "checkpoint")
FAIL_KEYS = ("node", "at", "recover")
MAX_BATCH = 1_000_000
MAX_VNODES = 10_000
DEFAULT_LINK_LATENCY = 0.005
"""Seconds per message between two nodes of one data centre (a few ms)."""


class ClusterConfigError(UsageError):
    """A bad ``[cluster]`` value: ``key`` is the dotted key, ``message`` what was expected."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Failure:
    """Node ``node`` stops at ``at`` seconds; it comes back at ``recover`` (None: never)."""

    node: int
    at: float
    recover: float | None = None

    def as_table(self) -> dict[str, Any]:
        table: dict[str, Any] = {"node": self.node, "at": self.at}
        if self.recover is not None:
            table["recover"] = self.recover
        return table


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
    fail: tuple[Failure, ...] = ()
    checkpoint: float | None = None
    """Seconds between each node's saves of its scheduler (None: no saves)."""

    def with_(self, **changes: Any) -> ClusterConfig:
        """A copy with ``changes`` applied, each checked as in a file."""
        table = {k: getattr(self, k) for k in KEYS if k not in ("fail", "checkpoint")}
        table["link_latency"] = self.link_latency.to_spec()
        table["fail"] = [f.as_table() for f in self.fail]
        if self.checkpoint is not None:
            table["checkpoint"] = self.checkpoint
        table.update(changes)
        return cluster_from_table(table)


def _integer(table: Mapping[str, Any], key: str, default: int, low: int, high: int, where: str = "cluster") -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ClusterConfigError(f"{where}.{key}", f"expected a whole number {low:,}-{high:,}, got {show_value(value)}")
    return value


def _seconds(table: Mapping[str, Any], key: str, default: float, where: str = "cluster") -> float:
    value = table.get(key, default)
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not ok or not 0 <= value <= MAX_SETTING_SECONDS:
        raise ClusterConfigError(
            f"{where}.{key}", f"expected seconds 0-{MAX_SETTING_SECONDS:,.0f}, got {show_value(value)}"
        )
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
    nodes = _integer(table, "nodes", 1, 1, MAX_NODES)
    checkpoint = None
    if "checkpoint" in table:
        checkpoint = _seconds(table, "checkpoint", 0.0)
        if checkpoint <= 0:
            raise ClusterConfigError("cluster.checkpoint", "expected seconds between saves, above 0")
    return ClusterConfig(
        nodes=nodes,
        fail=_failures(table.get("fail", []), nodes),
        checkpoint=checkpoint,
        partition=partition,
        link_latency=latency,
        batch=_integer(table, "batch", 1, 1, MAX_BATCH),
        flush=_seconds(table, "flush", 0.0),
        vnodes=_integer(table, "vnodes", 64, 1, MAX_VNODES),
    )


def _failures(value: object, nodes: int) -> tuple[Failure, ...]:
    """The ``fail`` list: each node at most once, never node 0 (it runs the
    termination detector), ``recover`` after ``at``."""
    if not isinstance(value, list):
        raise ClusterConfigError("cluster.fail", f"expected a list such as [{{node = 1, at = 30.0}}], got {show_value(value)}")
    out: list[Failure] = []
    for i, item in enumerate(value):
        failure = _failure(item, f"cluster.fail[{i}]", nodes)
        if any(f.node == failure.node for f in out):
            raise ClusterConfigError(f"cluster.fail[{i}].node", f"node {failure.node} already fails once; each node may fail once")
        out.append(failure)
    return tuple(out)


def _failure(item: object, key: str, nodes: int) -> Failure:
    """One ``{node, at, recover}`` table of the ``fail`` list, checked."""
    if not isinstance(item, Mapping):
        raise ClusterConfigError(key, f"expected a table such as {{node = 1, at = 30.0}}, got {show_value(item)}")
    for name in item:
        if name not in FAIL_KEYS:
            raise ClusterConfigError(f"{key}.{name}", f"unknown key; expected one of {', '.join(FAIL_KEYS)}")
    if "node" not in item or "at" not in item:
        raise ClusterConfigError(key, "expected both node and at")
    if nodes < 2:
        raise ClusterConfigError(f"{key}.node", "a failure needs a cluster of at least 2 nodes (cluster.nodes)")
    if item["node"] == 0 and not isinstance(item["node"], bool):
        raise ClusterConfigError(f"{key}.node", "node 0 runs the termination detector and cannot fail; choose 1 or above")
    node = _integer(item, "node", 1, 1, nodes - 1, key)
    at = _seconds(item, "at", 0.0, key)
    recover = _seconds(item, "recover", 0.0, key) if "recover" in item else None
    if recover is not None and recover <= at:
        raise ClusterConfigError(f"{key}.recover", f"expected a time after at = {at:g}, got {show_value(item['recover'])}")
    return Failure(node, at, recover)


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


__all__ = ["PARTITIONS", "ClusterConfig", "Failure", "ClusterConfigError", "apply_flags", "cluster_from_table"]
