"""What ``indent=2`` costs in ``crawlsim run --json``: the summary's size and the
CPU of writing it, indented and compact, against the run that made it.

    python benchmarks/json_output.py                       # million, and busiest-host capped at 10 pages
    python benchmarks/json_output.py see-it --set max_pages=3

Each scenario (a shipped name or a path, with ``--set key=value`` overrides for
all of them) is simulated once, as ``crawlsim run`` does, timed; then
``json.dumps`` of its summary runs ``--rounds`` times each way, the best kept
(CPU seconds, ``process_time``: on a shared machine wall time measures the
neighbours).  One line per scenario, then one JSON object of every figure.

Measured on a shared 2-core machine (Python 3.11): ``million``'s summary is
3.5 KB, 0.16 ms indented against a 33 s run; the largest summary a run
writes -- every page of a 20,000-page web listed as lost (reachability is
counted up to 20,000 pages), ``busiest-host`` with ``pages = 20000`` and
``max_pages=10`` -- is 3.0 MB indented, 2.3 MB compact, 94 ms against 24 ms
(``json`` uses its C encoder only without an indent) in a 1.4 s command.
So ``--json`` keeps ``indent=2``: at most about 70 ms, on output that size.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from crawlsim.commands.common import load, simulate_with_bounds
from crawlsim.views.summary import summary_dict
from crawlsim.sim.coverage import coverage_of

DEFAULT = [("million", {}), ("busiest-host", {"max_pages": 10})]


def best(fn: Any, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def measure(name: str, overrides: dict[str, Any], rounds: int) -> dict[str, Any]:
    scenario = load(name, overrides, None)
    start = time.process_time()
    run, bounds = simulate_with_bounds(scenario)
    data = summary_dict(run, bounds, scenario=scenario, top=10, coverage=coverage_of(scenario, run))
    run_s = time.process_time() - start
    indented, compact = json.dumps(data, indent=2), json.dumps(data, separators=(",", ":"))
    return {
        "scenario": name + "".join(f" {k}={v}" for k, v in overrides.items()),
        "run_cpu_s": run_s,
        "indented_bytes": len(indented),
        "compact_bytes": len(compact),
        "indented_cpu_s": best(lambda: json.dumps(data, indent=2), rounds),
        "compact_cpu_s": best(lambda: json.dumps(data, separators=(",", ":")), rounds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="*", help="shipped names or .toml paths (default: million, busiest-host capped)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="an override for every scenario")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sets = {k: json.loads(v) for k, _, v in (item.partition("=") for item in args.set)}
    plan = [(name, sets) for name in args.scenario] or DEFAULT
    figures = []
    for name, overrides in plan:
        f = measure(name, overrides, args.rounds)
        figures.append(f)
        share = f["indented_cpu_s"] / f["run_cpu_s"] if f["run_cpu_s"] else 0.0
        print(
            f"{f['scenario']}: run {f['run_cpu_s']:.2f} s CPU; JSON {f['indented_bytes']:,} bytes indented "
            f"({f['indented_cpu_s'] * 1000:.2f} ms), {f['compact_bytes']:,} compact ({f['compact_cpu_s'] * 1000:.2f} ms); "
            f"the indent is {share:.4%} of the run"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
