"""``crawlsim crawl URL``: crawl real servers, or a folder of HTML files,
with the same core the simulator runs.

A web crawl is polite by default and says so (one politeness sentence before
it starts); ``crawlsim crawl ./folder/index.html`` crawls a folder and lists
the pages nothing links to.  The crawlers are :mod:`crawlsim.real.crawler`
and :mod:`crawlsim.real.files`; this module checks the flags, chooses which
crawl to run, and prints (or, with ``--tui``, hands the crawl to the terminal
app).

User mistakes (a bad flag value, a missing file) print one
``crawlsim: error: ...`` line and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from crawlsim.cli_options import add_crawler_flags, add_trace_out_flag, overrides_from_args
from crawlsim.commands.common import ArgumentParser
from crawlsim.trace.events import Done, Event, FetchStarted
from crawlsim.core.options import CrawlOptions
from crawlsim.errors import UsageError
from crawlsim.outfile import check_writable
from crawlsim.real.flags import (
    MAX_BODY_BYTES,
    MAX_REDIRECTS,
    check_int,
    check_seed_address,
    check_seconds,
    hosts_file_start,
    parse_resolve,
    politeness_line,
)
from crawlsim.real.loopwatch import watch_waits
from crawlsim.real.progress import PROGRESS_SECONDS, LiveTimeLeft
from crawlsim.trace.jsonl import TraceWriter
from crawlsim.words import counted

EXIT_INTERRUPTED = 130
SHOWN_PAGES = 60
"""Pages (and unfinished pages) listed on the terminal; ``--json`` lists all."""
SHOWN_REFUSALS = 20


def summary_dict(result: Any, seeds: Sequence[str]) -> dict[str, Any]:
    """The ``--json`` summary: ``crawlsim run --json``'s keys (one builder,
    :func:`crawlsim.views.summary.summary_dict`) with ``clock = "wall"``;
    ``stopped`` says whether a time limit cut the crawl short.  Every page
    found is accounted for: ``pages_reachable`` counts the pages found
    within the scope, ``pages_lost`` lists each one not fetched with its
    reason (:mod:`crawlsim.real.accounting`); the bounds are measured from
    the crawl's events (:mod:`crawlsim.real.bounds`); ``advice`` is None
    and ``advice_note`` says why."""
    from crawlsim.views.summary import summary_dict as build
    from crawlsim.real.accounting import real_coverage
    from crawlsim.real.bounds import ADVICE_NOTE, measured

    run, bounds, note = measured(result)
    data = build(run, bounds, seeds=list(seeds), clock="wall", coverage=real_coverage(result), bounds_note=note)
    data["advice_note"] = ADVICE_NOTE
    data["stopped"] = result.stopped
    return data


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim crawl",
        description=(
            "Crawl over real HTTP with the same scheduler the simulator runs: robots.txt obeyed under a clear "
            "user agent, 2 fetches at a time per host, 1 s between starts, the start host only -- unless flags "
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
    add_trace_out_flag(parser, "the crawl's trace", "-o")
    parser.add_argument(
        "--progress",
        type=float,
        default=PROGRESS_SECONDS,
        metavar="SECONDS",
        help=f"say the time left every SECONDS as the crawl runs: a lower bound over the pages known so far and "
        f"an estimate (default {PROGRESS_SECONDS:g}; 0: never; with --json, JSON lines on stderr)",
    )
    parser.add_argument(
        "--time-left-png",
        metavar="FILE",
        help="after the crawl, draw how the time-left bound and estimate moved against the real time left (PNG)",
    )
    net = parser.add_argument_group("network")
    net.add_argument(
        "--resolve",
        action="append",
        default=[],
        metavar="HOST=ADDR:PORT",
        help="send HOST's fetches to ADDR:PORT (repeatable); with a map, unmapped hosts are errors",
    )
    net.add_argument("--hosts-file", metavar="FILE", help="host map written by crawlsim serve --hosts-file")
    net.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="seconds per fetch (default 10)")
    net.add_argument("--max-bytes", type=int, default=2_000_000, metavar="BYTES",
                     help="largest response body (default 2000000)")
    net.add_argument("--max-redirects", type=int, default=5, metavar="N", help="same-host redirect hops (default 5)")
    net.add_argument("--max-time", type=float, metavar="SECONDS", help="stop the whole crawl after this long")
    net.add_argument(
        "--allow-private",
        action="store_true",
        help="allow fetches from private, link-local and other non-public addresses (refused by default, unless "
        "the start URL is one; loopback is allowed when the start URL is on loopback)",
    )
    add_crawler_flags(parser)
    return parser


# --------------------------------------------------------------------------- what to crawl


@dataclass(frozen=True)
class CrawlPlan:
    """One crawl, its flags checked: either a folder (``local``) or the web."""

    url: str
    local: Path | None
    """The start file of a folder crawl; None for a web crawl."""
    overrides: Mapping[str, Any]
    options: CrawlOptions
    resolve: Mapping[str, tuple[str, int]]
    limits: Any
    """The web crawl's :class:`~crawlsim.real.crawler.HttpLimits`."""
    tui_main: Callable[[list[str]], int] | None
    """The terminal app's entry point with ``--tui``, else None."""


