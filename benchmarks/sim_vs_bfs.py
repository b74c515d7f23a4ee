"""How much does simulating a crawl cost over just walking the same web?

    python benchmarks/sim_vs_bfs.py                  # 1,000,000 pages, 10,000 hosts, 64 workers
    python benchmarks/sim_vs_bfs.py --pages 100000   # 1,000 hosts (pages / 100)
    python benchmarks/sim_vs_bfs.py --trace          # also the cost of recording events

Both contestants get the same lazily generated power-law web, built the way
the shipped ``scenarios/million.toml`` builds it (its ``[web]`` table with
``pages`` and ``hosts`` replaced, its ``[crawl]`` options, ``workers``
replaced), and run in this one process:

plain BFS
    a ``deque`` and a ``set`` of strings.  For each page: ``web.links(url)``,
    then every link through the core's ``canonical_or_raise`` with the
    scenario's normalization steps (``rfc3986``), and a set lookup.  That is
    the least work any crawler of this web must do -- generate each page's
    links once, canonicalize each link once, test it against the seen set --
    with none of a crawler's bookkeeping.  It does not take the scheduler's
    short cut of testing a link against the seen set before canonicalizing it
    (sound under ``rfc3986``, see ``crawlsim.core.urls.canonical_is_fixpoint``):
    the baseline is the textbook loop, and the JSON also reports a BFS with
    that short cut (``bfs_seen_first_s``) so the ratio can be read both ways.
simulation
    ``crawlsim.sim.driver.simulate(scenario, trace=False, series=False)``:
    the real scheduler (per-host queues, per_host = 1, 64 workers, stats) on
    SimPy's clock, with sampled log-normal latencies, ``web.response`` (status,
    headers, links) per fetch, and the per-host figures the bounds need.

Time is ``time.perf_counter`` around each run (``process_time`` too: on a
shared machine CPU time is the steadier figure); ``--repeat N`` keeps the
best of N runs of each.  Memory is measured in
separate passes under ``tracemalloc``, started after the web is built and
after ``gc.collect()``, so ``peak_bytes_per_page`` is the peak of memory
allocated *above that baseline* during the simulation, divided by pages; the
BFS is measured the same way first.  The web itself stores nothing per page.

Progress goes to stdout as it happens; the last line is one JSON object with
``pages``, ``bfs_s``, ``sim_s``, ``ratio`` (sim_s / bfs_s) and
``peak_bytes_per_page``, plus the CPU-time ratio, the BFS figures and, with
``--trace``, the time and memory of the same simulation recording every event.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from typing import Any

from crawlsim.core.urls import CanonicalizeError, canonical_or_raise
from crawlsim.scenario import Scenario, load_scenario, scenario_from_dict
from crawlsim.sim.driver import simulate


def build_scenario(pages: int, hosts: int, workers: int, seen: str | None) -> Scenario:
    """The shipped million-page scenario, resized."""
    base = load_scenario("million")
    data: dict[str, Any] = dict(base.data)
    data["web"] = {**data["web"], "pages": pages, "hosts": hosts}
    crawl = {**data.get("crawl", {}), "workers": workers, "record_events": False}
    if seen:
        crawl["seen"] = seen
    data["crawl"] = crawl
    return scenario_from_dict(data, path=str(base.path), name=f"million@{pages}")


def plain_bfs(scenario: Scenario, *, seen_first: bool = False) -> int:
    """Visit every page reachable from the seeds; return how many."""
    web = scenario.web
    steps = scenario.options.normalize_steps
    links = web.links
    seen: set[str] = set()
    queue: deque[str] = deque()
    for href in scenario.seeds:
        url = canonical_or_raise(href, None, steps)
        if url not in seen:
            seen.add(url)
            queue.append(url)
    visited = 0
    while queue:
        page = queue.popleft()
        visited += 1
        for href in links(page):
            if seen_first and href in seen:
                continue
            try:
                url = canonical_or_raise(href, page, steps)
            except CanonicalizeError:
                continue
            if url not in seen:
                seen.add(url)
                queue.append(url)
    return visited


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds) of ``fn()``, each after a full
    collection; with ``repeat`` > 1 the best of that many runs (as ``timeit``
    does: the least-disturbed run is the one closest to the code's cost)."""
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(max(1, repeat)):
        result = None
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return result, best_wall, best_cpu


