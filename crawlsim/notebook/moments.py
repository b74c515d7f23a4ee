"""Named moments of a crawl, for still frames: ``crawlsim animate --frames``.

A slide wants the crawl *when something happens*, not at t = 7.3 s.  A
moment is a name or a time:

``start``
    t = 0: the seed waits in the frontier.
``first-duplicate``
    half-way through the first duplicate fetch (the same page fetched under
    another spelling), so its red bar and red page are on the picture.
``busiest-host-saturated``
    the moment from which the busiest host (the one whose lower bound is
    largest) keeps its per-host limit of fetches in flight until its work
    winds down (pauses no longer than its politeness gap allowed) -- from
    then on, more workers cannot make that host go faster.  Drawn half-way
    through the first stretch of that run.  With no per-host limit, its
    most fetches at once stand for the limit.
``end``
    the finish time.
a time
    ``1.5`` or ``1.5s``: seconds of simulated time, at most the finish.

:func:`parse_moments` checks the names before anything is simulated (an
unknown name says "did you mean"); :func:`resolve` turns them into times for
one run, and says clearly when a moment never happens (no duplicate fetch).
Both raise :class:`MomentError`, a :class:`~crawlsim.errors.UsageError`.
Moments are read from the run's lane spans (the replay of its events), so
they are what the picture shows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from crawlsim.core.options import did_you_mean
from crawlsim.errors import UsageError
from crawlsim.views.plots import seconds
from crawlsim.views.replay import Span
from crawlsim.views.session import Result, normalize_label

NAMED = ("start", "first-duplicate", "busiest-host-saturated", "end")


class MomentError(UsageError):
    """A moment that is not one (a typo) or that never happens in this crawl."""


@dataclass(frozen=True)
class Moment:
    """One still frame: its name in file names, its time, and why that time."""

    label: str
    t: float
    why: str


def parse_moments(spec: str) -> list[str]:
    """``"start,1.5,end"`` -> ``["start", "1.5", "end"]``, each checked:
    a known name or a time (not negative, finite)."""
    items = list(dict.fromkeys(part.strip().lower() for part in spec.split(",") if part.strip()))
    if not items:
        raise MomentError(f"--frames: expected moments such as start,first-duplicate,end or times; got {spec!r}")
    for item in items:
        if item in NAMED:
            continue
        t = _time(item)
        if t is None:
            raise MomentError(
                f"--frames {item!r}: unknown moment{did_you_mean(item, NAMED)} "
                f"(moments: {', '.join(NAMED)}, or a time in seconds such as 1.5)"
            )
        if not math.isfinite(t) or t < 0:
            raise MomentError(f"--frames {item!r}: a time must be a number of seconds >= 0")
    return items


def _time(item: str) -> float | None:
    text = item.removesuffix("s")
    try:
        return float(text)
    except ValueError:
        return None


def resolve(items: Sequence[str], result: Result) -> list[Moment]:
    """The times of ``items`` (from :func:`parse_moments`) in ``result``'s crawl."""
    spans = sorted((s for lane in result.replay.lanes for s in lane), key=lambda s: (s.start, s.fetch_id))
    out = []
    for item in items:
        if item == "start":
            out.append(Moment("start", 0.0, "the start"))
        elif item == "end":
            out.append(Moment("end", result.finish, "the finish"))
        elif item == "first-duplicate":
            out.append(_first_duplicate(spans, result))
        elif item == "busiest-host-saturated":
            out.append(_busiest_host_saturated(spans, result))
        else:
            out.append(_at_time(item, result.finish))
    return out


def _at_time(item: str, finish: float) -> Moment:
    t = _time(item)
    assert t is not None  # parse_moments let it through
    if t > finish + 1e-9:
        raise MomentError(f"--frames {item}: after the crawl's end at {seconds(finish)}")
    return Moment(f"{t:g}s", t, f"t = {seconds(t)}")


def _end(span: Span, finish: float) -> float:
    return min(span.end, finish) if math.isfinite(span.end) else finish


def _first_duplicate(spans: Sequence[Span], result: Result) -> Moment:
    first = next((s for s in spans if s.duplicate), None)
    if first is None:
        shown = normalize_label(result.options.normalize) if result.options is not None else "?"
        raise MomentError(
            f"--frames first-duplicate: this crawl fetches no page twice (normalize={shown}); "
            "leave it out, or try a scenario with several spellings of a page (variants, see-it) with --normalize off"
        )
    t = (first.start + _end(first, result.finish)) / 2
    return Moment("first-duplicate", t, f"half-way through the first duplicate fetch, {first.url}")


def _busiest_host_saturated(spans: Sequence[Span], result: Result) -> Moment:
    host = result.bounds.busiest_host_name if result.bounds is not None else None
    if host is None:
        raise MomentError("--frames busiest-host-saturated: this crawl has no busiest host (nothing was fetched)")
    options = result.options
    limit = options.per_host if options is not None else None
    pause = (options.gap * (1.5 if options.randomize_gap else 1.0)) if options is not None else 0.0
    stretches = _busy_stretches([s for s in spans if s.host == host], result.finish)
    peak = max((n for _, _, n in stretches), default=0)
    wanted = limit if limit is not None else peak
    at = _saturated_from(stretches, wanted, pause)
    if at is None:
        raise MomentError(
            f"--frames busiest-host-saturated: {host} never had its per-host limit of {limit} fetches in flight "
            f"(at most {peak}); leave it out or lower --per-host"
        )
    what = f"{host} has {wanted} fetch{'es' if wanted != 1 else ''} in flight"
    what += " (its per-host limit)" if limit is not None else " (its most at once; no per-host limit)"
    return Moment("busiest-host-saturated", at, what + " from here on, until its work winds down")


def _saturated_from(stretches: Sequence[tuple[float, float, int]], wanted: int, pause: float) -> float | None:
    """The middle of the first stretch of the host's last saturated run: from
    its start until the host's work winds down, the host always has
    ``wanted`` fetches in flight, but for pauses no longer than its
    politeness gap."""
    first: tuple[float, float] | None = None
    for a, b, n in reversed(stretches):  # the wind-down after the last saturated stretch is skipped
        if n >= wanted:
            first = (a, b)
        elif first is not None and b - a > pause + 1e-9:
            break
    return None if first is None else (first[0] + first[1]) / 2


def _busy_stretches(spans: Sequence[Span], finish: float) -> list[tuple[float, float, int]]:
    """``(from, to, fetches in flight)`` for one host's spans, in time order."""
    changes: dict[float, int] = {}
    for span in spans:
        changes[span.start] = changes.get(span.start, 0) + 1
        end = _end(span, finish)
        changes[end] = changes.get(end, 0) - 1
    stretches, count = [], 0
    times = sorted(changes)
    for a, b in itertools.pairwise(times):
        count += changes[a]
        stretches.append((a, b, count))
    return stretches


__all__ = ["NAMED", "Moment", "MomentError", "parse_moments", "resolve"]
