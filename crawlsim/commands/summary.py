"""The summary of one crawl: a JSON-ready dict, and the same figures as text.

One definition serves ``crawlsim run`` (a simulated crawl) and ``crawlsim
crawl`` (a real one), so a script can read either and a person sees the same
layout.  Nothing here knows about SimPy: :func:`summary_dict` takes the crawl
as plain objects -- anything with the attributes it reads -- and
:func:`render_summary` / :func:`summary_text` take only that dict, so a real
crawl that has no bounds or per-host busy times simply shows fewer lines.

What :func:`summary_dict` reads (missing optional attributes are skipped):

``run``
    ``options`` (:class:`~crawlsim.core.options.CrawlOptions`), ``stats``
    (:class:`~crawlsim.core.scheduler.CrawlStats`), ``finish_time``; optionally
    ``busy_time``, ``wasted_time``, ``utilisation``, ``host_busy``,
    ``host_fetches``, ``failures``, ``found``, ``stopped``.
``bounds``
    optional; ``depth``, ``busiest_host``, ``busiest_host_name``,
    ``busiest_host_pages``, ``work``, ``binding``, ``efficiency``,
    ``explanation`` (as :class:`crawlsim.sim.bounds.Bounds` has them).
``scenario``
    optional; ``name``, ``title`` and ``seeds``.
``coverage``
    optional; a :class:`crawlsim.sim.coverage.Coverage` (pages reachable and
    lost).  Without it (a real crawl) the keys are ``None`` with a note.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

LOST_SHOWN = 5
"""Lost pages listed in the text summary (``--json`` lists all)."""

BOUND_LABELS = {"depth": "depth", "busiest_host": "busiest host", "work": "work"}
"""The three lower bounds, in the order they are shown."""

_DIGITS = 6
"""Seconds are rounded to a microsecond in JSON: enough for any comparison,
and it keeps float noise (0.30000000000000004) out of files people read."""


def _round(value: float) -> float:
    return round(float(value), _DIGITS)


def options_dict(options: Any) -> dict[str, Any]:
    """The crawler options as JSON values (sets and tuples become lists;
    a best-first priority function, which has no JSON form, is left out)."""
    out: dict[str, Any] = {}
    for key, value in options.as_mapping().items():
        if key == "priority":
            continue
        if isinstance(value, (frozenset, set)):
            value = sorted(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


def summary_dict(
    run: Any,
    bounds: Any = None,
    *,
    scenario: Any = None,
    seeds: Sequence[str] | None = None,
    clock: str = "simulated",
    top: int = 5,
    coverage: Any = None,
) -> dict[str, Any]:
    """The crawl's figures as one JSON-ready dict (see the module docstring).

    Always present: ``finish_time``, ``pages_fetched``, ``fetches``,
    ``duplicate_fetches`` and the other :class:`CrawlStats` counters,
    ``options`` and ``clock``.  With ``bounds``: ``bounds`` (``depth``,
    ``busiest_host``, ``work``), ``busiest_host``, ``binding_bound``,
    ``efficiency`` and ``explanation``.  ``pages_reachable`` (int) and
    ``pages_lost`` (a list of ``{page, reason, detail}``) are ``None`` when not
    counted, and ``coverage_note`` then says why; when counted,
    ``pages_fetched_unreachable`` lists pages fetched that no true link leads
    to, so ``pages_reachable = pages_fetched - len(pages_fetched_unreachable)
    + len(pages_lost)``.
    """
    stats = run.stats
    data: dict[str, Any] = {}
    if scenario is not None:
        data["scenario"] = getattr(scenario, "name", None)
        data["title"] = getattr(scenario, "title", None)
        if seeds is None:
            seeds = getattr(scenario, "seeds", None)
    if seeds is not None:
        data["start"] = list(seeds)
    data["clock"] = clock
    data["options"] = options_dict(run.options)
    data["finish_time"] = _round(run.finish_time)
    data["pages_fetched"] = stats.pages_fetched
    if coverage is not None and coverage.reachable is not None and coverage.lost is not None:
        data["pages_reachable"] = coverage.reachable
        data["pages_lost"] = [item.as_dict() for item in coverage.lost]
        data["pages_fetched_unreachable"] = list(coverage.outside)
    else:
        data["pages_reachable"] = None
        data["pages_lost"] = None
        data["coverage_note"] = coverage.note if coverage is not None else "no web to compare with (a real crawl)"
    data["fetches"] = stats.fetches
    data["duplicate_fetches"] = stats.duplicate_fetches
    data["robots_fetches"] = stats.robots_fetches
    data["retries"] = stats.retries
    data["failed"] = stats.failed
    data["content_duplicates"] = stats.content_duplicates
    data["discovered"] = stats.discovered
    found = getattr(run, "found", None)
    if found is not None:
        data["found"] = len(found)
    data["skipped"] = dict(sorted(stats.skipped.items()))
    data["peak_in_flight"] = stats.peak_in_flight
    data["peak_frontier"] = stats.peak_frontier
    for key in ("busy_time", "wasted_time", "utilisation"):
        value = getattr(run, key, None)
        if value is not None:
            data[key] = _round(value)
    if bounds is not None:
        data["bounds"] = {key: _round(getattr(bounds, key)) for key in BOUND_LABELS}
        data["busiest_host"] = {"host": bounds.busiest_host_name, "fetches": bounds.busiest_host_pages}
        data["binding_bound"] = bounds.binding
        data["efficiency"] = _round(bounds.efficiency)
        data["explanation"] = bounds.explanation
    host_busy: Mapping[str, float] | None = getattr(run, "host_busy", None)
    host_fetches: Mapping[str, int] = getattr(run, "host_fetches", None) or {}
    if host_busy:
        ranked = sorted(host_busy, key=lambda h: (-host_busy[h], h))[: max(0, top)]
        data["top_hosts"] = [
            {
                "host": host,
                "busy": _round(host_busy[host]),
                "fetches": host_fetches.get(host, 0),
                "mean_latency": _round(host_busy[host] / host_fetches[host]) if host_fetches.get(host) else None,
            }
            for host in ranked
        ]
    failures = getattr(run, "failures", None)
    if failures is not None:
        data["failures"] = dict(sorted(failures.items()))
    if hasattr(run, "stopped"):
        data["stopped"] = run.stopped  # a real crawl cut short (a time limit), else None
    return data


# -- text ----------------------------------------------------------------------


def seconds(value: float | None) -> str:
    """``18.0 s``, ``0.250 s``, ``4,478.3 s``: a tenth of a second is enough
    above one second, milliseconds below it."""
    if value is None:
        return "-"
    if value != 0 and abs(value) < 1:
        return f"{value:.3f} s"
    return f"{value:,.1f} s"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def options_line(options: Mapping[str, Any]) -> str:
    """The knobs that shape a crawl's time, in one line."""
    workers = options.get("workers")
    per_host = options.get("per_host")
    gap = options.get("gap") or 0
    parts = [f"{workers} worker{'s' if workers != 1 else ''}"]
    parts.append(f"per host {per_host}" if per_host else "no per-host limit")
    parts.append(f"gap {seconds(gap)}" + (" (randomised)" if options.get("randomize_gap") else "") if gap else "no gap")
    normalize = options.get("normalize")
    if isinstance(normalize, list):
        normalize = "+".join(normalize) or "off"
    parts.append(f"normalize {normalize}")
    parts.append(str(options.get("order", "bfs")))
    parts.append(f"{options.get('frontier', 'per-host')} frontier")
    parts.append(f"scope {options.get('scope')}")
    if options.get("robots"):
        parts.append("robots.txt obeyed")
    return ", ".join(parts)


