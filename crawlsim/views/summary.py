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
    ``host_page_fetches``, ``host_robots_fetches``, ``failures``, ``found``, ``stopped``.
``bounds``
    optional; ``depth``, ``busiest_host``, ``busiest_host_name``,
    ``busiest_host_pages``, ``busiest_host_robots``, ``work``, ``binding``, ``efficiency``,
    ``explanation``, optionally ``advice`` (as :class:`crawlsim.sim.bounds.Bounds`
    has them).
``scenario``
    optional; ``name``, ``title`` and ``seeds``.
``coverage``
    optional; a :class:`crawlsim.sim.coverage.Coverage` (pages reachable and
    lost).  Without it (a real crawl) the keys are ``None`` with a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from crawlsim.core.urls import mode_name
from crawlsim.words import BINDING_MARK, bounds_heading, busiest_host_note, counted, per_host_limit

LOST_SHOWN = 5
"""Lost pages listed in the text summary (``--json`` lists all)."""

BOUND_LABELS = {"depth": "depth", "busiest_host": "busiest host", "work": "work"}
"""The three lower bounds, in the order they are shown."""

MARGIN_BASIS = "twice the standard error of the recorded page times summed on the busiest recorded host"
"""What a model's margin is made of (:func:`crawlsim.scenario.from_trace.recorded_margin`)."""
STATED_BASIS = "as its scenario file's margin key states it"
"""What a margin is made of that is not the recording's measure: written by hand, or changed
by hand from what ``crawlsim model`` wrote."""

_DIGITS = 6
"""Seconds are rounded to a microsecond in JSON: enough for any comparison,
and it keeps float noise (0.30000000000000004) out of files people read."""


def _round(value: float) -> float:
    return round(float(value), _DIGITS)


def options_dict(options: Any) -> dict[str, Any]:
    """The crawler options as JSON values (sets and tuples become lists;
    a named best-first priority is its name, ``"priority": "shallowest"``;
    no priority, or a Python function, which has no JSON form, is left out)."""
    from crawlsim.core.priorities import priority_name

    out: dict[str, Any] = {}
    for key, value in options.as_mapping().items():
        if key == "priority":
            if priority_name(value) is not None:
                out[key] = priority_name(value)
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
    bounds_note: str = "the bounds were not computed",
) -> dict[str, Any]:
    """The crawl's figures as one JSON-ready dict (see the module docstring).

    Always present: ``finish_time``, ``pages_fetched``, ``fetches``,
    ``duplicate_fetches`` and the other :class:`CrawlStats` counters,
    ``options`` and ``clock``.  With ``bounds``: ``bounds`` (``depth``,
    ``busiest_host``, ``work``), ``busiest_host``, ``binding_bound``,
    ``efficiency`` and ``explanation``; with the advisor's advice
    (``bounds.advice``), ``advice``: ``measured``, ``binding``, ``holder``,
    ``bound``, ``finish_time`` and the ``counterfactuals`` it ran (each
    ``knob``, ``label``, ``options``, ``finish_time``, ``change``).
    ``pages_reachable`` (int) and
    ``pages_lost`` (a list of ``{page, reason, detail}``) are ``None`` when not
    counted, and ``coverage_note`` then says why; when counted,
    ``pages_fetched_unreachable`` lists pages fetched that no true link leads
    to, so ``pages_reachable = pages_fetched - len(pages_fetched_unreachable)
    + len(pages_lost)``.
    """
    data = _scenario_fields(scenario, seeds)
    data["clock"] = clock
    data["options"] = options_dict(run.options)
    data["finish_time"] = _round(run.finish_time)
    data["pages_fetched"] = run.stats.pages_fetched
    data.update(_coverage_fields(coverage))
    data.update(_counter_fields(run))
    data.update(_time_fields(run))
    data.update(_bounds_fields(bounds, bounds_note))
    data.update(_top_hosts_fields(run, top, bounds))
    data.update(_ending_fields(run))
    return data


# Each part of the dict has its own function below, called in the order the
# keys appear: ``--json`` output is read by scripts and diffed by people, so
# the key order is part of the format.