def peak_above_baseline(fn: Callable[[], Any]) -> tuple[Any, int]:
    """(result, peak bytes allocated above the starting point) of ``fn()``."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return result, peak


def say(text: str) -> None:
    print(text, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1_000_000, help="pages in the web (default 1,000,000)")
    parser.add_argument("--hosts", type=int, default=None, help="hosts (default pages / 100)")
    parser.add_argument("--workers", type=int, default=64, help="simulated workers (default 64)")
    parser.add_argument(
        "--seen",
        choices=("exact", "hash", "bloom"),
        default=None,
        help="the simulation's seen set (default: the scenario's, exact)",
    )
    parser.add_argument("--trace", action="store_true", help="also time the simulation with event recording on")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc passes (time only)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="time the BFS and the simulation N times each and keep the best (default 1)",
    )
    args = parser.parse_args(argv)
    pages = args.pages
    hosts = args.hosts or max(1, pages // 100)

    say(
        f"python {platform.python_version()} on {platform.machine()}; {pages:,} pages on {hosts:,} hosts, "
        f"{args.workers} workers"
    )
    (scenario, build_s, _) = timed(lambda: build_scenario(pages, hosts, args.workers, args.seen))
    opts = scenario.options
    say(
        f"built the web in {build_s:.2f} s (normalize={sorted(opts.normalize_steps)}, per_host={opts.per_host}, "
        f"seen={opts.seen})"
    )

    visited, bfs_s, bfs_cpu = timed(lambda: plain_bfs(scenario), args.repeat)
    say(f"plain BFS: {visited:,} pages in {bfs_s:.2f} s ({bfs_s / visited * 1e6:.2f} us/page; CPU {bfs_cpu:.2f} s)")
    _, bfs_sf_s, _ = timed(lambda: plain_bfs(scenario, seen_first=True), args.repeat)
    say(f"BFS with the seen-first short cut: {bfs_sf_s:.2f} s")

    run, sim_s, sim_cpu = timed(lambda: simulate(scenario, trace=False, series=False), args.repeat)
    say(
        f"simulation: {run.stats.pages_fetched:,} pages, {run.stats.fetches:,} fetches in {sim_s:.2f} s "
        f"({sim_s / visited * 1e6:.2f} us/page; CPU {sim_cpu:.2f} s); simulated finish {run.finish_time:,.1f} s, "
        f"peak frontier {run.stats.peak_frontier:,}"
    )
    if run.stats.pages_fetched != visited:
        say(f"WARNING: the simulation fetched {run.stats.pages_fetched:,} pages, the BFS reached {visited:,}")
    result: dict[str, Any] = {
        "pages": visited,
        "hosts": hosts,
        "workers": args.workers,
        "seen": opts.seen,
        "repeat": args.repeat,
        "bfs_s": round(bfs_s, 3),
        "sim_s": round(sim_s, 3),
        "ratio": round(sim_s / bfs_s, 3),
        "cpu_ratio": round(sim_cpu / bfs_cpu, 3),
        "bfs_seen_first_s": round(bfs_sf_s, 3),
        "ratio_vs_seen_first": round(sim_s / bfs_sf_s, 3),
        "sim_us_per_page": round(sim_s / visited * 1e6, 2),
    }
    del run

    if not args.no_memory:
        _, bfs_peak = peak_above_baseline(lambda: plain_bfs(scenario))
        say(f"plain BFS peak memory above baseline: {bfs_peak / 2**20:,.1f} MiB ({bfs_peak / visited:.0f} bytes/page)")
        run, sim_peak = peak_above_baseline(lambda: simulate(scenario, trace=False, series=False))
        del run
        say(f"simulation peak memory above baseline: {sim_peak / 2**20:,.1f} MiB ({sim_peak / visited:.0f} bytes/page)")
        result["peak_bytes_per_page"] = round(sim_peak / visited, 1)
        result["bfs_peak_bytes_per_page"] = round(bfs_peak / visited, 1)

    if args.trace:
        traced, trace_s, _ = timed(lambda: simulate(scenario, trace=True, series=True))
        events = len(traced.trace)
        del traced
        say(f"simulation with tracing on: {events:,} events in {trace_s:.2f} s ({trace_s / sim_s:.2f}x untraced)")
        result["trace_s"] = round(trace_s, 3)
        result["trace_events"] = events
        result["trace_cost"] = round(trace_s / sim_s, 3)
        if not args.no_memory:
            _, trace_peak = peak_above_baseline(lambda: simulate(scenario, trace=True, series=True))
            say(f"  peak memory with tracing on: {trace_peak / visited:.0f} bytes/page")
            result["trace_peak_bytes_per_page"] = round(trace_peak / visited, 1)

    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
