"""Crawl a folder of HTML files and list the pages no link reaches.

The folder is read directly through a small fetch function plugged into the
same asyncio coordinator as the HTTP crawler -- no server, no sockets.  Its
files are given URLs under one made-up origin, ``http://site.invalid/``
(``.invalid`` is reserved by RFC 2606 and never resolves), so relative
links, ``<base href>`` and ``/``-rooted links resolve exactly as a browser
would resolve them on a web server whose document root is the folder, and
the core's canonicalization, scope and seen set apply unchanged.  Links to
other sites are out of scope; ``file:`` and ``mailto:`` links are skipped
by scheme.

A folder is not someone's server: no robots.txt, no gap, and every worker
may read at once.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from crawlsim.trace.events import Discovered, Event
from crawlsim.core.options import CrawlOptions
from crawlsim.core.fetch import Fetch
from crawlsim.real.coordinator import run_crawl
from crawlsim.real.defaults import MAX_NESTING
from crawlsim.real.parsing import ParseError, parse_html_off_loop
from crawlsim.real.results import CrawlResult, Failure, FetchContext, Outcome, Page

ORIGIN = "http://site.invalid"
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
MAX_FILE_BYTES = 2_000_000
"""A larger file fails its page unread (the HTTP crawler's default body cap)."""
PARSE_TIMEOUT = 10.0
"""Seconds to parse one file (off the event loop, like a fetched page)."""
FILE_DEFAULTS: dict[str, Any] = {"robots": False, "gap": 0.0, "per_host": None, "scope": "host", "workers": 8}


@dataclass
class FolderReport:
    """The outcome of crawling a folder."""

    root: Path
    start: str
    """The start page, relative to ``root`` (``index.html``)."""
    reachable: list[str]
    """HTML files reached from the start page, relative to ``root``, sorted."""
    unreachable: list[str]
    """HTML files in the folder that no chain of links from the start reaches
    (a file a link reaches whose read failed is under ``failed``, not here)."""
    failed: dict[str, str]
    """Files a link reaches that could not be read (too large, unparsable) -> why."""
    broken: dict[str, list[str]]
    """Link targets with no file behind them -> the pages that link to them."""
    result: CrawlResult


def start_path(target: str) -> Path | None:
    """The start file for ``target`` if it is local -- a path or a ``file:``
    URL; a folder means its ``index.html`` -- or ``None`` for a web URL."""
    if target.startswith("file:"):
        path = Path(unquote(urlsplit(target).path))
    elif re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", target):
        return None
    else:
        path = Path(target)
    return path / "index.html" if path.is_dir() else path


def url_of(root: Path, path: Path) -> str:
    """The made-up URL of a file under ``root``."""
    rel = path.resolve().relative_to(root).as_posix()
    return f"{ORIGIN}/{quote(rel)}"


def path_of(root: Path, url: str) -> str | None:
    """The file (relative to ``root``, POSIX form) a URL names, or None if it is
    outside the site."""
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}".lower() != ORIGIN:
        return None
    rel = unquote(parts.path).lstrip("/")
    target = (root / rel).resolve()
    try:
        target.relative_to(root)
    except ValueError:
        return None
    if target.is_dir():
        target = target / "index.html"
    return target.relative_to(root).as_posix()


class FileFetcher:
    """Answers a fetch from the folder: 200 with links for an HTML file,
    200 without links for any other file, 404 when there is no file."""

    def __init__(self, root: Path, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = root.resolve()
        self.max_bytes = max_bytes

    async def __call__(self, fetch: Fetch, ctx: FetchContext) -> Outcome:
        rel = path_of(self.root, fetch.url)
        if fetch.kind == "robots":
            return Page(404)
        if rel is None:
            return Page(404)
        path = self.root / rel
        if not path.is_file():
            return Page(404)
        size = path.stat().st_size
        if size > self.max_bytes:
            return Failure(f"too large: {size} bytes > {self.max_bytes} bytes", transient=False)
        data = path.read_bytes()  # local and at most max_bytes: not worth a thread
        if path.suffix.lower() not in HTML_SUFFIXES:
            return Page(200)
        text = data.decode("utf-8", errors="replace")
        try:
            links, base, content = await parse_html_off_loop(
                text, fetch.url, ctx.want_content, timeout=PARSE_TIMEOUT, max_nesting=MAX_NESTING
            )
        except ParseError as err:
            return Failure(str(err), transient=False)
        return Page(200, {"Content-Type": "text/html"}, links=tuple(links), content=content, base=base)


def html_files(root: Path) -> list[str]:
    """Every HTML file under ``root`` (relative, POSIX form), sorted."""
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.suffix.lower() in HTML_SUFFIXES
    )


