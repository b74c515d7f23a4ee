"""How well does a model of a recorded crawl predict a real rerun?

Serves a generated static site with Debian's nginx (a child process with its
own config in a temporary folder, on a loopback port), records one real
crawl (``crawlsim crawl URL -o rec.jsonl``), models it (``crawlsim model``),
then at several other settings predicts the finish (``crawlsim run
site.toml``) and really crawls (``crawlsim crawl URL``), and prints
predicted against real finish time and the pages fetched.

Two servers, two questions:

* ``--server think`` (the default): every page costs the server its own
  time before nginx sends the file -- a ``map`` from each page's path to a
  delay (lognormal across pages, median ``--think`` seconds), slept by
  ``echo_sleep`` of Debian's ``libnginx-mod-http-echo`` (a timer inside
  nginx's event loop; concurrent requests wait side by side, as on a real
  server whose pages take time to produce), then ``echo_exec`` hands the
  request to nginx's static file handler.  Here the server's time holds
  the crawl, and the model must reproduce it.
* ``--server loopback``: the same files from a plain nginx, nothing delayed.
  A page comes back in well under a millisecond, so the crawler's own
  work (parsing, bookkeeping, the event loop) is the crawl's time: the
  case where the client, not the server, is the bottleneck.

nginx's ``limit_rate`` (``--rate``, off by default) is not used for
latency: it lets the first second's worth of bytes through at once, so a
page smaller than the rate comes back at once and is not delayed at all.

On a shared machine one crawl's speed varies from the next, so the crawl is
recorded ``--reruns`` times (3) and the recording with the median finish is
modelled, and each setting is really crawled ``--reruns`` times: the table
compares the prediction with the real crawls' median and shows their range.

    python benchmarks/model_fidelity.py [--pages 80] [--server think|loopback] [--think 0.03] [--reruns 3]
    python benchmarks/model_fidelity.py --scrapy    # record and rerun with Scrapy

With ``--scrapy`` the recording and every rerun are real Scrapy crawls (a
spider under ``CrawlerProcess``, recorded by
``crawlsim.integrations.scrapy.TraceRecorder``); the model predicts each
rerun from the first recording with one Scrapy setting changed, and the
real finish is the Scrapy trace's last event.  The site is then served by
crawlsim's scenario server on three loopback hosts, each page taking its
own fixed time (lognormal across pages, median 50 ms): nginx's
``limit_rate`` lets the first second's worth of bytes through at once, so
pages under ``--rate`` bytes come back in well under a millisecond, and a
Scrapy crawl of them measures only Scrapy.

Needs ``/usr/sbin/nginx``.  Wall-clock figures: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
RECORD = ["--workers", "4", "--per-host", "4", "--gap", "0"]
SETTINGS = [
    ["--workers", "4", "--per-host", "4", "--gap", "0"],
    ["--workers", "1", "--per-host", "1", "--gap", "0"],
    ["--workers", "2", "--per-host", "2", "--gap", "0"],
    ["--workers", "16", "--per-host", "16", "--gap", "0"],
    ["--workers", "8", "--per-host", "2", "--gap", "0"],
    ["--workers", "4", "--per-host", "4", "--gap", "0.05"],
]


def make_site(root: Path, pages: int, seed: int = 1) -> None:
    """``pages`` HTML pages in a tree (each page 3 children, a few random
    links), sizes 10-40 KB, plus a robots.txt disallowing /private/."""
    rng = random.Random(seed)
    names = ["index.html", *(f"p{i}.html" for i in range(1, pages))]
    for i, name in enumerate(names):
        kids = [names[j] for j in range(3 * i + 1, min(3 * i + 4, pages))]
        extra = [rng.choice(names) for _ in range(3)]
        links = "".join(f'<a href="/{n}">{n}</a>\n' for n in kids + extra)
        if i == 0:
            links += '<a href="/private/secret.html">secret</a>\n'
        filler = "x" * rng.randint(10_000, 40_000)
        (root / name).write_text(f"<html><body>{links}<p>{filler}</p></body></html>\n")
    (root / "private").mkdir()
    (root / "private" / "secret.html").write_text("<p>secret</p>")
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


ECHO_MODULE = Path("/usr/lib/nginx/modules/ngx_http_echo_module.so")
"""Debian's ``libnginx-mod-http-echo``: ``echo_sleep``, a per-request delay inside nginx."""


