"""How much does simulating a crawl cost over just walking the same web?

    python benchmarks/sim_vs_bfs.py                   # 1,000,000 pages, 10,000 hosts, 64 workers
    python benchmarks/sim_vs_bfs.py --pages 200000    # 2,000 hosts (pages / 100)
    python benchmarks/sim_vs_bfs.py --cli             # also `crawlsim run million --json`, end to end
    python benchmarks/sim_vs_bfs.py --trace           # also the cost of recording events

Every contestant gets the same lazily generated power-law web, built the way
the shipped ``scenarios/million.toml`` builds it (its ``[web]`` table with
``pages`` and ``hosts`` replaced, its ``[crawl]`` options, ``workers``
replaced).

The contestants
---------------
fair BFS (``bfs``, the baseline of the headline ``ratio``)
    the fastest BFS that does what the scheduler must: a ``deque`` and a
    ``set`` of strings; for each page ``web.links(url)``, and for each link
    the scheduler's own short cut -- test the raw link against the seen set
    first and canonicalize only links not seen (sound when canonical forms
    are fixpoints, as under the scenario's ``rfc3986``: see
    ``crawlsim.core.urls.canonical_is_fixpoint``) -- with the same
    normalization: the core's regex test for an already-canonical link, else
    ``canonical_or_raise``.  Method lookups are hoisted into locals.  The
    BFS returns its seen set, so freeing it is not timed.  None of a
    crawler's bookkeeping.
simulation (``sim``)
    ``crawlsim.sim.driver.simulate(scenario, trace=False, series=False)``:
    the real scheduler (per-host queues, per_host = 1, 64 workers, stats) on
    SimPy's clock, with sampled log-normal latencies, ``web.response``
    (status, headers, links) per fetch, and the per-host figures the bounds
    need.
textbook BFS (``textbook``, a secondary figure only)
    every link through ``canonical_or_raise`` and then the seen set, no
    short cut.  This was once the baseline of ``ratio`` (the
    README's old 1.94x); it is reported as ``ratio_vs_textbook``.
``crawlsim run`` (``cli``, with ``--cli``)
    ``crawlsim run million --json`` as a user runs it (a scenario file with
    the web resized when ``--pages``/``--hosts`` differ from the shipped
    ones): a fresh interpreter, imports, the web, the crawl, the bounds and
    the advice, the JSON.  Its CPU time is the child's user + system time
    (``os.wait4``'s rusage, the figure ``getrusage(RUSAGE_CHILDREN)`` adds
    up).  ``cli_ratio`` divides it by the fair BFS's walk alone (no
    interpreter start, no web build: ``build_cpu_s`` says what those cost).

Method
------
Time is CPU time (``time.process_time``; wall time is reported beside it),
each run after ``gc.collect()``.  The contestants are alternated in this one
process -- bfs, sim, textbook, cli, bfs, sim, ... -- for ``--repeat N``
rounds (default 3: a 1,000,000-page round is about a minute of CPU, and a
loaded machine stretches that several times), so a slow spell of the machine
hits every contestant.  ``ratio`` is the best simulation over the best BFS
(the least-disturbed run of each, as ``timeit`` reads it);
``ratio_median`` the median over the median.

Memory is measured after the timing, each contestant in a fresh child
process (this script with ``--child``) so one run's heap cannot hide
another's: the child builds the web, collects, resets the kernel's peak-RSS
mark (``/proc/self/clear_refs``), runs once, and reports the peak RSS above
that post-build baseline (``rss_bytes_per_page``); a second child per
contestant runs under ``tracemalloc`` (started after the build) and reports
the peak of memory allocated above the starting point
(``peak_bytes_per_page``).  tracemalloc counts Python's allocations; RSS
adds the allocator's slack and fragmentation.  tracemalloc slows a run ten
times and more (at 1,000,000 pages the simulation's child takes many minutes
on a loaded machine): ``--no-tracemalloc`` keeps the RSS children only.

Builds
------
The line after the first says which build runs (``crawlsim.build_info``):
pure Python, or compiled -- the ``.py`` files of the core's scheduler and its
parts and of the simulator's driver and latency samplers, compiled by Cython
(``pip install .``; ``setup.py``).  The generated web's link generation and
the URL helpers are never compiled: the fair BFS calls them too, and
compiling them for one side only would flatter the ratio.  To measure the
compiled build, install it (``CRAWLSIM_BUILD=compiled pip install .`` into a
venv of its own) and run this script with that venv's interpreter from
outside the checkout.

Cython or mypyc (200,000 pages, 2 rounds, ``--no-memory --no-textbook``,
one loaded 2-core machine, the same ten modules):

=========================================  ==================================
build                                      simulation / fair BFS (best)
=========================================  ==================================
pure Python                                3.17x (sim 6.71 s, BFS 2.12 s)
Cython, ``annotation_typing`` off          3.00x (sim 6.02 s, BFS 2.01 s)
mypyc                                      does not compile the unchanged
                                           files: 15 type errors (the lane
                                           timer's optional fields in the
                                           driver, one in the frontier) and
                                           "inheriting from most builtin
                                           types is unimplemented"
                                           (``UnknownFetch`` is a KeyError)
=========================================  ==================================

So the build is Cython: it compiles the files as they are.  With
``annotation_typing`` off a ``float`` annotation stays a Python object (on,
``now: float`` would turn an int ``now`` into a float and change events),
so Cython saves the interpreter's dispatch, not the objects: 8-10% here.

Output
------
Progress goes to stdout as it happens; the last line is one JSON object.
``baseline`` is ``"bfs_seen_first"``: ``bfs_s`` and ``sim_s`` are best CPU
seconds, ``ratio`` = ``sim_s / bfs_s`` (``cpu_ratio`` and
``ratio_vs_seen_first`` are the same figure, kept for old readers;
``bfs_seen_first_s`` = ``bfs_s``).  Earlier versions reported ``bfs_s``/``sim_s``
in wall seconds and ``ratio`` against the textbook BFS.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crawlsim.build_info import build_name, compiled_modules
from crawlsim.core.urls import CanonicalizeError, already_canonical_test, canonical_is_fixpoint, canonical_or_raise
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.driver import simulate

SHIPPED_PAGES, SHIPPED_HOSTS, SHIPPED_WORKERS = 1_000_000, 10_000, 64


def build_scenario(pages: int, hosts: int, workers: int, seen: str | None) -> Scenario:
    """The shipped million-page scenario, resized."""
    base = load_scenario("million")
    data: dict[str, Any] = dict(base.data)
    data["web"] = {**data["web"], "pages": pages, "hosts": hosts}
    crawl = {**data.get("crawl", {}), "workers": workers, "record_events": False}
    if seen:
        crawl["seen"] = seen
    data["crawl"] = crawl
    return scenario_from_dict(data, path=str(base.path), name=f"million@{pages}")


def _seed_urls(scenario: Scenario, seen: set[str], queue: deque[str]) -> None:
    steps = scenario.options.normalize_steps
    for href in scenario.seeds:
        url = canonical_or_raise(href, None, steps)
        if url not in seen:
            seen.add(url)
            queue.append(url)


def fair_bfs(scenario: Scenario) -> tuple[int, set[str]]:
    """Visit every page reachable from the seeds the fastest fair way; return
    (pages visited, the seen set).  Falls back to the textbook loop when the
    normalization's canonical forms are not fixpoints (the short cut would
    then be unsound, and the scheduler does not take it either)."""
    steps = scenario.options.normalize_steps
    quick = already_canonical_test(steps)
    if not canonical_is_fixpoint(steps) or quick is None:
        return textbook_bfs(scenario)
    links = scenario.web.links
    seen: set[str] = set()
    queue: deque[str] = deque()
    _seed_urls(scenario, seen, queue)
    add, push, pop = seen.add, queue.append, queue.popleft
    visited = 0
    while queue:
        page = pop()
        visited += 1
        for href in links(page):
            if href in seen:
                continue
            if quick(href) is not None:  # canonical, and just shown unseen
                add(href)
                push(href)
                continue
            try:
                url = canonical_or_raise(href, page, steps)
            except CanonicalizeError:
                continue
            if url not in seen:
                add(url)
                push(url)
    return visited, seen


def textbook_bfs(scenario: Scenario) -> tuple[int, set[str]]:
    """Every link canonicalized, then looked up: the old baseline (before the seen-first BFS)."""
    steps = scenario.options.normalize_steps
    links = scenario.web.links
    seen: set[str] = set()
    queue: deque[str] = deque()
    _seed_urls(scenario, seen, queue)
    visited = 0
    while queue:
        page = queue.popleft()
        visited += 1
        for href in links(page):
            try:
                url = canonical_or_raise(href, page, steps)
            except CanonicalizeError:
                continue
            if url not in seen:
                seen.add(url)
                queue.append(url)
    return visited, seen


def run_sim(scenario: Scenario) -> Any:
    return simulate(scenario, trace=False, series=False)


def run_sim_traced(scenario: Scenario) -> Any:
    """What ``crawlsim trace`` runs: every event and the frontier series."""
    return simulate(scenario, trace=True, series=True)


IN_PROCESS: dict[str, Callable[[Scenario], Any]] = {
    "bfs": fair_bfs,
    "sim": run_sim,
    "textbook": textbook_bfs,
    "sim_trace": run_sim_traced,
}


# ---------------------------------------------------------------- children


def _proc_status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) to the current RSS."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def child_main(args: argparse.Namespace) -> int:
    """Build the web, then run one contestant once and print its memory as JSON."""
    scenario = build_scenario(args.pages, args.hosts, args.workers, args.seen)
    fn = IN_PROCESS[args.child]
    gc.collect()
    out: dict[str, Any] = {"contestant": args.child, "measure": args.measure}
    if args.measure == "tracemalloc":
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        result = fn(scenario)
        out["peak_bytes"] = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    else:
        reset = _reset_peak_rss()
        base_kib = _proc_status_kib("VmRSS") or 0
        result = fn(scenario)
        peak_kib = _proc_status_kib("VmHWM") or 0
        out["baseline_rss_bytes"] = base_kib * 1024
        out["peak_bytes"] = (peak_kib - base_kib) * 1024
        out["peak_reset"] = reset  # False: the peak may include the build's
    out["pages"] = result[0] if isinstance(result, tuple) else result.stats.pages_fetched
    if args.child == "sim_trace":
        out["events"] = len(result.trace)
    print(json.dumps(out), flush=True)
    return 0


def child_memory(args: argparse.Namespace, contestant: str, measure: str) -> dict[str, Any]:
    """Run this script in ``--child`` mode in a fresh interpreter."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        contestant,
        "--measure",
        measure,
        "--pages",
        str(args.pages),
        "--hosts",
        str(args.hosts),
        "--workers",
        str(args.workers),
    ]
    if args.seen:
        cmd += ["--seen", args.seen]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {contestant}/{measure} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# ---------------------------------------------------------------- the CLI


