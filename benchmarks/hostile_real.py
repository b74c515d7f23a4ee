"""The hostile-input probes against the real crawler and ``serve``, timed.

    python benchmarks/hostile_real.py [--requests 20000] [--clients 1000]

1. a 1.5 MB page of 300,000 nested ``<div>``: ``crawlsim crawl URL --max-time 5
   --timeout 3`` -- wall time and the page's reason;
2. ``crawlsim serve``: ``--clients`` connections that send half a request --
   how long until the server has closed them all;
3. ``crawlsim serve``: the server's memory (RSS) before and after
   ``--requests`` requests for unique 1 KB paths.

Figures, not assertions (the tests assert the outcomes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time

from aiohttp import web


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bomb() -> None:
    page = "<div>" * 300_000

    async def handle(request: web.BaseRequest) -> web.Response:
        if request.path == "/":
            return web.Response(text='<a href="/bomb">b</a><a href="/ok">ok</a>', content_type="text/html")
        if request.path == "/bomb":
            return web.Response(text=page, content_type="text/html")
        return web.Response(text="fine", content_type="text/html")

    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port: list[int] = []

    async def start() -> None:
        runner = web.ServerRunner(web.Server(handle), handle_signals=False, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port.append(int(runner.addresses[0][1]))

    def run() -> None:
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    ready.wait()
    url = f"http://127.0.0.1:{port[0]}/"
    cmd = [
        sys.executable,
        "-m",
        "crawlsim",
        "crawl",
        url,
        "--no-robots",
        "--max-time",
        "5",
        "--timeout",
        "3",
        "--json",
    ]
    t0 = time.monotonic()
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - t0
    data = json.loads(done.stdout)
    print(f"nested-div bomb: exit {done.returncode} after {took:.2f} s; failures: {data['failures']}")
    loop.call_soon_threadsafe(loop.stop)


def serve_probes(clients: int, requests: int) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crawlsim",
            "serve",
            "see-it",
            "--port",
            "0",
            "--layout",
            "ports",
            "--time-scale",
            "0.001",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        target = lines[2].split()[1]
        host, port = target.rsplit(":", 1)
        asyncio.run(_half_sent(host, int(port), clients))
        before = rss_kb(proc.pid)
        t0 = time.monotonic()
        asyncio.run(_many(host, int(port), requests))
        after = rss_kb(proc.pid)
        print(
            f"serve memory: RSS {before / 1024:.1f} MB -> {after / 1024:.1f} MB after {requests:,} requests "
            f"for unique 1 KB paths ({time.monotonic() - t0:.1f} s)"
        )
    finally:
        proc.terminate()
        proc.wait(30)


async def _half_sent(host: str, port: int, clients: int) -> None:
    conns = []
    for _ in range(clients):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET / HTTP/1.1\r\nHost: a.com\r\nX-Slow: ")
        conns.append((reader, writer))
    t0 = time.monotonic()
    await asyncio.gather(*(r.read() for r, _ in conns))
    print(
        f"serve slow headers: {clients} half-sent requests all closed by the server after {time.monotonic() - t0:.1f} s"
    )
    for _, w in conns:
        w.close()


async def _many(host: str, port: int, requests: int) -> None:
    sem = asyncio.Semaphore(50)

    async def one(i: int) -> None:
        async with sem:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(f"GET /u{i}-{'x' * 1000} HTTP/1.1\r\nHost: a.com\r\nConnection: close\r\n\r\n".encode())
            await reader.read()
            writer.close()

    await asyncio.gather(*(one(i) for i in range(requests)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=1000)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    bomb()
    serve_probes(args.clients, args.requests)


if __name__ == "__main__":
    main()
