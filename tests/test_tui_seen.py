"""The seen-set panel: seen, frontier and in flight as nested sets, from the
replayed events, checked (not assumed) at every step."""

from __future__ import annotations

import re

import pytest

from crawlsim.trace.events import Discovered, Event, Skipped
from crawlsim.scenario import load_scenario
from crawlsim.sim.driver import simulate
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.widgets import PagesView, SeenView

SIZE = (160, 48)


def shown(app: CrawlApp) -> dict[str, int | bool]:
    """What the seen panel says: the three sizes and whether the check holds."""
    panel = app.query_one(SeenView)
    title, body = str(panel.border_title), panel.plain()
    return {
        "seen": int(re.search(r"seen (\d+) URLs?\b", title).group(1)),
        "frontier": int(re.search(r"frontier (\d+)", body).group(1)),
        "in flight": int(re.search(r"in flight (\d+)", body).group(1)),
        "holds": "✓" in title and "✗" not in title,
    }


def is_robots_skip(e: Event) -> bool:
    return isinstance(e, Skipped) and e.reason == "robots"


def legend(app: CrawlApp, word: str) -> int:
    return int(re.search(rf"{word} (\d+)", app.query_one(PagesView).plain().splitlines()[0]).group(1))


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("see-it", {"normalize": "off"}),  # other spellings of pages: duplicate fetches too
        ("polite", {}),  # robots.txt refuses some links as they are found: seen, never queued
    ],
)
async def test_each_step_shows_seen_containing_frontier_and_in_flight(name: str, options: dict[str, str]) -> None:
    scenario = load_scenario(name).with_options(**options)
    trace = simulate(scenario).trace
    app = CrawlApp(scenario, paused=True, animate=False, threaded=False)
    async with app.run_test(size=SIZE) as pilot:
        history = []
        while app.t < app.end:
            await pilot.press("full_stop")  # one event time further
            now = shown(app)
            # seen: every URL discovered so far, or refused by robots.txt as it was found ...
            marked = {e.url for e in trace if e.t <= app.t and (isinstance(e, Discovered) or is_robots_skip(e))}
            assert now["seen"] == len(marked)
            # ... the frontier and the fetches in flight are the pages view's, inside it
            assert now["frontier"] == legend(app, "frontier") and now["in flight"] == legend(app, "fetching")
            assert now["holds"] and now["frontier"] + now["in flight"] <= now["seen"]
            history.append(now)
        assert [h["seen"] for h in history] == sorted(h["seen"] for h in history)
        assert max(h["frontier"] for h in history) > 0 and max(h["in flight"] for h in history) > 0
        assert history[-1]["frontier"] == history[-1]["in flight"] == 0  # the crawl is over


async def test_a_trace_that_fetches_an_unseen_url_shows_the_broken_invariant() -> None:
    """The check is made, not drawn regardless: a (hand-edited) trace that
    fetches a URL it never discovered shows it outside the seen set."""
    trace = list(simulate(load_scenario("see-it")).trace)  # one object per event, so `is` below can match
    lost = next(e for e in trace if isinstance(e, Discovered) and e.parent is not None)
    broken = [e for e in trace if e is not lost]
    app = CrawlApp(trace=broken, paused=True, animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        assert shown(app)["holds"]  # at the end nothing is queued or in flight
        fetched = next(e.t for e in trace if getattr(e, "url", None) == lost.url and type(e).__name__ == "FetchStarted")
        app.seek_to(fetched)
        await pilot.pause()
        title = str(app.query_one(SeenView).border_title)
        assert "✗ 1 queued or in flight, not seen" in title
