"""Two checkouts of crawlsim, A/B: the untraced simulation of the million web.

    git worktree add /tmp/before <commit>
    python benchmarks/ab_trees.py /tmp/before . --pages 1000000 --rounds 3

Each run is a fresh child process importing crawlsim from its tree (through
PYTHONPATH), building the web the way ``benchmarks/sim_vs_bfs.py`` does and
timing ``simulate(trace=False, series=False)`` by CPU time (``--series``:
``series=True``, the points ``crawlsim run`` plots); the trees take
turns (A, B, A, B, ...) so a slow spell of a shared machine hits both.  Also
the peak RSS above the post-build baseline, and the finish time (the same
finish on both sides says the trees ran the same crawl).  Measures what a
refactor costs, which a ratio against a BFS run at another time cannot.

The compiled build is installed, not imported from a tree: give each side
the interpreter of a venv holding that tree's compiled build
(``CRAWLSIM_BUILD=compiled pip install TREE`` into it) with ``--a-python``
and ``--b-python``; that side then imports crawlsim from its venv (no
PYTHONPATH), and the tree only lends ``benchmarks/sim_vs_bfs.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, sys.argv[1] + "/benchmarks")
from sim_vs_bfs import build_scenario
from crawlsim.sim.driver import simulate
pages = int(sys.argv[2])
series = sys.argv[3] == "series"
scenario = build_scenario(pages, pages // 100, 64, None)
gc.collect()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak-RSS mark (Linux)
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
base = status("VmRSS")
t0 = time.process_time()
run = simulate(scenario, trace=False, series=series)
cpu = time.process_time() - t0
print(json.dumps({"cpu": cpu, "rss_per_page": (status("VmHWM") - base) / pages, "finish": run.finish_time}))
"""


def one_run(tree: Path, pages: int, series: bool = False, python: str | None = None) -> dict[str, float]:
    env = dict(os.environ) if python else dict(os.environ, PYTHONPATH=str(tree))
    argv = [python or sys.executable, "-c", CHILD, str(tree), str(pages), "series" if series else "bare"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, cwd="/tmp", check=False)
    if out.returncode != 0:
        raise SystemExit(f"{tree}: the child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="the first checkout (e.g. before a change)")
    parser.add_argument("b", type=Path, help="the second checkout (e.g. after it)")
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--series", action="store_true", help="record the (t, frontier, in flight) series, as `crawlsim run` does"
    )
    parser.add_argument("--a-python", help="the interpreter of a venv with a's compiled build installed")
    parser.add_argument("--b-python", help="the same for b")
    args = parser.parse_args(argv)
    trees = {"a": args.a.resolve(), "b": args.b.resolve()}
    pythons = {"a": args.a_python, "b": args.b_python}
    runs: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    for r in range(args.rounds):
        for name, tree in trees.items():
            runs[name].append(one_run(tree, args.pages, args.series, pythons[name]))
            print(f"round {r + 1}: {name} {runs[name][-1]}", flush=True)
    summary: dict[str, object] = {"pages": args.pages, "rounds": args.rounds, "series": args.series}
    for name, rows in runs.items():
        cpus = [row["cpu"] for row in rows]
        summary[name] = {
            "tree": str(trees[name]),
            "cpu_best_s": round(min(cpus), 3),
            "cpu_median_s": round(statistics.median(cpus), 3),
            "rss_bytes_per_page": round(statistics.median(row["rss_per_page"] for row in rows), 1),
            "finish": rows[0]["finish"],
        }
    a, b = summary["a"], summary["b"]
    summary["b_over_a_best"] = round(b["cpu_best_s"] / a["cpu_best_s"], 3)  # type: ignore[index]
    summary["b_over_a_median"] = round(b["cpu_median_s"] / a["cpu_median_s"], 3)  # type: ignore[index]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
