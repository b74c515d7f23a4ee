"""Serve a scenario's web over real HTTP, on loopback only.

Each host of the scenario gets its own listening socket, so a crawler sees
distinct servers and per-host limits are visible on the wire:

* ``layout="addresses"`` (the default on Linux, which routes all of
  127.0.0.0/8 to the loopback device): one address per host, all on one
  port -- ``a.com -> 127.0.0.2:8000``, ``b.com -> 127.0.0.3:8000``;
* ``layout="ports"`` (the fallback where only 127.0.0.1 exists, e.g. macOS
  without aliases): one port per host on 127.0.0.1.

URLs keep the scenario's host names (``http://a.com/x``): pages are written
exactly as in the scenario, so absolute links name ``b.com``.  The crawler
is given the *host map* (``--resolve a.com=127.0.0.2:8000``, or the JSON
file ``serve --hosts-file`` writes) and connects to the mapped address while
sending ``Host: a.com`` -- the way ``curl --connect-to`` works.  A host
named by a loopback address (``127.0.0.5:8123``) is served at exactly that
address, so such a site needs no map at all.

Every response comes from ``web.response(url, attempt, now)``, the same call
the simulator makes, after sleeping the host's latency: status (404, 500,
429/503 with ``Retry-After``, failures and throttle bursts), robots.txt and
links as written.  ``attempt`` counts requests for the same path on the
same host (the crawler's retry number); ``now`` is seconds since the first
request, which is when a simulated crawl's clock starts.

The server records every request (:class:`ServerLog`) so tests can check,
from the server's side, what the crawler did: in flight per host and in all,
and the spacing of request starts.
"""

from __future__ import annotations

import asyncio
import errno
import os
import html
import ipaddress
import json
import random
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, Self

from aiohttp import web

from crawlsim.errors import CrawlsimError
from crawlsim.outfile import written
from crawlsim.processes import process_context
from crawlsim.real.flags import NOT_AVAILABLE
from crawlsim.scenario import Scenario, ScenarioError
from crawlsim.sim.hashing import salt_of, stable_hash
from crawlsim.sim.web import ROBOTS_PATH, Response

HEADER_TIMEOUT = 10.0
"""Seconds a connection may take to send a whole request (from connecting, or
from the previous response on a kept-alive connection) before it is closed:
half-sent requests cannot hold the server's sockets."""
ATTEMPTS_KEPT = 100_000
"""Distinct paths whose request count (the retry number) is remembered; the
oldest are forgotten first, so a flood of unique paths uses bounded memory."""
MAX_RECORDED_PATH = 256
"""Longer request paths are recorded cut to this many characters."""

MAX_HOSTS = 1000
"""More hosts than this is a simulation job (``crawlsim run``), not a server's."""

LAYOUTS = ("auto", "addresses", "ports")

Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]


