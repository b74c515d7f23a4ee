"""What does deterministic race finding cost, and does it find the race?

    python benchmarks/interleave_cost.py                       # the built-in set below
    python benchmarks/interleave_cost.py path/to/file.py:crawl  # your own crawler(s)
    python benchmarks/interleave_cost.py --pages 10 --workers 4 --seeds 60

Each crawler runs under ``crawlsim.check.interleave.find_duplicate_fetches``
on a complete web of ``--pages`` pages (every page links every other page,
so any two pages in flight share links), ``--workers`` workers, with the
default seed list (three schedules per preemptible point) unless ``--seeds N``
is given.  One line per crawler: schedules run (calibration included),
steps, seconds (``time.perf_counter`` around the exploration, and
``time.process_time``), how many schedules fetched a page twice, and the
first such schedule's explanation.  The last line is one JSON object with
the same figures.

For a replayable check across processes, run with a fixed ``PYTHONHASHSEED``
(string hashing decides set iteration order).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path

from crawlsim.check.interleave import find_duplicate_fetches

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = [
    "tests/fixtures/interleave/crawlers.py:crawl_unlocked",
    "tests/fixtures/interleave/crawlers.py:crawl_one_line_check_then_add",
    "tests/fixtures/interleave/crawlers.py:crawl_pool_recursive",
    "tests/fixtures/interleave/crawlers.py:crawl_idle_timeout_workers",
    "tests/fixtures/interleave/crawlers.py:crawl_locked",
    "tests/fixtures/interleave/crawlers.py:crawl_condition",
    "tests/fixtures/interleave/crawlers.py:crawl_async_check_await_add",
    "examples/interview/reference_threadpool.py:crawl",
    "examples/interview/reference_asyncio.py:crawl",
    "examples/interview/buggy_seen_on_finish.py:crawl",
]


def _load(spec: str):
    path_text, _, func = spec.partition(":")
    path = Path(path_text)
    if not path.is_absolute():
        path = (Path.cwd() / path) if (Path.cwd() / path).exists() else ROOT / path
    if not path.is_file():
        raise SystemExit(f"interleave_cost: {path_text}: no such file (expected FILE.py[:FUNC])")
    module_spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    assert module_spec and module_spec.loader
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    name = func or "crawl"
    if not callable(getattr(module, name, None)):
        raise SystemExit(f"interleave_cost: {path_text}: no function {name!r}")
    return path, getattr(module, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=BUILT_IN, help="FILE.py[:FUNC] (default: the built-in set)")
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=None, help="number of seeds (default: 2 per preemptible point)")
    args = parser.parse_args()
    pages = [f"http://a.com/p{i}" for i in range(args.pages)]
    web = {p: [q for q in pages if q != p] for p in pages}
    rows = []
    print(f"python {platform.python_version()} on {platform.machine()}, {args.pages} pages, {args.workers} workers")
    for spec in args.targets:
        path, crawl = _load(spec)
        cpu0 = time.process_time()
        report = find_duplicate_fetches(crawl, web=web, start_url=pages[0], files=[str(path)],
                                        max_workers=args.workers,
                                        seeds=range(args.seeds) if args.seeds is not None else None)
        cpu = time.process_time() - cpu0
        row = {
            "target": spec, "schedules": report.schedules, "steps": report.steps,
            "seconds": round(report.seconds, 3), "cpu_seconds": round(cpu, 3),
            "failing_schedules": len(report.duplicates), "problems": len(report.problems),
            "first": str(report.first) if report.first else None,
        }
        rows.append(row)
        print(f"{spec}: {row['schedules']} schedules, {row['steps']} steps, {row['seconds']} s "
              f"({row['cpu_seconds']} s CPU); {row['failing_schedules']} fetched a page twice"
              + (f"; first: {row['first']}" if row["first"] else "")
              + (f"; {row['problems']} did not return" if row["problems"] else ""))
        sys.stdout.flush()
    print(json.dumps({"pages": args.pages, "workers": args.workers, "rows": rows}))


if __name__ == "__main__":
    main()
