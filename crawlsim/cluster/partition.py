"""Who owns a URL: the node whose scheduler admits, deduplicates and fetches it.

* ``host-hash``: ``hash(host) mod N``.  Every URL of a host lives on one
  node, so that node's scheduler enforces the host's ``per_host`` and
  ``gap`` alone -- politeness holds across the cluster.  Losing a node
  rehashes ``mod N - 1``: most hosts move.
* ``consistent-hash``: each node has ``vnodes`` points on a hash ring; a
  host belongs to the first point at or after its hash.  Also whole hosts
  per node; losing a node moves only that node's hosts (to its ring
  successors).
* ``url-hash``: ``hash(url) mod N``.  Even load whatever the host sizes, but
  one host's pages are spread over every node, each with its own per-host
  limit and gap: politeness is broken across the cluster.
* ``round-robin``: hosts are dealt to nodes in the order they are first
  seen (a shared directory, as a coordinator would keep); whole hosts.

Hashes are :func:`crawlsim.sim.hashing.stable_hash` (the same in every
process), so a partition is reproducible.  ``alive`` lists the nodes that
own anything: a failed node is taken out (see :meth:`Partition.without`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from crawlsim.core.urls import host_key
from crawlsim.sim.hashing import salt_of, stable_hash

_SALT = salt_of(0, "cluster-partition")


class Partition:
    """``owner(url)`` -> node index.  Whole-host partitions cache the
    owner per host (one dict lookup per link after the first)."""

    by_host = True

    def __init__(self, nodes: int, alive: Sequence[int] | None = None) -> None:
        self.nodes = nodes
        self.alive = list(range(nodes)) if alive is None else list(alive)
        self._owner_of_host: dict[str, int] = {}

    def owner(self, url: str) -> int:
        host = host_key(url)
        owner = self._owner_of_host.get(host)
        if owner is None:
            owner = self._owner_of_host[host] = self.host_owner(host)
        return owner

    def host_owner(self, host: str) -> int:
        raise NotImplementedError

    def without(self, node: int) -> Partition:
        """The partition after ``node`` failed (its share reassigned)."""
        return self.with_alive([n for n in self.alive if n != node])

    def with_alive(self, alive: Sequence[int]) -> Partition:
        """The same kind of partition over the nodes ``alive``."""
        return type(self)(self.nodes, sorted(alive))


class HostHash(Partition):
    def host_owner(self, host: str) -> int:
        return self.alive[stable_hash(host, _SALT) % len(self.alive)]


class UrlHash(Partition):
    by_host = False

    def owner(self, url: str) -> int:
        return self.alive[stable_hash(url, _SALT) % len(self.alive)]

    def host_owner(self, host: str) -> int:  # pragma: no cover - not by host
        raise TypeError("url-hash owns URLs, not hosts")


class ConsistentHash(Partition):
    """A ring of ``vnodes`` points per node; a host goes to the first point
    clockwise from its hash.  Removing a node removes only its points, so
    only its hosts move."""

    def __init__(self, nodes: int, alive: Sequence[int] | None = None, vnodes: int = 64) -> None:
        super().__init__(nodes, alive)
        self.vnodes = vnodes
        ring = sorted((stable_hash(f"node-{n}#{v}", _SALT), n) for n in self.alive for v in range(vnodes))
        self._points = [p for p, _ in ring]
        self._owners = [n for _, n in ring]

    def host_owner(self, host: str) -> int:
        i = bisect_left(self._points, stable_hash(host, _SALT))
        return self._owners[i % len(self._owners)]

    def with_alive(self, alive: Sequence[int]) -> Partition:
        return ConsistentHash(self.nodes, sorted(alive), self.vnodes)


class RoundRobin(Partition):
    """Hosts dealt to the live nodes in the order first seen."""

    def __init__(self, nodes: int, alive: Sequence[int] | None = None) -> None:
        super().__init__(nodes, alive)
        self._dealt = 0

    def host_owner(self, host: str) -> int:
        owner = self.alive[self._dealt % len(self.alive)]
        self._dealt += 1
        return owner


def make_partition(kind: str, nodes: int, vnodes: int = 64) -> Partition:
    """The partition named ``kind`` (one of :data:`crawlsim.cluster.config.PARTITIONS`)."""
    if kind == "host-hash":
        return HostHash(nodes)
    if kind == "consistent-hash":
        return ConsistentHash(nodes, vnodes=vnodes)
    if kind == "url-hash":
        return UrlHash(nodes)
    if kind == "round-robin":
        return RoundRobin(nodes)
    raise ValueError(f"partition: unknown kind {kind!r}")


__all__ = ["ConsistentHash", "HostHash", "Partition", "RoundRobin", "UrlHash", "make_partition"]
