"""What one simulated message between crawler nodes costs, in CPU time.

Runs one scenario's crawl as a single process (``simulate``) and as a
cluster (``simulate_cluster``) of N nodes, each untraced, alternating, and
keeps the fastest of ``--repeat`` runs of each.  The cluster's extra time --
routing every link (canonicalize, find the owner), batching, one SimPy
timeout per message and per token hop, admitting the links at the owner --
divided by the messages sent is the cost per message.  Batching
(``--batch``) cuts messages, not links: the per-link part remains.

    python benchmarks/cluster_messages.py busiest-host --nodes 4 --partition url-hash
    python benchmarks/cluster_messages.py busiest-host --nodes 4 --batch 32 --flush 0.05
"""

from __future__ import annotations

import argparse
import time

from crawlsim.cluster.config import cluster_from_table
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="busiest-host")
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--partition", default="url-hash")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--flush", type=float, default=0.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scenario = load_scenario(args.scenario)
    config = cluster_from_table(
        {"nodes": args.nodes, "partition": args.partition, "batch": args.batch, "flush": args.flush}
    )
    single, cluster = [], []
    run = None
    for _ in range(args.repeat):
        start = time.process_time()
        simulate(scenario, trace=False, series=False)
        single.append(time.process_time() - start)
        start = time.process_time()
        run = simulate_cluster(scenario, config, trace=False)
        cluster.append(time.process_time() - start)
    assert run is not None
    extra = min(cluster) - min(single)
    print(f"{args.scenario}: {run.stats.fetches:,} fetches; {args.nodes} nodes, {args.partition}, batch {args.batch}")
    print(f"single process  {min(single):.3f} s CPU")
    print(f"cluster         {min(cluster):.3f} s CPU  ({run.messages:,} messages, {run.message_bytes:,} bytes, "
          f"{run.control_messages:,} control messages)")
    if run.messages:
        print(f"extra per message  {extra / run.messages * 1e6:.1f} us  (routing, batching, delivery, admission)")
    print(f"extra per fetch    {extra / max(1, run.stats.fetches) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
