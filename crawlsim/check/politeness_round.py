"""The ``politeness`` follow-up round: ``crawl(start_url, get_urls, max_workers, per_host, gap)``.

``per_host`` and ``gap`` are crawlsim's own two politeness knobs (``--per-host``,
``--gap``; Scrapy's ``CONCURRENT_REQUESTS_PER_DOMAIN`` and ``DOWNLOAD_DELAY``):
at most ``per_host`` calls in flight to one host, and at least ``gap`` seconds
from one call's *start* to the next call's start on that host.  A host is a
URL's hostname (and port, as everywhere in crawlsim: ``host_key``).

The base question crawls one hostname; politeness needs several, so this
round's scope is the start's hostname *and its subdomains* (as Scrapy's
``allowed_domains``): from ``http://a.com/`` the crawl follows
``http://h1.a.com/...`` but not ``http://xa.com/``.  Under this round the base
cases run without ``host-scope`` (the one rule the round changes).

Three cases, each web the start page linking every page, grouped by host,
plus two links out of scope; every verdict is measured from the service's
recorded calls:

* ``polite-cap`` -- per_host=2, gap=0, 3 hosts x 8 pages of 50 ms, 8 workers:
  a crawl with no per-host limit puts 8 calls on h1.a.com at once (which host,
  how many, when); one that caps the whole crawl at per_host never has more
  than 2 in flight across the 3 hosts.  Calls in flight are counted exactly:
  the service records a call's end before the crawl can release its slot.
* ``polite-gap`` -- per_host=2, gap=0.15 s, 3 hosts x 5 pages of 20 ms: no
  gap starts a host's calls together; a gap counted from a call's return
  lets two calls that overlap start together, each a gap after the host last
  answered.  A start is recorded a moment after the crawl decided it (later
  on a loaded machine), so a gap counts as kept down to ``GAP_SLACK`` of it.
* ``polite-speed`` -- per_host=1, gap=0.1 s, 4 hosts x 6 pages of 0.1 s, 8
  workers: the busiest-host bound is about 0.6 s after the start page
  returns.  A lock held while sleeping for one host's gap makes every host
  wait (about one start per gap for the whole crawl, four times the bound);
  a gap counted from returns makes each host wait a call longer (twice).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from dataclasses import dataclass

from crawlsim.check import evidence, judge
from crawlsim.check.cases import A, Case, expected_pages, hostname
from crawlsim.check.report import CheckResult
from crawlsim.check.runner import CaseRun
from crawlsim.check.services import FetchRecord
from crawlsim.core.urls import host_key
from crawlsim.words import counted

GAP_SLACK = 0.5
"""A gap between two starts on one host under this share of ``gap`` is a violation."""
SLOW = 2.0
"""A crawl taking over this many times the busiest-host bound, whatever its cause, is too slow."""
SLOW_WITH_CAUSE = 1.3
"""A crawl over this many times the bound *and* showing a cause (from returns, hosts waiting for each other) fails."""
FROM_RETURN = (0.6, 1.5)
"""Calls that start a median of between these shares of ``gap`` after their
host last answered counted the gap from returns (a good crawl's wait is
about nothing once a call is as long as the gap; hosts that wait for each
other wait several gaps)."""
FROM_RETURN_SHORT = 1 / 3
"""A gap counted from returns starts overlapping calls together every time: a
third of the gaps or more (half, at per_host=2), not a collision now and then."""
SERIAL = 2.0
"""Starts across all hosts at most this many per ``gap`` mean the hosts waited
for each other (one lock held while sleeping: 1.1 to 1.4; four hosts each
kept busy: 4)."""
FROM_RETURN_HINT = (
    "The gap runs from one call's start to the next one's: move the host's next start time gap on when a call "
    "starts, not when it returns."
)
OUT_OF_SCOPE = ("http://xa.com/", "http://b.com/")

NAMES = ("polite-cap", "polite-gap", "polite-speed")


def _hosts(count: int) -> list[str]:
    return [f"http://h{i}.a.com" for i in range(1, count + 1)]


def _case(name: str, title: str, hosts: int, pages: int, args: tuple[float, float], latency: float) -> Case:
    per_host_pages = [[f"{host}/p{j}" for j in range(pages)] for host in _hosts(hosts)]
    every = [page for host_pages in per_host_pages for page in host_pages]
    links: dict[str, tuple[str, ...]] = {f"{A}/": (*every, *OUT_OF_SCOPE)}
    links.update({page: (f"{A}/",) for page in every})
    return Case(
        name=name,
        title=title,
        lesson=(
            "Keep per host a count of calls in flight and the time its next call may start; start a page only "
            "while its host is under per_host and its time has come, then move that time gap on, and never "
            "sleep while holding a lock other hosts need."
        ),
        start=f"{A}/",
        links=links,
        max_workers=8,
        level="L6",
        default_latency=latency,
        args=args,
        deadline=3.0 + 3 * len(every) * max(latency, args[1]),
        timed=args[1] > 0,  # seconds between starts are the verdict
        subdomains=True,
    )


def POLITENESS_CASES() -> list[Case]:  # noqa: N802 - a constant built fresh each time
    return [
        _case(
            "polite-cap",
            "per_host=2, gap=0 on 3 hosts x 8 pages of 50 ms at 8 workers: never 3 calls in flight on one host",
            3, 8, (2, 0.0), 0.05,
        ),
        _case(
            "polite-gap",
            "per_host=2, gap=0.15 on 3 hosts x 5 pages of 20 ms: starts on one host at least gap apart",
            3, 5, (2, 0.15), 0.02,
        ),
        _case(
            "polite-speed",
            "per_host=1, gap=0.1 on 4 hosts x 6 pages of 0.1 s at 8 workers: hosts do not wait for each other",
            4, 6, (1, 0.1), 0.1,
        ),
    ]


@dataclass(frozen=True)
class _Facts:
    """What one run of a case shows about politeness, measured from its calls."""

    run: CaseRun
    per_host: int
    gap: float
    hosts: dict[str, list[FetchRecord]]
    """The calls after the start page's, by host, in start order."""

    @classmethod
    def of(cls, run: CaseRun) -> _Facts:
        first = min(run.records, key=lambda r: r.start)
        later = [r for r in run.records if r is not first]
        hosts = evidence.grouped(later, lambda r: host_key(r.url))
        return cls(run, int(run.case.args[0]), float(run.case.args[1]), hosts)

    @property
    def later(self) -> list[FetchRecord]:
        return [r for calls in self.hosts.values() for r in calls]

    @property
    def peak(self) -> int:
        """The most calls in flight at once across every host (after the start page's)."""
        return evidence.peak_in_flight(self.later, self.run.wall)[0]

    def apart(self) -> list[tuple[float, str, FetchRecord, FetchRecord]]:
        """Each two consecutive calls on one host: seconds between their starts, the host, the two calls."""
        return [
            (b.start - a.start, host, a, b) for host, calls in self.hosts.items() for a, b in itertools.pairwise(calls)
        ]

    def waits(self) -> list[float]:
        """Seconds from a host's latest return to each of its later calls' start (``evidence.waits_after_return``)."""
        return [wait for calls in self.hosts.values() for wait in evidence.waits_after_return(calls)]


