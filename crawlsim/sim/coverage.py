"""Coverage that is true: which pages of the web a crawl fetched, and which it lost, and why.

A crawl's own counters only know the URLs it met.  A
canonicalization step that is too aggressive merges different pages; a
crawl that merged them never sees what it missed.  The synthetic web knows
its true link graph, so a report can name every page the crawl could have
fetched and did not.

The words (docs/reference/words.md):

* **pages reachable**: pages of the web reachable from the seeds by the
  web's true links, within the crawl's scope (``scope``, ``allow``, ``deny``).
  Reachability *ignores* caps, the depth limit, robots.txt, failures and
  normalization: those are the crawl's choices and misfortunes, and each is a
  reason a reachable page can be lost.  A link is followed as a browser would
  resolve it (RFC 3986 normalization only, which never merges two pages).
* **pages fetched**: pages (true identities) that answered under some spelling.
* **pages lost**: reachable pages never fetched under any spelling, each with
  the first reason that applies, in this order:

  ``failed``         a spelling of it was fetched and failed (an HTTP error
                     or a network error after its retries);
  ``robots``         robots.txt disallowed it;
  ``normalization``  a fetched page links to it, but the crawler's
                     canonicalization spelled every such link as another URL
                     (another page, or a URL the web does not have, which
                     answers 404): its spelling was merged into another URL;
  ``depth``          discovered beyond ``depth_limit``;
  ``cap``            discovered after ``max_pages`` / ``max_pages_per_host``
                     ran out;
  ``scope``          discovered under a spelling outside the scope;
  ``false positive`` an inexact seen set (``seen = "bloom"``) took its
                     only spelling for one already seen;
  ``node failure``   queued on a crawler node that failed (a simulated
                     cluster), and never queued again;
  ``not discovered`` only linked from pages that were not fetched (lost
                     themselves, or whose links were not followed because
                     their content duplicated another page's).

So ``pages reachable = pages fetched + pages lost`` over the reachable
pages.  A crawl can also fetch a page that no true link leads to: a risky
step respelled a link into *another* real page (``http://www.a.com/x`` into
``https://a.com/x``).  Those are listed apart (``outside``), so the identity
is ``reachable = fetched - outside + lost``.  Enumerating reachability walks the web once, so it is done only
for webs of at most :data:`REACH_LIMIT` pages; a larger or endless web (the
``million`` web, a calendar trap) gets ``None`` and a note that says so.
It needs the crawl's events (``record_events``), which every small run has.
It is computed only when a report asks for it, never inside the simulation.

What the crawl's own settings left out is said too (:class:`Narrowing`):
a scope (``scope``, ``allow``, ``deny``) leaves out the pages the links lead
to beyond it -- not counted as reachable, so without a word a user would
never learn that a ``scope = "host"`` crawl saw a seventh of the web -- and
caps, the depth limit and robots.txt lose reachable pages.  Each names the
flag that widens it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crawlsim.trace.events import Discovered, Event, FetchFailed, FetchFinished, FetchStarted, NodeFailed, Skipped
from crawlsim.core.options import CrawlOptions
from crawlsim.core.scope import Scope
from crawlsim.core.urls import SAFE_STEPS, CanonicalizeError, canonical_or_raise

if TYPE_CHECKING:
    from crawlsim.sim.inputs import SimInput
    from crawlsim.sim.web import Web

REACH_LIMIT = 20_000
"""Reachability is enumerated for webs of at most this many pages (a walk of
the whole web costs about as much as a crawl without politeness)."""

TRAP_WALK = 200
"""The walk stops after this many pages (or twice the declared size) when
the web declares fewer pages than that: the rest is an endless trap."""

LOSS_REASONS = (
    "failed", "robots", "normalization", "depth", "cap", "scope", "false positive", "node failure", "not discovered",
    "time limit",
)
"""Why a reachable page was not fetched, in the order they are tried
(``time limit``: only a real crawl stopped by ``--max-time``)."""

_DISCOVERED_REASONS = ("depth", "cap", "scope", "robots", "seen")


@dataclass(frozen=True, slots=True)
class LostPage:
    """A reachable page the crawl never fetched, and why."""

    page: str
    reason: str
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"page": self.page, "reason": self.reason, "detail": self.detail}


NARROWING_ORDER = ("scope", "cap", "depth", "robots")
"""What may narrow a crawl, in the order the summary says it."""


@dataclass(frozen=True, slots=True)
class Narrowing:
    """A share of the pages the links lead to that the crawl's settings left
    out: ``pages`` of ``of``, and the flag that widens it."""

    by: str
    """``scope`` (pages beyond the scope, not counted as reachable), ``cap``,
    ``depth`` or ``robots`` (reachable pages lost to it)."""
    pages: int
    of: int
    """The pages the share is of: reachable ignoring scope (``scope``), else
    the pages reachable."""
    widen: str
    """The flag that widens it, as a clause (robots.txt: that it overrides the sites' request)."""
    at_least: bool = False
    """``pages`` is a lower bound (the walk beyond the scope stopped at its limit)."""

    @property
    def share(self) -> float:
        return self.pages / self.of if self.of else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "pages": self.pages,
            "of": self.of,
            "share": round(self.share, 6),
            "at_least": self.at_least,
            "widen": self.widen,
        }


