"""``crawlsim serve SCENARIO``: a scenario's web over real HTTP on loopback.

Its first line is a ``crawlsim crawl`` command that works as printed: the
start URL, the host map (``--resolve HOST=ADDR:PORT`` per host, or
``--hosts-file`` for many hosts) and the scenario's politeness and limits as
flags (``--per-host``, ``--gap``, ``--no-robots``, ...), so pasting it into
another terminal (or reading it from the pipe, as the tests do, while serve
keeps running) crawls the served web as the scenario's crawler would.  Then the host map, and it serves until Ctrl-C or
``--duration``.  The server itself is :mod:`crawlsim.real.server`; this
module parses the flags and prints.

User mistakes (a bad flag value, an unknown scenario) print one
``crawlsim: error: ...`` line and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import asyncio
import math
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from crawlsim.cli_options import cannot_listen, port_number, warn_cluster_ignored
from crawlsim.commands.common import ArgumentParser
from crawlsim.errors import UsageError
from crawlsim.outfile import check_writable
from crawlsim.real.flags import NOT_AVAILABLE, check_seconds, missing_loopback, scenario_flags
from crawlsim.words import counted

DEFAULT_PORT = 8000
MAX_TIME_SCALE = 1000.0
SERVE_LOG_RECORDS = 10_000
"""``crawlsim serve`` keeps its latest requests only (it prints just the count)."""
SHOWN_HOSTS = 20
"""Hosts listed on the terminal; the hosts file has them all."""
HOSTS_ON_COMMAND_LINE = 8
"""Up to this many hosts, the crawl command spells out ``--resolve`` for each;
more are written to a hosts file instead."""


def describe_latency(spec: Any) -> str:
    """``150 ms`` for a fixed latency, else the model's table, rounded."""
    if isinstance(spec, (int, float)):
        return f"{spec * 1000:.4g} ms" if spec < 1 else f"{spec:.4g} s"
    if isinstance(spec, Mapping):
        return (
            "{" + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v!r}" for k, v in spec.items()) + "}"
        )
    return str(spec)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim serve",
        description=(
            "Serve a scenario's web over real HTTP on loopback (127.0.0.0/8) only: one address per host, each "
            "with the scenario's latency, robots.txt, failures and 429/503 with Retry-After. The first line "
            "printed is a `crawlsim crawl` command that crawls it with the scenario's politeness; then the host map."
        ),
    )
    parser.add_argument("scenario", help="a shipped scenario name or a .toml path")
    parser.add_argument(
        "--port",
        type=port_number(0),
        default=DEFAULT_PORT,
        help=f"port every host listens on (default {DEFAULT_PORT}; 0 = any free port)",
    )
    parser.add_argument(
        "--layout",
        choices=("auto", "addresses", "ports"),
        default="auto",
        help="addresses: one loopback address per host (Linux); ports: one port per host on "
        "127.0.0.1; auto: addresses if the system has them (default)",
    )
    parser.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every duration (latency, Crawl-delay, Retry-After, gap) by X, e.g. 0.05",
    )
    parser.add_argument("--hosts-file", metavar="FILE", help="also write the host map as JSON (crawl --hosts-file)")
    parser.add_argument("--duration", type=float, metavar="SECONDS", help="stop after this long (default: Ctrl-C)")
    parser.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="close a connection that has not sent a whole HTTP request within this long (default 10)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``crawlsim serve SCENARIO [--port N]``; returns the exit status."""
    args = build_parser().parse_args(argv)
    _check_flags(args)
    scenario, server = _build_server(args)
    return asyncio.run(_serve(server, args, scenario))


def _check_flags(args: argparse.Namespace) -> None:
    """``UsageError`` for a flag value out of range (``--header-timeout``
    gets its default here, so the check and the server see one value)."""
    from crawlsim.real.server import HEADER_TIMEOUT

    if not (math.isfinite(args.time_scale) and 0 < args.time_scale <= MAX_TIME_SCALE):
        raise UsageError(f"--time-scale: expected a number > 0 and at most {MAX_TIME_SCALE:g}, got {args.time_scale:g}")
    check_seconds("--duration", args.duration)
    if args.header_timeout is None:
        args.header_timeout = HEADER_TIMEOUT
    check_seconds("--header-timeout", args.header_timeout, maximum=3600)
    if args.hosts_file is not None:
        check_writable(args.hosts_file)


def _build_server(args: argparse.Namespace) -> tuple[Any, Any]:
    """The scenario, its clock scaled, and a server for it (not yet listening)."""
    from crawlsim.real.server import ScenarioServer
    from crawlsim.real.timescale import scale_scenario
    from crawlsim.scenario import load_scenario

    scenario = scale_scenario(load_scenario(args.scenario), args.time_scale)
    warn_cluster_ignored(scenario, "serve", "serving its web as usual")
    server = ScenarioServer(
        scenario, port=args.port, layout=args.layout, header_timeout=args.header_timeout, max_log=SERVE_LOG_RECORDS
    )
    return scenario, server