def _scenario_fields(scenario: Any, seeds: Sequence[str] | None) -> dict[str, Any]:
    """``scenario``, ``title`` and ``start`` (the seeds), when known.  A real
    crawl has no scenario but passes its start URLs as ``seeds``."""
    data: dict[str, Any] = {}
    if scenario is not None:
        data["scenario"] = getattr(scenario, "name", None)
        data["title"] = getattr(scenario, "title", None)
        assumes = getattr(scenario, "data", {}).get("assumes")
        if assumes:  # a model of a recorded crawl says what it assumed (crawlsim model)
            data["assumes"] = assumes
        margin = model_margin(scenario)
        if margin:  # a model of a real crawl: its bounds are the model's, the real site within the margin
            data["model_margin"] = margin
        if seeds is None:
            seeds = getattr(scenario, "seeds", None)
    if seeds is not None:
        data["start"] = list(seeds)
    return data


def model_margin(scenario: Any) -> dict[str, Any] | None:
    """A model of a real crawl's margin (``share`` None: unknown) and its basis;
    None for a scenario that models no real crawl.

    A scenario models one when ``crawlsim model`` wrote it (it has ``assumes``)
    or when its file states a ``margin``.  The basis is the recording's spread
    only while ``margin`` is the number the recording measured (the model keeps
    it as ``recorded_margin``); any other number is the file's own word, and a
    model with neither is one whose recording could not tell."""
    data = getattr(scenario, "data", None) or {}
    if "margin" in data:
        measured = "recorded_margin" in data and data["margin"] == data["recorded_margin"]
        return {"share": data["margin"], "basis": MARGIN_BASIS if measured else STATED_BASIS}
    if data.get("assumes"):
        return {"share": None, "basis": MARGIN_BASIS}
    return None


def _coverage_fields(coverage: Any) -> dict[str, Any]:
    """Pages reachable and lost, or ``None`` for both and a note saying why
    they were not counted (a real crawl has no web to compare with)."""
    if coverage is not None and coverage.reachable is not None and coverage.lost is not None:
        return {
            "pages_reachable": coverage.reachable,
            "pages_lost": [item.as_dict() for item in coverage.lost],
            "pages_fetched_unreachable": list(coverage.outside),
            "narrowed": [item.as_dict() for item in coverage.narrowed],
        }
    return {
        "pages_reachable": None,
        "pages_lost": None,
        "pages_fetched_unreachable": None,
        "narrowed": None,
        "coverage_note": coverage.note if coverage is not None else "no web to compare with (a real crawl)",
    }


def _counter_fields(run: Any) -> dict[str, Any]:
    """The scheduler's counters (:class:`CrawlStats`), plus ``found`` when the
    driver kept the URLs it found."""
    stats = run.stats
    data: dict[str, Any] = {
        "fetches": stats.fetches,
        "duplicate_fetches": stats.duplicate_fetches,
        "robots_fetches": stats.robots_fetches,
        "retries": stats.retries,
        "failed": stats.failed,
        "content_duplicates": stats.content_duplicates,
        "discovered": stats.discovered,
    }
    found = getattr(run, "found", None)
    if found is not None:
        data["found"] = len(found)
    data["skipped"] = dict(sorted(stats.skipped.items()))
    data["peak_in_flight"] = stats.peak_in_flight
    data["peak_frontier"] = stats.peak_frontier
    return data


def _time_fields(run: Any) -> dict[str, Any]:
    """Worker time spent and wasted, and utilisation: only the drivers that
    measure them (the simulation) have them."""
    data: dict[str, Any] = {}
    for key in ("busy_time", "wasted_time", "utilisation"):
        value = getattr(run, key, None)
        if value is not None:
            data[key] = _round(value)
    return data


def _bounds_fields(bounds: Any, note: str) -> dict[str, Any]:
    """The three lower bounds, the binding one, and the advisor's words and
    measured counterfactuals (``advice`` None when it did not run: a real
    crawl cannot be rerun).  Without bounds every key is there, None, and
    ``bounds_note`` says why."""
    if bounds is None:
        return {
            "bounds": dict.fromkeys(BOUND_LABELS),
            "bounds_note": note,
            "busiest_host": None,
            "binding_bound": None,
            "efficiency": None,
            "explanation": None,
            "advice": None,
        }
    advice = getattr(bounds, "advice", None)
    return {
        "bounds": {key: _round(getattr(bounds, key)) for key in BOUND_LABELS},
        "busiest_host": {
            "host": bounds.busiest_host_name,
            "fetches": bounds.busiest_host_pages,
            "robots_fetches": bounds.busiest_host_robots,
        },
        "binding_bound": bounds.binding,
        "efficiency": _round(bounds.efficiency),
        "explanation": bounds.explanation,
        "advice": advice.as_dict() if advice is not None else None,
    }