def plan_crawl(args: argparse.Namespace) -> CrawlPlan:
    """Check every flag before anything starts (``UsageError``, ``OptionError``
    or ``ValueError`` for the first mistake, in the order the flags are read)."""
    from crawlsim.real.crawler import HttpLimits
    from crawlsim.real.files import start_path

    overrides = overrides_from_args(args)
    resolve = parse_resolve(args.resolve, args.hosts_file)
    url = _start_url(args)
    _check_limits(args)
    local = start_path(url)
    options = _folder_options(local, url, resolve, overrides) if local is not None else _web_options(url, overrides)
    limits = HttpLimits(
        timeout=args.timeout,
        max_bytes=args.max_bytes,
        max_redirects=args.max_redirects,
        allow_private=args.allow_private,
    )
    tui_main = _tui_replayer() if args.tui else None
    return CrawlPlan(url, local, overrides, options, resolve, limits, tui_main)


def _start_url(args: argparse.Namespace) -> str:
    """The URL argument, else the start URL a ``--hosts-file`` recorded."""
    url = args.url
    if url is None and args.hosts_file:
        url = hosts_file_start(args.hosts_file)
    if url is None:
        raise UsageError("give a URL to crawl (or a local HTML file or folder)")
    return str(url)


def _check_limits(args: argparse.Namespace) -> None:
    check_seconds("--timeout", args.timeout)
    check_seconds("--max-time", args.max_time)
    check_int("--max-bytes", args.max_bytes, 1, MAX_BODY_BYTES)
    check_int("--max-redirects", args.max_redirects, 0, MAX_REDIRECTS)
    check_seconds("--progress", args.progress, zero="never")
    if args.trace_out is not None:
        check_writable(args.trace_out)
    if args.time_left_png is not None:
        check_writable(args.time_left_png)


def _folder_options(
    local: Path, url: str, resolve: Mapping[str, tuple[str, int]], overrides: Mapping[str, Any]
) -> CrawlOptions:
    """A folder crawl's options; ``UsageError`` when the start file is missing
    (a bare name such as ``example`` was probably meant as a web site)."""
    from crawlsim.real.files import FILE_DEFAULTS

    if resolve:
        raise UsageError("--resolve and --hosts-file apply to http(s) URLs, not to a local folder")
    if not local.is_file():
        looks_like_a_file = "." in Path(url).name or "/" in url
        hint = "" if looks_like_a_file else f"; to crawl the web, give a URL such as http://{url}/"
        raise UsageError(f"no such file: {local}{hint}")
    return CrawlOptions.from_mapping({**FILE_DEFAULTS, **overrides})


def _web_options(url: str, overrides: Mapping[str, Any]) -> CrawlOptions:
    """A web crawl's options: the real crawler's polite defaults under the flags."""
    from crawlsim.real.crawler import real_options

    if not url.lower().startswith(("http://", "https://")):
        raise UsageError(f"expected an http(s) URL or a local path, got {url!r}")
    check_seed_address(url)
    return real_options(overrides)


def _tui_replayer() -> Callable[[list[str]], int]:
    """The terminal app's entry point, checked before crawling (a web crawl
    is then watched live; a folder crawl, which is instant, is replayed)."""
    try:
        from crawlsim.tui import main as tui_main
    except ImportError as err:  # pragma: no cover - depends on the install
        raise UsageError(f"--tui needs the terminal app (crawlsim.tui): {err}") from None
    if not (sys.stdout.isatty() and sys.stdin.isatty()) and not os.environ.get("CRAWLSIM_TUI_FORCE"):
        raise UsageError("--tui needs a terminal; use --trace-out FILE and `crawlsim tui --trace FILE` later")
    return tui_main


# --------------------------------------------------------------------------- running it