class CannotBind(CrawlsimError, OSError):
    """A host's socket could not listen: the error number, and the address and
    port tried (asyncio's own message names them only inside a sentence)."""

    def __init__(self, err: OSError, address: str, port: int) -> None:
        super().__init__(err.errno, err.strerror)
        self.address = address
        self.port = port


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One request as the server saw it (``time.monotonic`` seconds)."""

    host: str
    path: str
    start: float
    end: float
    status: int


@dataclass
class ServerLog:
    """What the crawler did, seen from the server: a test's ground truth.

    With ``max_records`` only the latest that many requests are kept (``serve``
    runs for hours); ``total`` counts them all.
    """

    max_records: int | None = None
    records: deque[RequestRecord] = field(default_factory=deque)
    in_flight: Counter[str] = field(default_factory=Counter)
    peak_per_host: Counter[str] = field(default_factory=Counter)
    total_in_flight: int = 0
    peak_total: int = 0
    total: int = 0

    def __post_init__(self) -> None:
        if self.max_records is not None:
            self.records = deque(self.records, maxlen=self.max_records)

    def begin(self, host: str) -> None:
        self.in_flight[host] += 1
        self.total_in_flight += 1
        self.peak_per_host[host] = max(self.peak_per_host[host], self.in_flight[host])
        self.peak_total = max(self.peak_total, self.total_in_flight)

    def end(self, record: RequestRecord) -> None:
        self.in_flight[record.host] -= 1
        self.total_in_flight -= 1
        self.total += 1
        self.records.append(record)

    def paths(self, host: str | None = None) -> list[str]:
        """Requested paths (of ``host``), in order of arrival."""
        return [r.path for r in sorted(self.records, key=lambda r: r.start) if host is None or r.host == host]

    def starts(self, host: str) -> list[float]:
        """Arrival times of ``host``'s requests, sorted."""
        return sorted(r.start for r in self.records if r.host == host)

    def min_spacing(self, host: str) -> float | None:
        """Smallest gap between consecutive request arrivals on ``host``."""
        s = self.starts(host)
        return min((b - a for a, b in pairwise(s)), default=None)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one host is served."""

    host: str
    address: str
    port: int

    @property
    def target(self) -> str:
        return f"{self.address}:{self.port}"


def serve_hosts(scenario: Scenario) -> list[str]:
    """Every host a crawl of ``scenario`` can reach: the web's hosts, plus the
    ``www.`` twin of each when the web writes www. spelling variants."""
    hosts: dict[str, None] = {}
    for i, host in enumerate(scenario.web.hosts()):
        if i >= MAX_HOSTS:
            raise ScenarioError(
                f"more than {MAX_HOSTS} hosts; serve a smaller scenario (simulate this one with crawlsim run)",
                path=str(scenario.path or scenario.name),
            )
        hosts[host.lower()] = None
    variants = scenario.web.variants
    if variants is not None and "www" in variants.kinds:
        for host in list(hosts):
            if not host.startswith("www.") and not _loopback_literal(host):
                hosts[f"www.{host}"] = None
    if len(hosts) > MAX_HOSTS:
        raise ScenarioError(f"{len(hosts)} hosts; serve at most {MAX_HOSTS}", path=str(scenario.path or scenario.name))
    return list(hosts)


def _loopback_literal(host: str) -> tuple[str, int | None] | None:
    """``("127.0.0.5", 8123)`` for a host named ``127.0.0.5:8123``; else None."""
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    try:
        addr = ipaddress.ip_address(name)
    except ValueError:
        return None
    if not addr.is_loopback or addr.version != 4:
        return None
    return str(addr), int(port) if port.isdigit() else None


def page_html(resp: Response, url: str) -> str:
    """The page as HTML: its text in ``<main>`` (what content fingerprints
    read), its links in ``<nav>`` with ``href`` exactly as written."""
    links = "\n".join(f'<li><a href="{html.escape(h, quote=True)}">{html.escape(h)}</a></li>' for h in resp.links)
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(resp.page or url)}</title></head>\n"
        f"<body><main>{html.escape(resp.content)}</main>\n<nav><ul>\n{links}\n</ul></nav></body></html>\n"
    )


class ScenarioServer:
    """A scenario's web on loopback sockets, one per host.

    Use as ``async with ScenarioServer(scenario) as server:`` then read
    ``server.endpoints`` / ``server.host_map()``; ``server.log`` records every
    request.  Everything binds to 127.0.0.0/8 only.
    """

    def __init__(
        self,
        scenario: Scenario,
        *,
        port: int = 0,
        layout: str = "auto",
        first_address: str = "127.0.0.2",
        hosts: Iterable[str] | None = None,
        header_timeout: float = HEADER_TIMEOUT,
        max_log: int | None = None,
    ) -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"layout: expected one of {', '.join(LAYOUTS)}, got {layout!r}")
        start = ipaddress.ip_address(first_address)
        if not start.is_loopback:
            raise ValueError(f"first_address must be a loopback address (127.0.0.0/8), got {first_address!r}")
        self.scenario = scenario
        self.web = scenario.web
        self.port = port
        self.layout = layout
        self.first_address = start
        self.hosts = list(hosts) if hosts is not None else serve_hosts(scenario)
        self.endpoints: dict[str, Endpoint] = {}
        self.header_timeout = header_timeout
        self.log = ServerLog(max_log)
        self.origin: float | None = None
        self._attempts: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._runners: list[web.ServerRunner] = []
        self._salt = salt_of(scenario.seed, "served-latency")

    # -------------------------------------------------------------- lifecycle

    async def start(self) -> dict[str, Endpoint]:
        """Bind every host's socket; returns the endpoints by host."""
        layout = self.layout
        if layout in ("auto", "addresses"):
            try:
                await self._bind_all("addresses")
                return self.endpoints
            except OSError as err:
                await self.stop()
                if layout == "addresses" or err.errno not in NOT_AVAILABLE:
                    raise
        await self._bind_all("ports")
        return self.endpoints

    async def stop(self) -> None:
        runners, self._runners = self._runners, []
        for runner in runners:
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _bind_all(self, layout: str) -> None:
        """Bind in ``layout``; with port 0 the first socket picks a free port
        and the rest reuse it (retried if another process holds it)."""
        for tries in range(8):
            self.endpoints = {}
            port = self.port
            try:
                next_addr = self.first_address
                for i, host in enumerate(self.hosts):
                    literal = _loopback_literal(host)
                    if literal is not None:
                        address, fixed = literal
                        bound = await self._bind(host, address, fixed or 0)
                    elif layout == "addresses":
                        address = str(next_addr)
                        next_addr = _next_address(next_addr)
                        bound = await self._bind(host, address, port)
                        port = port or bound
                    else:
                        address = "127.0.0.1"
                        bound = await self._bind(host, address, self.port + i if self.port else 0)
                    self.endpoints[host] = Endpoint(host, address, bound)
                return
            except OSError as err:
                await self.stop()
                if err.errno != errno.EADDRINUSE or self.port or tries == 7:
                    raise

    async def _bind(self, host: str, address: str, port: int) -> int:
        # aiohttp closes a connection whose request is not complete within
        # keepalive_timeout of connecting (or of its previous response).
        server = web.Server(self._handler(host), keepalive_timeout=self.header_timeout)
        runner = web.ServerRunner(server, handle_signals=False, access_log=None)
        await runner.setup()
        self._runners.append(runner)
        site = web.TCPSite(runner, address, port, reuse_address=False)
        try:
            await site.start()
        except OSError as err:
            raise CannotBind(err, address, port) from err
        if not runner.addresses:  # asyncio skips a socket it cannot make (out of file descriptors) silently
            raise CannotBind(OSError(errno.EMFILE, os.strerror(errno.EMFILE)), address, port)
        return int(runner.addresses[-1][1])

    # ------------------------------------------------------------------ views

    def host_map(self) -> dict[str, str]:
        """``{"a.com": "127.0.0.2:8000", ...}``: what ``crawlsim crawl --resolve`` takes."""
        return {h: e.target for h, e in self.endpoints.items()}

    def resolve(self) -> dict[str, tuple[str, int]]:
        """The host map as the crawler's ``resolve=`` argument."""
        return {h: (e.address, e.port) for h, e in self.endpoints.items()}

    def write_hosts_file(self, path: str | Path) -> None:
        """The host map as JSON: ``{"start": [...], "hosts": {...}}``, whole or
        not at all (:func:`crawlsim.outfile.written`)."""
        data = {"start": list(self.scenario.seeds), "hosts": self.host_map()}
        with written(path) as out:
            out.write(json.dumps(data, indent=2) + "\n")

    # ---------------------------------------------------------------- serving

    def latency(self, host: str, url: str, attempt: int) -> float:
        """A draw from the host's latency model, fixed by (url, attempt) so
        the same request always takes the same time."""
        rng = random.Random(stable_hash(f"{url}\n{attempt}", self._salt))
        return max(0.0, self.scenario.latency_for(host).sample(rng))

    def _handler(self, host: str) -> Handler:
        scheme_host = f"http://{host}"
        web_ = self.web
        log = self.log

        async def handle(request: web.BaseRequest) -> web.StreamResponse:
            arrived = time.monotonic()
            if self.origin is None:
                self.origin = arrived
            raw = request.raw_path or "/"
            url = scheme_host + raw
            robots = raw.split("?", 1)[0] == ROBOTS_PATH
            log.begin(host)
            status = 0
            try:
                attempt = 1
                if not robots:
                    attempt = self._count_attempt(host, raw)
                delay = self.latency(host, url, attempt)
                if delay > 0:
                    await asyncio.sleep(delay)
                resp = web_.response(url, attempt, time.monotonic() - self.origin)
                status = resp.status
                return _http_response(resp, url, robots)
            finally:
                log.end(RequestRecord(host, raw[:MAX_RECORDED_PATH], arrived, time.monotonic(), status))

        return handle

    def _count_attempt(self, host: str, raw: str) -> int:
        """This request's number among requests for ``raw`` on ``host`` (1 first)."""
        key = (host, hash(raw))  # a digest, not the path: paths can be 8 KB each
        attempt = self._attempts.pop(key, 0) + 1
        self._attempts[key] = attempt
        if len(self._attempts) > ATTEMPTS_KEPT:
            self._attempts.popitem(last=False)
        return attempt