def _top_hosts_fields(run: Any, top: int, bounds: Any = None) -> dict[str, Any]:
    """The ``top`` hosts, when the driver kept per-host busy times: ranked by
    each host's own busiest-host bound when the bounds were computed (the
    measure the bound names its host by, so that host comes first), else by
    busy time; ties by name.  ``bound`` is None without bounds.

    ``fetches`` counts page fetches, as the crawl's ``fetches`` does, with
    ``robots_fetches`` apart; ``busy`` and ``mean_latency`` are over both,
    since a robots.txt fetch held its host as long as it took."""
    host_busy: Mapping[str, float] | None = getattr(run, "host_busy", None)
    pages: Mapping[str, int] = getattr(run, "host_page_fetches", None) or {}
    robots: Mapping[str, int] = getattr(run, "host_robots_fetches", None) or {}
    if not host_busy:
        return {}
    host_bound: Mapping[str, float] = getattr(bounds, "host_bounds", None) or {}
    ranked = sorted(host_busy, key=lambda h: (-host_bound.get(h, 0.0), -host_busy[h], h))[: max(0, top)]
    rows = []
    for host in ranked:
        answered = pages.get(host, 0) + robots.get(host, 0)
        rows.append({
            "host": host,
            "bound": _round(host_bound[host]) if host in host_bound else None,
            "busy": _round(host_busy[host]),
            "fetches": pages.get(host, 0),
            "robots_fetches": robots.get(host, 0),
            "mean_latency": _round(host_busy[host] / answered) if answered else None,
        })
    return {"top_hosts": rows}


def _ending_fields(run: Any) -> dict[str, Any]:
    """Why pages failed, and (a real crawl) whether the crawl was cut short."""
    data: dict[str, Any] = {}
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


def bucket_phrase(rate: float, burst: int) -> str:
    """The token bucket in words (``rate 0.5/s per host, burst 2``)."""
    return f"rate {rate:g}/s per host, burst {burst}"


def options_line(options: Mapping[str, Any]) -> str:
    """The knobs that shape a crawl's time, in one line."""
    workers = options.get("workers")
    gap = options.get("gap") or 0
    parts = [counted(workers, "worker")] if workers is not None else []
    parts.append(per_host_limit(options.get("per_host")))
    parts.append(f"gap {seconds(gap)}" + (" (randomised)" if options.get("randomize_gap") else "") if gap else "no gap")
    if options.get("rate") is not None:
        parts.append(bucket_phrase(options["rate"], options.get("burst", 1)))
    normalize = options.get("normalize")
    parts.append(f"normalize {mode_name(normalize if normalize is not None else 'rfc3986')}")
    order = str(options.get("order", "bfs"))
    parts.append(f"{order} ({options['priority']})" if order == "best" and options.get("priority") else order)
    parts.append(f"{options.get('frontier', 'per-host')} frontier")
    parts.append(f"scope {options.get('scope')}")
    if options.get("robots"):
        parts.append("robots.txt obeyed")
    return ", ".join(parts)


def render_summary(data: Mapping[str, Any]) -> RenderableType:
    """A rich renderable of a :func:`summary_dict` (see ``crawlsim run``):
    a heading, the figures, the bounds and the busiest hosts -- each part
    only when the dict has it, so a real crawl simply shows fewer."""
    parts: list[RenderableType] = [*_heading(data), Text("")]
    parts.append(_figures(data))
    if data.get("binding_bound") is not None:
        parts.extend(_bounds_section(data))
    elif data.get("bounds_note"):
        parts.extend([Text(""), Text(f"{bounds_heading(short=True)} not computed: {data['bounds_note']}", style="dim")])
    hosts = data.get("top_hosts")
    if hosts:
        parts.extend(_busiest_hosts(hosts))
    return Group(*parts)


def _heading(data: Mapping[str, Any]) -> list[RenderableType]:
    """``name: title`` in bold, then the knobs in one dim line."""
    parts: list[RenderableType] = []
    name, title = data.get("scenario"), data.get("title")
    if name or title:
        heading = Text(str(name or ""), style="bold")
        if title and title != name:
            heading.append(f": {title}", style="bold")
        parts.append(heading)
    if "options" in data:
        parts.append(Text(options_line(data["options"]), style="dim"))
    if data.get("assumes"):
        parts.append(Text(f"model assumes: {data['assumes']}", style="yellow"))
    return parts