def main(argv: Sequence[str] | None = None) -> int:
    """``crawlsim crawl URL [crawler flags] [--json] [--tui] [-o FILE]``."""
    args = build_parser().parse_args(argv)
    try:
        plan = plan_crawl(args)
    except UsageError:
        raise
    except (ValueError, OSError) as err:  # a start URL with no canonical form, a folder that cannot be read
        raise UsageError(str(err)) from None
    trace_path = _trace_path(args)
    writer = _trace_writer(trace_path, plan.options) if trace_path else None
    out = sys.stderr if args.json else sys.stdout
    code = _run(plan, args, writer, out)
    if writer is not None and not args.json:
        print(f"trace written to {trace_path} (replay: crawlsim tui --trace {shlex.quote(trace_path)})", file=out)
    if plan.tui_main is not None and plan.local is not None and code == 0 and trace_path is not None:
        return int(plan.tui_main(["--trace", trace_path]))  # a folder crawl is instant: replay it
    return code


CLIENT_CPU_KEY = "client_cpu"
"""The Done line's entry: CPU seconds the crawler itself spent on the crawl
(``time.process_time``: the event loop and the parser threads)."""
CLIENT_BUSY_KEY = "client_busy"
"""The Done line's entry: wall-clock seconds the crawler's event loop was busy
(the crawl's time less the time it waited in its selector for the network),
from which ``crawlsim model`` takes the crawler's own work per response.  On a
loaded machine it is more than the CPU time: it includes the time the
operating system gave the CPU to other processes, as the reruns will."""
CLIENT_BUSY_START_KEY = "client_busy_start"
"""The Done line's entry: the busy seconds before the first page's fetch started
(the first connection, the crawler's first-time work): a start-up cost, not a
cost per response, so ``crawlsim model`` leaves it out of the per-response
figure (robots.txt's time in the model holds it)."""
SERVER_TIME_KEY = "server_time"
"""The Done line's entry: fetch id -> the server's seconds for that fetch, from
its requests sent to their answers' arrival as the event loop saw it, the
crawler's own delay in noticing them left out (:mod:`crawlsim.real.loopwatch`);
``crawlsim model`` takes each page's time from it."""

RETRY_AFTER_KEY = "retry_after_sent"
"""The Done line's entry: the fetch ids whose answer carried a Retry-After, so
``crawlsim model`` tells the server's waits from the crawler's own backoff."""


class _CpuStampedWriter(TraceWriter):
    """A trace writer whose Done line also says the crawl's own CPU and busy time,
    and each fetch's server time (filled in by the fetcher as the crawl goes)."""

    def __init__(self, path: str, options: Mapping[str, Any]) -> None:
        super().__init__(path, options=options)
        self.cpu_began = time.process_time()
        self.began: float | None = None
        self.idle = 0.0
        self.server_times: dict[int, float] = {}
        self.retry_after_sent: set[int] = set()
        self.busy_start: float | None = None
        self._unwatch: Callable[[], None] | None = None

    def busy(self) -> float:
        return max(0.0, time.monotonic() - (self.began or 0.0) - self.idle)

    def __call__(self, event: Event) -> None:
        if self.began is None:
            self.began = time.monotonic()
            self._watch_selector()
        if self.busy_start is None and isinstance(event, FetchStarted) and event.kind == "page":
            self.busy_start = self.busy()
        if isinstance(event, Done):
            busy = self.busy()
            cpu = time.process_time() - self.cpu_began
            stamp = {CLIENT_CPU_KEY: round(cpu, 6), **({CLIENT_BUSY_KEY: round(busy, 6)} if self.idle else {})}
            if self.idle and self.busy_start is not None:
                stamp[CLIENT_BUSY_START_KEY] = round(self.busy_start, 6)
            if self.server_times:
                stamp[SERVER_TIME_KEY] = {str(k): round(v, 6) for k, v in sorted(self.server_times.items())}
            if self.retry_after_sent:
                stamp[RETRY_AFTER_KEY] = sorted(self.retry_after_sent)
            self.options = {**(self.options or {}), **stamp}
            if self._unwatch is not None:  # the crawl is over: its loop's selector is its own again
                self._unwatch, unwatch = None, self._unwatch
                unwatch()
        super().__call__(event)

    def _watch_selector(self) -> None:
        """Count the time the running event loop waits in its selector (asyncio's
        selector loops keep it as ``_selector``; any other loop: no busy time)."""
        try:
            selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]  # noqa: SLF001
        except (RuntimeError, AttributeError):
            return  # a folder crawl's loop, or a loop without a selector: the CPU time alone
        self._unwatch = watch_waits(selector, self._waited)

    def _waited(self, called: float, returned: float, events: Any) -> None:
        self.idle += returned - called


