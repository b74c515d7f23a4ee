"""What SimPy's public API would cost the simulator's per-fetch path.

    python benchmarks/simpy_public_api.py                  # 100,000 pages, 3 rounds
    python benchmarks/simpy_public_api.py --pages 200000 --repeat 5

The driver (``crawlsim.sim.driver``) keeps one timer per worker lane,
re-filled for each fetch, on a heap of its own beside SimPy's queue, in
SimPy's entry form and order (``_Crawl.run_events``): no SimPy event, no
``schedule`` and no ``step`` per fetch.  The public alternative makes
one ``env.timeout(took)`` per fetch and hangs the fetch on it.  Both are
timed here on the same web (the shipped ``million`` scenario, resized,
untraced: the case the lane timers exist for), the contestants
alternated for ``--repeat`` rounds; the best CPU time of each is compared.
Both must give the same finish time and counters.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
from typing import Any

from crawlsim.build_info import compiled_modules
from crawlsim.sim import driver
from crawlsim.sim.driver import _Crawl, simulate

from sim_vs_bfs import build_scenario  # type: ignore[import-not-found]


class _PublicCrawl(_Crawl):
    """The driver with one public ``env.timeout`` per fetch instead of a re-armed lane timer."""

    def dispatch(self, now: float, fetches: list[Any]) -> None:
        tallies = self.tallies
        timeout = self.timeout
        on_done = self.on_done
        measure_gaps = self.measure_gaps
        for fetch in fetches:
            _, _, host, kind, depth, _, _slot, duplicate = fetch
            tally = tallies.get(host)
            if tally is None:
                tally = tallies[host] = self._new_tally(host)
            tally.fetches += 1
            took = tally.sample()
            if duplicate:
                self.wasted += took
            if depth > self.deepest:  # noqa: PLR1730
                self.deepest = depth
            if measure_gaps and kind == "page":
                tally.note_gap(self.host_states[host].ready_at - now)
            timer = timeout(took)
            timer.fetch, timer.started, timer.took, timer.tally = fetch, now, took, tally  # type: ignore[attr-defined]
            timer.callbacks.append(on_done)  # type: ignore[union-attr]
        if self.tracing:
            self.events.extend(self.sched.drain_events())
        if self.series:
            self.points.note(now, self.sched.frontier_size, self.sched.in_flight)
        wake = self.next_wakeup()
        if wake is not None and wake < self.wake_at:
            self.wake_at = wake
            self.timeout(max(0.0, wake - now)).callbacks.append(self.woken)  # type: ignore[union-attr]


def _timed(scenario: Any, crawl: type[_Crawl]) -> tuple[float, tuple[float, int]]:
    original = driver._Crawl
    driver._Crawl = crawl  # type: ignore[misc]
    try:
        gc.collect()
        start = time.process_time()
        run = simulate(scenario, trace=False, series=False)
        return time.process_time() - start, (run.finish_time, run.stats.fetches)
    finally:
        driver._Crawl = original  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if "crawlsim.sim.driver" in compiled_modules():
        # the public variant is a Python subclass of the driver, whose compiled
        # on_done takes only its own lane timers
        raise SystemExit(
            "simpy_public_api.py: run it in a pure-Python install (pip install -e .): this one has the compiled driver"
        )
    scenario = build_scenario(args.pages, max(1, args.pages // 100), 64, None)
    times: dict[str, list[float]] = {"lane_timer": [], "public_timeout": []}
    outcomes = {}
    for round_no in range(args.repeat):
        for name, crawl in (("lane_timer", _Crawl), ("public_timeout", _PublicCrawl)):
            cpu, outcomes[name] = _timed(scenario, crawl)
            times[name].append(cpu)
        print(f"round {round_no + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), flush=True)
    assert outcomes["lane_timer"] == outcomes["public_timeout"], outcomes
    best = {k: min(v) for k, v in times.items()}
    print(json.dumps({"pages": args.pages, **{f"{k}_s": round(v, 3) for k, v in best.items()},
                      "public_over_lane": round(best["public_timeout"] / best["lane_timer"], 4)}))


if __name__ == "__main__":
    main()
