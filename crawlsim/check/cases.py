"""The simulated webs `crawlsim check` runs a user's crawler against.

Each :class:`Case` is a small web (page -> links as written), per-page
latencies, pages whose fetch raises, and *rendezvous groups*: pages whose
fetches are held until every page of the group is in flight.  Rendezvous and
chosen latencies are what make races show on every run instead of sometimes
(see ``services.py``).

The expected answer of a case is not written by hand: :func:`expected_pages`
computes it with the interview's rules (drop the ``#fragment``, keep a link
only when its hostname equals the start hostname exactly, a page whose fetch
raises has no links), so the cases and the oracle cannot drift apart.
"""

from __future__ import annotations

import functools
import random
import zlib
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

Level = Literal["L4", "L5", "L6"]
CaseKind = Literal["correctness", "note"]
RuleSet = Literal["leetcode", "interview", "strict"]
RULE_SETS: tuple[RuleSet, ...] = ("leetcode", "interview", "strict")
"""Each rule set includes the ones before it: ``leetcode`` is LeetCode
1242's statement (exact hostname; never crawl a URL twice; fragments and a
raising ``get_urls`` are not in it; its ``crawl(startUrl, htmlParser)`` has
no ``max_workers`` and no limit on threads); ``interview`` adds the
interview question's rules (at most ``max_workers`` fetches in flight, drop
fragments, survive a raising ``get_urls``, stack-safe on deep chains);
``strict`` adds URL details neither statement spells out (ports and
userinfo do not change the hostname)."""
RULE_TEXT: dict[RuleSet, str] = {
    "leetcode": "LeetCode 1242",
    "interview": "the interview question",
    "strict": "--rules strict",
}
"""Who requires a check, as a failure's "[Required by ...]" says.  LeetCode
1242 is its statement *and* its judge: ``threads-exit`` is not in the
statement, but a program whose threads never end is never judged."""

A = "http://a.com"


def defrag(url: str) -> str:
    """``url`` without its ``#fragment`` (a fragment names a part of the same page)."""
    return url.partition("#")[0]


@functools.lru_cache(maxsize=65536)
def hostname(url: str) -> str | None:
    """Lowercase hostname, or ``None`` for a URL that has none or cannot be parsed.

    This is the interview problem's own scope rule, not a host key: LeetCode
    1242 keeps a link when its *hostname* equals the start URL's, so
    ``http://a.com:8080/x`` and ``http://user@a.com/x`` are in scope (see
    ``url_details``).  The checker uses it only to decide what is in scope
    and to explain why a host is not; where it groups fetches by server (the
    ``host`` of a trace event) it uses :func:`crawlsim.core.urls.host_key`,
    the key every other part of crawlsim uses."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


@functools.lru_cache(maxsize=65536)
def page_of(url: str) -> str:
    """The page a URL names, as a server sees it: no fragment (browsers never
    send it), lowercase scheme and host (both are case-insensitive), and an
    empty path means ``/``.  The service counts fetches per page with this, so
    ``/x`` and ``/x#top`` are two fetches of one page."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def spread(pages: Iterable[str], low: float, high: float) -> dict[str, float]:
    """Deterministic per-page latencies in ``[low, high]`` (CRC32 of the URL, not
    ``random``), so a run's timing shape is the same every time."""
    out: dict[str, float] = {}
    for page in pages:
        fraction = (zlib.crc32(page.encode()) % 1000) / 999
        out[page] = round(low + (high - low) * fraction, 4)
    return out


