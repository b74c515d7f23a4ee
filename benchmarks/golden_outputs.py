"""Write every shipped scenario's trace and ``run --json`` to a folder, to diff two versions.

    python benchmarks/golden_outputs.py OUT_BEFORE      # on the old code
    python benchmarks/golden_outputs.py OUT_AFTER       # on the new code
    python benchmarks/golden_outputs.py --compare OUT_BEFORE OUT_AFTER --new-option rate --new-option burst

A refactor that must not change behaviour (the politeness part, for one)
is checked this way: for each scenario in ``scenarios/``, ``crawlsim trace
SCENARIO -o`` (JSONL) and ``crawlsim run SCENARIO --json``, plus a few
variants that exercise every politeness path (randomized gaps, robots.txt
with Crawl-delay, the FIFO frontier).  ``--skip NAME`` leaves a scenario's
trace out (``million``'s trace is large; its ``run --json`` is still written).

``--compare`` checks two such folders: every trace byte for byte, every
``run --json`` as JSON, where an option the old code did not have
(``--new-option KEY``, at its default) is dropped from the new ``options``
table first -- a new option is listed there whether it is used or not.
"""

from __future__ import annotations

import argparse
import json
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


def compare(before: Path, after: Path, new_options: list[str]) -> int:
    """0 when ``after`` holds the same outputs as ``before`` (see the module docstring)."""
    from crawlsim.core.options import CrawlOptions

    defaults = CrawlOptions().as_mapping()
    differ = 0
    for old in sorted(before.iterdir()):
        new = after / old.name
        if old.suffix == ".json":
            new_run = json.loads(new.read_text())
            for key in new_options:
                if new_run.get("options", {}).get(key, defaults[key]) == defaults[key]:
                    new_run.get("options", {}).pop(key, None)
            same = json.loads(old.read_text()) == new_run
        else:
            same = old.read_bytes() == new.read_bytes()
        print("same" if same else "DIFFERENT", old.name)
        differ += not same
    print(f"{differ} of {len(list(before.iterdir()))} outputs differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="+", help="the folder to write (with --compare: BEFORE AFTER)")
    parser.add_argument("--compare", action="store_true", help="compare two folders written before")
    parser.add_argument("--new-option", action="append", default=[], help="an option only the new code has")
    parser.add_argument("--skip", action="append", default=[], help="leave this scenario's trace out")
    parser.add_argument("--scenarios", type=Path, default=ROOT / "scenarios", help="the scenario folder")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args.out[0], args.out[1], args.new_option)
    out: Path = args.out[0]
    out.mkdir(parents=True, exist_ok=True)
    runs = {p.stem: [p.stem] for p in sorted(args.scenarios.glob("*.toml"))} | VARIANTS
    for name, spec in runs.items():
        if name not in args.skip:
            subprocess.run(_crawlsim("trace", *spec, "-o", str(out / f"{name}.jsonl")), check=True)
        with (out / f"{name}.json").open("w") as handle:
            subprocess.run(_crawlsim("run", *spec, "--json"), check=True, stdout=handle)
        print(name, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
