"""Fidelity: does the simulator predict a real crawl?

For each small shipped scenario this script

1. scales the scenario's clock (``crawlsim.real.timescale``) so its shortest
   latency is about 50 ms -- long enough that a loopback request's own
   overhead (~1 ms) is small against it, short enough to finish quickly;
2. serves the scaled scenario with ``crawlsim serve`` in a separate process
   (a fresh server per run: the server counts attempts and keeps a throttle
   clock, as a real site would);
3. crawls it for real with the asyncio crawler and the scenario's own
   options, through the host map the server wrote;
4. simulates the same scaled scenario;

and reports whether the fetched page sets are identical and how far the
finish times are apart.  Where a scenario's latencies are random (lognormal)
the simulator and the server draw different samples, so the real finish
time is compared with the mean of several simulations that differ only in
their latency draws, and the simulations' spread is shown.

    /work/venv/bin/python benchmarks/fidelity.py            # the small scenarios
    /work/venv/bin/python benchmarks/fidelity.py --all      # plus busiest-host (2,000 pages, ~1 min)
    /work/venv/bin/python benchmarks/fidelity.py see-it --runs 5

Everything runs on loopback (127.0.0.0/8); ``million`` is never served
(10,000 hosts: a simulation job).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from crawlsim.trace.events import FetchStarted
from crawlsim.real.flags import parse_resolve
from crawlsim.real.crawler import HttpLimits, crawl_http
from crawlsim.real.timescale import scale_scenario
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.sim.driver import simulate
from crawlsim.sim.latency import Fixed

SMALL = ["see-it", "isro", "interview", "interview-scope", "polite", "trap", "mirrors", "variants"]
LARGER = ["busiest-host"]
EXCLUDED = {"million": "1,000,000 pages on 10,000 hosts: a simulation job, not a loopback server's"}
TARGET_LATENCY = 0.05
REPO = Path(__file__).resolve().parent.parent


def scale_for(scenario: Scenario) -> float:
    """The time scale that brings the shortest typical latency to ~50 ms."""
    models = [scenario.latency.default, *scenario.latency.hosts.values()]
    shortest = min(m.median for m in models if m.median > 0)
    return min(1.0, TARGET_LATENCY / shortest)


def random_latency(scenario: Scenario) -> bool:
    return not all(isinstance(m, Fixed) for m in [scenario.latency.default, *scenario.latency.hosts.values()])


def fetched_pages(events: list) -> set[str]:
    return {e.url for e in events if isinstance(e, FetchStarted) and e.kind == "page"}


async def real_run(name: str, scale: float, scenario: Scenario) -> tuple[float, set[str], dict[str, str]]:
    """Serve ``name`` scaled in a child process and crawl it; (finish, pages, failures)."""
    with tempfile.TemporaryDirectory(prefix="crawlsim-fidelity-") as tmp:
        hosts_file = Path(tmp) / "hosts.json"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "crawlsim",
            "serve",
            name,
            "--port",
            "0",
            "--time-scale",
            repr(scale),
            "--hosts-file",
            str(hosts_file),
            "--duration",
            "600",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=str(REPO),
        )
        try:
            assert proc.stdout is not None
            # serve's first line is `crawlsim crawl START --hosts-file ... FLAGS`
            start = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().split()[2]
            for _ in range(600):
                if hosts_file.exists() and hosts_file.stat().st_size:
                    break
                await asyncio.sleep(0.01)
            resolve = parse_resolve([], str(hosts_file))
            result = await crawl_http(
                [start, *scenario.seeds[1:]],
                scenario.options,
                resolve=resolve,
                limits=HttpLimits(timeout=30.0),
                max_time=300.0,
            )
        finally:
            proc.terminate()
            await proc.wait()
    if result.stopped:
        raise RuntimeError(f"{name}: {result.stopped}")
    return result.finish_time, fetched_pages(result.events), result.failures


def sim_runs(scenario: Scenario, draws: int) -> tuple[list[float], set[str], dict[str, str]]:
    """Finish times of ``draws`` simulations that differ only in latency draws."""
    first = simulate(scenario)
    finishes = [first.finish_time]
    for k in range(1, draws):
        finishes.append(simulate(dataclasses.replace(scenario, seed=scenario.seed + 1000 * k), trace=False).finish_time)
    return finishes, fetched_pages(first.trace), first.failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenarios", nargs="*", help=f"default: {' '.join(SMALL)}")
    parser.add_argument("--all", action="store_true", help=f"also {' '.join(LARGER)}")
    parser.add_argument("--runs", type=int, default=3, help="real crawls per scenario (median reported)")
    parser.add_argument("--draws", type=int, default=20, help="simulations per random-latency scenario")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    names = args.scenarios or SMALL + (LARGER if args.all else [])
    rows = []
    print(f"{'scenario':<16}{'scale':>7}{'pages':>7}  {'same set':<9}{'sim s':>9}{'real s':>9}{'diff':>8}  within 10%")
    for name in names:
        if name in EXCLUDED:
            print(f"{name:<16} excluded: {EXCLUDED[name]}")
            continue
        base = load_scenario(name)
        scale = scale_for(base)
        scenario = scale_scenario(base, scale)
        draws = args.draws if random_latency(scenario) else 1
        sim_finishes, sim_pages, sim_failures = sim_runs(scenario, draws)
        sim_mean = statistics.fmean(sim_finishes)
        t0 = time.monotonic()
        reals = [asyncio.run(real_run(name, scale, scenario)) for _ in range(args.runs)]
        wall = time.monotonic() - t0
        real_finish = statistics.median(r[0] for r in reals)
        same = all(r[1] == sim_pages for r in reals)
        same_failures = all(r[2] == sim_failures for r in reals)
        diff = (real_finish - sim_mean) / sim_mean
        ok = abs(diff) <= 0.10
        spread = f" (sim {min(sim_finishes):.3f}-{max(sim_finishes):.3f} over {draws} draws)" if draws > 1 else ""
        print(
            f"{name:<16}{scale:>7.3g}{len(sim_pages):>7}  {'yes' if same else 'NO':<9}{sim_mean:>9.3f}"
            f"{real_finish:>9.3f}{diff:>+8.1%}  {'yes' if ok else 'NO'}{spread}",
            flush=True,
        )
        if not same:
            for i, r in enumerate(reals):
                print(f"    run {i}: only real {sorted(r[1] - sim_pages)[:5]}, only sim {sorted(sim_pages - r[1])[:5]}")
        if not same_failures:
            print(f"    failures differ: sim {sim_failures} real {[r[2] for r in reals]}")
        rows.append(
            {
                "scenario": name,
                "scale": scale,
                "pages": len(sim_pages),
                "same_pages": same,
                "same_failures": same_failures,
                "sim_finish": sim_mean,
                "sim_draws": draws,
                "sim_min": min(sim_finishes),
                "sim_max": max(sim_finishes),
                "real_finish": real_finish,
                "real_runs": [r[0] for r in reals],
                "diff": diff,
                "within_10pct": ok,
                "wall_seconds": wall,
            }
        )
    for name, why in EXCLUDED.items():
        if not args.scenarios:
            print(f"{name:<16} excluded: {why}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    bad = [r["scenario"] for r in rows if not (r["same_pages"] and r["within_10pct"])]
    print("all within 10% with identical page sets" if not bad else f"outside: {', '.join(bad)}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
