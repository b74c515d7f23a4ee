"""How well does a model of a recorded crawl predict a real rerun?

Serves a generated static site with Debian's nginx (a child process with its
own config in a temporary folder, on a loopback port; ``limit_rate`` makes
each page's fetch time follow its size), records one real crawl
(``crawlsim crawl URL -o rec.jsonl``), models it (``crawlsim model``), then at
several other settings predicts the finish (``crawlsim run site.toml``) and
really crawls (``crawlsim crawl URL``), and prints predicted against real
finish time and whether the page sets are identical.

    python benchmarks/model_fidelity.py [--pages 80] [--rate 400k]

Needs ``/usr/sbin/nginx``.  Wall-clock figures: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
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


def start_nginx(tmp: Path, site: Path, port: int, rate: str) -> subprocess.Popen[bytes]:
    conf = tmp / "nginx.conf"
    conf.write_text(
        f"""daemon off; master_process off; worker_processes 1;
pid {tmp}/nginx.pid; error_log {tmp}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {tmp}/body; proxy_temp_path {tmp}/proxy; fastcgi_temp_path {tmp}/fcgi;
  uwsgi_temp_path {tmp}/uwsgi; scgi_temp_path {tmp}/scgi;
  default_type text/html;
  server {{ listen 127.0.0.1:{port} sndbuf=4k; root {site}; limit_rate {rate}; }}
}}
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--rate", default="400k", help="nginx limit_rate (bytes/s per connection)")
    args = parser.parse_args()
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
        proc = start_nginx(tmp, site, port, args.rate)
        try:
            rec = tmp / "rec.jsonl"
            crawlsim("crawl", url, *RECORD, "--json")  # warm up: the first crawl pays for cold caches
            recorded = crawlsim("crawl", url, *RECORD, "--json", "-o", str(rec))
            subprocess.run([sys.executable, "-m", "crawlsim", "model", str(rec), "-o", str(tmp / "site.toml")],
                           check=True, capture_output=True)
            print(f"site: {args.pages} pages, nginx limit_rate {args.rate}; recorded at {' '.join(RECORD)}: "
                  f"{float(recorded['finish_time']):.2f} s, {fetched(recorded)} pages")  # type: ignore[arg-type]
            print("| setting | predicted finish | real finish | error | pages predicted / real |")
            print("|---|---|---|---|---|")
            for setting in SETTINGS:
                predicted = crawlsim("run", str(tmp / "site.toml"), *setting, "--json")
                real = crawlsim("crawl", url, *setting, "--json")
                p, r = float(predicted["finish_time"]), float(real["finish_time"])  # type: ignore[arg-type]
                print(f"| `{' '.join(setting)}` | {p:.2f} s | {r:.2f} s | {100 * (p - r) / r:+.1f} % "
                      f"| {fetched(predicted)} / {fetched(real)} |")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