def judge_politeness(runs: dict[str, CaseRun]) -> list[CheckResult]:
    return [_judge(runs[name], runs) for name in NAMES if name in runs]


def _judge(run: CaseRun, runs: dict[str, CaseRun]) -> CheckResult:
    """A limit broken is the finding, even in a run that did not finish; then
    the base checks (right pages, each fetched once, in scope); then the
    case's own question."""
    case = run.case
    if not run.records:
        return _base(run)
    facts = _Facts.of(run)
    found = _violation(facts) or _narrow_scope(facts)
    if found is None:
        plain = _base(run)
        if not plain.passed:
            return plain
        found = _own(facts, runs)
    details = {"per_host": facts.per_host, "gap": facts.gap, "bound_s": round(busiest_host_bound(case), 3)}
    if isinstance(found, str):
        return CheckResult(case.name, True, found, details, "correctness", case.level, case.title)
    cause, text, hint = found
    return CheckResult(
        case.name, False, f"{text} {hint}", details, "correctness", case.level, case.title, cause=cause, hint=hint
    )


Found = tuple[str, str, str]
"""A failure: its cause, what was measured, the fix."""


def _base(run: CaseRun) -> CheckResult:
    """The base question's checks of a run (right pages, each fetched once,
    in scope, a clean return), required by the round's contract rather than
    by a rule set."""
    return dataclasses.replace(judge.judge_case(run), rules=None)


