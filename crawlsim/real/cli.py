"""``crawlsim serve`` and ``crawlsim crawl``: a scenario's web over real HTTP,
and a real crawler driven by the same core.

``crawlsim serve SCENARIO`` prints the start URL as its first line (so a
script can take it with ``head -1``), then the host map and a ready-made
``crawlsim crawl`` command that crawls with the scenario's own options.
``crawlsim crawl URL`` crawls real servers politely by default and says so;
``crawlsim crawl ./folder/index.html`` crawls a folder of HTML files and
lists the pages nothing links to.

User mistakes (a bad flag value, an unknown scenario, a missing file) print
one ``crawlsim: error: ...`` line and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import ipaddress
import json
import math
import os
import shlex
import signal
import stat
import sys
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from crawlsim.cli_options import FLAGS, add_crawler_flags, overrides_from_args
from crawlsim.core.events import Event, event_to_dict
from crawlsim.core.options import CrawlOptions, OptionError

DEFAULT_PORT = 8000
MAX_TIME_SCALE = 1000.0
MAX_SECONDS = 1_000_000.0
"""Longest duration a flag takes (about 11.6 days): beyond it a value is a typo."""
MAX_BODY_BYTES = 1 << 30
"""Largest ``--max-bytes`` (1 GiB): every body is held in memory while read."""
MAX_REDIRECTS = 100
MAX_HOSTS_FILE_BYTES = 10_000_000
"""A host map is a few KB; a larger ``--hosts-file`` is refused unread."""


class UsageError(ValueError):
    """A command-line mistake: printed as one line, exit status 2."""


# --------------------------------------------------------------------------- shared


def _fail(err: BaseException) -> int:
    print(f"crawlsim: error: {err}", file=sys.stderr)
    return 2


def check_seconds(flag: str, value: float | None, *, maximum: float = MAX_SECONDS) -> None:
    """``UsageError`` unless ``value`` (when given) is finite, > 0 and at most ``maximum``."""
    if value is not None and not (math.isfinite(value) and 0 < value <= maximum):
        raise UsageError(f"{flag}: expected seconds > 0 and at most {maximum:g}, got {value:g}")


def check_int(flag: str, value: int, low: int, high: int) -> None:
    """``UsageError`` unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise UsageError(f"{flag}: expected a whole number from {low} to {high}, got {value}")


def read_hosts_file(path: str) -> dict[str, Any]:
    """The JSON a ``serve --hosts-file`` wrote, read only if it is a regular
    file of at most :data:`MAX_HOSTS_FILE_BYTES` (``/dev/zero`` is refused
    unread, a huge file before it is loaded)."""
    where = f"--hosts-file {path}"
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{where}: not a regular file")
            data = handle.read(MAX_HOSTS_FILE_BYTES + 1)
    except OSError as err:
        raise UsageError(f"{where}: {err.strerror or err}") from None
    if len(data) > MAX_HOSTS_FILE_BYTES:
        raise UsageError(f"{where}: larger than {MAX_HOSTS_FILE_BYTES:,} bytes; not a host map")
    try:
        table = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise UsageError(f"{where}: not JSON ({str(err).splitlines()[0][:120]})") from None
    if not isinstance(table, dict):
        raise UsageError(f'{where}: expected {{"hosts": {{"a.com": "127.0.0.2:8000"}}}}')
    return table


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 10 else f"{value:.1f} s"


def politeness_line(options: CrawlOptions) -> str:
    """The effective politeness settings in one sentence (shown on every crawl)."""
    robots = "robots.txt obeyed" if options.robots else "robots.txt NOT read (--no-robots)"
    per_host = options.per_host or options.workers
    gap = f"starts {_seconds(options.gap)} apart" if options.gap > 0 else "no gap between starts"
    if options.randomize_gap and options.gap > 0:
        gap += " (randomised 0.5-1.5x)"
    return (
        f"politeness: {robots}; per host at most {per_host} request{'s' if per_host != 1 else ''} at a time, "
        f"{gap} (Crawl-delay up to {_seconds(options.max_crawl_delay)} honoured); "
        f"{options.workers} workers in all; scope: {options.scope}; "
        f"retries: {options.max_retries} on {', '.join(map(str, options.retry_statuses))} and network errors"
    )