@dataclass(frozen=True)
class Case:
    """One simulated web and what it tests.

    ``name`` is the check's name in the report; ``title`` says what the web
    is; ``lesson`` is the advice shown when the case fails for the reason it
    was built to expose.  ``level`` is the rubric level the case belongs to.
    """

    name: str
    title: str
    lesson: str
    start: str
    links: Mapping[str, tuple[str, ...]]
    max_workers: int
    level: Level
    latency: Mapping[str, float] = field(default_factory=dict)
    default_latency: float = 0.0
    failing: frozenset[str] = frozenset()
    groups: tuple[frozenset[str], ...] = ()
    kind: CaseKind = "correctness"
    seed_case: bool = False
    """True for the cases taken from the interview question's own list."""
    rules: RuleSet = "leetcode"
    """The first rule set that requires this case (see ``RULE_SETS``)."""
    race: bool = False
    """A race case: run under the interleaving explorer when it is available
    (``races.py``)."""
    args: tuple[float, ...] = ()
    """A follow-up round's extra arguments, passed after ``max_workers``."""
    max_depth: int | None = None
    """The ``depth`` round's limit: pages deeper than this are not expected."""
    transient: Mapping[str, int] = field(default_factory=dict)
    """Pages whose first N calls raise ``ConnectionError`` (the ``retries`` round)."""
    permanent: frozenset[str] = frozenset()
    """Pages whose every call raises ``ValueError``: not to be retried."""
    extra_time: float = 0.0
    """Seconds added to the deadline: waits the case asks for (backoffs), not fetches."""
    hung: frozenset[str] = frozenset()
    """Pages whose calls never return: they block until the checker gives up
    on the run (the ``timeout`` round), then raise ``CheckAbandoned``."""
    timed: bool = False
    """Its verdict is measured in seconds between calls: a run the machine
    stopped the process during is run again (``grade.STOP_RERUNS``)."""
    held_until: Mapping[str, str] = field(default_factory=dict)
    """Page -> page: the first page's call waits at the door until the second
    has been called (or ``services.HOLD_TIMEOUT`` passes), and only then
    takes its latency.  An order of events a case relies on, so that it
    holds however late a loaded machine runs any thread."""
    deadline: float | None = None
    """The case's deadline in seconds, when the sequential estimate does not
    fit it (a hung call would hold a crawl that waits for it that long)."""
    subdomains: bool = False
    """The scope takes in the start hostname's subdomains too (the
    ``politeness`` round's web of several hosts); see :func:`in_scope`."""

    def latency_of(self, page: str) -> float:
        return self.latency.get(page, self.default_latency)


def in_scope(case: Case, url: str) -> bool:
    """Whether ``url`` is in the case's scope: its hostname equals the start's
    (the question's rule), or, in a case with ``subdomains``, ends with
    ``"." +`` the start's (``h1.a.com`` from ``a.com``; ``xa.com`` is not)."""
    host, start = hostname(url), hostname(case.start)
    return host == start or (case.subdomains and host is not None and host.endswith(f".{start}"))


def expected_pages(case: Case) -> list[str]:
    """The right answer: every page reachable from ``case.start`` in scope
    (:func:`in_scope`), fragments dropped, a failing page kept but not expanded."""
    return sorted(depths(case))


def depths(case: Case) -> dict[str, int]:
    """BFS depth of every expected page (the trace's ``depth`` field)."""
    start = defrag(case.start)
    depth = {start: 0}
    queue = deque([start])
    while queue:
        page = queue.popleft()
        if page in case.failing or (case.max_depth is not None and depth[page] >= case.max_depth):
            continue
        for link in case.links.get(page, ()):
            link = defrag(link)
            if link not in depth and in_scope(case, link):
                depth[link] = depth[page] + 1
                queue.append(link)
    return depth


def _site(base: str, paths: Mapping[str, Iterable[str]]) -> dict[str, tuple[str, ...]]:
    """Write a small web with paths: ``"/x"`` becomes ``base + "/x"``; a link
    that already has a scheme is kept as written."""

    def absolute(ref: str) -> str:
        return ref if "://" in ref else base + ref

    return {absolute(page): tuple(absolute(link) for link in links) for page, links in paths.items()}


# ---------------------------------------------------------------- seed cases


def basic() -> Case:
    web = _site(A, {"/": ["/x", "/y"], "/x": ["/y", "/"], "/y": []})
    # /x returns while /y is still in flight, and /x links to /y: a crawler
    # that marks pages seen only when their fetch finishes fetches /y again.
    return Case(
        name="basic",
        title="/ links /x and /y; /x links /y and back to / (3 pages, each fetched once)",
        lesson="Keep one seen set, add a URL to it when you submit its fetch, and stop when no fetch is in flight.",
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L4",
        latency={f"{A}/": 0.005, f"{A}/x": 0.015, f"{A}/y": 0.06},
        seed_case=True,
    )


def cycle() -> Case:
    web = _site(A, {"/1": ["/2"], "/2": ["/3"], "/3": ["/1"]})
    return Case(
        name="cycle",
        title="/1 -> /2 -> /3 -> /1: the crawl must end and return all three",
        lesson="A seen set checked before every submit is what stops a cycle from being crawled forever.",
        start=f"{A}/1",
        links=web,
        max_workers=4,
        level="L5",
        default_latency=0.003,
        seed_case=True,
    )


def no_links() -> Case:
    return Case(
        name="no-links",
        title="the start page has no links: the result is just the start URL",
        lesson="The start page belongs in the result even when it links nowhere.",
        start=f"{A}/",
        links={f"{A}/": ()},
        max_workers=4,
        level="L4",
        default_latency=0.003,
        seed_case=True,
    )