def think_times(site: Path, median: float, seed: int = 2) -> dict[str, float]:
    """Each page's own server time: lognormal across pages (sigma 0.5) around ``median``, in whole
    milliseconds (``echo_sleep`` reads at most three decimals)."""
    rng = random.Random(seed)
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    return {f"/{name}": round(rng.lognormvariate(0, 0.5) * median, 3) for name in pages}


def location_block(site: Path, server: str, think: float) -> str:
    """The server block's body: plain static files, or each page delayed by its own think time."""
    if server == "loopback":
        return ""
    table = "".join(f"    {path} {delay};\n" for path, delay in think_times(site, think).items())
    return (f"  map $uri $think {{\n    default 0;\n{table}  }}\n"
            f"  server {{ listen 127.0.0.1:PORT; root {site};\n"
            "    location / { echo_sleep $think; echo_exec @file; }\n    location @file { }\n  }\n")


def start_nginx(tmp: Path, site: Path, port: int, server: str = "think", think: float = 0.03,
                rate: str | None = None, access_log: Path | None = None) -> subprocess.Popen[bytes]:
    """nginx on ``port`` serving ``site`` (see the module docstring for ``server``); with
    ``access_log``, each request's path and its ``$request_time`` are logged there."""
    if server == "think" and not ECHO_MODULE.exists():
        raise SystemExit("--server think needs echo_sleep: apt-get install libnginx-mod-http-echo")
    block = location_block(site, server, think).replace("PORT", str(port))
    if not block:
        block = f"  server {{ listen 127.0.0.1:{port}; root {site}; }}\n"
    conf = tmp / "nginx.conf"
    conf.write_text(
        (f"load_module {ECHO_MODULE};\n" if server == "think" else "")
        + f"""daemon off; master_process off; worker_processes 1;
pid {tmp}/nginx.pid; error_log {tmp}/error.log;
events {{ worker_connections 256; }}
http {{
  {f"log_format timed '$uri $request_time'; access_log {access_log} timed;" if access_log else "access_log off;"}
  client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy; fastcgi_temp_path {tmp}/fcgi;
  uwsgi_temp_path {tmp}/uwsgi; scgi_temp_path {tmp}/scgi;
  default_type text/html;
  {f"limit_rate {rate};" if rate else ""}
{block}}}
"""
    )
    proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp)])
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("nginx did not start; see " + str(tmp / "error.log"))


def crawlsim(*args: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "crawlsim", *args], check=True, capture_output=True, text=True)
    return dict(json.loads(out.stdout))


def fetched(data: dict[str, object]) -> int:
    return int(data["pages_fetched"])  # type: ignore[call-overload]


SPIDER = """
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

class Site(scrapy.Spider):
    name = "site"
    start_urls = [sys.argv[1]]

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)

settings = {
    "EXTENSIONS": {"crawlsim.integrations.scrapy.TraceRecorder": 500},
    "CRAWLSIM_TRACE": sys.argv[2], "LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False,
    "ROBOTSTXT_OBEY": True, "RANDOMIZE_DOWNLOAD_DELAY": False, **json.loads(sys.argv[3]),
}
process = CrawlerProcess(settings)
process.crawl(Site)
process.start()
"""
SCRAPY_RECORD = {"CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 4, "DOWNLOAD_DELAY": 0}
SCRAPY_SETTINGS = [
    SCRAPY_RECORD,
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 2, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 8, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 4, "DOWNLOAD_DELAY": 0.05},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16, "DOWNLOAD_DELAY": 0.1},
]


def as_flags(setting: dict[str, float]) -> list[str]:
    """A Scrapy setting as the crawlsim flags that ask the model the same question."""
    return ["--workers", str(setting["CONCURRENT_REQUESTS"]), "--per-host",
            str(setting["CONCURRENT_REQUESTS_PER_DOMAIN"]), "--gap", str(setting["DOWNLOAD_DELAY"])]


