"""Where the compiled build's time goes: ``perf`` on the simulation alone.

    python benchmarks/perf_compiled.py --python VENV/bin/python --pages 300000
    python benchmarks/perf_compiled.py --python VENV/bin/python --dwarf   # who calls what

cProfile sees a compiled module's work only as time of its Python-visible
callers, and py-spy (``where_time_goes.py``) sees Python frames; ``perf``
sees every native symbol: CPython's own functions, ``heapq``'s, the regex
engine's and each compiled crawlsim function.  The child is
``ab_trees.py``'s (the million web resized, untraced ``simulate``), run by
``--python`` (a venv holding the build to profile); ``perf record -e
cpu-clock`` (user space: no hardware counters needed) attaches to it once
the web is built, so only the simulation is sampled.

Printed: the top symbols by self time (``perf report --no-children``); with
``--dwarf``, the stacks are unwound from DWARF (frame pointers do not cross
``libpython``) and each sample is also charged to the innermost crawlsim
function on its stack (``[python]``: interpreted Python code ran below it,
such as the web's link generation under ``_Crawl.on_done``).  Needs
``perf`` (``linux-perf``) and ``perf_event_paranoid`` <= 2.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from sim_vs_bfs import build_scenario
from crawlsim.sim.driver import simulate
pages = int(sys.argv[2])
scenario = build_scenario(pages, pages // 100, 64, None)
open(sys.argv[3], "w").write(str(os.getpid()))
time.sleep(1.0)  # (perf attaches meanwhile)
t0 = time.process_time()
run = simulate(scenario, trace=False, series=False)
print(json.dumps({"cpu": time.process_time() - t0, "finish": run.finish_time}))
"""

_CRAWLSIM = re.compile(r"__pyx_(?:f|pw|pf)_8crawlsim_(\w+)")


def crawlsim_function(symbol: str) -> str | None:
    """``core.scheduler.Scheduler._start`` for a Cython symbol of crawlsim, else None."""
    found = _CRAWLSIM.match(symbol)
    if found is None:
        return None
    # Cython's mangling: length-prefixed parts (4core_9scheduler_9Scheduler), then the
    # function's name, after a counter for a Python wrapper (_17on_response, __start)
    rest, parts = found[1], []
    while (digits := re.match(r"\d+", rest)) is not None:
        size, start = int(digits[0]), len(digits[0])
        part, after = rest[start : start + size], rest[start + size :]
        if len(part) < size or (after and not after.startswith("_")):
            break  # a counter, not a length
        parts.append(part)
        rest = after[1:]
    name = re.sub(r"^\d+", "", rest)
    return ".".join([*parts, name] if name else parts)


def record(python: str, pages: int, out: Path, dwarf: bool) -> str:
    """Run the child under ``python`` and ``perf record`` it once the web is built."""
    pid_file = out.with_suffix(".pid")
    child = subprocess.Popen(  # noqa: S603 (our own interpreter and script)
        [python, "-c", CHILD, str(Path(__file__).parent), str(pages), str(pid_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.1)
    graph = ["-F", "800", "--call-graph", "dwarf,16384"] if dwarf else ["-g"]
    perf = subprocess.Popen(  # noqa: S603
        ["perf", "record", "-e", "cpu-clock", *graph, "-p", pid_file.read_text(), "-o", str(out)],
        stderr=subprocess.DEVNULL,
    )
    result, _ = child.communicate()
    perf.wait()
    return result.strip()


def self_time(data: Path, top: int) -> str:
    report = subprocess.run(  # noqa: S603
        ["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio", "-g", "none"],
        capture_output=True, text=True, check=True,
    ).stdout
    rows = [line for line in report.splitlines() if line.strip() and not line.startswith("#")]
    return "\n".join(rows[:top])


def owners(data: Path, top: int) -> str:
    """Each sample charged to the innermost crawlsim function on its stack."""
    script = subprocess.run(  # noqa: S603
        ["perf", "script", "-i", str(data), "-F", "ip,sym"], capture_output=True, text=True, check=True
    ).stdout
    stacks = [[line.split(None, 1)[-1].replace(" (inlined)", "") for line in block.strip().splitlines()]
              for block in script.split("\n\n") if block.strip()]
    charged: collections.Counter[str] = collections.Counter()
    for stack in stacks:
        names = [crawlsim_function(symbol) for symbol in stack]
        inner = next((i for i, name in enumerate(names) if name), len(names))
        owner = names[inner] if inner < len(names) else "(outside crawlsim)"
        python = any(symbol == "_PyEval_EvalFrameDefault" for symbol in stack[:inner])
        charged[f"{owner}{' [python]' if python else ''}"] += 1
    return "\n".join(f"{100 * n / len(stacks):6.2f}%  {name}" for name, n in charged.most_common(top))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the build to profile")
    parser.add_argument("--pages", type=int, default=300_000)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--dwarf", action="store_true", help="DWARF stacks: also charge samples to crawlsim functions")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        print(record(args.python, args.pages, data, args.dwarf))
        print(self_time(data, args.top))
        if args.dwarf:
            print("\nby the innermost crawlsim function on the stack:")
            print(owners(data, 3 * args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