def narrowings(
    options: CrawlOptions, reachable: int, lost: Iterable[LostPage], beyond_scope: int, *, at_least: bool = False
) -> tuple[Narrowing, ...]:
    """What the scope, the caps, the depth limit and robots.txt left out of
    a crawl that could reach ``reachable`` pages (``beyond_scope`` more lie
    outside its scope, or at least that many), each with the flag that widens it."""
    counts = {by: 0 for by in NARROWING_ORDER}
    counts["scope"] = beyond_scope
    for item in lost:
        if item.reason in counts and item.reason != "scope":
            counts[item.reason] += 1
    return tuple(
        Narrowing(by, n, reachable + n, widen_flag(options, by), at_least)
        if by == "scope"
        else Narrowing(by, n, reachable, widen_flag(options, by))
        for by, n in counts.items()
        if n
    )


def widen_flag(options: CrawlOptions, by: str) -> str:
    """The clause naming the flag that widens what ``by`` narrowed."""
    if by == "scope":
        if options.allow or options.deny:
            return "the [crawl] table's allow / deny patterns set it"
        return "--scope domain or --scope any widens it" if options.scope == "host" else "--scope any widens it"
    if by == "cap":
        caps = [("--max-pages", options.max_pages), ("--max-pages-per-host", options.max_pages_per_host)]
        return " or ".join(f"a higher {flag}" for flag, value in caps if value is not None) + " widens it"
    if by == "depth":
        return "a higher --depth-limit widens it"
    return "--no-robots fetches them, overriding the sites' own robots.txt"


@dataclass(frozen=True, slots=True)
class Coverage:
    """Pages reachable, fetched and lost for one crawl of one web.

    ``reachable`` and ``lost`` are ``None`` when they were not computed;
    ``note`` then says why (too large a web, no events recorded)."""

    reachable: int | None
    fetched: int
    """Pages fetched (true identities that answered under some spelling)."""
    lost: tuple[LostPage, ...] | None
    note: str = ""
    outside: tuple[str, ...] = ()
    """Pages fetched that are not reachable by the web's links (reached
    through a respelled URL), when counted."""
    narrowed: tuple[Narrowing, ...] = ()
    """What the crawl's scope, caps, depth limit and robots.txt left out (:class:`Narrowing`)."""

    def reasons(self) -> dict[str, int]:
        """How many pages were lost for each reason (in :data:`LOSS_REASONS` order)."""
        counts = {reason: 0 for reason in LOSS_REASONS}
        for item in self.lost or ():
            counts[item.reason] += 1
        return {reason: n for reason, n in counts.items() if n}

    def summary(self) -> str:
        """``14 pages reachable, 13 fetched, 1 lost (normalization)`` (one line)."""
        if self.reachable is None or self.lost is None:
            return f"{self.fetched:,} pages fetched; pages reachable not counted ({self.note})"
        text = f"{self.reachable:,} pages reachable, {self.fetched:,} fetched, {len(self.lost):,} lost"
        reasons = self.reasons()
        if reasons:
            text += " (" + ", ".join(f"{n:,} {r}" if n > 1 else r for r, n in reasons.items()) + ")"
        if self.outside:
            text += f", {len(self.outside):,} fetched through a respelling only"
        return text