def host_scope() -> Case:
    web = _site(
        A,
        {
            "/": [
                "/about",
                "http://blog.a.com/p",
                "http://b.com/",
                "http://a.com.evil.com/x",
                "http://xa.com/",
                "http://evil.com/a.com/y",
                "http://pa.com/",
                "http://ta.com/t",
                "http://evil-a.com/",
            ],
            "http://pa.com/": ["/only-via-pa"],
            "http://ta.com/t": [],
            "http://evil-a.com/": [],
            "/only-via-pa": [],
            "/about": ["/"],
            "http://blog.a.com/p": ["/only-via-blog"],
            "http://a.com.evil.com/x": ["/only-via-evil"],
            "http://xa.com/": ["/only-via-xa"],
            "http://b.com/": ["http://b.com/2"],
            "http://b.com/2": [],
            "http://evil.com/a.com/y": [],
            "/only-via-blog": [],
            "/only-via-evil": [],
            "/only-via-xa": [],
        },
    )
    return Case(
        name="host-scope",
        title=(
            "links to a subdomain (blog.a.com), look-alike hosts (a.com.evil.com, xa.com, pa.com, ta.com, "
            "evil-a.com) and another host (b.com)"
        ),
        lesson=(
            "Compare hostnames for equality (urlsplit(url).hostname == start host): "
            "a subdomain is another host, a host that merely contains 'a.com' is not a.com, and "
            "url.lstrip('http://') strips characters, not a prefix (http://pa.com becomes a.com)."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L4",
        default_latency=0.004,
        seed_case=True,
    )


def fragments() -> Case:
    web = _site(
        A,
        {
            "/": ["/x", "/x#top", "/z#section"],
            "/x": ["/#main", "/y"],
            "/y": [],
            "/z": ["/x#top"],
        },
    )
    return Case(
        name="fragments",
        title="/x is linked as /x and /x#top, /z only as /z#section, / as /#main: each is one page",
        lesson=(
            "Drop the #fragment before the seen check (urldefrag): it names a part of the same page, "
            "and servers never see it."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L5",
        latency=spread(web, 0.004, 0.02),
        seed_case=True,
        rules="interview",
    )


def fetch_error() -> Case:
    web = _site(A, {"/": ["/x", "/y"], "/x": ["/never-seen"], "/y": ["/z", "/x"], "/z": []})
    # /x fails early while /y (whose child /z is still to come) is in flight,
    # so a crawl that stops on the first error is missing /z.
    return Case(
        name="fetch-error",
        title="get_urls raises for /x: /x stays in the result (with no links) and the crawl finishes",
        lesson=(
            "Catch the exception around get_urls for that one page, count the page as found with no links, "
            "and keep crawling; an error must not end the crawl or lose the pages still to come."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L5",
        latency={f"{A}/": 0.004, f"{A}/x": 0.004, f"{A}/y": 0.03, f"{A}/z": 0.01},
        failing=frozenset({f"{A}/x"}),
        seed_case=True,
        rules="interview",
    )


def diamond(size: int = 50) -> Case:
    pages = [f"{A}/p{i}" for i in range(size)]
    web = {page: tuple(other for other in pages if other != page) for page in pages}
    return Case(
        name=f"diamond-{size}",
        title=f"{size} pages that all link to each other, max_workers=8: exactly {size} fetches",
        lesson=(
            "Every page is linked from every other one: only marking a URL seen when it is submitted "
            "keeps it to one fetch."
        ),
        start=pages[0],
        links=web,
        max_workers=8,
        level="L4",
        latency=spread(pages, 0.002, 0.008),
        seed_case=True,
    )


SLOW_START = 0.2
"""The slow-service start page takes this long, so every worker but one
waits on an empty queue for a while: a worker that quits on an idle
timeout shorter than this is gone before the real work arrives."""


def slow_service(children: int, grandchildren: int, latency: float) -> Case:
    web: dict[str, tuple[str, ...]] = {}
    kids = [f"{A}/s{i}" for i in range(children)]
    web[f"{A}/"] = tuple(kids)
    for i, kid in enumerate(kids):
        leaves = [f"{A}/s{i}/{j}" for j in range(grandchildren)]
        web[kid] = tuple(leaves)
        web.update({leaf: (f"{A}/",) for leaf in leaves})
    total = len(web)
    return Case(
        name="slow-service",
        title=(
            f"{total} pages, {latency * 1000:.0f} ms each (the start page {SLOW_START:g} s), max_workers=10: "
            "same list as a sequential crawl"
        ),
        lesson="The concurrent crawl must return exactly what a sequential BFS returns.",
        start=f"{A}/",
        links=web,
        max_workers=10,
        level="L4",
        default_latency=latency,
        latency={f"{A}/": SLOW_START},
        seed_case=True,
    )


def narrow_pool(workers: int, width: int = 12) -> Case:
    kids = [f"/w{i}" for i in range(width)]
    web = _site(A, {"/": kids, **{kid: ["/"] for kid in kids}})
    return Case(
        name=f"pool-{workers}",
        title=f"max_workers={workers} and {width} pages ready at once: never more than {workers} fetches in flight",
        lesson=(
            "Size the pool from max_workers (ThreadPoolExecutor(max_workers=max_workers)), never a constant: "
            "the caller may allow fewer workers than you would pick."
        ),
        start=f"{A}/",
        links=web,
        max_workers=workers,
        level="L4",
        default_latency=0.02,
    )


# ------------------------------------------------------- forced-race cases


def seen_race() -> Case:
    web = _site(A, {"/": ["/a", "/b"], "/a": ["/c"], "/b": ["/c"], "/c": []})
    # /a and /b are held until both are in flight, then return together,
    # both linking /c; /c is slow enough to still be in flight when the
    # second of them is processed.  Marking seen on finish fetches /c twice,
    # on every run.
    return Case(
        name="seen-race",
        title="/a and /b are in flight together and both link /c (forced overlap): /c is fetched once",
        lesson=(
            "Mark a URL seen when you submit its fetch, not when the fetch finishes: otherwise two pages "
            "in flight together that both link the same URL each submit it."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L5",
        latency={f"{A}/": 0.002, f"{A}/a": 0.005, f"{A}/b": 0.005, f"{A}/c": 0.06},
        groups=(frozenset({f"{A}/a", f"{A}/b"}),),
        race=True,
    )


def check_then_add(shared: int = 40) -> Case:
    kids = [f"/k{i}" for i in range(shared)]
    web = _site(A, {"/": ["/a", "/b"], "/a": kids, "/b": kids, **{kid: [] for kid in kids}})
    # /a and /b return together with the same links; worker threads that each
    # run `if link not in seen: seen.add(link)` without a lock can both pass
    # the check for one link before either adds it.
    return Case(
        name="check-then-add",
        title=(
            f"/a and /b are in flight together and return the same {shared} links at once: "
            "each link is fetched once, whichever thread handles it"
        ),
        lesson=(
            "When worker threads share the seen set, make the check and the add one step under a lock "
            "(with lock: if link in seen: continue; seen.add(link)), or let one coordinator thread own seen."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L5",
        latency={f"{A}/": 0.002, f"{A}/a": 0.005, f"{A}/b": 0.005},
        default_latency=0.002,
        groups=(frozenset({f"{A}/a", f"{A}/b"}),),
        race=True,
    )


TERMINATION_SLOW = tuple(f"{A}/slow{i}" for i in range(1, 5))


def termination(slow: float) -> Case:
    paths: dict[str, list[str]] = {"/": [f"/slow{i}" for i in range(1, 5)]}
    for i in range(1, 5):
        paths[f"/slow{i}"] = [f"/g{i}"]
        paths[f"/g{i}"] = [f"/h{i}"]
        paths[f"/h{i}"] = []
    web = _site(A, paths)
    latency = {page: 0.003 for page in web}
    latency.update({page: slow for page in TERMINATION_SLOW})
    return Case(
        name="termination",
        title=(
            f"the start page's 4 children take {slow:.2f} s each, so nothing is queued while they are in flight; "
            "their children and grandchildren must still be crawled"
        ),
        lesson=(
            "An empty queue does not mean the crawl is done: fetches still in flight can return new links. "
            "Count the fetches in flight and stop only when none remain (and nothing is queued)."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L5",
        latency=latency,
    )


# ---------------------------------------------------------------- scale cases


def many_hosts(hosts: int, pages_per_host: int) -> Case:
    rng = random.Random(1701)
    names = [f"http://h{i:02d}.example" for i in range(hosts)]
    web: dict[str, tuple[str, ...]] = {}
    for base in names:
        for p in range(pages_per_host):
            same = [f"{base}/{(p + k) % pages_per_host}" for k in (1, 3)]
            other = [f"{rng.choice(names)}/{rng.randrange(pages_per_host)}" for _ in range(3)]
            web[f"{base}/{p}"] = tuple(same + other)
    return Case(
        name="many-hosts",
        title=f"{hosts} hosts x {pages_per_host} pages linking across hosts: only the start host's pages",
        lesson="Only the start host is in scope, however many other hosts the pages link to.",
        start=f"{names[0]}/0",
        links=web,
        max_workers=8,
        level="L6",
        latency=spread(web, 0.0005, 0.003),
    )


def deep_chain(length: int) -> Case:
    pages = [f"{A}/c{i}" for i in range(length)]
    web = {page: (pages[i + 1], pages[0]) if i + 1 < length else (pages[0],) for i, page in enumerate(pages)}
    return Case(
        name="deep-chain",
        title=f"a chain of {length} pages, each linking the next (deeper than Python's default recursion limit)",
        lesson="Use an explicit queue, not recursion: a long chain of links must not exhaust the stack.",
        start=pages[0],
        links=web,
        max_workers=4,
        level="L6",
        rules="interview",
    )


def large_graph(size: int) -> Case:
    rng = random.Random(20240)
    pages = [f"{A}/n{i}" for i in range(size)]
    web: dict[str, tuple[str, ...]] = {}
    for i, page in enumerate(pages):
        links = [pages[c] for c in (2 * i + 1, 2 * i + 2) if c < size]  # a tree keeps every page reachable
        links += [pages[rng.randrange(size)] for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.05:
            links.append(f"http://cdn{rng.randrange(5)}.a-com.net/n{i}")
        web[page] = tuple(links)
    return Case(
        name="large-graph",
        title=f"{size} pages with random links (repeats, other hosts): each fetched once",
        lesson="The crawl must stay correct and fast on thousands of pages.",
        start=pages[0],
        links=web,
        max_workers=8,
        level="L6",
    )


# ---------------------------------------------------------------- notes and strict rules


def url_details() -> Case:
    web = {
        f"{A}/": ("http://a.com:8080/port", "http://user@a.com/userinfo"),
        "http://a.com:8080/port": (),
        "http://user@a.com/userinfo": (),
    }
    return Case(
        name="url-details",
        title=(
            "links with a port (a.com:8080) and userinfo (user@a.com): their hostname is a.com, so by the "
            "letter of both statements they are in scope"
        ),
        lesson=(
            "Compare urlsplit(url).hostname, not the netloc or a hand-split string: the port and "
            "'user@' are not part of the hostname."
        ),
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L6",
        default_latency=0.003,
        rules="strict",
    )


def host_case() -> Case:
    web = {f"{A}/": ("http://A.COM/caps",), f"{A}/caps": ()}
    return Case(
        name="host-case",
        title="/ links http://A.COM/caps: host names are case-insensitive, so it is on a.com",
        lesson="urlsplit(url).hostname lowercases the host, so an exact comparison of it follows this link.",
        start=f"{A}/",
        links=web,
        max_workers=4,
        level="L6",
        default_latency=0.003,
        kind="note",
    )


@dataclass(frozen=True)
class Sizes:
    """What `--quick` shrinks.  The race cases keep their shape: they are
    cheap, and shrinking them would stop them from proving anything."""

    slow_children: int
    slow_grandchildren: int
    slow_latency: float
    termination_slow: float
    hosts: int
    pages_per_host: int
    chain: int
    large: int


FULL = Sizes(9, 10, 0.02, 0.5, 30, 8, 1100, 2000)
QUICK = Sizes(3, 12, 0.02, 0.25, 12, 6, 1100, 500)


def all_cases(quick: bool = False) -> list[Case]:
    """Every case in report order."""
    s = QUICK if quick else FULL
    return [
        basic(),
        cycle(),
        no_links(),
        host_scope(),
        fragments(),
        fetch_error(),
        diamond(50),
        seen_race(),
        check_then_add(),
        termination(s.termination_slow),
        slow_service(s.slow_children, s.slow_grandchildren, s.slow_latency),
        narrow_pool(2),
        narrow_pool(3),
        many_hosts(s.hosts, s.pages_per_host),
        deep_chain(s.chain),
        large_graph(s.large),
        url_details(),
        host_case(),
    ]


def case_named(name: str, quick: bool = False, termination_slow: float | None = None) -> Case:
    """One case by name (the sandboxed child rebuilds the parent's case this
    way: only the name and two numbers cross the pipe)."""
    if name == "termination" and termination_slow is not None:
        return termination(termination_slow)
    for case in all_cases(quick):
        if case.name == name:
            return case
    raise KeyError(name)


CASE_NAMES: tuple[str, ...] = tuple(case.name for case in all_cases(quick=True))