def render_summary(data: Mapping[str, Any]) -> RenderableType:
    """A rich renderable of a :func:`summary_dict` (see ``crawlsim run``)."""
    parts: list[RenderableType] = []
    name, title = data.get("scenario"), data.get("title")
    if name or title:
        heading = Text(str(name or ""), style="bold")
        if title and title != name:
            heading.append(f": {title}", style="bold")
        parts.append(heading)
    if "options" in data:
        parts.append(Text(options_line(data["options"]), style="dim"))
    parts.append(Text(""))

    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="cyan", no_wrap=True)
    grid.add_column()
    clock = data.get("clock", "simulated")
    grid.add_row("finish time", Text(seconds(data["finish_time"]), style="bold").append(f"  ({clock})", style="dim"))
    reachable, lost = data.get("pages_reachable"), data.get("pages_lost")
    if reachable is not None:
        grid.add_row("pages reachable", Text(f"{reachable:,}").append("  (from the seeds, within scope)", style="dim"))
    outside = data.get("pages_fetched_unreachable")
    fetched_line = Text(f"{data['pages_fetched']:,}")
    if outside:
        fetched_line.append(
            f"  ({len(outside):,} not reachable by the web's links: reached through a respelled URL)", style="dim"
        )
    grid.add_row("pages fetched", fetched_line)
    if lost is not None:
        grid.add_row("pages lost", Text(f"{len(lost):,}", style="bold red" if lost else ""))
        for item in lost[:LOST_SHOWN]:
            grid.add_row(
                "", Text(f"{item['page']}  ", style="red").append(f"{item['reason']}: {item['detail']}", style="dim")
            )
        if len(lost) > LOST_SHOWN:
            grid.add_row("", Text(f"... and {len(lost) - LOST_SHOWN:,} more (--json lists them all)", style="dim"))
    elif "coverage_note" in data:
        grid.add_row("pages lost", Text(f"not counted: {data['coverage_note']}", style="dim"))
    fetch_line = Text(f"{data['fetches']:,}")
    dup = data.get("duplicate_fetches", 0)
    wasted = data.get("wasted_time")
    detail = f"  ({dup:,} duplicate fetch{'es' if dup != 1 else ''}"
    if wasted is not None:
        detail += f", {seconds(wasted)} of worker time wasted"
    fetch_line.append(detail + ")", style="red" if dup else "dim")
    if data.get("robots_fetches"):
        fetch_line.append(f"; {data['robots_fetches']:,} robots.txt", style="dim")
    grid.add_row("fetches", fetch_line)
    failed, retries = data.get("failed", 0), data.get("retries", 0)
    grid.add_row(
        "failed fetches",
        Text(
            f"{failed:,}"
            + (f"  ({retries:,} retr{'ies' if retries != 1 else 'y'} of failed attempts)" if retries else ""),
            style="yellow" if failed or retries else "",
        ),
    )
    if "utilisation" in data:
        workers = data.get("options", {}).get("workers")
        grid.add_row("utilisation", f"{percent(data['utilisation'])} of {workers} worker{'s' if workers != 1 else ''}")
    parts.append(grid)

    if "bounds" in data:
        parts.append(Text(""))
        parts.append(Text("lower bounds on the finish time", style="bold"))
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        table.add_column()
        binding = data.get("binding_bound")
        for key, label in BOUND_LABELS.items():
            value = data["bounds"][key]
            note = ""
            if key == "busiest_host" and data.get("busiest_host", {}).get("host"):
                busiest = data["busiest_host"]
                note = f"{busiest['host']}, {busiest['fetches']:,} fetches"
            style = "bold green" if key == binding else ""
            mark = "> " if key == binding else "  "
            row_note = Text(note, style="dim")
            if key == binding:
                row_note.append("  <- binding", style="bold green")
            table.add_row(Text(mark + label, style=style), Text(seconds(value), style=style), row_note)
        parts.append(table)
        parts.append(Text(f"efficiency {percent(data.get('efficiency'))} (binding bound / finish time)", style="dim"))
        parts.append(Text(""))
        parts.append(Text(str(data.get("explanation", "")), style="italic"))

    hosts = data.get("top_hosts")
    if hosts:
        parts.append(Text(""))
        table = Table(title=None, box=None, padding=(0, 2), show_edge=False, header_style="bold")
        table.add_column("busiest hosts", no_wrap=True)
        table.add_column("busy", justify="right")
        table.add_column("fetches", justify="right")
        table.add_column("mean latency", justify="right")
        for row in hosts:
            table.add_row(row["host"], seconds(row["busy"]), f"{row['fetches']:,}", seconds(row["mean_latency"]))
        parts.append(table)
    return Group(*parts)


def summary_text(data: Mapping[str, Any], width: int = 100) -> str:
    """:func:`render_summary` as plain text (no colour), for tests and logs."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False)
    console.print(render_summary(data))
    return buffer.getvalue()


__all__ = ["BOUND_LABELS", "options_dict", "options_line", "render_summary", "seconds", "summary_dict", "summary_text"]