async def _serve(server: Any, args: argparse.Namespace, scenario: Any) -> int:
    """Listen, say how to crawl, serve until stopped; the exit status."""
    try:
        await server.start()
    except OSError as err:
        raise _cannot_listen(err, args.port, len(server.hosts)) from None
    try:
        try:
            _announce(server, args, scenario)
        except OSError as err:
            raise UsageError(f"{err.filename or args.hosts_file}: {err.strerror or err}") from None
        await _until_stopped(args.duration)
    finally:
        await server.stop()
    print(f"stopped after {counted(server.log.total, 'HTTP request')}", file=sys.stderr)
    return 0


def _cannot_listen(err: OSError, port: int, hosts: int) -> UsageError:
    """The one line for a server that could not listen: a busy port, or (with
    ``--layout addresses``) a loopback address this machine does not have."""
    address = getattr(err, "address", None)
    if address is not None and err.errno in NOT_AVAILABLE:
        return UsageError(f"cannot listen on {address}: {missing_loopback(address)}, or use --layout ports")
    if err.errno == errno.EMFILE:
        return cannot_listen(address or "loopback", getattr(err, "port", port), err,
                             f"each of the scenario's {hosts:,} hosts needs a socket: raise the open-file limit "
                             "(ulimit -n)")
    return cannot_listen(address or "loopback", getattr(err, "port", port), err, "try --port 0" if port else "")


async def _until_stopped(duration: float | None) -> None:
    """Return on Ctrl-C or SIGTERM, or after ``duration`` seconds (if given)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        await asyncio.wait_for(stop.wait(), duration)
    except TimeoutError:
        pass


def crawl_command(server: Any, scenario: Any, hosts_file: str | None) -> list[str]:
    """``crawlsim crawl START --resolve HOST=ADDR:PORT ... FLAGS``: a command
    that crawls this server as the scenario's crawler would (its politeness,
    scope and limits as flags), usable exactly as printed.  With many hosts the
    map goes to a hosts file (written now, before the command is shown)."""
    return [
        "crawlsim",
        "crawl",
        scenario.seeds[0],
        *_resolve_flags(server, hosts_file),
        *scenario_flags(scenario.options, _crawl_table(scenario)),
    ]


def _announce(server: Any, args: argparse.Namespace, scenario: Any) -> None:
    """What ``serve`` prints: first the ``crawlsim crawl`` command that crawls
    it (one line, to copy or to take with ``head -1``), then the host map."""
    command = crawl_command(server, scenario, args.hosts_file)
    print(shlex.join(command), flush=True)
    if "--hosts-file" in command:
        print(f"host map written to {command[command.index('--hosts-file') + 1]}")
    scale = f", time x{args.time_scale:g}" if args.time_scale != 1 else ""
    endpoints = server.endpoints
    print(f"serving {scenario.name} ({scenario.title}) on loopback: {counted(len(endpoints), 'host')}{scale}")
    width = max(len(h) for h in endpoints)
    for host, ep in list(endpoints.items())[:SHOWN_HOSTS]:
        model = scenario.latency_for(host)
        print(f"  {host:<{width}}  {ep.target:<21}  latency {describe_latency(model.to_spec())}")
    if len(endpoints) > SHOWN_HOSTS:
        print(f"  ... and {len(endpoints) - SHOWN_HOSTS:,} more (see the hosts file)")
    print(f"start URL: {scenario.seeds[0]}")
    for seed in scenario.seeds[1:]:
        print(f"also a start URL: {seed}")
    print("the first line crawls it as the scenario does: the URLs keep the scenario's host names, and "
          "--resolve (or --hosts-file) sends each host's requests to its loopback address")
    print("Ctrl-C stops the server.", flush=True)


def _resolve_flags(server: Any, hosts_file: str | None) -> list[str]:
    """The crawl command's host map: ``--hosts-file`` when one is written (asked
    for, or made up because too many hosts would crowd the command line),
    else one ``--resolve`` per host."""
    if hosts_file is None and len(server.endpoints) > HOSTS_ON_COMMAND_LINE:
        fd, hosts_file = tempfile.mkstemp(prefix="crawlsim-hosts-", suffix=".json")
        os.close(fd)
    if hosts_file is not None:
        server.write_hosts_file(hosts_file)
        return ["--hosts-file", hosts_file]
    return [a for h, t in server.host_map().items() for a in ("--resolve", f"{h}={t}")]


def _crawl_table(scenario: Any) -> list[str]:
    """The options the scenario's ``[crawl]`` table writes."""
    table = scenario.data.get("crawl", {}) if isinstance(scenario.data, Mapping) else {}
    return list(table) if isinstance(table, Mapping) else []


__all__ = ["build_parser", "crawl_command", "describe_latency", "main"]
