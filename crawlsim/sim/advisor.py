"""Advice that is measured, not inferred.

The bounds (:mod:`crawlsim.sim.bounds`) say what the crawl cannot beat; they
do not say what a knob would do.  More workers may help even when a host's
bound is the largest (the crawl sits above it), and with no per-host limit
the busiest host's bound and the work bound can be the same number.  So
before the explanation says that a knob helps or does not, the advisor
reruns the crawl with that knob turned and quotes the rerun:

* twice the workers, always;
* the per-host limit + 1, when there is one below the worker count;
* half the gap, when there is a gap;
* Crawl-delay honoured only up to half of the largest one met
  (``max_crawl_delay``), when a host's Crawl-delay spaced its requests more
  than the gap.  The site sets its Crawl-delay, so the sentence credits "a
  shorter Crawl-delay from the site", never a crawler that honours less of
  it, and the rerun's quote says that it overrides the site's robots.txt;
* twice the token bucket's ``rate``, and its ``burst`` + 1, when a rate is
  set (the bucket spaces a host's starts like a gap does);
* a per-host frontier, when the crawl uses the single FIFO queue;
* when duplicate fetches waste worker time, the normalization steps that
  would merge them and content dedup (:mod:`crawlsim.sim.dedup_advice`),
  each quoted with what it cost in pages lost.

A rerun never leaves the options' ranges (``crawlsim.core.options.RULES``):
twice the workers is at most the largest worker count allowed, and a knob
already at its end is not rerun; the sentence says so.  A legal crawl is
never refused because of its advice.

The sentence names no knob it did not measure, e.g.::

    b.com holds the crawl at 18.0 s (busiest-host bound; finish 19.0 s).
    With 8 workers: 19.0 s (no change). With per_host 2: 13.0 s (-32%).
    A higher per-host limit helps most.

Each change is quoted in percent.  The verdict calls a knob the one that
"helps most" only when its rerun is at least :data:`WORTH_SAYING` (5%)
faster; otherwise it says none of the reruns shortens the crawl that much.

"holds the crawl at" quotes the bound's own value.  When two bounds are
equal, the counterfactuals decide which one holds: the one whose knob
measurably shortens the crawl (more workers relieve the work bound; a higher
per-host limit, a smaller gap or less Crawl-delay -- and more workers when
the host's limit is the worker count -- relieve the busiest host; nothing a
crawler sets relieves the depth bound).

Each rerun costs a whole simulation, so a crawl of more than
:data:`MEASURE_LIMIT` fetches (``million``) is not rerun by default
(``mode="auto"``): its sentence says it is inferred from the bounds and names
``--advise measure``, which measures it anyway.  ``mode="infer"`` never
reruns.  Reruns use the same scenario, seed and options apart from the one
knob, with event recording off (it does not change any time).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from crawlsim.core.options import RULES
from crawlsim.errors import CrawlsimError
from crawlsim.sim.bounds import BOUND_NAMES, Bounds, binding_phrase, compute_bounds, holder, host_limit, seconds
from crawlsim.sim.coverage import Coverage, coverage_of
from crawlsim.sim.dedup_advice import DEDUP_KNOBS, dedup_plan, loss_phrase, waste_phrase
from crawlsim.sim.driver import SimRun
from crawlsim.sim.reruns import rerun
from crawlsim.words import signed_percent

if TYPE_CHECKING:
    from crawlsim.sim.inputs import SimInput

MEASURE_LIMIT = 20_000
"""Fetches (pages and robots.txt) above which ``auto`` does not rerun the crawl."""
ADVISE_MODES = ("auto", "measure", "infer")
WORTH_SAYING = 0.05
"""The least speed-up (a share of the finish time) the verdict calls a help:
a rerun 1% faster is quoted, never called the knob that "helps most"."""

NO_HELP_PHRASES = {
    "workers": "More workers do not help.",
    "per_host": "A higher per-host limit does not help.",
    "gap": "A smaller gap does not help.",
    "max_crawl_delay": "A shorter Crawl-delay from the site does not help.",
    "rate": "A higher per-host rate does not help.",
    "burst": "A bigger burst does not help.",
    "frontier": "A per-host frontier does not help.",
    "normalize": "More normalization does not help.",
    "content_dedup": "Content dedup does not help.",
}
KNOB_PHRASES = {
    "workers": "More workers help",
    "per_host": "A higher per-host limit helps",
    "gap": "A smaller gap helps",
    "max_crawl_delay": "A shorter Crawl-delay from the site helps",
    "rate": "A higher per-host rate helps",
    "burst": "A bigger burst helps",
    "frontier": "A per-host frontier helps",
    "content_dedup": "Content dedup helps",
}


@dataclass(frozen=True)
class Counterfactual:
    """One rerun: the knob turned, and the finish time it gave."""

    knob: str
    """``workers``, ``per_host``, ``gap``, ``max_crawl_delay``, ``rate``, ``burst``, ``frontier``,
    ``normalize`` or ``content_dedup``."""
    label: str
    """How the sentence names it: ``8 workers``, ``per_host 2``, ``gap 0.5 s``."""
    options: dict[str, Any]
    """The option overrides of the rerun (on top of the measured crawl's options)."""
    finish_time: float
    change: float
    """(rerun finish - finish) / finish; negative is faster."""
    pages_lost: int | None = None
    """Pages the rerun lost (normalization and content-dedup reruns; None
    for the other knobs, which never lose a page, or when not counted)."""
    loss: str = ""
    """How the sentence words that loss against the crawl's own."""

    def as_dict(self) -> dict[str, Any]:
        out = {
            "knob": self.knob,
            "label": self.label,
            "options": dict(self.options),
            "finish_time": round(self.finish_time, 6),
            "change": round(self.change, 6),
        }
        if self.knob in DEDUP_KNOBS:
            out["pages_lost"] = self.pages_lost
        return out


@dataclass(frozen=True)
class Advice:
    """What holds the crawl, and what the counterfactual crawls measured."""

    sentence: str
    binding: str
    """The bound that holds the crawl (ties resolved by the counterfactuals)."""
    holder: str
    """A host name, ``The longest chain of links`` or ``The 4 workers``."""
    bound: float
    finish_time: float
    measured: bool
    counterfactuals: tuple[Counterfactual, ...] = field(default=())
    planned: tuple[str, ...] = field(default=())
    """Labels of the reruns that would be measured (when not measured)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "measured": self.measured,
            "binding": self.binding,
            "holder": self.holder,
            "bound": round(self.bound, 6),
            "finish_time": round(self.finish_time, 6),
            "counterfactuals": [c.as_dict() for c in self.counterfactuals],
            **({} if self.measured else {"would_measure": list(self.planned)}),
        }


def plan(run: SimRun) -> list[tuple[str, str, dict[str, Any]]]:
    """The reruns for ``run``: (knob, label, option overrides), every value
    inside its option's range (:func:`not_measured` names what that left out)."""
    opts = run.options
    out: list[tuple[str, str, dict[str, Any]]] = []
    workers = _within("workers", opts.workers * 2)
    if workers > opts.workers:
        out.append(("workers", f"{workers:,} workers", {"workers": workers}))
    if opts.per_host is not None and opts.per_host < opts.workers:
        out.append(("per_host", f"per_host {opts.per_host + 1}", {"per_host": opts.per_host + 1}))
    if opts.gap > 0:
        out.append(("gap", f"gap {_num(opts.gap / 2)} s", {"gap": opts.gap / 2}))
    delay = max(run.host_crawl_delay.values(), default=0.0)
    if delay > opts.gap:
        out.append(("max_crawl_delay", f"max_crawl_delay {_num(delay / 2)} s", {"max_crawl_delay": delay / 2}))
    out += _bucket_plan(run)
    if opts.frontier == "fifo":
        out.append(("frontier", "a per-host frontier", {"frontier": "per-host"}))
    return out


def _bucket_plan(run: SimRun) -> list[tuple[str, str, dict[str, Any]]]:
    """The token bucket's reruns (none without a rate): twice the rate and
    one more burst, each only if its range leaves room."""
    opts = run.options
    if opts.rate is None:
        return []
    out: list[tuple[str, str, dict[str, Any]]] = []
    rate = _within("rate", opts.rate * 2)
    if rate > opts.rate:
        out.append(("rate", f"rate {_num(rate)}/s", {"rate": rate}))
    burst = _within("burst", opts.burst + 1)
    if burst > opts.burst:
        out.append(("burst", f"burst {burst}", {"burst": burst}))
    return out


def _within(key: str, value: float) -> Any:
    """``value`` clamped into option ``key``'s range (RULES)."""
    rule = RULES[key]
    low = value if rule.low is None else max(rule.low, value)
    return type(value)(low if rule.high is None else min(rule.high, low))


def not_measured(run: SimRun) -> str:
    """The sentence for a knob left out because it is at the end of its range."""
    high = RULES["workers"].high
    if run.options.workers >= (high or 0):
        return f"More than {run.options.workers:,} workers is not allowed, so not measured."
    return ""


class AdviceCancelled(CrawlsimError):
    """The advice was no longer wanted (a newer setting asked for its own):
    raised between two reruns when ``cancelled()`` says so."""


def measure(
    sim: SimInput,
    run: SimRun,
    *,
    coverage: Coverage | None = None,
    cancelled: Callable[[], bool] | None = None,
    dedup: list[tuple[str, str, dict[str, Any]]] | None = None,
) -> tuple[Counterfactual, ...]:
    """Rerun ``sim`` once per planned knob (options of ``run`` otherwise);
    the duplicate-fetch knobs are rerun with events, to count pages lost.

    ``coverage`` is ``run``'s own when the caller has it (else computed for
    the duplicate-fetch reruns' comparison), ``dedup`` their plan when the
    caller made it; ``cancelled`` is asked before each rerun, and
    :class:`AdviceCancelled` stops the reruns when it says yes (a view
    whose settings changed while it waited)."""
    out = []
    finish = run.finish_time
    for knob, label, overrides in plan(run):
        _check(cancelled)
        again = rerun(sim, run.options.with_(**overrides)).finish_time
        out.append(Counterfactual(knob, label, overrides, again, _rel(finish, again)))
    dedup = dedup_plan(sim, run) if dedup is None else dedup
    before: Coverage | None = (coverage or coverage_of(sim, run)) if dedup else None
    for knob, label, overrides in dedup:
        _check(cancelled)
        again_run = rerun(sim, run.options.with_(**overrides), coverage=True)
        lost, loss = loss_phrase(before, again_run.coverage)
        again = again_run.finish_time
        out.append(Counterfactual(knob, label, overrides, again, _rel(finish, again), lost, loss))
    return tuple(out)


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise AdviceCancelled


def _rel(before: float, after: float) -> float:
    return (after - before) / before if before > 0 else 0.0


def advise(
    sim: SimInput,
    run: SimRun,
    bounds: Bounds,
    mode: str = "auto",
    *,
    coverage: Coverage | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Advice:
    """The measured (or, for large crawls, inferred) advice for ``run``
    (``coverage`` and ``cancelled``: as for :func:`measure`)."""
    if mode not in ADVISE_MODES:
        raise ValueError(f"advise: expected one of {', '.join(ADVISE_MODES)}, got {mode!r}")
    fetches = run.stats.fetches + run.stats.robots_fetches
    measured = mode == "measure" or (mode == "auto" and fetches <= MEASURE_LIMIT)
    if run.finish_time <= 0:
        measured = False
    dedup = dedup_plan(sim, run)
    counterfactuals = measure(sim, run, coverage=coverage, cancelled=cancelled, dedup=dedup) if measured else ()
    binding = _binding(run, bounds, counterfactuals) if measured else bounds.binding
    values = bounds.values()
    head = binding_phrase(run, binding, values[binding], bounds.busiest_host_name)
    who = holder(run, binding, bounds.busiest_host_name)
    if run.finish_time <= 0:
        sentence = head
    elif measured:
        sentence = _measured_sentence(head, run, counterfactuals)
    else:
        sentence = f"{head} {_inferred(run, bounds, binding, mode, fetches)}"
    return Advice(
        sentence=sentence,
        binding=binding,
        holder=who,
        bound=values[binding],
        finish_time=run.finish_time,
        measured=measured,
        counterfactuals=counterfactuals,
        planned=tuple(label for _, label, _ in [*plan(run), *dedup]),
    )


def _measured_sentence(head: str, run: SimRun, counterfactuals: tuple[Counterfactual, ...]) -> str:
    """The head, each rerun quoted (the duplicate-fetch knobs after what the
    duplicates cost), a note for a knob at the end of its range, the verdict."""
    parts = [head, *(_quote(run, c) for c in counterfactuals if c.knob not in DEDUP_KNOBS)]
    dedup = [c for c in counterfactuals if c.knob in DEDUP_KNOBS]
    if dedup:
        parts += [waste_phrase(run), *(_quote(run, c) for c in dedup)]
    parts += [note for note in (not_measured(run),) if note]
    parts.append(_verdict(run, counterfactuals))
    return " ".join(parts)


def assess(sim: SimInput, run: SimRun, mode: str = "auto") -> tuple[Bounds, Advice]:
    """Bounds and advice for ``run``; the bounds' ``binding`` and
    ``explanation`` are the advisor's (what every view shows)."""
    return explained(sim, run, compute_bounds(sim, run), mode)


def explained(
    sim: SimInput,
    run: SimRun,
    bounds: Bounds,
    mode: str = "auto",
    *,
    coverage: Coverage | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[Bounds, Advice]:
    """``bounds`` (:func:`~crawlsim.sim.bounds.compute_bounds` of ``run``)
    with the advice's binding and sentence: the second half of
    :func:`assess`, for a view that shows the bounds first and the advice
    when its reruns are done."""
    advice = advise(sim, run, bounds, mode, coverage=coverage, cancelled=cancelled)
    return replace(bounds, binding=advice.binding, explanation=advice.sentence, advice=advice), advice


# -- the parts of the sentence ---------------------------------------------------------


def _binding(run: SimRun, bounds: Bounds, counterfactuals: tuple[Counterfactual, ...]) -> str:
    """The largest bound; among equal ones, the one whose knob measurably helps."""
    values = bounds.values()
    top = max(values.values())
    tied = [k for k in BOUND_NAMES if values[k] == top]  # compute_bounds made near-ties exact
    if len(tied) == 1:
        return tied[0]
    relief = _relief(run, counterfactuals)
    best = min(relief[k] for k in tied)
    if best >= run.finish_time:
        # no knob helps: the depth bound (which no knob relieves) if it is
        # among them, else the inference of compute_bounds
        return "depth" if "depth" in tied else bounds.binding
    helped = [k for k in tied if relief[k] == best]
    if len(helped) > 1:  # the same rerun relieves both: more workers (no per-host limit)
        by_knob = {c.knob: c.finish_time for c in counterfactuals}
        return "work" if by_knob.get("workers") == best and "work" in helped else helped[0]
    return helped[0]


def _relief(run: SimRun, counterfactuals: tuple[Counterfactual, ...]) -> dict[str, float]:
    """Per bound, the best finish time among the reruns whose knob relaxes it
    (inf: none measured; no knob relaxes the depth bound)."""
    by_knob = {c.knob: c.finish_time for c in counterfactuals}
    host_knobs = ["per_host", "gap", "max_crawl_delay", "rate", "burst"]
    if host_limit(run) == run.options.workers:
        host_knobs.append("workers")
    return {
        "depth": math.inf,
        "work": by_knob.get("workers", math.inf),
        "busiest_host": min((by_knob[k] for k in host_knobs if k in by_knob), default=math.inf),
    }


def _quote(run: SimRun, c: Counterfactual) -> str:
    """``With per_host 2: 13.0 s (-32%).``, and what a rerun overrides of the sites' own requests."""
    loss = f"; {c.loss}" if c.loss else ""
    said = f"With {c.label}: {seconds(c.finish_time)} ({_change(run.finish_time, c.finish_time)}{loss})."
    overridden = _overridden(run, c)
    return f"{said} {overridden}" if overridden else said


def _overridden(run: SimRun, c: Counterfactual) -> str:
    """The sentence for a rerun that honours less than a site asks for (a
    Crawl-delay capped by ``max_crawl_delay``): the advice says so."""
    cap = c.options.get("max_crawl_delay")
    if cap is None:
        return ""
    asked = {h: d for h, d in sorted(run.host_crawl_delay.items()) if d > cap}
    if len(asked) == 1:
        ((host, delay),) = asked.items()
        return f"That overrides the Crawl-delay of {seconds(delay)} that {host}'s robots.txt asks for."
    return f"That overrides the Crawl-delay that {len(asked)} hosts' robots.txt ask for (up to {seconds(max(asked.values()))})."


def _phrase(c: Counterfactual) -> str:
    """``More workers helps``-style phrase naming ``c``'s knob (a step set by name)."""
    if c.knob == "normalize":
        return f"Normalize {c.options['normalize']} helps"
    return KNOB_PHRASES[c.knob]


def _change(before: float, after: float) -> str:
    """The change in percent, always (one unit in every quote): ``-32%``,
    ``-1.4%``, or ``-<0.1%`` for a change too small to show."""
    if after == before:
        return "no change"
    return signed_percent((after - before) / before if before > 0 else 0.0)


def _verdict(run: SimRun, counterfactuals: tuple[Counterfactual, ...]) -> str:
    """Which knob helps most, said only of a rerun at least :data:`WORTH_SAYING` faster."""
    faster = [c for c in counterfactuals if c.finish_time < run.finish_time]
    if not faster:
        if len(counterfactuals) == 1:
            return NO_HELP_PHRASES[counterfactuals[0].knob]
        return "None of these finishes sooner." if counterfactuals else "Nothing was measured."
    worth = [c for c in faster if c.change <= -WORTH_SAYING]
    if not worth:
        return f"None of these shortens the crawl by {WORTH_SAYING:.0%} or more."
    best = min(c.finish_time for c in worth)
    return _winners([c for c in worth if c.finish_time == best], alone=len(counterfactuals) == 1)


def _winners(winners: list[Counterfactual], *, alone: bool) -> str:
    """The verdict naming the fastest reruns (``alone``: the only one measured)."""
    if len(winners) == 1:
        phrase = _phrase(winners[0])
        if winners[0].knob in DEDUP_KNOBS:
            loss = winners[0].loss
            cost = " and no page lost" if loss == "no page lost" else f", at a cost of {loss}"
            return f"{phrase} most, with no new worker{cost}."
        return f"{phrase}." if alone else f"{phrase} most."
    names = [_phrase(c).rsplit(" ", 1)[0] for c in winners]
    names = [names[0], *(n[0].lower() + n[1:] for n in names[1:])]
    return f"{', '.join(names[:-1])} and {names[-1]} help most (equally)."


def _inferred(run: SimRun, bounds: Bounds, binding: str, mode: str, fetches: int) -> str:
    """What the bound's formula implies, flagged as not measured."""
    if binding == "depth":
        implied = "neither more workers nor a higher per-host limit lowers this bound"
    elif binding == "work":
        implied = "more workers lower this bound"
    elif bounds.busiest_host_spacing:
        implied = "a smaller gap (or Crawl-delay) would lower this bound"
    elif host_limit(run) == run.options.workers:
        implied = "more workers lower this bound"
    else:
        implied = "more workers do not lower this bound; a higher per-host limit would"
    why = (
        "--advise infer"
        if mode == "infer"
        else f"{fetches:,} fetches; crawls over {MEASURE_LIMIT:,} are not rerun by default"
    )
    return (
        f"Inferred from the bounds, not measured ({why}): {implied}. `--advise measure` reruns the crawl to measure it."
    )


def _num(value: float) -> str:
    return f"{value:g}"


__all__ = [
    "ADVISE_MODES",
    "MEASURE_LIMIT",
    "WORTH_SAYING",
    "Advice",
    "AdviceCancelled",
    "Counterfactual",
    "advise",
    "assess",
    "explained",
    "measure",
    "plan",
]