def scrapy_crawl(tmp: Path, url: str, setting: dict[str, float], name: str) -> tuple[float, set[str]]:
    """A real Scrapy crawl: (its finish, the pages it fetched), from its trace."""
    from crawlsim.trace.events import FetchFinished
    from crawlsim.trace.jsonl import read_trace

    spider, trace = tmp / "spider.py", tmp / f"{name}.jsonl"
    spider.write_text(SPIDER)
    subprocess.run([sys.executable, str(spider), url, str(trace), json.dumps(setting)], check=True)
    events = read_trace(trace).events
    pages = {e.url for e in events if isinstance(e, FetchFinished) and e.kind == "page" and e.status < 400}
    return events[-1].t, pages


def simulated_pages(tmp: Path, flags: list[str]) -> set[str]:
    from crawlsim.trace.events import FetchFinished
    from crawlsim.trace.jsonl import read_trace

    out = tmp / "sim.jsonl"
    subprocess.run([sys.executable, "-m", "crawlsim", "trace", str(tmp / "site.toml"), *flags, "-o", str(out)],
                   check=True, capture_output=True)
    return {e.url for e in read_trace(out).events
            if isinstance(e, FetchFinished) and e.kind == "page" and e.status < 400}


def scrapy_scenario(port: int, pages: int, seed: int = 1) -> dict[str, object]:
    """``pages`` pages over three loopback hosts: a tree (3 children a page,
    taking turns between the hosts) plus 2 random links a page."""
    rng = random.Random(seed)
    urls = [f"http://127.0.0.{1 + i % 3}:{port}/" + ("" if i < 3 else f"p{i}") for i in range(pages)]
    table: dict[str, object] = {}
    for i, url in enumerate(urls):
        kids = urls[3 * i + 3 : 3 * i + 6] if i else urls[1:3] + urls[3:4]
        table[url] = [*kids, *(rng.choice(urls) for _ in range(2))]
    latency = {"model": "lognormal", "median": 0.05, "sigma": 0.5}
    return {"start": urls[0], "crawl": {"scope": "any"}, "hosts": {"*": {"latency": latency}}, "pages": table}


def scrapy_rows(tmp: Path, pages: int) -> None:
    """Record a Scrapy crawl, model it, predict each Scrapy setting, rerun it for real."""
    from crawlsim.real.server import ServerProcess
    from crawlsim.scenario.files import scenario_from_dict

    port = free_port()
    data = scrapy_scenario(port, pages)
    with ServerProcess(scenario_from_dict(data, name="scrapy-site")):
        scrapy_table(tmp, str(data["start"]))


def scrapy_table(tmp: Path, url: str) -> None:
    scrapy_crawl(tmp, url, SCRAPY_RECORD, "warm")  # the first crawl pays for cold caches
    finish, pages = scrapy_crawl(tmp, url, SCRAPY_RECORD, "rec")
    subprocess.run([sys.executable, "-m", "crawlsim", "model", str(tmp / "rec.jsonl"), "-o", str(tmp / "site.toml")],
                   check=True, capture_output=True)
    print(f"Scrapy recorded at {SCRAPY_RECORD}: {finish:.2f} s, {len(pages)} pages (3 hosts, crawlsim's server)")
    print("| Scrapy setting | crawlsim flags | predicted finish | real Scrapy finish | error | same pages |")
    print("|---|---|---|---|---|---|")
    for i, setting in enumerate(SCRAPY_SETTINGS):
        flags = as_flags(setting)
        predicted = float(crawlsim("run", str(tmp / "site.toml"), *flags, "--json")["finish_time"])  # type: ignore[arg-type]
        real, real_pages = scrapy_crawl(tmp, url, setting, f"rerun{i}")
        same = "yes" if simulated_pages(tmp, flags) == real_pages else "no"
        shown = ", ".join(f"{k}={v}" for k, v in setting.items())
        print(f"| {shown} | `{' '.join(flags)}` | {predicted:.2f} s | {real:.2f} s "
              f"| {100 * (predicted - real) / real:+.1f} % | {same} |")


