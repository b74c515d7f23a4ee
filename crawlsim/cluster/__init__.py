"""A crawl on many machines: N crawler nodes, each one core
:class:`~crawlsim.core.scheduler.Scheduler`, partitioned by host (or URL),
exchanging discovered links as messages, with a termination detector.

Modules: :mod:`~crawlsim.cluster.config` (the ``[cluster]`` table),
:mod:`~crawlsim.cluster.partition` (who owns a URL),
:mod:`~crawlsim.cluster.node` (one node: its scheduler and workers),
:mod:`~crawlsim.cluster.termination` (Safra's token ring),
:mod:`~crawlsim.cluster.politeness` (violations across nodes, measured),
:mod:`~crawlsim.cluster.sim` (``simulate_cluster``: the SimPy driver) and
:mod:`~crawlsim.cluster.report` (per-node figures and the node bound).
Only the config is imported here: the scenario loader checks ``[cluster]``
tables without loading SimPy.
"""

from crawlsim.cluster.config import ClusterConfig, ClusterConfigError, cluster_from_table

__all__ = ["ClusterConfig", "ClusterConfigError", "cluster_from_table"]