def cli_command(args: argparse.Namespace, workdir: str) -> list[str]:
    """``crawlsim run million --json``, resized through a scenario file when
    the benchmark's web is not the shipped one."""
    exe = Path(sys.executable).with_name("crawlsim")
    cmd = [str(exe) if exe.exists() else "crawlsim", "run"]
    if (args.pages, args.hosts) == (SHIPPED_PAGES, SHIPPED_HOSTS):
        cmd.append("million")
    else:
        text = Path(str(load_scenario("million").path)).read_text()
        text = re.sub(r"(?m)^pages = \d+$", f"pages = {args.pages}", text)
        text = re.sub(r"(?m)^hosts = \d+$", f"hosts = {args.hosts}", text)
        path = Path(workdir) / f"million-{args.pages}.toml"
        path.write_text(text)
        cmd.append(str(path))
    if args.workers != SHIPPED_WORKERS:
        cmd += ["--workers", str(args.workers)]
    if args.seen:
        cmd += ["--seen", args.seen]
    return [*cmd, "--json"]


def time_cli(cmd: list[str]) -> tuple[dict[str, Any], float, float, int]:
    """(its JSON, CPU seconds, wall seconds, peak RSS bytes) of one run."""
    wall = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - wall
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return json.loads(out), usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss * 1024


