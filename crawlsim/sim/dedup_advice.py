"""The advisor's knobs for duplicate fetches: normalization and content dedup.

More workers hide wasted work; they do not remove it.  A crawl whose
duplicate fetches (one page fetched again under another spelling) waste
worker time can also be made shorter by merging those spellings, at a
price: a risky normalization step (``www``, ``https``, ``trailing_slash``,
...) may merge two *different* pages, and the crawl then loses one of them.
So the advisor measures these knobs like any other -- it reruns the crawl --
and says, beside each finish time, what the rerun cost in pages lost
(:mod:`crawlsim.sim.coverage`, the web's ground truth).

Which reruns (:func:`dedup_plan`), from the duplicate fetches the run made:

* the safe steps (RFC 3986's, which never merge two pages) that would merge
  at least one pair of spellings the crawl fetched, all at once;
* each risky step that would merge a pair, on top of those, one at a time
  (so each step's own cost in pages shows);
* all of them together, when more than one risky step merges a pair;
* ``content_dedup = "exact"``, when it is off and a page's content repeated
  (a duplicate fetch, or a mirror): a page whose content was seen before is
  not followed, which can cut the respelled links it would have added.

"Would merge" is read from the run's own fetches: two URLs fetched for one
page whose canonical forms become equal once the step is added.  It needs
the run's events; a run that records none gets no such reruns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from crawlsim.trace.events import FetchStarted
from crawlsim.core.urls import RISKY_STEPS, SAFE_STEPS, STEPS, CanonicalizeError, canonical_or_raise, mode_name

if TYPE_CHECKING:
    from crawlsim.sim.coverage import Coverage
    from crawlsim.sim.driver import SimRun
    from crawlsim.sim.inputs import SimInput

DEDUP_KNOBS = ("normalize", "content_dedup")
"""The knobs of this module's reruns (their reruns record events, for coverage)."""


def fetched_spellings(run: SimRun) -> dict[str, set[str]]:
    """True page -> the URLs the crawl fetched it under (pages fetched more than once)."""
    spellings: dict[str, set[str]] = {}
    for e in run.trace:
        if isinstance(e, FetchStarted) and e.kind == "page":
            spellings.setdefault(e.page, set()).add(e.url)
    return {page: urls for page, urls in spellings.items() if len(urls) > 1}


def merges(groups: Iterable[set[str]], steps: frozenset[str]) -> int:
    """How many fetches of ``groups`` (each the spellings of one page) would
    not have been made under ``steps``: spellings minus their canonical forms."""
    saved = 0
    for urls in groups:
        forms = set()
        for url in urls:
            try:
                forms.add(canonical_or_raise(url, None, steps))
            except CanonicalizeError:
                forms.add(url)
        saved += len(urls) - len(forms)
    return saved


def merging_steps(run: SimRun) -> list[str]:
    """The steps, not yet on, that would merge at least one pair of spellings
    the run fetched (in :data:`~crawlsim.core.urls.STEPS` order)."""
    current = run.options.normalize_steps
    groups = list(fetched_spellings(run).values())
    if not groups:
        return []
    return [step for step in STEPS if step not in current and merges(groups, current | {step}) > 0]


def repeated_content(sim: SimInput, run: SimRun) -> int:
    """Page fetches that answered content already fetched (0 without events)."""
    seen: set[str] = set()
    repeats = 0
    for e in run.trace:
        if isinstance(e, FetchStarted) and e.kind == "page":
            key = sim.web.response(e.url).content_key
            if key and key in seen:
                repeats += 1
            seen.add(key)
    return repeats


def normalization_specs(run: SimRun) -> list[str]:
    """The normalizations worth a rerun, each by its one name: the safe steps
    that merge spellings the run fetched, then each risky one, then all risky
    ones together."""
    steps = merging_steps(run) if run.wasted_time > 0 else []
    base = run.options.normalize_steps | {s for s in steps if s in SAFE_STEPS}
    risky = [s for s in steps if s in RISKY_STEPS]
    sets = [base] if base != run.options.normalize_steps else []
    sets += [base | {s} for s in risky]
    if len(risky) > 1:
        sets.append(base | set(risky))
    # every safe step on (the ones that merge nothing here change nothing), so each
    # set is rfc3986 plus risky steps, not a mix no key reaches: fragment+lowercase
    return list(dict.fromkeys(mode_name(chosen | SAFE_STEPS) for chosen in sets))


def dedup_plan(sim: SimInput, run: SimRun) -> list[tuple[str, str, dict[str, Any]]]:
    """The normalization and content-dedup reruns for ``run``: (knob, label, overrides)."""
    if not run.trace or run.wasted_time <= 0 and run.options.content_dedup != "off":
        return []
    out: list[tuple[str, str, dict[str, Any]]] = [
        ("normalize", f"normalize {spec}", {"normalize": spec}) for spec in normalization_specs(run)
    ]
    if run.options.content_dedup == "off" and repeated_content(sim, run) > 0:
        out.append(("content_dedup", "content_dedup exact", {"content_dedup": "exact"}))
    return out


def waste_phrase(run: SimRun) -> str:
    """What the duplicate fetches cost, before the reruns that remove them."""
    n = run.stats.duplicate_fetches
    if n == 0 or run.wasted_time <= 0:
        return "Some pages repeat another page's content."
    return f"{n:,} duplicate fetch{'es' if n != 1 else ''} waste {run.wasted_time:,.1f} worker-seconds."


def pages(n: int) -> str:
    return f"{n:,} page{'s' if n != 1 else ''}"


def loss_phrase(before: Coverage | None, after: Coverage) -> tuple[int | None, str]:
    """(pages the rerun lost, how the sentence says it against the run's own loss)."""
    if after.lost is None:
        return None, "pages lost not counted"
    lost = len(after.lost)
    had = len(before.lost) if before is not None and before.lost is not None else 0
    if lost == 0:
        return 0, "no page lost"
    if lost == had:
        return lost, f"the same {pages(lost)} lost"
    if lost < had:
        return lost, f"{pages(had - lost)} fewer lost"
    was = before.reasons() if before is not None else {}
    more = {r: n - was.get(r, 0) for r, n in after.reasons().items() if n > was.get(r, 0)}
    why = ", ".join(f"{n:,} {r}" if len(more) > 1 else r for r, n in more.items())
    return lost, f"{pages(lost - had)} {'more ' if had else ''}lost: {why}"


__all__ = [
    "DEDUP_KNOBS",
    "dedup_plan",
    "fetched_spellings",
    "loss_phrase",
    "merges",
    "merging_steps",
    "repeated_content",
    "waste_phrase",
]