def _safe(href: str, base: str | None) -> str | None:
    try:
        return canonical_or_raise(href, base, SAFE_STEPS)
    except CanonicalizeError:
        return None


def declared_size(web: Web, limit: int) -> int | None:
    """The sum of the web's host sizes, counted up to just past ``limit``
    (None when a host does not say).  An endless trap adds nothing to it."""
    total = 0
    for host in web.hosts():
        size = web.host_size(host)
        if size is None:
            return None
        total += size
        if total > limit:
            break
    return total


def reachable_pages(
    web: Web, seeds: Sequence[str], options: CrawlOptions, limit: int = REACH_LIMIT
) -> list[str] | None:
    """Pages reachable from ``seeds`` within ``options``' scope, in BFS order,
    or ``None`` when there are more than ``limit`` (see the module docstring)."""
    scope = Scope(options.scope, options.allow, options.deny)
    starts = [url for url in (_safe(s, None) for s in seeds) if url is not None]
    for url in starts:
        scope.add_seed(url)
    seen: set[str] = set()
    queue: deque[str] = deque()
    for url in starts:
        page = web.page_at(url) if scope.allows(url) else None
        if page is not None and page not in seen:
            seen.add(page)
            queue.append(page)
    order: list[str] = []
    while queue:
        page = queue.popleft()
        order.append(page)
        for found in _linked_pages(web, page, scope):
            if found not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(found)
                queue.append(found)
    return order


REACH_MEMO = 8
"""Walks :func:`_reachable` remembers (the latest ones)."""
_reached: dict[tuple[object, ...], tuple[Web, list[str] | None]] = {}


def _reachable(web: Web, seeds: Sequence[str], options: CrawlOptions, walk: int) -> list[str] | None:
    """:func:`reachable_pages`, remembered for the last :data:`REACH_MEMO`
    walks.  Reachability depends on the web, the seeds, the scope and the
    walk's limit only -- none of the knobs a view turns -- yet a knob change
    in the app walked the whole web again (two thirds of a 2,000-page
    crawl's own time, benchmarks/knobs.py).  The web is held beside its walk,
    so its ``id`` in the key is never another web's; a web's links and pages
    never change (:class:`~crawlsim.sim.web.Web` answers from its seed)."""
    key = (id(web), tuple(seeds), options.scope, options.allow, options.deny, walk)
    hit = _reached.get(key)
    if hit is not None and hit[0] is web:
        return hit[1]
    order = reachable_pages(web, seeds, options, walk)
    if len(_reached) >= REACH_MEMO:
        _reached.pop(next(iter(_reached)), None)
    _reached[key] = (web, order)
    return order


def _linked_pages(web: Web, page: str, scope: Scope) -> Iterator[str]:
    """The pages ``page``'s links lead to, as a browser resolves them, within ``scope``."""
    page_at = web.page_at
    for href in web.links(page):
        target = _safe(href, page)
        if target is not None and scope.allows(target):
            found = page_at(target)
            if found is not None:
                yield found