def summary_dict(result: Any, seeds: Sequence[str]) -> dict[str, Any]:
    """The ``--json`` summary: ``crawlsim run --json``'s keys (one builder,
    :func:`crawlsim.commands.summary.summary_dict`) with ``clock = "wall"``;
    ``stopped`` is added when a time limit cut the crawl short."""
    from crawlsim.commands.summary import summary_dict as build

    data = build(result, seeds=list(seeds), clock="wall")
    if result.stopped:
        data["stopped"] = result.stopped
    return data


class TraceWriter:
    """Writes the JSONL trace (one ``event_to_dict`` per line) as events come,
    line-buffered so another program can follow the file while it grows."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: IO[str] = open(path, "w", encoding="utf-8", buffering=1)  # noqa: SIM115

    def __call__(self, event: Event) -> None:
        self._file.write(json.dumps(event_to_dict(event), separators=(",", ":")) + "\n")

    def close(self) -> None:
        self._file.close()


# --------------------------------------------------------------------------- serve


def describe_latency(spec: Any) -> str:
    """``150 ms`` for a fixed latency, else the model's table, rounded."""
    if isinstance(spec, (int, float)):
        return f"{spec * 1000:.4g} ms" if spec < 1 else f"{spec:.4g} s"
    if isinstance(spec, Mapping):
        return (
            "{" + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v!r}" for k, v in spec.items()) + "}"
        )
    return str(spec)


def build_serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawlsim serve",
        description=(
            "Serve a scenario's web over real HTTP on loopback (127.0.0.0/8) only: one address per host, each "
            "with the scenario's latency, robots.txt, failures and 429/503 with Retry-After. The first line "
            "printed is the URL to start crawling; then the host map and a crawl command."
        ),
    )
    parser.add_argument("scenario", help="a shipped scenario name or a .toml path")
    parser.add_argument(
        "--port",
        type=int,
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
        help="close a connection that has not sent a whole request within this long (default 10)",
    )
    return parser


def scenario_flags(options: CrawlOptions, written: Collection[str] = ()) -> list[str]:
    """Flags that make ``crawlsim crawl`` crawl as the scenario does: each
    option the scenario's ``[crawl]`` table sets (``written``), or that
    ``crawl``'s politeness defaults would change, when the value differs."""
    from crawlsim.real.crawler import REAL_DEFAULTS, real_options

    default = real_options()
    relevant = (set(written) | set(REAL_DEFAULTS)) - {"record_events", "priority"}
    if "user_agent" not in written:
        relevant.discard("user_agent")
    out: list[str] = []
    flag_names = {name for name, _, _ in FLAGS}
    for key, value in options.as_mapping().items():
        if key not in relevant or value == getattr(default, key):
            continue
        if key in ("robots", "randomize_gap"):
            out.append(f"--{'' if value else 'no-'}{key.replace('_', '-')}")
        elif key in flag_names and isinstance(value, (int, float, str)):
            out += [f"--{key.replace('_', '-')}", f"{value:g}" if isinstance(value, float) else str(value)]
        elif value is None:
            out += ["--set", f"{key}=none"]
        elif isinstance(value, (int, float, str)):
            out += ["--set", f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}"]
        elif isinstance(value, tuple):
            out += ["--set", f"{key}=[{', '.join(repr(v) for v in value)}]"]
        elif isinstance(value, frozenset):
            out += ["--set", f"{key}={'+'.join(sorted(value))}"]
    return out