async def crawl_folder_async(
    start: Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    root: Path | None = None,
    on_event: Callable[[Event], None] | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> FolderReport:
    """Crawl the folder of ``start`` (or ``root``) from ``start``; a file larger
    than ``max_bytes`` fails its page (reached, so listed under ``failed``)."""
    start = start.resolve()
    base = (root or start.parent).resolve()
    if not start.is_file():
        raise FileNotFoundError(f"no such file: {start}")
    options = CrawlOptions.from_mapping({**FILE_DEFAULTS, **(overrides or {})})
    seed = url_of(base, start)
    result = await run_crawl([seed], options, FileFetcher(base, max_bytes), on_event=on_event)
    reached, missing = _files_answered(base, result)
    failed = _files_failed(base, result)
    pages = [p for p in sorted(reached) if p.lower().endswith(HTML_SUFFIXES)]
    everything = html_files(base)
    return FolderReport(
        root=base,
        start=start.relative_to(base).as_posix(),
        reachable=pages,
        unreachable=[p for p in everything if p not in reached and p not in failed],
        failed=failed,
        broken=_broken_links(base, result, missing),
        result=result,
    )


def _files_answered(base: Path, result: CrawlResult) -> tuple[set[str], set[str]]:
    """(files found, link targets with no file behind them), relative to ``base``,
    from the status each fetched URL got (200 or 404); links off the site are left out."""
    reached: set[str] = set()
    missing: set[str] = set()
    for url, status in result.statuses.items():
        rel = path_of(base, url)
        if rel is None:
            continue
        (reached if status == 200 else missing).add(rel)
    return reached, missing


def _files_failed(base: Path, result: CrawlResult) -> dict[str, str]:
    """Files a link reached whose fetch failed with no HTTP status (too large,
    unparsable) -> the reason, sorted; a missing file (404) is a broken link."""
    failed: dict[str, str] = {}
    for url, reason in sorted(result.failures.items()):
        rel = path_of(base, url)
        if rel is not None and url not in result.statuses:
            failed.setdefault(rel, reason)
    return failed


def _broken_links(base: Path, result: CrawlResult, missing: set[str]) -> dict[str, list[str]]:
    """Each missing file -> the pages that link to it (from the crawl's
    Discovered events), both sorted."""
    referrers: dict[str, list[str]] = {}
    for event in result.events:
        if isinstance(event, Discovered) and event.parent is not None:
            rel = path_of(base, event.url)
            if rel in missing:
                parent = path_of(base, event.parent)
                referrers.setdefault(rel, []).append(parent or event.parent)
    return {k: sorted(set(v)) for k, v in sorted(referrers.items())}


def crawl_folder(start: str | Path, overrides: Mapping[str, Any] | None = None) -> FolderReport:
    """Synchronous :func:`crawl_folder_async`; ``start`` is a file, a folder
    (its ``index.html``) or a ``file:`` URL."""
    path = start_path(str(start))
    if path is None:
        raise FileNotFoundError(f"not a local file or folder: {start}")
    return asyncio.run(crawl_folder_async(path, overrides))


__all__ = [
    "FILE_DEFAULTS",
    "MAX_FILE_BYTES",
    "ORIGIN",
    "PARSE_TIMEOUT",
    "FileFetcher",
    "FolderReport",
    "crawl_folder",
    "crawl_folder_async",
    "html_files",
    "path_of",
    "start_path",
    "url_of",
]
