"""What does reading a trace file back cost: CPU and peak memory of ``read_trace``.

    crawlsim trace million --max-pages 100000 -o /tmp/t.jsonl
    python benchmarks/trace_read.py /tmp/t.jsonl
    python benchmarks/trace_read.py /tmp/t.jsonl --baseline /tmp/base --rounds 3

Each reading runs in a fresh child process (so its peak RSS is its own):
``read_trace(FILE)`` timed with ``process_time`` (CPU seconds: on a shared
machine, wall time measures the neighbours), peak RSS from ``getrusage``.
``--baseline DIR`` names another copy of the package (a directory holding
``crawlsim/``, e.g. ``git archive main crawlsim | tar -x -C DIR``): each
round reads with it and with this checkout, alternated, and the best of
each is compared -- how the checks every record gets cost against the
reader without them.

The last line is one JSON object: ``events``, ``cpu_s``, ``rss_mb`` and,
with a baseline, ``baseline_cpu_s``, ``baseline_rss_mb``, ``cpu_ratio``,
``rss_ratio``.
"""

from __future__ import annotations

import argparse
import json
import site
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, resource, sys, time
import crawlsim.trace.jsonl as jsonl
start = time.process_time()
recorded = jsonl.read_trace(sys.argv[1])
cpu = time.process_time() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"events": len(recorded.events), "cpu_s": cpu, "rss_mb": rss, "module": jsonl.__file__}))
"""


def read_once(trace: str, package_dir: str | None) -> dict[str, float]:
    """One reading in a child; ``package_dir``: import crawlsim from there
    (site disabled, so this checkout's editable install does not win)."""
    if package_dir is None:
        command = [sys.executable, "-c", CHILD, trace]
        env = None
    else:
        command = [sys.executable, "-S", "-c", CHILD, trace]
        env = {"PYTHONPATH": ":".join([package_dir, *site.getsitepackages()])}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace")
    parser.add_argument("--baseline", metavar="DIR", help="a directory holding another crawlsim/ to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.baseline and not (Path(args.baseline) / "crawlsim").is_dir():
        parser.error(f"--baseline {args.baseline}: no crawlsim/ in it")
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for round_ in range(args.rounds):
        if args.baseline:
            theirs.append(read_once(args.trace, args.baseline))
            print(f"round {round_ + 1} baseline: {theirs[-1]['cpu_s']:.2f} s CPU, {theirs[-1]['rss_mb']:.0f} MB", flush=True)
        ours.append(read_once(args.trace, None))
        print(f"round {round_ + 1} this:     {ours[-1]['cpu_s']:.2f} s CPU, {ours[-1]['rss_mb']:.0f} MB", flush=True)
    best = min(ours, key=lambda r: r["cpu_s"])
    summary = {"events": best["events"], "cpu_s": round(best["cpu_s"], 2), "rss_mb": round(max(r["rss_mb"] for r in ours))}
    if theirs:
        base = min(theirs, key=lambda r: r["cpu_s"])
        summary |= {
            "baseline_cpu_s": round(base["cpu_s"], 2),
            "baseline_rss_mb": round(max(r["rss_mb"] for r in theirs)),
        }
        summary["cpu_ratio"] = round(summary["cpu_s"] / summary["baseline_cpu_s"], 3)
        summary["rss_ratio"] = round(summary["rss_mb"] / summary["baseline_rss_mb"], 3)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