def _http_response(resp: Response, url: str, robots: bool) -> web.Response:
    headers = {k: str(v) for k, v in resp.headers.items()}
    if resp.status in (204, 304) or resp.status < 200:
        return web.Response(status=resp.status, headers=headers)
    if robots and resp.status == 200:
        return web.Response(status=200, headers=headers, text=resp.body or "", content_type="text/plain")
    if resp.status == 200:
        return web.Response(status=200, headers=headers, text=page_html(resp, url), content_type="text/html")
    text = f"<!doctype html>\n<title>{resp.status}</title>\n<p>HTTP {resp.status} for {html.escape(url)}</p>\n"
    return web.Response(status=resp.status, headers=headers, text=text, content_type="text/html")


def _next_address(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    """The next usable loopback address (skipping .0 and .255 of each /24)."""
    nxt = ipaddress.IPv4Address(int(addr) + 1)
    while str(nxt).endswith((".0", ".255")):
        nxt = ipaddress.IPv4Address(int(nxt) + 1)
    if not nxt.is_loopback:
        raise OSError(errno.EADDRNOTAVAIL, "ran out of loopback addresses")
    return nxt


__all__ = [
    "HEADER_TIMEOUT",
    "LAYOUTS",
    "MAX_HOSTS",
    "Endpoint",
    "RequestRecord",
    "ScenarioServer",
    "ServerLog",
    "page_html",
    "serve_hosts",
]


class ServerProcess:
    """A :class:`ScenarioServer` in a child process, for measurements.

    In one process the server's clock readings wait behind the crawler's
    work on the shared event loop (parsing a page delays the next request's
    arrival stamp by milliseconds); a child process on its own core stamps
    arrivals when they happen.  ``time.monotonic`` is the system-wide
    monotonic clock on Linux and macOS, so the child's records compare
    directly with the parent's.

    Use as ``with ServerProcess(scenario) as proc:`` then ``proc.resolve()``;
    ``proc.log`` holds the records once the block ends.  The child is
    forked where that is safe (fast: nothing to import; see
    :mod:`crawlsim.processes`) and rebuilds
    the scenario from its parsed TOML, so only plain data crosses over.
    """

    def __init__(self, scenario: Scenario, **server_args: object) -> None:
        self.scenario = scenario
        self.server_args = server_args
        self.endpoints: dict[str, Endpoint] = {}
        self.log = ServerLog()
        self._conn: object | None = None
        self._proc: object | None = None

    def __enter__(self) -> Self:
        ctx: Any = process_context()
        parent, child = ctx.Pipe()
        data = (dict(self.scenario.data), self.scenario.name, str(self.scenario.path or "<scenario>"))
        proc = ctx.Process(target=_serve_child, args=(child, data, self.server_args), daemon=True)
        proc.start()
        self._conn, self._proc = parent, proc
        if not parent.poll(30):
            proc.kill()
            raise RuntimeError("the server process did not start")
        reply = parent.recv()
        if isinstance(reply, BaseException):
            proc.join(5)
            raise reply
        self.endpoints = {h: Endpoint(h, a, p) for h, (a, p) in reply.items()}
        return self

    def __exit__(self, *exc: object) -> None:
        conn, proc = self._conn, self._proc
        assert conn is not None and proc is not None
        try:
            conn.send("stop")  # type: ignore[attr-defined]
            if conn.poll(30):  # type: ignore[attr-defined]
                log = conn.recv()  # type: ignore[attr-defined]
                self.log = log
        finally:
            proc.join(10)  # type: ignore[attr-defined]
            if proc.is_alive():  # type: ignore[attr-defined]
                proc.kill()  # type: ignore[attr-defined]

    def resolve(self) -> dict[str, tuple[str, int]]:
        return {h: (e.address, e.port) for h, e in self.endpoints.items()}


def _serve_child(conn: object, data: tuple[dict[str, object], str, str], server_args: dict[str, object]) -> None:
    """Child side of :class:`ServerProcess`: serve until told to stop, then send the log."""
    from crawlsim.scenario.files import scenario_from_dict

    asyncio.events._set_running_loop(None)  # forked from inside the parent's running loop

    async def main() -> None:
        try:
            scenario = scenario_from_dict(data[0], path=data[2], name=data[1])
            server = ScenarioServer(scenario, **server_args)  # type: ignore[arg-type]
            await server.start()
        except BaseException as err:  # noqa: BLE001 - reported to the parent
            conn.send(err)  # type: ignore[attr-defined]
            return
        conn.send({h: (e.address, e.port) for h, e in server.endpoints.items()})  # type: ignore[attr-defined]
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # type: ignore[attr-defined]
        await server.stop()
        conn.send(server.log)  # type: ignore[attr-defined]

    asyncio.run(main())