def serve_main(argv: Sequence[str] | None = None) -> int:
    """``crawlsim serve SCENARIO [--port N]``; returns the exit status."""
    from crawlsim.real.server import HEADER_TIMEOUT, ScenarioServer
    from crawlsim.real.timescale import scale_scenario
    from crawlsim.scenario import ScenarioError, load_scenario

    args = build_serve_parser().parse_args(argv)
    try:
        if not 0 <= args.port <= 65535:
            raise UsageError(f"--port: expected 0-65535, got {args.port}")
        if not (math.isfinite(args.time_scale) and 0 < args.time_scale <= MAX_TIME_SCALE):
            raise UsageError(
                f"--time-scale: expected a number > 0 and at most {MAX_TIME_SCALE:g}, got {args.time_scale:g}"
            )
        check_seconds("--duration", args.duration)
        if args.header_timeout is None:
            args.header_timeout = HEADER_TIMEOUT
        check_seconds("--header-timeout", args.header_timeout, maximum=3600)
        if args.hosts_file is not None:
            _check_writable(args.hosts_file)
        scenario = scale_scenario(load_scenario(args.scenario), args.time_scale)
        server = ScenarioServer(
            scenario, port=args.port, layout=args.layout, header_timeout=args.header_timeout, max_log=SERVE_LOG_RECORDS
        )
    except (ScenarioError, OptionError, UsageError, ValueError) as err:
        return _fail(err)

    async def run() -> int:
        try:
            await server.start()
        except OSError as err:
            print(
                f"crawlsim: error: cannot listen on loopback port {args.port}: {err.strerror or err}"
                f"{'; try --port 0' if args.port else ''}",
                file=sys.stderr,
            )
            return 1
        try:
            try:
                _announce(server, args, scenario)
            except OSError as err:
                print(f"crawlsim: error: {err.filename or args.hosts_file}: {err.strerror or err}", file=sys.stderr)
                return 2
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, stop.set)
                except (NotImplementedError, RuntimeError):
                    pass
            try:
                await asyncio.wait_for(stop.wait(), args.duration)
            except TimeoutError:
                pass
        finally:
            await server.stop()
        print(f"stopped after {server.log.total} requests", file=sys.stderr)
        return 0

    return asyncio.run(run())


SERVE_LOG_RECORDS = 10_000
"""``crawlsim serve`` keeps its latest requests only (it prints just the count)."""


