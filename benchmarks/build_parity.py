"""Does the compiled build crawl exactly as the pure-Python one?  One digest of each.

    python benchmarks/build_parity.py OUT.json       # with each build's interpreter
    cmp pure.json compiled.json                      # identical, or a difference to read

For every shipped scenario and golden_outputs.py's variants (randomized gaps,
robots.txt with Crawl-delay, the FIFO frontier), in this one process:
``crawlsim trace`` (every event, JSONL) and ``crawlsim run --json`` (stats,
finish time, bounds, advice), each as a SHA-256 beside the run's finish time
and stats; and ``million`` resized to 20,000 pages (its full run takes a
minute per build) with its finish time and every counter.  The file names
the build that wrote it on its first line, so ``cmp`` reports that line and
nothing else when the two builds agree: ``.ci/run`` compares from line 2.

Run it from outside the checkout for the installed build (``.ci/run`` does):
the script's own folder is on ``sys.path``, the checkout is not.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from golden_outputs import VARIANTS

from crawlsim.build_info import build_name
from crawlsim.cli import main as crawlsim_main
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import list_scenarios, scenario_from_dict
from crawlsim.sim.driver import simulate


def _cli(*args: str) -> str:
    """What ``crawlsim ARGS`` prints, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = crawlsim_main(list(args))
    if code != 0:
        raise SystemExit(f"crawlsim {' '.join(args)} exited {code}")
    return out.getvalue()


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def digest(name: str, spec: list[str], folder: Path) -> dict[str, Any]:
    """One scenario's trace and run --json, digested; its finish time and stats in clear."""
    trace = folder / f"{name}.jsonl"
    _cli("trace", *spec, "-o", str(trace))
    run = json.loads(_cli("run", *spec, "--json"))
    return {"trace_sha256": _sha(trace.read_bytes()), "run_sha256": _sha(json.dumps(run, sort_keys=True)), "run": run}


def million_small() -> dict[str, Any]:
    """``million`` at 20,000 pages, untraced: its finish time and counters."""
    base = load_scenario("million")
    data = dict(base.data)
    data["web"] = {**data["web"], "pages": 20_000, "hosts": 200}
    run = simulate(scenario_from_dict(data, path=str(base.path), name="million@20000"), trace=False, series=False)
    stats = {k: getattr(run.stats, k) for k in run.stats.__slots__}
    return {"finish_time": repr(run.finish_time), "busy_time": repr(run.busy_time), "stats": repr(stats)}


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    runs = {name: [name] for name in list_scenarios() if name != "million"} | VARIANTS
    with tempfile.TemporaryDirectory() as tmp:
        result = {name: digest(name, spec, Path(tmp)) for name, spec in runs.items()}
    result["million@20000"] = million_small()
    body = json.dumps(result, indent=1, sort_keys=True)
    out.write_text(f"build: {build_name()}\n{body}\n")
    print(f"build_parity: {len(result)} runs digested by the {build_name()} build into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
