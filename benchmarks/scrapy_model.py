"""Does the model of a Scrapy recording predict Scrapy?  Predicted against
real finish, the real side the median of ``--reruns`` crawls.

The web is ``model_fidelity.py --scrapy``'s: ``--pages`` pages over three
loopback hosts served by crawlsim's scenario server, each page taking its
own fixed time (lognormal, median 50 ms).  One Scrapy crawl is recorded at
:data:`RECORD` (Scrapy's defaults for the queue, robots.txt obeyed), modelled
with ``crawlsim model``, and each setting of :data:`SETTINGS` (the recorded
one first) is predicted (``crawlsim run site.toml --workers .. --per-host ..
--gap ..``) and crawled for real ``--reruns`` times.

    python benchmarks/scrapy_model.py [--pages 80] [--reruns 3]

Wall-clock figures: say the machine's load beside them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from model_fidelity import as_flags, crawlsim, free_port, scrapy_crawl, scrapy_scenario  # noqa: E402

RECORD = {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0}
SETTINGS = [
    RECORD,
    {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 2, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 2, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 8, "DOWNLOAD_DELAY": 0.1},
]


def table(tmp: Path, url: str, reruns: int) -> None:
    scrapy_crawl(tmp, url, RECORD, "warm")  # the first crawl pays for cold caches
    finish, pages = scrapy_crawl(tmp, url, RECORD, "rec")
    subprocess.run([sys.executable, "-m", "crawlsim", "model", str(tmp / "rec.jsonl"), "-o", str(tmp / "site.toml")],
                   check=True, capture_output=True)
    print(f"load average {os.getloadavg()[0]:.1f}; Scrapy recorded at {RECORD}: {finish:.2f} s, {len(pages)} pages")
    print(f"| Scrapy setting | predicted | real (median of {reruns}) | real range | error |")
    print("|---|---|---|---|---|")
    for i, setting in enumerate(SETTINGS):
        predicted = float(crawlsim("run", str(tmp / "site.toml"), *as_flags(setting), "--json")["finish_time"])  # type: ignore[arg-type]
        finishes = sorted(scrapy_crawl(tmp, url, setting, f"rerun{i}-{n}")[0] for n in range(reruns))
        real = statistics.median(finishes)
        shown = ", ".join(f"{k}={v}" for k, v in setting.items())
        print(f"| {shown} | {predicted:.2f} s | {real:.2f} s | {finishes[0]:.2f}-{finishes[-1]:.2f} s "
              f"| {100 * (predicted - real) / real:+.1f} % |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--reruns", type=int, default=3)
    args = parser.parse_args()
    from crawlsim.real.server import ServerProcess
    from crawlsim.scenario.files import scenario_from_dict

    data = scrapy_scenario(free_port(), args.pages)
    with tempfile.TemporaryDirectory(prefix="crawlsim-scrapy-model-") as name, \
            ServerProcess(scenario_from_dict(data, name="scrapy-site")):
        table(Path(name), str(data["start"]), args.reruns)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
