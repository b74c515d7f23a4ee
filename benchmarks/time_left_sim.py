"""The time-left figures over every shipped scenario, in simulation, where the truth is exact.

For each scenario that records events: the crawl is simulated once and its
events replayed through :class:`crawlsim.sim.time_left.TimeLeft` as a live
crawl would see them (the latency floor is the fastest fetch seen so far);
the table gives the finish time, the most the lower bound stood above the
real time left (0: never), the same with the run's true latency floor (the
property test's bound: never above, exactly), and the estimate's error at
25%, 50% and 75% of the way, and its worst from 25% to 75%.

    python benchmarks/time_left_sim.py [SCENARIO ...]
"""

from __future__ import annotations

import sys

from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.sim.driver import simulate
from crawlsim.views.time_left import CHECKPOINTS, report_of


def row(name: str) -> str | None:
    scenario = load_scenario(name)
    if not scenario.options.record_events:
        return None
    run = simulate(scenario, series=False)
    live = report_of(run.options, run.trace)
    exact = report_of(run.options, run.trace, floor=run.host_page_min_latency)
    if live is None or exact is None:
        return None
    errors = [live.error_at(share) for share in CHECKPOINTS]
    worst = live.worst_error()
    said = " ".join(f"{e:+7.0%}" if e is not None else "      -" for e in errors)
    return (
        f"| {name:<16} | {run.finish_time:9.1f} | {run.stats.pages_fetched:6,} | {live.bound_excess():8.3f} "
        f"| {exact.bound_excess():8.3f} | {said} | {worst if worst is not None else float('nan'):7.0%} |"
    )


def main(names: list[str]) -> int:
    print("| scenario         | finish (s) |  pages | bound above truth, live (s) | exact floor (s) "
          "| error at 25% 50% 75% | worst 25-75% |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for name in names or list_scenarios():
        line = row(name)
        if line is not None:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
