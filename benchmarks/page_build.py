"""What does writing the "See it" page cost?

    python benchmarks/page_build.py              # see-it, once
    python benchmarks/page_build.py --scenario isro --repeat 3

``crawlsim html see-it`` simulates every setting the page's keys reach
(1,440 crawls of the see-it web, each with the advisor's reruns).  This
times :func:`crawlsim.page.build.scenario_data` in this process and prints
both CPU seconds (what a loaded machine does not inflate much) and wall
seconds.  A measurement, not a test.  The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from crawlsim.page.build import scenario_data
from crawlsim.scenario import load_scenario


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="see-it")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    scenario = load_scenario(args.scenario)
    cpu, wall = [], []
    for _ in range(args.repeat):
        began_cpu, began_wall = time.process_time(), time.perf_counter()
        data = scenario_data(scenario)
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began_wall)
    load = os.getloadavg()[0]
    print(f"{args.scenario}: {len(data['runs']):,} runs; best {min(cpu):.1f} s CPU, {min(wall):.1f} s wall "
          f"(load average {load:.1f})")
    print(json.dumps({"scenario": args.scenario, "runs": len(data["runs"]), "cpu_s": round(min(cpu), 2),
                      "wall_s": round(min(wall), 2), "load": round(load, 1)}))


if __name__ == "__main__":
    main()