# ---------------------------------------------------------------- timing


def say(text: str) -> None:
    print(text, flush=True)


def timed_once(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, CPU seconds, wall seconds) of ``fn()`` after a full collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return result, cpu, wall


def alternate(
    args: argparse.Namespace, scenario: Scenario, order: list[str], workdir: str
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, Any]]:
    """Run the contestants in turn for ``args.repeat`` rounds; (CPU times,
    wall times, what each contestant's first run found)."""
    cpu: dict[str, list[float]] = {name: [] for name in order}
    wall: dict[str, list[float]] = {name: [] for name in order}
    found: dict[str, Any] = {}
    cmd = cli_command(args, workdir) if "cli" in order else []
    # as a reader would type it: no venv path, the resized file by its role
    shown = " ".join(["crawlsim", *cmd[1:]]).replace(workdir + os.sep, "resized:")
    for round_no in range(1, args.repeat + 1):
        line = []
        for name in order:
            result: Any
            if name == "cli":
                data, c, w, rss = time_cli(cmd)
                result = (data, rss, shown)
            else:
                result, c, w = timed_once(functools.partial(IN_PROCESS[name], scenario))
            cpu[name].append(c)
            wall[name].append(w)
            found.setdefault(name, summarize(name, result))
            del result
            line.append(f"{name} {c:.2f} s")
        say(f"round {round_no}/{args.repeat} (CPU): " + ", ".join(line))
    return cpu, wall, found