@dataclass
class _Outcomes:
    """What the trace says happened to each URL the crawl met."""

    ok: dict[str, tuple[str, bool]]
    """URL -> (true page, links followed) for page fetches that answered < 400."""
    failed: dict[str, str]
    """URL -> reason, for page fetches that failed finally."""
    skipped: dict[str, set[str]]
    """URL -> skip reasons; ``seen`` only for a URL never queued (a Bloom
    filter's false positive: an exact seen set says ``seen`` only after a
    URL was queued, and those skips are too many to keep)."""
    queued: set[str] = field(default_factory=set)
    """URLs some scheduler queued (Discovered)."""
    node_failed: bool = False
    """A crawler node failed during the crawl (a cluster's trace)."""

    @classmethod
    def of(cls, events: Iterable[Event]) -> _Outcomes:
        started: dict[int, FetchStarted] = {}
        out = cls({}, {}, {})
        queued = out.queued
        for e in events:
            if isinstance(e, Discovered):
                queued.add(e.url)
            elif isinstance(e, NodeFailed):
                out.node_failed = True
            elif isinstance(e, FetchStarted):
                if e.kind == "page":
                    started[e.fetch_id] = e
            elif isinstance(e, FetchFinished):
                s = started.pop(e.fetch_id, None)
                if s is not None:
                    out._answered(s, e)
            elif isinstance(e, FetchFailed):
                if e.final and started.pop(e.fetch_id, None) is not None:
                    out.failed.setdefault(e.url, e.reason)
            elif isinstance(e, Skipped) and (e.reason != "seen" or e.url not in queued):
                out.skipped.setdefault(e.url, set()).add(e.reason)
        return out


    def _answered(self, started: FetchStarted, e: FetchFinished) -> None:
        """A page fetch's answer: a page fetched (its links followed unless it
        copied another page's content), or an HTTP failure."""
        if e.status < 400:
            follows = e.duplicate_of is None
            before = self.ok.get(e.url, (started.page, False))[1]
            self.ok[e.url] = (started.page, before or follows)
        else:
            self.failed.setdefault(e.url, f"HTTP {e.status}")


def coverage_of(sim: SimInput, run: Any, *, limit: int = REACH_LIMIT) -> Coverage:
    """The coverage of ``run`` (a :class:`~crawlsim.sim.driver.SimRun` of
    ``sim``, with its options) against ``sim``'s web (only its web and seeds
    are read: the run carries the options it was crawled with)."""
    web = sim.web
    options: CrawlOptions = run.options
    trace: list[Event] = run.trace
    fetched_count = run.stats.pages_fetched
    size = declared_size(web, limit)
    if size is not None and size > limit:
        return Coverage(None, fetched_count, None, f"the web has over {limit:,} pages, too many to enumerate")
    if not trace:
        return Coverage(None, fetched_count, None, "events not recorded (record_events = false)")
    # A web whose hosts declare their sizes but that reaches far more pages
    # holds an endless trap: stop the walk early rather than walk ``limit`` pages.
    walk = limit if size is None else min(limit, max(TRAP_WALK, 2 * size))
    reachable = _reachable(web, sim.seeds, options, walk)
    if reachable is None:
        why = "not enumerated" if size is None else f"its hosts declare {size:,}: an endless trap, not enumerated"
        return Coverage(None, fetched_count, None, f"more than {walk:,} pages reachable ({why})")
    outcomes = _Outcomes.of(trace)
    fetched = {page for page, _ in outcomes.ok.values()}
    missing = [page for page in reachable if page not in fetched]
    lost = tuple(_explain(web, sim.seeds, options, outcomes, missing)) if missing else ()
    outside = tuple(sorted(fetched.difference(reachable)))
    beyond, at_least = _beyond_scope(web, sim.seeds, options, walk, len(reachable))
    narrowed = narrowings(options, len(reachable), lost, beyond, at_least=at_least)
    return Coverage(len(reachable), len(fetched), lost, outside=outside, narrowed=narrowed)


def _beyond_scope(web: Web, seeds: Sequence[str], options: CrawlOptions, walk: int, within: int) -> tuple[int, bool]:
    """Pages the web's links lead to from the seeds outside ``options``'
    scope (the walk again, in scope ``any``), and whether that is a lower
    bound (at least ``walk - within``: that walk stopped at its limit)."""
    if options.scope == "any" and not options.allow and not options.deny:
        return 0, False
    everywhere = _reachable(web, seeds, options.with_(scope="any", allow=(), deny=()), walk)
    return (walk - within, True) if everywhere is None else (len(everywhere) - within, False)


def _explain(
    web: Web, seeds: Sequence[str], options: CrawlOptions, outcomes: _Outcomes, missing: list[str]
) -> Iterable[LostPage]:
    """A reason for each missing page, the first that applies in
    :data:`LOSS_REASONS` order (see the module docstring)."""
    failed = _failed_pages(web, outcomes)
    blocked = _blocked_pages(web, outcomes)
    spelled = _spellings(web, seeds, options, outcomes, set(missing))
    for page in missing:
        if page in failed:
            yield LostPage(page, "failed", failed[page])
        elif page in blocked:
            yield LostPage(page, "robots", f"{blocked[page]} is disallowed by robots.txt")
        else:
            yield _lost_in_discovery(web, page, spelled.get(page, []), outcomes)


