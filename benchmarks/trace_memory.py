"""What does recording every event cost in memory?  (target: <= 2x untraced)

    python benchmarks/trace_memory.py                  # 100,000 pages, 1,000 hosts
    python benchmarks/trace_memory.py --pages 20000

The web is the shipped ``million`` scenario resized (as in ``sim_vs_bfs.py``).
Two runs of the simulation, each in its own fresh child process (this
directory's ``sim_vs_bfs.py --child``), each measured twice (two more
children):

untraced
    ``simulate(scenario, trace=False, series=False)`` -- what ``crawlsim
    run`` does on this scenario.
traced
    ``simulate(scenario, trace=True, series=True)`` -- what ``crawlsim trace``
    does: every core event kept in ``run.trace`` and the frontier series.
    (Events name each fetch's page; on a web with spelling variants, or
    seeds that are not their page's spelling, that makes the core keep
    every page identity too -- not on this web: see
    ``Web.fetches_are_identities``.)

Then the CPU cost of recording: both runs in this process on one web,
alternated, ``--rounds`` times (default 2), best of each (``process_time``).

For each: the peak RSS above the post-build baseline (the kernel's peak mark
reset after the web is built) and the ``tracemalloc`` peak above the same
point, both per page.  The ratios traced / untraced are the figures the
target is about; the trace is held until the peak is read, as a user of
``trace`` or the app holds it.

The last line is one JSON object: ``pages``, ``events``, ``untraced_*`` and
``traced_*`` (``rss_bytes_per_page``, ``peak_bytes_per_page``),
``rss_ratio``, ``tracemalloc_ratio``, ``bytes_per_event`` (traced minus
untraced tracemalloc peak, per event), ``target_ratio``, and ``untraced_cpu_s``,
``traced_cpu_s``, ``cpu_ratio`` (best of the rounds; absent with ``--rounds 0``).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time

from sim_vs_bfs import build_scenario, child_memory, run_sim, run_sim_traced  # this directory; run as a file


def cpu_times(args: argparse.Namespace) -> dict[str, float]:
    """Best CPU seconds of the untraced and the traced run, alternated on one web."""
    scenario = build_scenario(args.pages, args.hosts, args.workers, None)
    best = {"untraced": float("inf"), "traced": float("inf")}
    for _ in range(args.rounds):
        for label, run in (("untraced", run_sim), ("traced", run_sim_traced)):
            gc.collect()
            start = time.process_time()
            result = run(scenario)
            best[label] = min(best[label], time.process_time() - start)
            del result
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=100_000, help="pages in the web (default 100,000)")
    parser.add_argument("--hosts", type=int, default=None, help="hosts (default pages / 100)")
    parser.add_argument("--workers", type=int, default=64, help="simulated workers (default 64)")
    parser.add_argument("--rounds", type=int, default=2, help="CPU-time rounds, alternated (default 2; 0: none)")
    args = parser.parse_args(argv)
    args.hosts = args.hosts or max(1, args.pages // 100)
    args.seen = None
    print(
        f"python {platform.python_version()}; {args.pages:,} pages on {args.hosts:,} hosts, {args.workers} workers; "
        "each figure from a fresh child process",
        flush=True,
    )
    figures: dict[str, dict[str, int]] = {}
    events = 0
    for label, contestant in (("untraced", "sim"), ("traced", "sim_trace")):
        rss = child_memory(args, contestant, "rss")
        traced = child_memory(args, contestant, "tracemalloc")
        events = traced.get("events", events)
        figures[label] = {"pages": rss["pages"], "rss": rss["peak_bytes"], "tracemalloc": traced["peak_bytes"]}
        print(
            f"{label}: {rss['pages']:,} pages; peak RSS above baseline {rss['peak_bytes'] / 2**20:,.1f} MiB "
            f"({rss['peak_bytes'] / rss['pages']:.0f} B/page), tracemalloc peak "
            f"{traced['peak_bytes'] / 2**20:,.1f} MiB ({traced['peak_bytes'] / rss['pages']:.0f} B/page)",
            flush=True,
        )
    pages = figures["untraced"]["pages"]
    if figures["traced"]["pages"] != pages:
        print(f"WARNING: the traced run fetched {figures['traced']['pages']:,} pages, the untraced {pages:,}")
    rss_ratio = figures["traced"]["rss"] / figures["untraced"]["rss"]
    tm_ratio = figures["traced"]["tracemalloc"] / figures["untraced"]["tracemalloc"]
    per_event = (figures["traced"]["tracemalloc"] - figures["untraced"]["tracemalloc"]) / max(1, events)
    print(
        f"RATIO traced / untraced: RSS {rss_ratio:.2f}x, tracemalloc {tm_ratio:.2f}x (target <= 2x); "
        f"{events:,} events, {per_event:.0f} B/event more",
        flush=True,
    )
    result = {
        "pages": pages,
        "hosts": args.hosts,
        "workers": args.workers,
        "events": events,
        "untraced_rss_bytes_per_page": round(figures["untraced"]["rss"] / pages, 1),
        "untraced_peak_bytes_per_page": round(figures["untraced"]["tracemalloc"] / pages, 1),
        "traced_rss_bytes_per_page": round(figures["traced"]["rss"] / pages, 1),
        "traced_peak_bytes_per_page": round(figures["traced"]["tracemalloc"] / pages, 1),
        "rss_ratio": round(rss_ratio, 2),
        "tracemalloc_ratio": round(tm_ratio, 2),
        "bytes_per_event": round(per_event, 1),
        "target_ratio": 2.0,
        "method": "fresh child per figure: peak RSS above post-build baseline; tracemalloc peak",
    }
    if args.rounds > 0:
        cpu = cpu_times(args)
        print(
            f"CPU, best of {args.rounds} alternated: untraced {cpu['untraced']:.2f} s, traced {cpu['traced']:.2f} s: "
            f"recording costs {cpu['traced'] / cpu['untraced']:.2f}x",
            flush=True,
        )
        result.update(
            untraced_cpu_s=round(cpu["untraced"], 2),
            traced_cpu_s=round(cpu["traced"], 2),
            cpu_ratio=round(cpu["traced"] / cpu["untraced"], 2),
        )
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