def _check_writable(path: str) -> None:
    """``UsageError`` now, rather than a traceback after starting, when ``path``
    cannot be written (a missing folder, a folder, no permission)."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{path}: is a folder; expected a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{path}: no such folder {str(parent)!r}")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UsageError(f"{path}: not writable")


def _announce(server: Any, args: argparse.Namespace, scenario: Any) -> None:
    """What ``serve`` prints: the start URL first, then how to crawl it."""
    print(scenario.seeds[0], flush=True)
    scale = f", time x{args.time_scale:g}" if args.time_scale != 1 else ""
    endpoints = server.endpoints
    print(f"serving {scenario.name} ({scenario.title}) on loopback: {len(endpoints)} hosts{scale}")
    width = max(len(h) for h in endpoints)
    for host, ep in list(endpoints.items())[:20]:
        model = scenario.latency_for(host)
        print(f"  {host:<{width}}  {ep.target:<21}  latency {describe_latency(model.to_spec())}")
    if len(endpoints) > 20:
        print(f"  ... and {len(endpoints) - 20} more (see the hosts file)")
    hosts_file = args.hosts_file
    if hosts_file is None and len(endpoints) > 8:
        fd, hosts_file = tempfile.mkstemp(prefix="crawlsim-hosts-", suffix=".json")
        os.close(fd)
    if hosts_file is not None:
        server.write_hosts_file(hosts_file)
        print(f"host map written to {hosts_file}")
        resolve = ["--hosts-file", hosts_file]
    else:
        resolve = [a for h, t in server.host_map().items() for a in ("--resolve", f"{h}={t}")]
    for seed in scenario.seeds[1:]:
        print(f"also a start URL: {seed}")
    command = [
        "crawlsim",
        "crawl",
        scenario.seeds[0],
        *resolve,
        *scenario_flags(scenario.options, _crawl_table(scenario)),
    ]
    print("crawl it as the scenario does:\n  " + shlex.join(command))
    print("(URLs keep the scenario's host names; --resolve sends each host's requests to its loopback address)")
    print("Ctrl-C stops the server.", flush=True)


def _crawl_table(scenario: Any) -> list[str]:
    table = scenario.data.get("crawl", {}) if isinstance(scenario.data, Mapping) else {}
    return list(table) if isinstance(table, Mapping) else []


# --------------------------------------------------------------------------- crawl


def build_crawl_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawlsim crawl",
        description=(
            "Crawl over real HTTP with the same scheduler the simulator runs: robots.txt obeyed under a clear "
            "user agent, 2 requests at a time per host, 1 s between starts, the start host only -- unless flags "
            "say otherwise. A local path (./site/index.html) crawls a folder of HTML files instead and lists "
            "the pages unreachable from it."
        ),
    )
    parser.add_argument("url", nargs="?", help="http(s) URL, or a local HTML file / folder / file: URL")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON (the keys of run --json)")
    parser.add_argument(
        "--tui",
        action="store_true",
        help="watch the crawl live in the terminal app (a folder crawl is replayed when done)",
    )
    parser.add_argument("-o", "--trace", metavar="FILE", help="write the JSONL trace (replay: crawlsim tui --trace)")
    net = parser.add_argument_group("network")
    net.add_argument(
        "--resolve",
        action="append",
        default=[],
        metavar="HOST=ADDR:PORT",
        help="send HOST's requests to ADDR:PORT (repeatable); with a map, unmapped hosts are errors",
    )
    net.add_argument("--hosts-file", metavar="FILE", help="host map written by crawlsim serve --hosts-file")
    net.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    net.add_argument("--max-bytes", type=int, default=2_000_000, help="largest response body (default 2000000)")
    net.add_argument("--max-redirects", type=int, default=5, help="same-host redirect hops (default 5)")
    net.add_argument("--max-time", type=float, metavar="SECONDS", help="stop the whole crawl after this long")
    net.add_argument(
        "--allow-private",
        action="store_true",
        help="allow requests to private, link-local and other non-public addresses (refused by default, unless "
        "the start URL is one; loopback is allowed when the start URL is on loopback)",
    )
    add_crawler_flags(parser)
    return parser


def parse_resolve(items: Sequence[str], hosts_file: str | None) -> dict[str, tuple[str, int]]:
    """``["a.com=127.0.0.2:8000"]`` and/or a hosts file -> ``{"a.com": ("127.0.0.2", 8000)}``."""
    pairs: list[tuple[str, str, str]] = []
    if hosts_file:
        data = read_hosts_file(hosts_file)
        table = data.get("hosts", data)
        if not isinstance(table, dict):
            raise UsageError(f'--hosts-file {hosts_file}: expected {{"hosts": {{"a.com": "127.0.0.2:8000"}}}}')
        pairs += [("--hosts-file", str(h), str(t)) for h, t in table.items()]
    for item in items:
        host, sep, target = item.partition("=")
        if not sep or not host or not target:
            raise UsageError(f"--resolve: expected HOST=ADDR:PORT such as a.com=127.0.0.2:8000, got {item!r}")
        pairs.append(("--resolve", host, target))
    out: dict[str, tuple[str, int]] = {}
    for where, host, target in pairs:
        address, _, port = target.rpartition(":")
        if not address or not port.isdigit() or not 0 < int(port) < 65536:
            raise UsageError(f"{where}: expected ADDR:PORT for {host}, got {target!r}")
        try:
            ipaddress.ip_address(address.strip("[]"))
        except ValueError:
            raise UsageError(f"{where}: expected an IP address for {host}, got {address!r}") from None
        out[host.strip().lower()] = (address.strip("[]"), int(port))
    return out


def crawl_main(argv: Sequence[str] | None = None) -> int:
    """``crawlsim crawl URL [crawler flags] [--json] [--tui] [-o FILE]``."""
    from crawlsim.real.crawler import HttpLimits, real_options
    from crawlsim.real.files import FILE_DEFAULTS, start_path

    args = build_crawl_parser().parse_args(argv)
    try:
        overrides = overrides_from_args(args)
        resolve = parse_resolve(args.resolve, args.hosts_file)
        url = args.url
        if url is None and args.hosts_file:
            start = read_hosts_file(args.hosts_file).get("start")
            url = start[0] if isinstance(start, list) and start and isinstance(start[0], str) else None
        if url is None:
            raise UsageError("give a URL to crawl (or a local HTML file or folder)")
        check_seconds("--timeout", args.timeout)
        check_seconds("--max-time", args.max_time)
        check_int("--max-bytes", args.max_bytes, 1, MAX_BODY_BYTES)
        check_int("--max-redirects", args.max_redirects, 0, MAX_REDIRECTS)
        if args.trace is not None:
            _check_writable(args.trace)
        local = start_path(url)
        if local is not None:
            if resolve:
                raise UsageError("--resolve and --hosts-file apply to http(s) URLs, not to a local folder")
            if not local.is_file():
                raise UsageError(
                    f"no such file: {local}"
                    + (
                        ""
                        if "." in Path(url).name or "/" in url
                        else f"; to crawl the web, give a URL such as http://{url}/"
                    )
                )
            options = CrawlOptions.from_mapping({**FILE_DEFAULTS, **overrides})
        else:
            if not url.lower().startswith(("http://", "https://")):
                raise UsageError(f"expected an http(s) URL or a local path, got {url!r}")
            options = real_options(overrides)
        limits = HttpLimits(
            timeout=args.timeout,
            max_bytes=args.max_bytes,
            max_redirects=args.max_redirects,
            allow_private=args.allow_private,
        )
        tui_main = _tui_replayer() if args.tui else None
    except (OptionError, UsageError, ValueError, OSError) as err:
        return _fail(err)

    trace_path = args.trace
    if args.tui and trace_path is None:
        fd, trace_path = tempfile.mkstemp(prefix="crawlsim-crawl-", suffix=".jsonl")
        os.close(fd)
    try:
        writer = TraceWriter(trace_path) if trace_path else None
    except OSError as err:
        return _fail(UsageError(f"{trace_path}: {err.strerror or err}"))
    out = sys.stderr if args.json else sys.stdout
    try:
        if local is not None:
            code = _crawl_folder(local, overrides, args, writer, out)
        else:
            code = _crawl_web(url, options, resolve, limits, args, writer, out)
    except KeyboardInterrupt:
        print("crawlsim: interrupted", file=sys.stderr)
        code = 130
    finally:
        if writer is not None:
            writer.close()
    if writer is not None and not args.json:
        print(f"trace written to {trace_path} (replay: crawlsim tui --trace {shlex.quote(trace_path)})", file=out)
    if tui_main is not None and local is not None and code == 0 and trace_path is not None:
        return int(tui_main(["--trace", trace_path]))  # a folder crawl is instant: replay it
    return code


def _tui_replayer() -> Callable[[list[str]], int]:
    """The terminal app's entry point, checked before crawling (a web crawl
    is then watched live; a folder crawl, which is instant, is replayed)."""
    try:
        from crawlsim.tui import main as tui_main
    except ImportError as err:  # pragma: no cover - depends on the install
        raise UsageError(f"--tui needs the terminal app (crawlsim.tui): {err}") from None
    if not (sys.stdout.isatty() and sys.stdin.isatty()) and not os.environ.get("CRAWLSIM_TUI_FORCE"):
        raise UsageError("--tui needs a terminal; use -o FILE and `crawlsim tui --trace FILE` later")
    return tui_main


def _crawl_watched_live(crawl: Callable[..., Any], url: str, writer: TraceWriter | None) -> Any | None:
    """Run the crawl on a background thread (its own event loop) while the
    terminal app follows its events live; the crawl's result, or None when
    the app was closed first (the daemon thread dies with the process)."""
    import threading

    from crawlsim.session import LiveFeed
    from crawlsim.tui.app import CrawlApp

    feed = LiveFeed(url)
    outcome: list[Any] = []

    def on_event(event: Event) -> None:
        if writer is not None:
            writer(event)
        feed.events.append(event)

    def work() -> None:
        try:
            outcome.append(asyncio.run(crawl(on_event=on_event)))
        except Exception as err:  # noqa: BLE001 - shown in the app, re-raised below
            feed.error = f"{type(err).__name__}: {err}"
            outcome.append(err)
        finally:
            feed.done = True

    thread = threading.Thread(target=work, name="crawl", daemon=True)
    thread.start()
    CrawlApp(live=feed).run()
    if not feed.done:
        return None
    thread.join()
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def _crawl_web(
    url: str,
    options: CrawlOptions,
    resolve: Mapping[str, tuple[str, int]],
    limits: Any,
    args: argparse.Namespace,
    writer: TraceWriter | None,
    out: IO[str],
) -> int:
    from crawlsim.real.crawler import crawl_http

    print(f"crawling {url} as {options.user_agent!r}", file=out)
    print(politeness_line(options), file=out)
    if resolve:
        print("host map: " + ", ".join(f"{h} -> {a}:{p}" for h, (a, p) in resolve.items()), file=out)
    out.flush()
    crawl = functools.partial(
        crawl_http,
        [url],
        options,
        resolve=resolve or None,
        limits=limits,
        keep_events=False,
        max_time=args.max_time,
    )
    if args.tui:
        result = _crawl_watched_live(crawl, url, writer)
        if result is None:
            print("crawlsim crawl: the app was closed before the crawl ended; crawl stopped", file=sys.stderr)
            return 130
    else:
        result = asyncio.run(crawl(on_event=writer))
    if args.json:
        data = summary_dict(result, [url])
        if result.robots_refused:
            data["robots_unreadable"] = result.robots_refused
        if result.unfinished:
            data["not_fetched"] = dict(sorted(result.unfinished.items()))
        if result.refused:
            data["refused"] = [{"target": what, "reason": why} for what, why in result.refused]
        print(json.dumps(data, indent=2))
    else:
        _print_result(result, url, out)
    if result.stats.pages_fetched == 0 and not result.stopped:
        print("crawlsim crawl: no page could be fetched (see the reasons above)", file=sys.stderr)
        return 1
    return 0


def _print_result(result: Any, url: str, out: IO[str]) -> None:
    """The run summary's layout (shared with ``crawlsim run``), then each page."""
    from crawlsim.commands.summary import summary_text

    stats = result.stats
    print(summary_text(summary_dict(result, [url])).rstrip(), file=out)
    print("pages:", file=out)
    if result.stopped:
        print(f"stopped early: {result.stopped}", file=out)
    statuses = result.statuses
    if len(statuses) <= 60:
        for page, status in sorted(statuses.items()):
            if page not in result.failures and page not in result.unfinished:
                print(f"  {status}  {page}", file=out)
    else:
        print(f"  ({len(statuses)} pages; --json or -o FILE for all of them)", file=out)
    if result.failures:
        print(f"failed ({len(result.failures)}):", file=out)
        for page, reason in sorted(result.failures.items()):
            print(f"  {page}  {reason}", file=out)
    if result.unfinished:
        print(f"not fetched when the crawl stopped ({len(result.unfinished)}):", file=out)
        for page, reason in sorted(result.unfinished.items())[:60]:
            print(f"  {page}  {reason}", file=out)
        if len(result.unfinished) > 60:
            print(f"  ... and {len(result.unfinished) - 60} more (--json lists them all)", file=out)
    for what, why in result.refused[:20]:
        print(f"refused before connecting: {what}: {why}", file=out)
    if stats.skipped:
        print("links not followed: " + ", ".join(f"{n} {k}" for k, n in sorted(stats.skipped.items())), file=out)
    for host, reason in sorted(result.robots_refused.items()):
        print(
            f"robots.txt of {host} could not be read ({reason}): RFC 9309 says treat the whole host as "
            "disallowed, so none of its pages were fetched (--no-robots crawls it anyway)",
            file=out,
        )