def _trace_writer(path: str, options: CrawlOptions) -> TraceWriter:
    """The trace file (a file that cannot be written: ``UsageError``), its Done
    line carrying the crawl's options and its CPU time, so ``crawlsim model``
    can rerun it as recorded."""
    from crawlsim.views.summary import options_dict

    return _CpuStampedWriter(path, options_dict(options))


def _trace_path(args: argparse.Namespace) -> str | None:
    """``-o FILE``; with ``--tui`` and no ``-o``, a temporary file the app follows."""
    if args.tui and args.trace_out is None:
        fd, path = tempfile.mkstemp(prefix="crawlsim-crawl-", suffix=".jsonl")
        os.close(fd)
        return path
    given: str | None = args.trace_out
    return given


def _run(plan: CrawlPlan, args: argparse.Namespace, writer: TraceWriter | None, out: IO[str]) -> int:
    """The crawl the plan names; its exit status (130 on Ctrl-C).  The trace
    file is closed however the crawl ends."""
    try:
        if plan.local is not None:
            return _crawl_folder(plan.local, plan.overrides, args, writer, out)
        return _crawl_web(plan, args, writer, out)
    except KeyboardInterrupt:
        print("crawlsim: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if writer is not None:
            writer.close()


def _crawl_watched_live(
    crawl: Callable[..., Any], url: str, writer: TraceWriter | None, options: CrawlOptions, every: float
) -> Any | None:
    """Run the crawl on a background thread (its own event loop) while the
    terminal app follows its events live; the crawl's result, or None when
    the app was closed first (the daemon thread dies with the process)."""
    import threading

    from crawlsim.views.session import LiveFeed
    from crawlsim.tui.app import CrawlApp

    feed = LiveFeed(url)
    outcome: list[Any] = []

    def then(event: Event) -> None:
        if writer is not None:
            writer(event)
        feed.events.append(event)

    def say(left: Any, t: float) -> None:
        feed.time_left = left.line(t)

    on_event = LiveTimeLeft(options, say, min(every, 1.0) if every > 0 else 0.0, then=then)

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


def _crawl_web(plan: CrawlPlan, args: argparse.Namespace, writer: TraceWriter | None, out: IO[str]) -> int:
    from crawlsim.real.crawler import crawl_http

    url, options = plan.url, plan.options
    print(f"crawling {url} as {options.user_agent!r}", file=out)
    print(politeness_line(options), file=out)
    if plan.resolve:
        print("host map: " + ", ".join(f"{h} -> {a}:{p}" for h, (a, p) in plan.resolve.items()), file=out)
    out.flush()
    crawl = functools.partial(
        crawl_http,
        [url],
        options,
        resolve=plan.resolve or None,
        limits=plan.limits,
        keep_events=True,  # the bounds are measured from them (crawlsim.real.bounds)
        max_time=args.max_time,
        server_times=writer.server_times if isinstance(writer, _CpuStampedWriter) else None,
        retry_after_sent=writer.retry_after_sent if isinstance(writer, _CpuStampedWriter) else None,
    )
    if args.tui:
        result = _crawl_watched_live(crawl, url, writer, options, args.progress)
        if result is None:
            print("crawlsim crawl: the app was closed before the crawl ended; crawl stopped", file=sys.stderr)
            return EXIT_INTERRUPTED
    else:
        result = asyncio.run(crawl(on_event=LiveTimeLeft(options, _sayer(args, out), args.progress, then=writer)))
    report = _time_left_report(result, args)
    if args.json:
        print(json.dumps({**_web_json(result, url), "time_left": report.as_dict() if report else None}, indent=2))
    else:
        _print_result(result, url, out)
        from crawlsim.views.time_left import section

        print("\n".join(section(report, result.stats.pages_fetched, result.stopped)), file=out)
    if result.stats.pages_fetched == 0 and not result.stopped:
        print("crawlsim crawl: no page could be fetched (see the reasons above)", file=sys.stderr)
        return 1
    return 0


def _sayer(args: argparse.Namespace, out: IO[str]) -> Callable[[Any, float], None]:
    """How the running crawl says its time left: a JSON line on stderr with
    ``--json``; one line rewritten in place on a terminal; else a plain line each time."""
    if args.json:
        return lambda left, t: print(json.dumps({"progress": left.figures(t)}), file=sys.stderr, flush=True)
    if out.isatty():
        width = max(20, os.get_terminal_size(out.fileno()).columns - 1)

        def rewrite(left: Any, t: float) -> None:
            end = "\n" if left.lower(t).known == 0 else ""
            out.write(f"\r\x1b[K{f'[{t:,.1f} s] ' + left.line(t)}"[: width + 4] + end)
            out.flush()

        return rewrite
    return lambda left, t: print(f"[{t:,.1f} s] {left.line(t)}", file=out, flush=True)


def _time_left_report(result: Any, args: argparse.Namespace) -> Any:
    """How the time left moved against the truth (None without events), and its PNG."""
    from crawlsim.views.time_left import report_of

    report = report_of(result.options, result.events) if result.events and not result.stopped else None
    if args.time_left_png:
        if report is None:
            raise UsageError("no time-left picture: the crawl was stopped or fetched nothing")
        from crawlsim.views.plots import write_time_left_png

        write_time_left_png(report, args.time_left_png, title="time left as the crawl went", clock="seconds")
    return report


def _web_json(result: Any, url: str) -> dict[str, Any]:
    """``--json`` of a web crawl: the run summary plus what was not fetched and why."""
    data = summary_dict(result, [url])
    if result.robots_refused:
        data["robots_unreadable"] = result.robots_refused
    if result.unfinished:
        data["not_fetched"] = dict(sorted(result.unfinished.items()))
    if result.links_dropped:
        data["links_not_examined"] = dict(sorted(result.links_dropped.items()))
    if result.refused:
        data["refused"] = [{"target": what, "reason": why} for what, why in result.refused]
    return data


def _print_result(result: Any, url: str, out: IO[str]) -> None:
    """The run summary's layout (shared with ``crawlsim run``), then each page,
    then what went wrong."""
    from crawlsim.commands.common import stdout_console
    from crawlsim.views.summary import render_summary

    stdout_console(out).print(render_summary(summary_dict(result, [url])))
    print("pages:", file=out)
    if result.stopped:
        print(f"stopped early: {result.stopped}", file=out)
    _print_pages(result, out)
    _print_problems(result, out)


def _print_pages(result: Any, out: IO[str]) -> None:
    statuses = result.statuses
    if len(statuses) <= SHOWN_PAGES:
        for page, status in sorted(statuses.items()):
            if page not in result.failures and page not in result.unfinished:
                print(f"  {status}  {page}", file=out)
    else:
        print(f"  ({counted(len(statuses), 'page')}; --json or -o FILE for all of them)", file=out)


def _print_problems(result: Any, out: IO[str]) -> None:
    """Failed and unfetched pages, refusals, skipped links, unreadable robots.txt."""
    if result.failures:
        print(f"failed ({len(result.failures):,}):", file=out)
        for page, reason in sorted(result.failures.items()):
            print(f"  {page}  {reason}", file=out)
    if result.unfinished:
        print(f"not fetched when the crawl stopped ({len(result.unfinished):,}):", file=out)
        for page, reason in sorted(result.unfinished.items())[:SHOWN_PAGES]:
            print(f"  {page}  {reason}", file=out)
        if len(result.unfinished) > SHOWN_PAGES:
            print(f"  ... and {len(result.unfinished) - SHOWN_PAGES:,} more (--json lists them all)", file=out)
    for page, dropped in sorted(result.links_dropped.items()):
        print(f"links not examined when the crawl stopped: {dropped:,} of those on {page}", file=out)
    for what, why in result.refused[:SHOWN_REFUSALS]:
        print(f"refused before connecting: {what}: {why}", file=out)
    if result.stats.skipped:
        skipped = sorted(result.stats.skipped.items())
        print("links not followed: " + ", ".join(f"{n:,} {k}" for k, n in skipped), file=out)
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

    report = asyncio.run(crawl_folder_async(start, overrides, on_event=writer, max_bytes=args.max_bytes))
    if args.json:
        data = summary_dict(report.result, [str(start)])
        data.update(
            root=str(report.root),
            reachable=report.reachable,
            unreachable=report.unreachable,
            failed_pages=report.failed,
            broken=report.broken,
        )
        print(json.dumps(data, indent=2))
        return 0
    print(f"crawled {report.root} from {report.start}: {counted(len(report.reachable), 'page')} reachable", file=out)
    if report.unreachable:
        print(f"unreachable from {report.start} ({len(report.unreachable):,}):", file=out)
        for page in report.unreachable:
            print(f"  {page}", file=out)
    else:
        print(f"every HTML file is reachable from {report.start}", file=out)
    if report.failed:
        print(f"reachable but failed ({len(report.failed):,}):", file=out)
        for page, reason in report.failed.items():
            print(f"  {page}  {reason}", file=out)
    if report.broken:
        print(f"broken links ({len(report.broken):,}):", file=out)
        for target, parents in report.broken.items():
            print(f"  {target}  (linked from {', '.join(parents)})", file=out)
    return 0


__all__ = ["CrawlPlan", "TraceWriter", "build_parser", "main", "plan_crawl", "summary_dict"]
