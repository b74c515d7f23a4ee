"""A crawl on many machines: N crawler nodes, each one core
:class:`~crawlsim.core.scheduler.Scheduler`, partitioned by host (or URL),
exchanging discovered links as messages, with a termination detector.

Modules: :mod:`~crawlsim.cluster.config` (the ``[cluster]`` table),
:mod:`~crawlsim.cluster.partition` (who owns a URL),
:mod:`~crawlsim.cluster.node` (one node: its scheduler and workers),
:mod:`~crawlsim.cluster.termination` (Safra's token ring),
:mod:`~crawlsim.cluster.sim` (the SimPy driver of the whole cluster) and
:mod:`~crawlsim.cluster.report` (per-node figures, politeness, bounds).
"""

from crawlsim.cluster.config import ClusterConfig, ClusterConfigError, cluster_from_table
from crawlsim.cluster.sim import ClusterRun, simulate_cluster

__all__ = ["ClusterConfig", "ClusterConfigError", "ClusterRun", "cluster_from_table", "simulate_cluster"]
