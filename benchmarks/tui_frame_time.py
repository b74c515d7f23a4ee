"""Frame time of the terminal app on a 2,000-page crawl (target: <= 33 ms).

Builds a 2,000-page, 40-host scenario in memory, runs the app headless at
160x48, and times N frames spread over the crawl.  A frame is what the
animation timer does -- seek the replay to t and refresh every panel -- plus
the repaint Textual does next: rendering the panels, compositing, and (since
a headless app skips it) turning the update into terminal escape codes,
which the benchmark does itself so the figure covers a real terminal's work
except the write.

    python benchmarks/tui_frame_time.py [--frames 300] [--size 160x48] [--pages 2000]

The last line is JSON: {"frames", "pages", "events", "mean_ms", "p50_ms",
"p95_ms", "p99_ms", "max_ms", "cpu_mean_ms", "cpu_p50_ms", "cpu_p95_ms",
"cpu_p99_ms", ...}.  ``*_ms`` are wall-clock per frame; ``cpu_*_ms`` are this
process's CPU time per frame (``time.process_time``), the figure to trust on
a machine shared with other work: wall time also counts the time the process
waited for a core.  A percentile is the nearest-rank value of the sorted
frames (``p95`` of 300 frames is the 285th fastest).  ``loadavg_1m`` is the
machine's load when the run ended, so a reader can tell a quiet machine's
figure from a busy one's (the target is for a machine otherwise idle).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from typing import Any

from crawlsim.scenario.files import scenario_from_dict
from crawlsim.tui.app import CrawlApp


def scenario_dict(pages: int) -> dict[str, Any]:
    """A busiest-host-like web: Zipf host sizes, one request per host at a time."""
    return {
        "title": f"{pages:,} generated pages (frame-time benchmark)",
        "seed": 3,
        "crawl": {"workers": 16, "per_host": 1, "scope": "any", "normalize": "rfc3986"},
        "hosts": {"*": {"latency": {"model": "lognormal", "median": 0.25, "sigma": 0.4}}},
        "web": {
            "kind": "power_law",
            "pages": pages,
            "hosts": 40,
            "zipf": 1.2,
            "branching": 4,
            "extra_links": 3,
            "cross_rate": 0.1,
            "variant_rate": 0.1,
            "variants": ["fragment", "case", "www"],
        },
    }


async def measure(frames: int, size: tuple[int, int], pages: int) -> dict[str, Any]:
    scenario = scenario_from_dict(scenario_dict(pages), name="bench-2000")
    app = CrawlApp(scenario, paused=True, animate=False, threaded=False)
    serialise_ms: list[float] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        # headless Textual skips this step; a terminal would pay for it
        if renderable is not None and hasattr(renderable, "render_segments"):
            began = time.perf_counter()
            renderable.render_segments(app.console)
            serialise_ms.append((time.perf_counter() - began) * 1000)
        original(screen, renderable)

    app._display = display  # type: ignore[method-assign]
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert app.result is not None
        replay = app.result.replay
        end = replay.end
        times: list[float] = []
        cpu: list[float] = []
        painted = 0
        for i in range(frames):
            t = end * (i + 1) / frames
            before = len(serialise_ms)
            began, began_cpu = time.perf_counter(), time.process_time()
            app.show(t)
            # process the refresh messages, then repaint (no idle-wait sleep,
            # which pilot.pause() would add to every frame)
            await pilot.pause(0)
            times.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            painted += len(serialise_ms) > before
        # scrubbing backward replays from the start: time the worst case too
        began = time.perf_counter()
        app.seek_to(0.0)
        app.seek_to(end)
        await pilot.pause(0)
        scrub = (time.perf_counter() - began) * 1000
    return {
        "frames": frames,
        "size": f"{size[0]}x{size[1]}",
        "pages": len(replay.page_list),
        "events": len(replay.events),
        "mode": "hosts" if replay.large else "pages",
        **percentiles("", times),
        **percentiles("cpu_", cpu),
        "frames_painted": painted,
        "serialise_mean_ms": round(statistics.fmean(serialise_ms), 2) if serialise_ms else None,
        "scrub_to_start_and_end_ms": round(scrub, 2),
        "target_ms": 33,
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }


def percentiles(prefix: str, samples: list[float]) -> dict[str, float]:
    """Mean, p50, p95, p99 and max of per-frame milliseconds (nearest rank)."""
    ordered = sorted(samples)
    last = len(ordered) - 1
    out = {f"{prefix}mean_ms": round(statistics.fmean(ordered), 2)}
    for q in (50, 95, 99):
        out[f"{prefix}p{q}_ms"] = round(ordered[int(q / 100 * last)], 2)
    out[f"{prefix}max_ms"] = round(ordered[-1], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--pages", type=int, default=2000)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    result = asyncio.run(measure(args.frames, (width, height), args.pages))
    print(
        f"{result['frames']} frames of a {result['pages']:,}-page crawl ({result['events']:,} events) at "
        f"{result['size']}, load average {result['loadavg_1m']}; target p95 {result['target_ms']} ms"
    )
    for label, prefix in (("wall", ""), ("CPU ", "cpu_")):
        print(
            f"  {label}: mean {result[prefix + 'mean_ms']} ms, p50 {result[prefix + 'p50_ms']} ms, "
            f"p95 {result[prefix + 'p95_ms']} ms, p99 {result[prefix + 'p99_ms']} ms, "
            f"max {result[prefix + 'max_ms']} ms"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