Row = tuple[str, RenderableType]
"""One line of the figures grid: its label and its value."""


def _figures(data: Mapping[str, Any]) -> Table:
    """The figures grid: one row per figure, in the order of
    :data:`_FIGURE_ROWS`."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="cyan", no_wrap=True)
    grid.add_column()
    for rows in _FIGURE_ROWS:
        for label, value in rows(data):
            grid.add_row(label, value)
    return grid


def _finish_rows(data: Mapping[str, Any]) -> list[Row]:
    """The finish time on its clock; a crawl cut short says so (it finished when it stopped)."""
    clock = data.get("clock", "simulated")
    note = f"{clock}; stopped: {data['stopped']}" if data.get("stopped") else clock
    return [("finish time", Text(seconds(data["finish_time"]), style="bold").append(f"  ({note})", style="dim"))]


def _pages_rows(data: Mapping[str, Any]) -> list[Row]:
    """Pages reachable (when counted) and pages fetched, with the fetched
    pages no true link leads to (reached through a respelled URL)."""
    rows: list[Row] = []
    reachable = data.get("pages_reachable")
    if reachable is not None:
        rows.append(("pages reachable", Text(f"{reachable:,}").append("  (from the seeds, within scope)", style="dim")))
    outside = data.get("pages_fetched_unreachable")
    fetched_line = Text(f"{data['pages_fetched']:,}")
    if outside:
        fetched_line.append(
            f"  ({len(outside):,} not reachable by the web's links: reached through a respelled URL)", style="dim"
        )
    rows.append(("pages fetched", fetched_line))
    return rows


def _lost_rows(data: Mapping[str, Any]) -> list[Row]:
    """Pages lost: the count, the first :data:`LOST_SHOWN` with their
    reasons, or why they were not counted."""
    lost = data.get("pages_lost")
    if lost is None:
        if "coverage_note" in data:
            return [("pages lost", Text(f"not counted: {data['coverage_note']}", style="dim"))]
        return []
    rows: list[Row] = [("pages lost", Text(f"{len(lost):,}", style="bold red" if lost else ""))]
    for item in lost[:LOST_SHOWN]:
        rows.append(
            ("", Text(f"{item['page']}  ", style="red").append(f"{item['reason']}: {item['detail']}", style="dim"))
        )
    if len(lost) > LOST_SHOWN:
        rows.append(("", Text(f"... and {len(lost) - LOST_SHOWN:,} more (--json lists them all)", style="dim")))
    return rows


def _fetches_rows(data: Mapping[str, Any]) -> list[Row]:
    """Fetches, the duplicates among them (red: wasted work) and the
    worker time they wasted, and robots.txt fetches apart."""
    fetch_line = Text(f"{data['fetches']:,}")
    dup = data.get("duplicate_fetches", 0)
    wasted = data.get("wasted_time")
    detail = f"  ({counted(dup, 'duplicate fetch')}"
    if wasted is not None:
        detail += f", {seconds(wasted)} of worker time wasted"
    fetch_line.append(detail + ")", style="red" if dup else "dim")
    if data.get("robots_fetches"):
        fetch_line.append(f"; {data['robots_fetches']:,} robots.txt", style="dim")
    return [("fetches", fetch_line)]


def _failed_rows(data: Mapping[str, Any]) -> list[Row]:
    """Failed fetches, and the retries spent before they failed (yellow when
    either happened)."""
    failed, retries = data.get("failed", 0), data.get("retries", 0)
    retried = f"  ({counted(retries, 'retry')} of failed attempts)" if retries else ""
    return [("failed fetches", Text(f"{failed:,}" + retried, style="yellow" if failed or retries else ""))]


def _utilisation_rows(data: Mapping[str, Any]) -> list[Row]:
    if "utilisation" not in data:
        return []
    workers = data.get("options", {}).get("workers")
    return [("utilisation", f"{percent(data['utilisation'])} of {counted(workers, 'worker')}")]


NARROWED_BY = {"scope": "the scope", "cap": "caps", "depth": "the depth limit", "robots": "robots.txt"}
"""What narrowed a crawl, as the summary names it."""


def _narrowed_rows(data: Mapping[str, Any]) -> list[Row]:
    """What the crawl's own settings left out, each with the flag that widens it."""
    rows: list[Row] = []
    for item in data.get("narrowed") or ():
        by, pages, of = item["by"], item["pages"], item["of"]
        name = f"scope {data['options']['scope']}" if by == "scope" and "options" in data else NARROWED_BY[by]
        what = "pages the links lead to" if by == "scope" else "pages reachable"
        verb = "left out" if by == "scope" else "lost"
        count = f"at least {pages:,}" if item.get("at_least") else f"{pages:,}"
        text = f"{name} {verb} {count} of the {of:,} {what} ({percent(item['share'])}); {item['widen']}"
        rows.append(("narrowed" if not rows else "", Text(text, style="yellow")))
    return rows


