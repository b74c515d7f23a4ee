"""Does every shipped follow-up answer get the same verdict on every run?

    python benchmarks/rounds_repeat.py                      # every round, 10 runs per example
    python benchmarks/rounds_repeat.py --round rate --runs 3

For each round, each ``examples/interview/`` answer of that round (the
references and the buggy ones named in ``ROUND_EXAMPLES``) is checked
``--runs`` times with ``crawlsim check FILE:crawl --follow-up NAME --quick``
(sandboxed, as a user runs it).  One line per answer: how many runs gave the
expected verdict (a reference passes; a buggy answer fails with its cause),
the causes seen, and the slowest run's seconds.  The timing rounds' figures
(starts per window, waits, how long a call ran) come from the simulated
services' recorded call times, so a loaded machine shifts the numbers but
should not change a verdict: run this while the machine is busy to see that.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from crawlsim.check import run_check

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "interview"

ROUND_EXAMPLES: dict[str, list[tuple[str, str | None]]] = {
    # round -> (example, the cause it must fail with; None: it must pass)
    "retries": [
        ("reference_retries", None),
        ("buggy_retries_fixed_delay", "retry-no-growth"),
        ("buggy_retries_permanent", "retry-permanent"),
        ("buggy_retries_coordinator_sleeps", "retry-blocks"),
    ],
    "timeout": [
        ("reference_timeout", None),
        ("reference_timeout_asyncio", None),
        ("buggy_timeout_with_block", "timeout-waits"),
        ("buggy_timeout_from_submit", "timeout-too-soon"),
        ("buggy_timeout_asyncio_semaphore", "timeout-too-soon"),
    ],
    "rate": [
        ("reference_rate", None),
        ("reference_rate_asyncio", None),
        ("buggy_rate_per_worker", "rate-per-worker"),
        ("buggy_rate_no_limit", "rate-no-limit"),
        ("buggy_rate_lock_held", "rate-one-at-a-time"),
        ("buggy_rate_asyncio_lock_held", "rate-one-at-a-time"),
    ],
    "politeness": [
        ("reference_politeness", None),
        ("reference_politeness_asyncio", None),
        ("buggy_politeness_no_cap", "polite-per-host"),
        ("buggy_politeness_global_cap", "polite-global-cap"),
        ("buggy_politeness_gap_from_end", "polite-gap-from-end"),
        ("buggy_politeness_lock_sleeps", "polite-serialised"),
        ("buggy_politeness_asyncio_no_gap", "polite-gap"),
    ],
}


def _once(example: str, round_name: str) -> tuple[bool, set[str], float]:
    """(passed, causes of the failed checks, seconds) of one check."""
    began = time.perf_counter()
    report = run_check(f"{EXAMPLES / example}.py:crawl", quick=True, follow_up=round_name)
    causes = {c.cause or c.name for c in report.checks if c.kind == "correctness" and not c.passed}
    return report.ok, causes, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", choices=sorted(ROUND_EXAMPLES), action="append", help="only this round")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    rows = []
    for round_name in args.round or list(ROUND_EXAMPLES):
        for example, cause in ROUND_EXAMPLES[round_name]:
            seen: Counter[str] = Counter()
            right, slowest = 0, 0.0
            for _ in range(args.runs):
                ok, causes, seconds = _once(example, round_name)
                seen.update(causes or {"pass"})
                right += ok if cause is None else (not ok and cause in causes)
                slowest = max(slowest, seconds)
            rows.append(
                {
                    "round": round_name,
                    "example": example,
                    "expected": cause or "pass",
                    "right": right,
                    "runs": args.runs,
                    "seen": dict(seen),
                    "slowest_s": round(slowest, 2),
                }
            )
            print(
                f"{round_name:8} {example:36} {right}/{args.runs} {cause or 'pass':20} seen {dict(seen)} "
                f"slowest {slowest:.1f} s",
                flush=True,
            )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