def _failed_pages(web: Web, outcomes: _Outcomes) -> dict[str, str]:
    """Page -> ``url: reason`` of the first of its spellings that failed finally."""
    failed: dict[str, str] = {}
    for url, reason in outcomes.failed.items():
        failed.setdefault(web.page_of(url), f"{url}: {reason}")
    return failed


def _blocked_pages(web: Web, outcomes: _Outcomes) -> dict[str, str]:
    """Page -> the first of its spellings that robots.txt disallowed."""
    blocked: dict[str, str] = {}
    for url, reasons in outcomes.skipped.items():
        if "robots" in reasons:
            blocked.setdefault(web.page_of(url), url)
    return blocked


def _spellings(
    web: Web, seeds: Sequence[str], options: CrawlOptions, outcomes: _Outcomes, wanted: set[str]
) -> dict[str, list[tuple[str, str | None]]]:
    """How the crawler spelled each link to a ``wanted`` page: page ->
    [(the link as a browser resolves it, the crawler's canonical URL or None)],
    from the seeds and from every fetched page whose links it followed (as the
    page served them)."""
    page_at, steps = web.page_at, options.normalize_steps
    spelled: dict[str, list[tuple[str, str | None]]] = {}

    def note(href: str, base: str | None) -> None:
        target = _safe(href, base)
        if target is None:
            return
        page = page_at(target)
        if page is None or page not in wanted:
            return
        try:
            spelling: str | None = canonical_or_raise(href, base, steps)
        except CanonicalizeError:
            spelling = None
        spelled.setdefault(page, []).append((target, spelling))

    for seed in seeds:
        note(seed, None)
    for url, (_page, follows) in outcomes.ok.items():
        if follows:
            for href in web.links(url):
                note(href, url)
    return spelled


def _lost_in_discovery(web: Web, page: str, links: list[tuple[str, str | None]], outcomes: _Outcomes) -> LostPage:
    """Why a page neither failed nor was blocked: a spelling of it was skipped
    (depth, cap, scope, robots), every link to it was respelled
    (normalization), or no followed link led to it (not discovered)."""
    page_at = web.page_at
    named = [s for _, s in links if s is not None and page_at(s) == page]
    if named:
        return _lost_spelled(page, named, outcomes)
    if not links:
        return LostPage(page, "not discovered", "only linked from pages that were not fetched")
    target, spelling = links[0]
    if spelling is None:
        return LostPage(page, "normalization", f"links to it ({target}) could not be canonicalized")
    other = page_at(spelling)
    where = "a URL the web does not have (404)" if other is None else f"the page {other}"
    return LostPage(page, "normalization", f"links to it were spelled {spelling}, {where}")


def _lost_spelled(page: str, named: list[str], outcomes: _Outcomes) -> LostPage:
    """Why a page whose own spelling the crawler met was never fetched."""
    reasons = set().union(*(outcomes.skipped.get(s, set()) for s in named))
    if not reasons and outcomes.node_failed and any(s in outcomes.queued for s in named):
        return LostPage(page, "node failure", f"{named[0]} was queued on a node that failed")
    reason = next((r for r in _DISCOVERED_REASONS if r in reasons), "cap")
    if reason == "seen":  # never queued, yet "seen": only an inexact seen set (Bloom) says that
        return LostPage(page, "false positive", f"{named[0]} was taken for seen (a Bloom filter false positive)")
    return LostPage(page, reason, f"{named[0]} was skipped ({reason})")


__all__ = [
    "LOSS_REASONS",
    "NARROWING_ORDER",
    "REACH_LIMIT",
    "Coverage",
    "LostPage",
    "Narrowing",
    "coverage_of",
    "declared_size",
    "narrowings",
    "reachable_pages",
    "widen_flag",
]