def _crawl_folder(
    start: Path, overrides: Mapping[str, Any], args: argparse.Namespace, writer: TraceWriter | None, out: IO[str]
) -> int:
    from crawlsim.real.files import crawl_folder_async

    report = asyncio.run(crawl_folder_async(start, overrides, on_event=writer))
    if args.json:
        data = summary_dict(report.result, [str(start)])
        data.update(
            root=str(report.root), reachable=report.reachable, unreachable=report.unreachable, broken=report.broken
        )
        print(json.dumps(data, indent=2))
        return 0
    print(f"crawled {report.root} from {report.start}: {len(report.reachable)} pages reachable", file=out)
    if report.unreachable:
        print(f"unreachable from {report.start} ({len(report.unreachable)}):", file=out)
        for page in report.unreachable:
            print(f"  {page}", file=out)
    else:
        print(f"every HTML file is reachable from {report.start}", file=out)
    if report.broken:
        print(f"broken links ({len(report.broken)}):", file=out)
        for target, parents in report.broken.items():
            print(f"  {target}  (linked from {', '.join(parents)})", file=out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m crawlsim.real serve|crawl ...`` (the ``crawlsim`` script
    dispatches to :func:`serve_main` / :func:`crawl_main` directly)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"serve": serve_main, "crawl": crawl_main}
    if not argv or argv[0] not in commands:
        print("usage: python -m crawlsim.real {serve,crawl} ...", file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


__all__ = [
    "UsageError",
    "crawl_main",
    "main",
    "parse_resolve",
    "politeness_line",
    "scenario_flags",
    "serve_main",
    "summary_dict",
]