_FIGURE_ROWS = (
    _finish_rows, _pages_rows, _lost_rows, _narrowed_rows, _fetches_rows, _failed_rows, _utilisation_rows
)
"""The figures grid, top to bottom: a table, so a new figure is one function
and one entry here."""


def _bounds_section(data: Mapping[str, Any]) -> list[RenderableType]:
    """The three lower bounds, the binding one marked in green, then the
    efficiency and the advisor's explanation."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column()
    for key, label in BOUND_LABELS.items():
        table.add_row(*_bound_row(data, key, label))
    margin = data.get("model_margin")
    return [
        Text(""),
        Text(bounds_heading(model=bool(margin)), style="bold"),
        *([Text(margin_line(margin), style="yellow")] if margin else []),
        table,
        Text(f"efficiency {percent(data.get('efficiency'))} (binding bound / finish time)", style="dim"),
        Text(""),
        Text(str(data.get("explanation", "")), style="italic"),
    ]


def margin_line(margin: Mapping[str, Any]) -> str:
    """What a bound of a model is worth on the real site: the model's own, within its margin."""
    share = margin.get("share")
    if share is None:
        return "bounds of a model of a real crawl: proven for the model, not for the real site (margin unknown)"
    shown = f"{share:.1%}" if share == 0 or share >= 0.0005 else "under 0.1%"  # not 0.0%: it is not exact
    return (f"bounds of a model of a real crawl: proven for the model; the real site may land "
            f"{shown} either way ({margin['basis']})")


def model_margin_line(scenario: Any) -> str | None:
    """:func:`margin_line` of ``scenario``'s :func:`model_margin`, for a surface that shows
    one scenario's bounds (None: it models no real crawl)."""
    margin = model_margin(scenario)
    return margin_line(margin) if margin else None


def _bound_row(data: Mapping[str, Any], key: str, label: str) -> tuple[Text, Text, Text]:
    """One bound: its label, its value, and a note (the busiest host's name
    and fetches; ``<- binding`` on the bound that binds)."""
    binding = key == data.get("binding_bound")
    note = ""
    if key == "busiest_host" and data.get("busiest_host", {}).get("host"):
        busiest = data["busiest_host"]
        note = busiest_host_note(busiest["host"], busiest["fetches"], busiest["robots_fetches"])
    style = "bold green" if binding else ""
    row_note = Text(note, style="dim")
    if binding:
        row_note.append(f"  {BINDING_MARK}", style="bold green")
    mark = "> " if binding else "  "
    return Text(mark + label, style=style), Text(seconds(data["bounds"][key]), style=style), row_note


def _busiest_hosts(hosts: Sequence[Mapping[str, Any]]) -> list[RenderableType]:
    """The busiest hosts, ranked by their own busiest-host bound (when the
    bounds were computed), with their busy time, fetches (robots.txt apart,
    in its own column when any host had one) and mean latency."""
    bounded = any(row.get("bound") is not None for row in hosts)
    robots = any(row["robots_fetches"] for row in hosts)
    table = Table(title=None, box=None, padding=(0, 2), show_edge=False, header_style="bold")
    table.add_column("busiest hosts", no_wrap=True)
    if bounded:
        table.add_column("host bound", justify="right")
    table.add_column("busy", justify="right")
    table.add_column("fetches", justify="right")
    if robots:
        table.add_column("robots.txt", justify="right")
    table.add_column("mean latency", justify="right")
    for row in hosts:
        cells = [row["host"], *([seconds(row.get("bound"))] if bounded else []), seconds(row["busy"])]
        cells += [f"{row['fetches']:,}", *([f"{row['robots_fetches']:,}"] if robots else [])]
        table.add_row(*cells, seconds(row["mean_latency"]))
    return [Text(""), table]


__all__ = ["BOUND_LABELS", "margin_line", "model_margin", "model_margin_line", "options_dict", "options_line", "render_summary", "seconds", "summary_dict"]