def _narrow_scope(facts: _Facts) -> Found | None:
    """No call to any of the start's subdomains: the base question's exact-host scope, kept."""
    run = facts.run
    start = hostname(run.case.start)
    linked = sorted({host_key(page) for page in expected_pages(run.case)} - {start})
    if run.error or run.timed_out or not linked or any(host != start for host in facts.hosts):
        return None
    return (
        "polite-scope",
        f"No call went to the start's subdomains ({', '.join(linked)}), so their pages, linked from "
        f"{run.case.start}, are missing from the result.",
        "This round's scope is the start's hostname and its subdomains: follow a link whose hostname equals the "
        "start's or ends with '.' and the start's (xa.com is not a subdomain of a.com).",
    )


def _violation(facts: _Facts) -> Found | None:
    """More calls in flight on one host than per_host, or two starts on one host closer than gap."""
    return _over_cap(facts) or _under_gap(facts)


def _own(facts: _Facts, runs: dict[str, CaseRun]) -> Found | str:
    """The case's own question, once the limits held: a global cap, or a slow crawl."""
    if facts.run.case.name == "polite-cap":
        return _global_cap(facts) or _held(facts)
    if facts.run.case.name == "polite-speed":
        cap = runs.get("polite-cap")
        capped = cap is not None and bool(cap.records) and _global_cap(_Facts.of(cap)) is not None
        return _slow(facts, _global_cap(facts) if capped else None) or _held(facts)
    return _held(facts)


def _over_cap(facts: _Facts) -> Found | None:
    worst = max(
        ((host, *evidence.peak_in_flight(calls, facts.run.wall)) for host, calls in facts.hosts.items()),
        key=lambda h: h[1],
        default=None,
    )
    if worst is None or worst[1] <= facts.per_host:
        return None
    host, peak, when = worst
    return (
        "polite-per-host",
        f"{host} had {peak} calls in flight at {when:.2f} s with per_host {facts.per_host} "
        f"(max_workers {facts.run.case.max_workers}).",
        "Count the calls in flight per host (a counter or a semaphore per host) and start a page only while its "
        "host is under per_host; a page whose host is full waits in that host's queue, not in a worker.",
    )


def _global_cap(facts: _Facts) -> Found | None:
    """Never more calls in flight across all hosts than one host may have."""
    peak = facts.peak
    hosts = len(facts.hosts)
    if hosts < 2 or peak > facts.per_host:
        return None
    allowed = min(facts.run.case.max_workers, hosts * facts.per_host)
    return (
        "polite-global-cap",
        f"Never more than {counted(peak, 'call')} in flight across {hosts} hosts with per_host {facts.per_host}: "
        f"the limit was applied to the whole crawl, where each host may have per_host in flight "
        f"({allowed} at once here).",
        "Keep one count per host (a dict keyed by hostname), not one for the crawl.",
    )


def _under_gap(facts: _Facts) -> Found | None:
    if facts.gap <= 0:
        return None
    pairs = facts.apart()
    short = [p for p in pairs if p[0] < GAP_SLACK * facts.gap]
    if not short:
        return None
    seconds, host, a, b = min(short, key=lambda p: p[0])
    measured = (
        f"Two calls on {host} started {seconds:.3f} s apart (at {a.start:.2f} s and {b.start:.2f} s) with gap "
        f"{facts.gap:g}; {len(short)} of the {len(pairs)} gaps between starts on one host were under half of it."
    )
    waits = facts.waits()
    if waits and min(waits) >= GAP_SLACK * facts.gap and len(short) >= FROM_RETURN_SHORT * len(pairs):
        return (
            "polite-gap-from-end",
            f"{measured} Yet every call started at least {min(waits):.2f} s after its host's last call returned: "
            "the gap was counted from returns, so calls that overlap (per_host > 1) start together.",
            FROM_RETURN_HINT,
        )
    return (
        "polite-gap",
        measured,
        "Keep one next-start time per host; before a call wait until it, and move it gap on, under that host's lock "
        "(sleep outside the lock).",
    )


