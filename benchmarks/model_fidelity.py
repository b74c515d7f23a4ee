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

``--web docs`` crawls a web nobody here wrote instead: four Debian
documentation sets on four loopback hosts, one slow, one fast, one with a
Crawl-delay, one answering some pages 429 with Retry-After first
(``docs_web.py``; ``--pages-per-host`` pages each).  crawlsim records it at
:data:`DOCS_RECORD` (with ``--scrapy``, Scrapy at :data:`DOCS_SCRAPY_RECORD`),
and each row also names the host the model's ``run`` calls busiest against
the host whose last page finished last in the median real crawl, and the
model's largest lower bound against the real finish with the model's stated
margin: a bound of a model is a bound of the model, not of the real site.
nginx restarts before every crawl, so each crawl meets the same 429s.

Needs ``/usr/sbin/nginx``.  Wall-clock figures: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

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

DOCS_RECORD = ["--workers", "4", "--per-host", "1", "--gap", "0"]
DOCS_SETTINGS = [
    DOCS_RECORD,
    ["--workers", "1", "--per-host", "1", "--gap", "0"],
    ["--workers", "2", "--per-host", "1", "--gap", "0"],
    ["--workers", "8", "--per-host", "1", "--gap", "0"],
    ["--workers", "16", "--per-host", "1", "--gap", "0"],
    ["--workers", "8", "--per-host", "2", "--gap", "0"],
    ["--workers", "4", "--per-host", "1", "--gap", "0.1"],
]
DOCS_CRAWL = ["--scope", "any"]
"""The docs web's portal links to the other hosts: every crawl of it leaves the start host."""


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
DOCS_SCRAPY_RECORD = {"CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0}
DOCS_SCRAPY_SETTINGS = [
    DOCS_SCRAPY_RECORD,
    {"CONCURRENT_REQUESTS": 1, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 2, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 8, "CONCURRENT_REQUESTS_PER_DOMAIN": 2, "DOWNLOAD_DELAY": 0},
    {"CONCURRENT_REQUESTS": 4, "CONCURRENT_REQUESTS_PER_DOMAIN": 1, "DOWNLOAD_DELAY": 0.1},
]
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


class Crawl(NamedTuple):
    """One real crawl, read from its trace."""

    finish: float
    pages: frozenset[str]
    """The pages it fetched (status below 400)."""
    last_host: str
    """The host whose last page fetch finished last: the host that set the end."""


def crawl_of(trace: Path) -> Crawl:
    from crawlsim.trace.events import FetchFinished
    from crawlsim.trace.jsonl import read_trace

    events = read_trace(trace).events
    finished = [e for e in events if isinstance(e, FetchFinished) and e.kind == "page"]
    return Crawl(events[-1].t, frozenset(e.url for e in finished if e.status < 400), finished[-1].host)


def scrapy_crawl(tmp: Path, url: str, setting: dict[str, float], name: str) -> Crawl:
    """A real Scrapy crawl, from its trace."""
    spider, trace = tmp / "spider.py", tmp / f"{name}.jsonl"
    spider.write_text(SPIDER)
    subprocess.run([sys.executable, str(spider), url, str(trace), json.dumps(setting)], check=True)
    return crawl_of(trace)


def simulated_pages(tmp: Path, flags: list[str]) -> frozenset[str]:
    from crawlsim.trace.events import FetchFinished
    from crawlsim.trace.jsonl import read_trace

    out = tmp / "sim.jsonl"
    subprocess.run([sys.executable, "-m", "crawlsim", "trace", str(tmp / "site.toml"), *flags, "-o", str(out)],
                   check=True, capture_output=True)
    return frozenset(e.url for e in read_trace(out).events
                     if isinstance(e, FetchFinished) and e.kind == "page" and e.status < 400)


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


def scrapy_rows(tmp: Path, pages: int, reruns: int) -> None:
    """Record a Scrapy crawl, model it, predict each Scrapy setting, rerun it for real."""
    from crawlsim.real.server import ServerProcess
    from crawlsim.scenario.files import scenario_from_dict

    port = free_port()
    data = scrapy_scenario(port, pages)
    with ServerProcess(scenario_from_dict(data, name="scrapy-site")):
        scrapy_table(tmp, str(data["start"]), SCRAPY_RECORD, SCRAPY_SETTINGS, reruns, "3 hosts, crawlsim's server")


def scrapy_table(tmp: Path, url: str, record: dict[str, float], settings: list[dict[str, float]], reruns: int,
                 web: str, fresh: Callable[[], None] = lambda: None) -> None:
    """Record Scrapy at ``record`` (the median of ``reruns`` recordings), model it, and
    print the table of ``settings`` (each Scrapy setting asked of the model as crawlsim flags)."""
    fresh()
    scrapy_crawl(tmp, url, record, "warm")  # the first crawl pays for cold caches
    recordings = []
    for i in range(reruns):
        fresh()
        recordings.append((scrapy_crawl(tmp, url, record, f"rec{i}"), i))
    recorded, i = sorted(recordings)[len(recordings) // 2]
    model(tmp / f"rec{i}.jsonl", tmp)
    print(f"Scrapy recorded at {record} (the median of {reruns} recordings): {recorded.finish:.2f} s, "
          f"{len(recorded.pages)} pages ({web})")
    count = iter(range(len(settings) * reruns))

    def rerun(setting: dict[str, float]) -> Crawl:
        fresh()
        return scrapy_crawl(tmp, url, setting, f"rerun{next(count)}")

    table([(", ".join(f"{k}={v}" for k, v in setting.items()), as_flags(setting), partial(rerun, setting))
           for setting in settings], tmp, reruns)


def model(trace: Path, tmp: Path) -> None:
    """``crawlsim model TRACE -o tmp/site.toml``."""
    subprocess.run([sys.executable, "-m", "crawlsim", "model", str(trace), "-o", str(tmp / "site.toml")],
                   check=True, capture_output=True)


def record_median(tmp: Path, url: str, times: int, record: list[str] = RECORD,
                  fresh: Callable[[], None] = lambda: None) -> tuple[Path, Crawl]:
    """Record ``times`` crawls at ``record`` and keep the one whose finish is their
    median: a recording made while the shared machine was busiest (its server slow, its
    crawler slow) would make every prediction of the model slow alike."""
    runs = []
    for i in range(times):
        rec = tmp / f"rec{i}.jsonl"
        fresh()
        crawlsim("crawl", url, *record, "--json", "-o", str(rec))
        runs.append((crawl_of(rec), i, rec))
    recorded, _, rec = sorted(runs)[len(runs) // 2]
    return rec, recorded


def real_crawl(tmp: Path, url: str, setting: list[str], fresh: Callable[[], None] = lambda: None) -> Crawl:
    """One real crawl at ``setting``."""
    out = tmp / "real.jsonl"
    fresh()
    crawlsim("crawl", url, *setting, "--json", "-o", str(out))
    return crawl_of(out)


Row = tuple[str, list[str], Callable[[], Crawl]]
"""A row of the table: the setting as shown, the crawlsim flags that ask the model, one real crawl at it."""


def table(rows: list[Row], tmp: Path, reruns: int) -> None:
    """Predict each row from the model (``tmp/site.toml``), crawl it ``reruns`` times
    for real, and print the prediction against the real crawls' median finish (and
    their range: on a shared machine one crawl's own speed varies from the next), the
    busiest host the model names against the host that set the real end, and the
    model's largest lower bound against the real finish, with the model's margin."""
    print(f"| setting | predicted finish | real finish (median of {reruns}) | real range | error | same pages "
          "| busiest host: model / real | model's bound / real finish (margin) |")
    print("|---|---|---|---|---|---|---|---|")
    for shown, flags, crawl in rows:
        predicted = crawlsim("run", str(tmp / "site.toml"), *flags, "--json")
        finish = float(predicted["finish_time"])  # type: ignore[arg-type]
        crawls = sorted(crawl() for _ in range(reruns))
        real = crawls[len(crawls) // 2]
        same = all(c.pages == simulated_pages(tmp, flags) for c in crawls)
        named = dict(predicted["busiest_host"])["host"]  # type: ignore[call-overload]
        binding = str(predicted["binding_bound"])
        bound = max(float(v) for v in dict(predicted["bounds"]).values())  # type: ignore[call-overload]
        margin = predicted.get("model_margin")
        share = float(dict(margin)["share"]) if margin else 0.0  # type: ignore[call-overload]
        verdict = "below" if bound <= real.finish else "covered" if bound <= real.finish * (1 + share) else "ABOVE"
        print(f"| `{shown}` | {finish:.2f} s | {real.finish:.2f} s | {crawls[0].finish:.2f}-{crawls[-1].finish:.2f} s "
              f"| {100 * (finish - real.finish) / real.finish:+.1f} % | {'yes' if same else 'no'} "
              f"| {short(named)} / {short(real.last_host)}{'' if named == real.last_host else ' (differ)'}"
              f"{'' if binding == 'busiest_host' else f' ({binding} binds)'} "
              f"| {bound:.2f} s / {real.finish:.2f} s ({share:.1%}): {verdict} |")


def short(host: str | None) -> str:
    """A loopback host without its port (every host of a table shares it)."""
    return str(host).rsplit(":", 1)[0]


def docs_rows(tmp: Path, pages_per_host: int, reruns: int, scrapy: bool) -> None:
    """The table on the docs web (``docs_web.py``): crawlsim's, or Scrapy's."""
    from docs_web import describe, docs_web

    with docs_web(pages_per_host) as web:
        print(describe(web))
        if scrapy:
            scrapy_table(tmp, web.start, DOCS_SCRAPY_RECORD, DOCS_SCRAPY_SETTINGS, reruns, "the docs web",
                         web.restart)
            return
        record = [*DOCS_RECORD, *DOCS_CRAWL]
        crawlsim("crawl", web.start, *record, "--json")  # warm up: the first crawl pays for cold caches
        rec, recorded = record_median(tmp, web.start, reruns, record, web.restart)
        model(rec, tmp)
        print(f"recorded at {' '.join(record)} (the median of {reruns} recordings): {recorded.finish:.2f} s, "
              f"{len(recorded.pages)} pages")
        table([(" ".join(flags), flags, partial(real_crawl, tmp, web.start, [*flags, *DOCS_CRAWL], web.restart))
               for flags in DOCS_SETTINGS], tmp, reruns)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", choices=["generated", "docs"], default="generated",
                        help="generated: --pages pages of our own; docs: four real documentation sets (docs_web.py)")
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--pages-per-host", type=int, default=200, help="--web docs: pages of each documentation set")
    parser.add_argument("--server", choices=["think", "loopback"], default="think",
                        help="think: each page delayed by its own server time; loopback: plain nginx, nothing delayed")
    parser.add_argument("--think", type=float, default=0.03, help="median server time per page (s), --server think")
    parser.add_argument("--reruns", type=int, default=3, help="recordings (the median one is modelled) and real crawls per setting (the median is compared)")
    parser.add_argument("--rate", default=None, help="nginx limit_rate (bytes/s per connection); off by default")
    parser.add_argument("--scrapy", action="store_true", help="record and rerun with Scrapy (needs crawlsim[scrapy])")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="crawlsim-fidelity-") as name:
        tmp = Path(name)
        if args.web == "docs":
            docs_rows(tmp, args.pages_per_host, args.reruns, args.scrapy)
        elif args.scrapy:
            scrapy_rows(tmp, args.pages, args.reruns)
        elif not Path(NGINX).exists():
            print("nginx not found (apt-get install nginx)", file=sys.stderr)
            return 1
        else:
            generated_rows(tmp, args)
    print("machine load (1-minute average), at the start / at the end: "
          f"{load_at_start:.1f} / {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


def generated_rows(tmp: Path, args: argparse.Namespace) -> None:
    """The table on a generated site served by nginx (``--server``)."""
    site = tmp / "site"
    site.mkdir()
    make_site(site, args.pages)
    port = free_port()
    url = f"http://127.0.0.1:{port}/index.html"
    proc = start_nginx(tmp, site, port, args.server, args.think, args.rate)
    try:
        crawlsim("crawl", url, *RECORD, "--json")  # warm up: the first crawl pays for cold caches
        rec, recorded = record_median(tmp, url, args.reruns)
        model(rec, tmp)
        served = "nothing delayed" if args.server == "loopback" else f"pages delayed {args.think:g} s median"
        print(f"site: {args.pages} pages, nginx, {served}; recorded at {' '.join(RECORD)} (the median of "
              f"{args.reruns} recordings): {recorded.finish:.3f} s, {len(recorded.pages)} pages")
        table([(" ".join(flags), flags, partial(real_crawl, tmp, url, flags)) for flags in SETTINGS], tmp, args.reruns)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    raise SystemExit(main())
