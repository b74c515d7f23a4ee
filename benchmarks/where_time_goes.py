"""Where does the simulation's time go, against the fair BFS?

    pip install py-spy                              # a sampling profiler; not a crawlsim dependency
    python benchmarks/where_time_goes.py            # 300,000 pages, 3,000 hosts
    python benchmarks/where_time_goes.py --pages 100000 --gc

Each contestant of ``sim_vs_bfs.py`` (the fair BFS and the untraced
simulation, on the same resized ``million`` web) runs once in a child
process under ``py-spy record --nonblocking`` (500 samples a second, read
from outside without pausing the process, so the run is barely slowed).  Every sample is charged to the
function running at that moment (self time), and functions are grouped by
where they live:

shared
    the work both contestants do: the web's link generation
    (``crawlsim/sim/generated.py``, ``web.py``, ``hashing.py``) and the loop
    that looks each link up in the seen set (``Scheduler._expand`` in the
    simulation, ``fair_bfs`` itself in the BFS);
scheduler
    the rest of ``crawlsim/core``: admitting a link, taking and starting a
    fetch, re-filing its host, recording the answer;
driver
    ``crawlsim/sim/driver.py`` and the latency draws (``latency.py``);
simpy
    SimPy's event loop;
other
    anything else inside the timed run (samples taken during imports and
    the web's build are left out).

Each group is printed as its share of the samples and as microseconds per
page (the share times the child's own CPU time over the pages), so the
shared work can be compared between the two.  ``--gc`` also times the
simulation with the garbage collector on and off, alternated in one process,
two rounds each (CPU time).
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sim_vs_bfs import build_scenario, fair_bfs, run_sim  # noqa: E402

GROUPS = ("shared", "scheduler", "driver", "simpy", "other")
_SHARED_FILES = ("crawlsim/sim/generated.py", "crawlsim/sim/web.py", "crawlsim/sim/hashing.py")


def group_of(frame: str) -> str:
    """The group of one py-spy frame, ``function (path:line)``."""
    function, _, where = frame.partition(" (")
    path = where.rsplit(":", 1)[0]
    if any(path.endswith(f) for f in _SHARED_FILES) or function in ("Scheduler._expand", "fair_bfs"):
        return "shared"
    if "crawlsim/core/" in path:
        return "scheduler"
    if path.endswith(("crawlsim/sim/driver.py", "crawlsim/sim/latency.py")):
        return "driver"
    if path.startswith("simpy/") or "/simpy/" in path:  # py-spy names site-packages files relative to it
        return "simpy"
    return "other"


def child(name: str, pages: int) -> None:
    """Run one contestant and print its CPU seconds (the profiled run)."""
    scenario = build_scenario(pages, max(1, pages // 100), 64, None)
    gc.collect()
    start = time.process_time()
    (fair_bfs if name == "bfs" else run_sim)(scenario)
    print(json.dumps({"cpu_s": time.process_time() - start}), flush=True)


def profile(name: str, pages: int, spy: str, workdir: str) -> dict[str, float]:
    """Seconds of CPU per group, from one profiled child."""
    raw = Path(workdir) / f"{name}.raw"
    cmd = [spy, "record", "--nonblocking", "-r", "500", "-f", "raw", "-o", str(raw), "--", sys.executable, __file__, "--child", name, "--pages", str(pages)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not raw.exists():
        raise SystemExit(f"py-spy failed for {name}: {done.stderr.strip()[-400:]}")
    ours = [line for line in done.stdout.splitlines() if line.startswith("{")]  # py-spy prints lines of its own
    cpu = json.loads(ours[-1])["cpu_s"]
    samples: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if any(f.startswith(("run_sim (", "fair_bfs (")) for f in frames):  # the timed run, not imports or the build
            samples[group_of(frames[-1])] += int(count)
    total = sum(samples.values()) or 1
    return {group: cpu * samples[group] / total for group in GROUPS} | {"_total": cpu}


def gc_ab(pages: int) -> dict[str, float]:
    best = {"on": float("inf"), "off": float("inf")}
    for _ in range(2):
        for mode in ("on", "off"):
            scenario = build_scenario(pages, max(1, pages // 100), 64, None)
            gc.collect()
            if mode == "off":
                gc.disable()
            start = time.process_time()
            run_sim(scenario)
            best[mode] = min(best[mode], time.process_time() - start)
            gc.enable()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300_000)
    parser.add_argument("--gc", action="store_true", help="also time the simulation with the garbage collector off")
    parser.add_argument("--child", choices=("bfs", "sim"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pages < 100:
        parser.error("--pages: at least 100 (hosts are pages / 100)")
    if args.child:
        child(args.child, args.pages)
        return 0
    spy = shutil.which("py-spy")
    if spy is None:
        parser.error("needs py-spy on PATH: pip install py-spy")
    out: dict[str, object] = {"pages": args.pages}
    with tempfile.TemporaryDirectory() as workdir:
        for name in ("bfs", "sim"):
            seconds = profile(name, args.pages, spy, workdir)
            total = seconds.pop("_total")
            parts = ", ".join(f"{g} {100 * s / total:.0f} % ({s / args.pages * 1e6:.1f} us/page)" for g, s in seconds.items() if s)
            print(f"{name}: {total:.2f} s CPU, {total / args.pages * 1e6:.1f} us/page: {parts}", flush=True)
            out[name] = {g: round(s / args.pages * 1e6, 2) for g, s in seconds.items()} | {"total_us_per_page": round(total / args.pages * 1e6, 2)}
    bfs, sim = out["bfs"], out["sim"]
    assert isinstance(bfs, dict) and isinstance(sim, dict)
    out["shared_inside_sim_over_bfs"] = round(sim["shared"] / bfs["shared"], 2) if bfs["shared"] else None
    print(f"the shared work costs {out['shared_inside_sim_over_bfs']}x as much per page inside the simulation as in the BFS", flush=True)
    if args.gc:
        best = gc_ab(args.pages)
        out["gc_on_s"], out["gc_off_s"] = round(best["on"], 2), round(best["off"], 2)
        print(f"simulation with the garbage collector on {best['on']:.2f} s, off {best['off']:.2f} s (CPU, best of 2)", flush=True)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
