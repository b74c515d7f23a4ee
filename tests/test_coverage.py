"""Coverage that is true: pages reachable, fetched and lost, and the words every report uses.

An unlisted URL is a 404 (a failed fetch), never a phantom page; aggressive
normalization's lost page is named with its reason; reachable = fetched +
lost over random webs and modes; the app, the JSON and the replay say the
same numbers in the same words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.commands import run as run_command
from crawlsim.trace.events import FetchFinished, FetchStarted
from crawlsim.views.replay import PageState, Replay
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.coverage import LOSS_REASONS, REACH_LIMIT, coverage_of, declared_size
from crawlsim.sim.driver import simulate
from crawlsim.sim.explicit import ExplicitWeb
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.widgets import CountersBar, PagesView

# -- the synthetic web answers what a server would ----------------------------------------


def test_a_url_the_web_does_not_list_answers_404() -> None:
    web = ExplicitWeb({"http://a.com/": ["/docs/", "leaf"], "http://a.com/docs/": ["guide"]})
    assert web.response("http://a.com/docs/").status == 200
    assert web.response("http://a.com/leaf").status == 200  # linked, not written: a page with no links
    assert web.response("http://a.com/docs/guide").links == []
    for missing in ("http://a.com/docs", "http://a.com/nope", "https://a.com/docs", "http://elsewhere.org/"):
        reply = web.response(missing)
        assert (reply.status, reply.links) == (404, []), missing
        assert web.page_at(missing) is None


def test_a_respelled_link_is_a_failed_fetch_not_a_phantom_page() -> None:
    scenario = load_scenario("see-it").with_options(normalize="aggressive")
    run = simulate(scenario)
    assert run.failures == {"https://a.com/docs": "HTTP 404"}
    assert run.stats.failed == 1
    assert run.stats.pages_fetched == 13  # not 14: the phantom is no longer counted as a page


# -- the lost page, in every report -------------------------------------------------------


def run_json(capsys, *argv: str) -> dict:
    assert run_command.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_aggressive_see_it_loses_docs_to_normalization(capsys) -> None:
    data = run_json(capsys, "see-it", "--normalize", "aggressive")
    assert data["pages_reachable"] == 14
    assert data["pages_fetched"] == 13
    assert [(item["page"], item["reason"]) for item in data["pages_lost"]] == [("http://a.com/docs/", "normalization")]
    assert "https://a.com/docs" in data["pages_lost"][0]["detail"]
    assert data["pages_reachable"] == data["pages_fetched"] + len(data["pages_lost"])
    assert data["pages_fetched_unreachable"] == []
    for key in ("finish_time", "fetches", "duplicate_fetches", "failed", "found", "bounds", "explanation", "failures"):
        assert key in data  # the existing keys stay
    # the readable summary names it too
    assert run_command.main(["see-it", "--normalize", "aggressive"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"pages reachable\s+14", text)
    assert re.search(r"pages lost\s+1", text)
    assert "http://a.com/docs/  normalization" in text
    assert re.search(r"failed fetches\s+1", text)


def test_safe_normalization_loses_nothing_on_see_it(capsys) -> None:
    for mode in ("off", "fragment", "rfc3986"):
        data = run_json(capsys, "see-it", "--normalize", mode)
        assert (data["pages_reachable"], data["pages_fetched"], data["pages_lost"]) == (14, 14, []), mode


def test_robots_and_failures_are_reasons_too(capsys) -> None:
    data = run_json(capsys, "polite")
    reasons = {item["page"]: item["reason"] for item in data["pages_lost"]}
    assert reasons["http://a.com/private/admin"] == "robots"
    assert data["pages_reachable"] == data["pages_fetched"] + len(data["pages_lost"])
    data = run_json(capsys, "interview-scope")
    assert {item["reason"] for item in data["pages_lost"]} == {"failed"}


def test_webs_too_large_or_endless_say_not_counted(capsys) -> None:
    data = run_json(capsys, "trap")
    assert data["pages_reachable"] is None and data["pages_lost"] is None
    assert "endless trap" in data["coverage_note"]
    million = load_scenario("million")
    size = declared_size(million.web, REACH_LIMIT)
    assert size is not None and size > REACH_LIMIT  # stops counting early, never walks the web


def test_the_trace_summary_names_the_lost_page(tmp_path, capsys) -> None:
    from crawlsim.commands import trace

    assert trace.main(["see-it", "--normalize", "aggressive", "-o", str(tmp_path / "t.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "14 pages reachable, 13 fetched, 1 lost (normalization)" in out
    assert "1 failed" in out


# -- reachable = fetched + lost, over random webs and modes -----------------------------------

PATHS = ["/", "/d/", "/d", "/d/e", "/D", "/x", "/x/", "/y?b=1&a=2", "/y?a=2&b=1"]
HREFS = [
    "/",
    "/d/",
    "/d",
    "e",
    "../x",
    "x#top",
    "/x/",
    "/D",
    "HTTP://A.COM/x",
    "http://a.com:80/d/",
    "http://www.a.com/x",
    "https://a.com/d",
    "/y?b=1&a=2",
    "/y?a=2&b=1",
    "http://b.com/",
    "http://b.com/d/",
    "//b.com/x",
    "mailto:me@a.com",
]
MODES = ["off", "fragment", "rfc3986", "aggressive", "rfc3986+trailing_slash", "rfc3986+https", "rfc3986+sort_query"]


@st.composite
def small_webs(draw: st.DrawFn) -> dict:
    pages: dict[str, object] = {}
    for host in ("a.com", "b.com"):
        for path in draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=6, unique=True)):
            links = draw(st.lists(st.sampled_from(HREFS), max_size=5))
            status = draw(st.sampled_from([200, 200, 200, 200, 500, 404, 503]))
            pages[f"http://{host}{path}"] = {"links": links, "status": status}
    pages.setdefault("http://a.com/", {"links": draw(st.lists(st.sampled_from(HREFS), min_size=1, max_size=5))})
    crawl: dict[str, object] = {
        "workers": draw(st.integers(1, 4)),
        "normalize": draw(st.sampled_from(MODES)),
        "scope": draw(st.sampled_from(["any", "host"])),
        "max_retries": draw(st.integers(0, 1)),
    }
    if draw(st.integers(0, 4)) == 0:  # an inexact seen set, small enough to err
        crawl.update(seen="bloom", bloom_capacity=draw(st.sampled_from([1, 3])), bloom_error_rate=0.5)
    if draw(st.booleans()):
        crawl["depth_limit"] = draw(st.integers(0, 3))
    if draw(st.booleans()):
        crawl["max_pages"] = draw(st.integers(1, 10))
    return {
        "start": "http://a.com/",
        "seed": draw(st.integers(0, 5)),
        "crawl": crawl,
        "hosts": {"*": {"latency": draw(st.sampled_from([1.0, 0.5]))}},
        "pages": pages,
    }


@settings(max_examples=300)
@given(small_webs())
def test_reachable_is_fetched_plus_lost(data: dict) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    run = simulate(scenario)
    coverage = coverage_of(scenario, run)
    assert coverage.reachable is not None and coverage.lost is not None
    lost = [item.page for item in coverage.lost]
    assert coverage.fetched == run.stats.pages_fetched
    assert coverage.reachable == run.stats.pages_fetched - len(coverage.outside) + len(lost)
    assert len(set(lost)) == len(lost)
    assert all(item.reason in LOSS_REASONS for item in coverage.lost)
    # a lost page was never fetched under any spelling, and every fetched page is a real page
    started = {e.fetch_id: e for e in run.trace if isinstance(e, FetchStarted) and e.kind == "page"}
    answered = {
        started[e.fetch_id].page
        for e in run.trace
        if isinstance(e, FetchFinished) and e.fetch_id in started and e.status < 400
    }
    assert not answered & set(lost)
    assert all(scenario.web.page_at(page) == page for page in answered)
    # the crawl cannot lose a page for a reason it does not have
    options = scenario.options
    reasons = {item.reason for item in coverage.lost}
    if options.depth_limit is None:
        assert "depth" not in reasons
    if options.max_pages is None:
        assert "cap" not in reasons
    if options.seen != "bloom":
        assert "false positive" not in reasons
    if options.normalize_steps <= frozenset({"lowercase", "default_port", "dot_segments", "fragment"}):
        assert "normalization" not in reasons  # the safe steps never merge two pages


def test_a_bloom_false_positive_is_named_as_such() -> None:
    pages = {"http://a.com/": [f"/p{i}" for i in range(40)]}
    crawl = {"seen": "bloom", "bloom_capacity": 1, "bloom_error_rate": 0.5, "scope": "any"}
    scenario = scenario_from_dict({"start": "http://a.com/", "crawl": crawl, "pages": pages}, path="<bloom>")
    coverage = coverage_of(scenario, simulate(scenario))
    assert coverage.lost, "a one-URL Bloom filter at 50% error must take some new link for seen"
    assert {item.reason for item in coverage.lost} == {"false positive"}
    assert "Bloom" in coverage.lost[0].detail


# -- one vocabulary: the app says what run --json says ---------------------------------------


def counter(text: str, label: str) -> str:
    match = re.search(rf"(?:^|\s){label} (\S+)", text)
    assert match is not None, (label, text)
    return match.group(1)


async def test_app_counters_and_legend_agree_with_run_json(capsys) -> None:
    for name, mode in (("see-it", "aggressive"), ("see-it", "off"), ("variants", "off"), ("polite", "rfc3986")):
        data = run_json(capsys, name, "--normalize", mode)
        app = CrawlApp(load_scenario(name).with_options(normalize=mode), paused=True, animate=False, threaded=False)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.press("end")
            counters = app.query_one(CountersBar).plain()
            legend = app.query_one(PagesView).plain().splitlines()[0]
            lost = len(data["pages_lost"])
            expected = f"{data['pages_fetched']}/{data['pages_reachable']}" + (f", {lost} lost" if lost else "")
            assert f"fetched {expected} " in counters, (name, mode, counters)
            assert int(counter(counters, "dup")) == data["duplicate_fetches"]
            assert int(counter(counters, "failed")) == data["failed"]
            assert int(counter(legend, "fetched")) == data["pages_fetched"]
            if data["duplicate_fetches"]:
                assert int(counter(legend, "dup")) == data["duplicate_fetches"]
            if data["failed"]:
                assert int(counter(legend, "failed")) == data["failed"]


async def test_mid_crawl_duplicates_in_flight_are_shown_apart() -> None:
    # the screen: variants paused mid-crawl, some duplicate fetches still in flight
    app = CrawlApp(load_scenario("variants"), paused=True, at=21.0, animate=False, threaded=False)
    async with app.run_test(size=(160, 48)):
        counters = app.query_one(CountersBar).plain()
        legend = app.query_one(PagesView).plain().splitlines()[0]
        c = app.result.replay.counters()
        assert c.duplicates_in_flight > 0
        assert f"dup {c.duplicates} +{c.duplicates_in_flight} in flight" in counters
        assert int(counter(legend, "dup")) == c.duplicates


def test_a_duplicate_row_names_the_spelling_fetched_first() -> None:
    for name, mode in (("see-it", "off"), ("variants", "off"), ("see-it", "fragment")):
        scenario = load_scenario(name).with_options(normalize=mode)
        run = simulate(scenario)
        replay = Replay(run.trace)
        replay.seek(replay.end)
        first: dict[str, tuple[float, str]] = {}
        for e in run.trace:
            if isinstance(e, FetchStarted) and e.kind == "page" and not e.duplicate:
                first.setdefault(e.page, (e.t, e.url))
        dups = [p for p in replay.page_list if p.state == PageState.DUPLICATE]
        assert dups
        for page in dups:
            named = page.note.removeprefix("duplicate of ")
            assert named != page.url  # never "a duplicate of itself"
            assert named == first[scenario.web.page_of(page.url)][1]


async def test_the_app_row_and_the_log_use_the_words() -> None:
    app = CrawlApp(load_scenario("see-it").with_options(normalize="off"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("end")
        rows = app.query_one(PagesView).plain().splitlines()
        # http://a.com:80/docs/api: one server with a.com (one host key), so its row sits under
        # a.com, spelled with the port it was written with
        api = [row for row in rows if re.match(r"◆ :80/docs/api\s", row)]
        assert len(api) == 1 and "duplicate of http://" in api[0]
        assert not re.search(r"duplicate of http://a\.com:80/docs/api\s*$", api[0])  # another spelling, not itself
        from crawlsim.tui.widgets import EventLog

        log = app.query_one(EventLog).plain()
        assert "DONE    20 URLs queued, 20 fetches" in log


def test_the_widget_names_the_lost_page() -> None:
    import pytest

    pytest.importorskip("ipywidgets")
    from crawlsim.notebook import CrawlWidget
    from crawlsim.notebook.draw import describe

    w = CrawlWidget("see-it", frames=20)
    w.normalize.value = "aggressive"  # the what-if: reruns the crawl
    summary = w.summary.value
    assert "14 pages reachable, 13 fetched" in summary
    assert "1 failed fetch " in summary.replace("<", " <")
    assert "1 page lost: http://a.com/docs/ (normalization" in summary
    w.frame(w.result.finish)  # the widget opens at t = 0: look at the end
    c = w.result.replay.counters()
    assert "fetched 13/14, 1 lost" in describe(c, w.result.finish)


def test_compare_shows_the_loss(capsys) -> None:
    from crawlsim.commands import compare

    assert compare.main(["see-it", "--a", "normalize=rfc3986", "--b", "normalize=aggressive"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"pages reachable\s+14\s+14", out)
    assert re.search(r"pages fetched\s+14\s+13", out)
    assert re.search(r"pages lost\s+0\s+1 \(normalization\)", out)


def test_the_words_page_defines_what_run_prints_about_bounds(capsys) -> None:
    """The bounds' and the frontier's words, as `run` and its --json print them, are each defined
    on the Words page (the reader of `<- binding` or `efficiency 95%` can look them up)."""
    assert run_command.main(["see-it"]) == 0
    text = capsys.readouterr().out
    data = run_json(capsys, "see-it")
    printed = ["lower bounds on the finish time", "<- binding", "efficiency"]
    assert all(phrase in text for phrase in printed)
    assert {"bounds", "binding_bound", "efficiency", "peak_frontier"} <= set(data)
    words = " ".join((Path(__file__).resolve().parent.parent / "docs" / "reference" / "words.md").read_text().split())
    for term in ["**frontier**", "**bound**", "**binding**", "**efficiency**", "`peak_frontier`", "`binding_bound`"]:
        assert term in words, term
    assert all(f"`{phrase}" in words for phrase in printed[:2])


# -- what the crawl's own settings left out is said, with the flag that widens it ---------


def test_a_host_scope_that_drops_most_of_the_web_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # 2,000 pages on 40 hosts crawled with scope = "host": "pages reachable 613"
    # and nothing said that the scope left out the other 1,387
    assert run_command.main(["busiest-host", "--scope", "host", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (scope,) = [item for item in data["narrowed"] if item["by"] == "scope"]
    assert scope["of"] == 2_000 and scope["pages"] == 2_000 - data["pages_reachable"]
    assert scope["widen"] == "--scope domain or --scope any widens it"
    assert run_command.main(["busiest-host", "--scope", "host"]) == 0
    text = capsys.readouterr().out
    assert f"scope host left out {scope['pages']:,} of the 2,000 pages the links lead to" in text
    assert "--scope domain or --scope any widens it" in text


def test_caps_and_robots_say_what_they_lost_and_what_widens_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command.main(["polite", "--max-pages", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by = {item["by"]: item for item in data["narrowed"]}
    assert set(by) == {"cap", "robots"}
    lost = [item["reason"] for item in data["pages_lost"]]
    assert by["cap"]["pages"] == lost.count("cap") and by["robots"]["pages"] == lost.count("robots")
    assert by["cap"]["widen"] == "a higher --max-pages widens it"
    assert "overriding the sites' own robots.txt" in by["robots"]["widen"]


def test_a_crawl_nothing_narrowed_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command.main(["busiest-host", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["narrowed"] == []