def summarize(name: str, result: Any) -> dict[str, Any]:
    if name in ("sim", "sim_trace"):
        stats = result.stats
        return {
            "pages": stats.pages_fetched,
            "fetches": stats.fetches,
            "finish": result.finish_time,
            "peak_frontier": stats.peak_frontier,
            "events": len(result.trace),
        }
    if name == "cli":
        data, rss, command = result
        return {"pages": data["pages_fetched"], "max_rss": rss, "command": command}
    return {"pages": result[0]}


def best(xs: list[float]) -> float:
    return min(xs)


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=SHIPPED_PAGES, help="pages in the web (default 1,000,000)")
    parser.add_argument("--hosts", type=int, default=None, help="hosts (default pages / 100)")
    parser.add_argument("--workers", type=int, default=SHIPPED_WORKERS, help="simulated workers (default 64)")
    parser.add_argument(
        "--seen",
        choices=("exact", "hash", "bloom"),
        default=None,
        help="the simulation's seen set (default: the scenario's, exact)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        metavar="N",
        help="rounds of alternated runs; best and median of N (default 3)",
    )
    parser.add_argument("--no-textbook", action="store_true", help="leave the textbook BFS out of the rounds")
    parser.add_argument("--cli", action="store_true", help="also time `crawlsim run million --json` in the rounds")
    parser.add_argument("--trace", action="store_true", help="also time and measure the simulation recording events")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory children (time only)")
    parser.add_argument(
        "--no-tracemalloc",
        action="store_true",
        help="measure memory by RSS only (tracemalloc slows a 1,000,000-page run tenfold and more)",
    )
    parser.add_argument("--child", choices=sorted(IN_PROCESS), help=argparse.SUPPRESS)
    parser.add_argument("--measure", choices=("rss", "tracemalloc"), default="rss", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.hosts = args.hosts or max(1, args.pages // 100)
    args.repeat = max(1, args.repeat)
    return args


def memory_figures(args: argparse.Namespace, names: list[str], pages: int) -> dict[str, Any]:
    """Peak RSS and tracemalloc peak above the post-build baseline, each
    contestant in its own fresh child; B/page keys of the JSON."""
    keys = {"bfs": "bfs_", "sim": "", "sim_trace": "trace_", "textbook": "textbook_"}
    out: dict[str, Any] = {}
    for name in names:
        rss = child_memory(args, name, "rss")
        if rss["pages"] != pages:
            say(f"WARNING: the {name} child visited {rss['pages']:,} pages, not {pages:,}")
        say(
            f"{name}: peak RSS above baseline {rss['peak_bytes'] / 2**20:,.1f} MiB "
            f"({rss['peak_bytes'] / pages:.0f} B/page; baseline {rss['baseline_rss_bytes'] / 2**20:,.0f} MiB)"
        )
        out[keys[name] + "rss_bytes_per_page"] = round(rss["peak_bytes"] / pages, 1)
        if args.no_tracemalloc:
            continue
        traced = child_memory(args, name, "tracemalloc")
        if traced["pages"] != pages:
            say(f"WARNING: the {name} tracemalloc child visited {traced['pages']:,} pages, not {pages:,}")
        say(
            f"{name}: tracemalloc peak {traced['peak_bytes'] / 2**20:,.1f} MiB ({traced['peak_bytes'] / pages:.0f} B/page)"
        )
        out[keys[name] + "peak_bytes_per_page"] = round(traced["peak_bytes"] / pages, 1)
        if not rss["peak_reset"]:
            out["rss_peak_reset"] = False
    return out


def headline(
    args: argparse.Namespace, cpu: dict[str, list[float]], wall: dict[str, list[float]], found: dict[str, Any]
) -> dict[str, Any]:
    """Say the fair BFS, the simulation and their ratio; the JSON's core keys."""
    visited, sim = found["bfs"]["pages"], found["sim"]
    bfs_s, sim_s = best(cpu["bfs"]), best(cpu["sim"])
    bfs_med, sim_med = median(cpu["bfs"]), median(cpu["sim"])
    say(
        f"fair BFS (seen-first): {visited:,} pages, CPU best {bfs_s:.2f} s, median {bfs_med:.2f} s "
        f"({bfs_s / visited * 1e6:.2f} us/page)"
    )
    say(
        f"simulation: {sim['pages']:,} pages, {sim['fetches']:,} fetches, CPU best {sim_s:.2f} s, "
        f"median {sim_med:.2f} s ({sim_s / visited * 1e6:.2f} us/page); simulated finish "
        f"{sim['finish']:,.1f} s, peak frontier {sim['peak_frontier']:,}"
    )
    wall_ratio = best(wall["sim"]) / best(wall["bfs"])
    say(
        f"RATIO simulation / fair BFS: best {sim_s / bfs_s:.2f}x, median {sim_med / bfs_med:.2f}x "
        f"(wall best {wall_ratio:.2f}x)"
    )
    for name, summary in found.items():
        if "pages" in summary and summary["pages"] != visited:
            say(f"WARNING: {name} visited {summary['pages']:,} pages, the fair BFS {visited:,}")
    return {
        "pages": visited,
        "baseline": "bfs_seen_first",
        "method": "cpu_time_alternated",
        "bfs_s": round(bfs_s, 3),
        "sim_s": round(sim_s, 3),
        "ratio": round(sim_s / bfs_s, 3),
        "ratio_median": round(sim_med / bfs_med, 3),
        "bfs_median_s": round(bfs_med, 3),
        "sim_median_s": round(sim_med, 3),
        "cpu_ratio": round(sim_s / bfs_s, 3),
        "bfs_seen_first_s": round(bfs_s, 3),
        "ratio_vs_seen_first": round(sim_s / bfs_s, 3),
        "wall_ratio": round(wall_ratio, 3),
        "sim_us_per_page": round(sim_s / visited * 1e6, 2),
        "bfs_us_per_page": round(bfs_s / visited * 1e6, 2),
        "peak_frontier": sim["peak_frontier"],
        "cpu_s_per_round": {name: [round(x, 3) for x in xs] for name, xs in cpu.items()},
    }


def against_bfs(label: str, key: str, cpu: dict[str, list[float]], name: str) -> dict[str, Any]:
    """A secondary contestant's best and median CPU seconds, and its ratios."""
    if name not in cpu:
        return {}
    mine, mine_med = best(cpu[name]), median(cpu[name])
    bfs_s, bfs_med, sim_s, sim_med = best(cpu["bfs"]), median(cpu["bfs"]), best(cpu["sim"]), median(cpu["sim"])
    if name == "textbook":  # the old baseline: the simulation over it
        say(
            f"(secondary) {label}: CPU best {mine:.2f} s; simulation / textbook: best {sim_s / mine:.2f}x, "
            f"median {sim_med / mine_med:.2f}x"
        )
        return {
            "bfs_textbook_s": round(mine, 3),
            "ratio_vs_textbook": round(sim_s / mine, 3),
            "ratio_vs_textbook_median": round(sim_med / mine_med, 3),
        }
    say(
        f"{label}: CPU best {mine:.2f} s, median {mine_med:.2f} s; / fair BFS: best {mine / bfs_s:.2f}x, "
        f"median {mine_med / bfs_med:.2f}x; / simulation: best {mine / sim_s:.2f}x"
    )
    return {
        f"{key}_s": round(mine, 3),
        f"{key}_median_s": round(mine_med, 3),
        f"{key}_ratio": round(mine / bfs_s, 3),
        f"{key}_ratio_median": round(mine_med / bfs_med, 3),
        f"{key}_cost": round(mine / sim_s, 3),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child_main(args)
    say(
        f"python {platform.python_version()} on {platform.machine()}; {args.pages:,} pages on {args.hosts:,} "
        f"hosts, {args.workers} workers; CPU time, contestants alternated, {args.repeat} round(s)"
    )
    say(f"build: {build_name()}; compiled: {', '.join(compiled_modules()) or 'nothing'} (the web and URL helpers never)")
    scenario, build_cpu, _ = timed_once(lambda: build_scenario(args.pages, args.hosts, args.workers, args.seen))
    opts = scenario.options
    say(
        f"built the web in {build_cpu:.2f} s CPU (normalize={sorted(opts.normalize_steps)}, "
        f"per_host={opts.per_host}, seen={opts.seen}, seen-first short cut sound: "
        f"{canonical_is_fixpoint(opts.normalize_steps)})"
    )
    order = ["bfs", "sim"] + ([] if args.no_textbook else ["textbook"])
    order += (["sim_trace"] if args.trace else []) + (["cli"] if args.cli else [])
    with tempfile.TemporaryDirectory() as workdir:
        cpu, wall, found = alternate(args, scenario, order, workdir)
    del scenario
    result = headline(args, cpu, wall, found)
    result.update(
        hosts=args.hosts, workers=args.workers, seen=opts.seen, repeat=args.repeat, build_cpu_s=round(build_cpu, 3)
    )
    result.update(build=build_name(), compiled_modules=compiled_modules())
    result.update(against_bfs("textbook BFS, every link canonicalized", "textbook", cpu, "textbook"))
    result.update(against_bfs("`crawlsim run --json` end to end", "cli", cpu, "cli"))
    if "cli" in found:
        result["cli_max_rss_mib"] = round(found["cli"]["max_rss"] / 2**20, 1)
        result["cli_command"] = found["cli"]["command"]
    if args.trace:
        result.update(against_bfs("simulation recording every event", "trace", cpu, "sim_trace"))
        result["trace_events"] = found["sim_trace"]["events"]
    if not args.no_memory:
        gc.collect()
        names = ["bfs", "sim"] + (["sim_trace"] if args.trace else [])
        result.update(memory_figures(args, names, result["pages"]))
        result["memory_method"] = "fresh child per contestant: peak RSS above post-build baseline" + (
            "" if args.no_tracemalloc else "; tracemalloc peak"
        )
        if args.trace and not args.no_tracemalloc:
            result["trace_memory_ratio"] = round(result["trace_peak_bytes_per_page"] / result["peak_bytes_per_page"], 2)
        if args.trace:
            result["trace_rss_ratio"] = round(result["trace_rss_bytes_per_page"] / result["rss_bytes_per_page"], 2)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
