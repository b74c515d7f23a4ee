"""Properties of the scheduler over random multi-host graphs and options."""

from __future__ import annotations

from collections import Counter, deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.core import CrawlOptions, FetchStarted
from tests.fakeclock import run_fake

HOSTS = ["a.com", "b.com", "c.org", "d.net"]


@st.composite
def webs(draw: st.DrawFn) -> tuple[dict[str, list[str]], dict[str, float]]:
    """A random web: pages on a few hosts, random links (some repeated)."""
    n = draw(st.integers(1, 30))
    pages = [f"http://{draw(st.sampled_from(HOSTS))}/p{i}" for i in range(n)]
    pages[0] = "http://a.com/p0"
    graph = {p: [pages[j] for j in draw(st.lists(st.integers(0, n - 1), max_size=6))] for p in pages}
    latency = {p: draw(st.sampled_from([0.5, 1.0, 1.5, 3.0])) for p in pages}
    return graph, latency


@st.composite
def option_sets(draw: st.DrawFn) -> CrawlOptions:
    return CrawlOptions(
        workers=draw(st.integers(1, 6)),
        per_host=draw(st.none() | st.integers(1, 3)),
        gap=draw(st.sampled_from([0.0, 0.0, 0.25, 1.0, 2.5])),
        randomize_gap=draw(st.booleans()),
        order=draw(st.sampled_from(["bfs", "dfs"])),
        frontier=draw(st.sampled_from(["per-host", "fifo"])),
        scope="any",
        seen=draw(st.sampled_from(["exact", "hash"])),
        seed=draw(st.integers(0, 3)),
    )


def reachable(graph: dict[str, list[str]], start: str) -> set[str]:
    seen, queue = {start}, deque([start])
    while queue:
        for link in graph.get(queue.popleft(), []):
            if link not in seen:
                seen.add(link)
                queue.append(link)
    return seen


PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(webs(), option_sets())
def test_limits_hold_and_every_reachable_page_is_fetched_once(web, opts: CrawlOptions) -> None:
    graph, latency = web
    run = run_fake(graph, ["http://a.com/p0"], opts, latency=lambda u: latency.get(u, 1.0))
    fetched = Counter(s.url for s in run.starts)
    # terminates (run_fake raises otherwise), each canonical URL at most once
    assert set(fetched.values()) <= {1}
    # with no caps the fetched set is exactly the reachable in-scope set
    assert set(fetched) == reachable(graph, "http://a.com/p0")
    # global and per-host in-flight caps
    assert run.max_in_flight <= opts.workers
    per_host = opts.per_host or opts.workers
    assert all(n <= per_host for n in run.max_in_flight_per_host.values())
    # consecutive starts to one host are at least `gap` apart (0.5 gap when randomised)
    min_gap = opts.gap * (0.5 if opts.randomize_gap else 1.0)
    last: dict[str, float] = {}
    for s in run.starts:
        if s.host in last:
            assert s.t - last[s.host] >= min_gap - 1e-9
        last[s.host] = s.t
    # worker slots are distinct among fetches in flight at once
    assert all(0 <= s.slot < opts.workers for s in run.starts)


def bfs_order(graph: dict[str, list[str]], start: str) -> list[str]:
    order, seen, queue = [], {start}, deque([start])
    while queue:
        page = queue.popleft()
        order.append(page)
        for link in graph.get(page, []):
            if link not in seen:
                seen.add(link)
                queue.append(link)
    return order


def stack_order(graph: dict[str, list[str]], start: str, first_link_first: bool) -> list[str]:
    """Stack frontier, marked seen on discovery; a page's first link first (dfs) or
    its last link first (lifo, Scrapy's queue)."""
    order, seen, stack = [], {start}, [start]
    while stack:
        page = stack.pop()
        order.append(page)
        new = [link for link in dict.fromkeys(graph.get(page, [])) if link not in seen]
        seen.update(new)
        stack.extend(reversed(new) if first_link_first else new)
    return order


def dfs_order(graph: dict[str, list[str]], start: str) -> list[str]:
    return stack_order(graph, start, first_link_first=True)


def lifo_order(graph: dict[str, list[str]], start: str) -> list[str]:
    return stack_order(graph, start, first_link_first=False)


@PROPS
@given(webs(), st.sampled_from(["bfs", "dfs", "lifo"]), st.sampled_from(["per-host", "fifo"]))
def test_one_worker_fetches_in_exact_bfs_dfs_or_lifo_order(web, order: str, frontier: str) -> None:
    graph, latency = web
    opts = CrawlOptions(workers=1, order=order, frontier=frontier, scope="any")
    run = run_fake(graph, ["http://a.com/p0"], opts, latency=lambda u: latency.get(u, 1.0))
    expected = {"bfs": bfs_order, "dfs": dfs_order, "lifo": lifo_order}[order](graph, "http://a.com/p0")
    assert [s.url for s in run.starts] == expected


@PROPS
@given(webs(), st.integers(1, 10), st.integers(0, 3), st.integers(1, 4))
def test_caps_bound_the_crawl(web, max_pages: int, depth_limit: int, per_host_cap: int) -> None:
    graph, _ = web
    opts = CrawlOptions(workers=3, scope="any", max_pages=max_pages, depth_limit=depth_limit,
                        max_pages_per_host=per_host_cap)
    run = run_fake(graph, ["http://a.com/p0"], opts)
    assert len(run.starts) <= max_pages
    assert all(s.depth <= depth_limit for s in run.starts)
    assert max(Counter(s.host for s in run.starts).values()) <= per_host_cap


@PROPS
@given(webs(), st.integers(1, 4), st.booleans())
def test_fetch_starts_only_when_the_event_log_says_a_slot_is_free(web, workers: int, fifo: bool) -> None:
    """Replaying the events alone reconstructs in-flight counts within limits:
    the views rely on this."""
    graph, latency = web
    opts = CrawlOptions(workers=workers, per_host=1, scope="any", frontier="fifo" if fifo else "per-host")
    run = run_fake(graph, ["http://a.com/p0"], opts, latency=lambda u: latency.get(u, 1.0))
    busy: set[int] = set()
    for event in run.events:
        if isinstance(event, FetchStarted):
            assert event.slot not in busy
            busy.add(event.slot)
        elif type(event).__name__ in ("FetchFinished", "FetchFailed"):
            slot = next(s.slot for s in run.starts if s.fetch_id == event.fetch_id)  # type: ignore[attr-defined]
            busy.discard(slot)
        assert len(busy) <= workers