def busiest_host_bound(case: Case) -> float:
    """Seconds the crawl needs at least after the start page returns: the
    busiest host's pages start ``gap`` apart, ``per_host`` at a time, and the
    last one takes its latency (all the round's pages take the same); and
    every page must fit on ``max_workers``."""
    per_host, gap = int(case.args[0]), float(case.args[1])
    pages: dict[str, int] = {}
    for page in case.links:
        if page != case.start:
            pages[host_key(page)] = pages.get(host_key(page), 0) + 1
    busiest = max(pages.values())
    latency = case.default_latency
    host = max((busiest - 1) * gap, (math.ceil(busiest / per_host) - 1) * latency) + latency
    return max(host, math.ceil(sum(pages.values()) / case.max_workers) * latency)


def _took(facts: _Facts) -> float:
    ends = [r.end for r in facts.later if r.end is not None]
    return max(ends) - evidence.links_known(facts.run) if ends else 0.0


def _slow(facts: _Facts, global_cap: Found | None) -> Found | None:
    """Slower than the busiest-host bound allows, with the cause the calls
    show; ``global_cap`` is this run's global cap, when polite-cap showed one too."""
    took, bound = _took(facts), busiest_host_bound(facts.run.case)
    measured = (
        f"The crawl took {took:.2f} s after the start page returned; the busiest-host bound is {bound:.2f} s "
        f"(per_host {facts.per_host}, gap {facts.gap:g})."
    )
    if took <= SLOW_WITH_CAUSE * bound:
        return None
    if global_cap is not None:  # what polite-cap showed, seen here too
        return global_cap[0], f"{measured} {global_cap[1]}", global_cap[2]
    return _from_return(facts, measured) or _serialised(facts, measured) or _too_slow(facts, measured, took / bound)


def _from_return(facts: _Facts, measured: str) -> Found | None:
    waits = facts.waits()
    apart = [seconds for seconds, *_ in facts.apart()]
    low, high = FROM_RETURN
    if not waits or not low * facts.gap <= statistics.median(waits) <= high * facts.gap:
        return None
    return (
        "polite-gap-from-end",
        f"{measured} Each call on a host started a median {statistics.median(waits):.2f} s after the host's last "
        f"call returned ({statistics.median(apart):.2f} s after its last start): the gap was counted from returns, "
        "so each host waited a whole call longer than it had to.",
        FROM_RETURN_HINT,
    )


def _serialised(facts: _Facts, measured: str) -> Found | None:
    starts = sorted(r.start for r in facts.later)
    span = starts[-1] - starts[0] if len(starts) > 1 else 0.0
    if span <= 0 or (len(starts) - 1) / span > SERIAL / facts.gap:
        return None
    return (
        "polite-serialised",
        f"{measured} Its {len(starts)} calls started {(len(starts) - 1) / span:.1f} per second across "
        f"{len(facts.hosts)} hosts, where one host alone may start {1 / facts.gap:g} per second (1 / gap): the "
        "hosts waited for each other.",
        "A lock held while sleeping for one host's gap (or one next-start time for every host) does this: keep a "
        "next-start time per host, and sleep outside any lock.",
    )


def _too_slow(facts: _Facts, measured: str, ratio: float) -> Found | None:
    if ratio <= SLOW:
        return None
    peak = facts.peak
    return (
        "polite-slow",
        f"{measured} That is {ratio:.1f} times the bound, with at most {counted(peak, 'call')} in flight.",
        "Keep a call in flight on every host whose per_host and gap allow one.",
    )


def _held(facts: _Facts) -> str:
    """A pass, with what was measured."""
    peaks = {host: evidence.peak_in_flight(calls, facts.run.wall)[0] for host, calls in facts.hosts.items()}
    total = facts.peak
    text = (
        f"At most {counted(max(peaks.values(), default=0), 'call')} in flight on one host (per_host "
        f"{facts.per_host}), up to {total} across {len(peaks)} hosts"
    )
    if facts.gap > 0:
        closest = min((seconds for seconds, *_ in facts.apart()), default=0.0)
        lag = "; each start as the service recorded it, a moment after the crawl made it" if closest < facts.gap else ""
        text += f"; the closest starts on one host were {closest:.3f} s apart (gap {facts.gap:g}{lag})"
    took, bound = _took(facts), busiest_host_bound(facts.run.case)
    return f"{text}; it took {took:.2f} s after the start page returned (busiest-host bound {bound:.2f} s)."
