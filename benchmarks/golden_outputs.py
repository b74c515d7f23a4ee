"""Write every shipped scenario's trace and ``run --json`` to a folder, to diff two versions.

    python benchmarks/golden_outputs.py OUT_BEFORE      # on the old code
    python benchmarks/golden_outputs.py OUT_AFTER       # on the new code
    diff -r OUT_BEFORE OUT_AFTER                        # nothing: the same behaviour

A refactor that must not change behaviour (the politeness part, for one)
is checked this way: for each scenario in ``scenarios/``, ``crawlsim trace
SCENARIO -o`` (JSONL) and ``crawlsim run SCENARIO --json``, plus a few
variants that exercise every politeness path (randomized gaps, robots.txt
with Crawl-delay, the FIFO frontier).  ``--skip NAME`` leaves a scenario's
trace out (``million``'s trace is large; its ``run --json`` is still written).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = {
    "polite-randomized": ["polite", "--randomize-gap", "--seed", "7"],
    "see-it-robots-gap": ["see-it", "--robots", "--gap", "0.3"],
    "busiest-host-fifo": ["busiest-host", "--frontier", "fifo", "--gap", "0.2"],
    "mirrors-robots-delay": ["mirrors", "--robots", "--set", "max_crawl_delay=0.5"],
}


def _crawlsim(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("crawlsim")), *args]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--skip", action="append", default=[], help="leave this scenario's trace out")
    parser.add_argument("--scenarios", type=Path, default=ROOT / "scenarios", help="the scenario folder")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    runs = {p.stem: [p.stem] for p in sorted(args.scenarios.glob("*.toml"))} | VARIANTS
    for name, spec in runs.items():
        if name not in args.skip:
            subprocess.run(_crawlsim("trace", *spec, "-o", str(args.out / f"{name}.jsonl")), check=True)
        with (args.out / f"{name}.json").open("w") as out:
            subprocess.run(_crawlsim("run", *spec, "--json"), check=True, stdout=out)
        print(name, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