def record_median(tmp: Path, url: str, times: int) -> tuple[Path, dict[str, object]]:
    """Record ``times`` crawls at :data:`RECORD` and keep the one whose finish is their
    median: a recording made while the shared machine was busiest (its server slow, its
    crawler slow) would make every prediction of the model slow alike."""
    runs = []
    for i in range(times):
        rec = tmp / f"rec{i}.jsonl"
        runs.append((float(crawlsim("crawl", url, *RECORD, "--json", "-o", str(rec))["finish_time"]), i, rec))  # type: ignore[arg-type]
    _, _, rec = sorted(runs)[len(runs) // 2]
    return rec, crawlsim_json_of(rec)


def crawlsim_json_of(rec: Path) -> dict[str, object]:
    """The recorded crawl's finish and pages, from its trace."""
    from crawlsim.trace.jsonl import read_trace

    events = read_trace(rec).events
    return {"finish_time": events[-1].t, "pages_fetched": getattr(events[-1], "pages", 0)}


def real_crawl(tmp: Path, url: str, setting: list[str]) -> tuple[float, set[str]]:
    """One real crawl at ``setting``: its finish and the pages it fetched."""
    from crawlsim.trace.events import FetchFinished
    from crawlsim.trace.jsonl import read_trace

    out = tmp / "real.jsonl"
    finish = float(crawlsim("crawl", url, *setting, "--json", "-o", str(out))["finish_time"])  # type: ignore[arg-type]
    return finish, {e.url for e in read_trace(out).events
                    if isinstance(e, FetchFinished) and e.kind == "page" and e.status < 400}


def nginx_rows(tmp: Path, url: str, reruns: int) -> None:
    """Predict each setting from the recording's model, crawl it ``reruns`` times for
    real, and print the prediction against the real crawls' median finish (and their
    range: on a shared machine one crawl's own speed varies from the next)."""
    print(f"| setting | predicted finish | real finish (median of {reruns}) | real range | error "
          "| same pages |")
    print("|---|---|---|---|---|---|")
    for setting in SETTINGS:
        predicted = float(crawlsim("run", str(tmp / "site.toml"), *setting, "--json")["finish_time"])  # type: ignore[arg-type]
        crawls = [real_crawl(tmp, url, setting) for _ in range(reruns)]
        finishes = sorted(finish for finish, _ in crawls)
        real = statistics.median(finishes)
        same = all(pages == simulated_pages(tmp, setting) for _, pages in crawls)
        print(f"| `{' '.join(setting)}` | {predicted:.3f} s | {real:.3f} s | {finishes[0]:.3f}-{finishes[-1]:.3f} s "
              f"| {100 * (predicted - real) / real:+.1f} % | {'yes' if same else 'no'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--server", choices=["think", "loopback"], default="think",
                        help="think: each page delayed by its own server time; loopback: plain nginx, nothing delayed")
    parser.add_argument("--think", type=float, default=0.03, help="median server time per page (s), --server think")
    parser.add_argument("--reruns", type=int, default=3, help="recordings (the median one is modelled) and real crawls per setting (the median is compared)")
    parser.add_argument("--rate", default=None, help="nginx limit_rate (bytes/s per connection); off by default")
    parser.add_argument("--scrapy", action="store_true", help="record and rerun with Scrapy (needs crawlsim[scrapy])")
    args = parser.parse_args()
    if args.scrapy:
        with tempfile.TemporaryDirectory(prefix="crawlsim-fidelity-") as name:
            scrapy_rows(Path(name), args.pages)
        return 0
    if not Path(NGINX).exists():
        print("nginx not found (apt-get install nginx)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="crawlsim-fidelity-") as name:
        tmp = Path(name)
        site = tmp / "site"
        site.mkdir()
        make_site(site, args.pages)
        port = free_port()
        url = f"http://127.0.0.1:{port}/index.html"
        proc = start_nginx(tmp, site, port, args.server, args.think, args.rate)
        load_at_start = os.getloadavg()[0]
        try:
            crawlsim("crawl", url, *RECORD, "--json")  # warm up: the first crawl pays for cold caches
            rec, recorded = record_median(tmp, url, args.reruns)
            subprocess.run([sys.executable, "-m", "crawlsim", "model", str(rec), "-o", str(tmp / "site.toml")],
                           check=True, capture_output=True)
            served = "nothing delayed" if args.server == "loopback" else f"pages delayed {args.think:g} s median"
            print(f"site: {args.pages} pages, nginx, {served}; recorded at {' '.join(RECORD)} (the median of "
                  f"{args.reruns} recordings): {float(recorded['finish_time']):.3f} s, {fetched(recorded)} pages")  # type: ignore[arg-type]
            nginx_rows(tmp, url, args.reruns)
            print("machine load (1-minute average), at the start / at the end: "
                  f"{load_at_start:.1f} / {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
