"""The offline "See it" page in a real browser: `crawlsim html see-it`, opened
from file:// in headless Chromium with every request outside the file
refused, shows the same finish times `crawlsim run` prints, plays, answers
the what-if keys, and fits a phone and a projector.

One page is written for the whole session (shared with README's tour, which
runs the same command) and one browser started for the whole module
(tests/browser.py); each test opens the file in a fresh browser context.  Nothing sleeps: the clock's
progress is awaited with Playwright's own waits.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.browser import UI_TIMEOUT_MS, browser_page, chromium, keep_screenshot, needs_chromium  # noqa: F401 (chromium: a fixture)
from tests.shared_builds import SharedBuilds

pytestmark = [pytest.mark.browser, pytest.mark.slow, needs_chromium]
"""Slow: writing the page simulates every setting it offers (1,440 small crawls)."""


@functools.cache
def cli_finish(*flags: str) -> str:
    """The finish time `crawlsim run see-it --json` prints, as the page
    writes it (the command's own ``main``, in this process: an interpreter
    start per figure would cost more than the run)."""
    from crawlsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["run", "see-it", "--json", *flags])
    assert code == 0, err.getvalue()
    return f"{json.loads(out.getvalue())['finish_time']:.1f}"


@pytest.fixture(scope="module")
def page_file(shared_builds: SharedBuilds) -> Path:
    """``crawlsim html see-it -o see-it.html``, written once per session (README's tour checks the same run)."""
    done = shared_builds.cli(("html", "see-it"), "see-it.html")
    assert done.returncode == 0, done.stderr
    return done.path


@dataclass
class Opened:
    page: Any
    refused: list[str] = field(default_factory=list)
    """Every request the page attempted beyond its own file (each was aborted)."""
    errors: list[str] = field(default_factory=list)

    def finish(self) -> str:
        return str(self.page.get_attribute("#finish", "data-finish"))

    def press(self, key: str) -> str:
        """Press ``key``; the finish shown once the page has redrawn."""
        before = self.page.inner_text("#finish")
        self.page.keyboard.press(key)
        self.page.wait_for_function("b => document.querySelector('#finish').innerText !== b", arg=before)
        return self.finish()


@pytest.fixture
def opened(chromium: Any, page_file: Path, request: pytest.FixtureRequest) -> Iterator[Opened]:
    width, height = getattr(request, "param", (1280, 900))
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    url = page_file.as_uri()
    seen = Opened(page)

    def route(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            seen.refused.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    page.on("console", lambda message: seen.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#finish b")
    try:
        yield seen
    finally:
        context.close()
    assert seen.refused == [], "the page asked for something beyond its own file"
    assert seen.errors == []


def test_one_file_under_three_megabytes_with_nothing_to_fetch(page_file: Path) -> None:
    text = page_file.read_text(encoding="utf-8")
    assert page_file.stat().st_size < 3_000_000
    assert "<link" not in text and " src=" not in text


def test_it_shows_the_cli_finish_and_space_plays_it(opened: Opened) -> None:
    page = opened.page
    assert opened.finish() == cli_finish()
    assert page.inner_text("#finish").strip() == f"finish {cli_finish()} s"
    clock = page.inner_text("#clock")
    states = page.eval_on_selector_all(".node", "nodes => nodes.map(n => n.dataset.state).join()")
    page.keyboard.press("Space")
    page.wait_for_function("c => document.querySelector('#clock').innerText !== c", arg=clock)
    page.wait_for_function(
        "s => [...document.querySelectorAll('.node')].map(n => n.dataset.state).join() !== s", arg=states
    )
    assert "playing" in page.inner_text("#clock")


def test_what_if_keys_show_the_cli_figures(opened: Opened) -> None:
    assert opened.press("+") == cli_finish("--workers", "5")  # the scenario runs 4
    assert "workers 4→5: finish" in opened.page.inner_text("#finish")
    opened.press("-")
    assert opened.finish() == cli_finish()
    assert opened.press("p") == cli_finish("--per-host", "none", "--gap", "0")
    opened.press("p")
    for mode in ("aggressive", "off", "fragment"):  # n cycles on from the scenario's rfc3986
        assert opened.press("n") == cli_finish("--normalize", mode), mode
        assert opened.page.inner_text("#k-n") == mode


@pytest.mark.parametrize("opened", [(390, 844), (1920, 1080)], indirect=True, ids=["phone", "projector"])
def test_it_fits_a_phone_and_a_projector(opened: Opened, tmp_path: Path) -> None:
    page = opened.page
    width = page.viewport_size["width"]
    page.keyboard.press("n")
    page.keyboard.press("n")  # normalization off: duplicate fetches to see
    for _ in range(12):
        page.keyboard.press(".")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    keep_screenshot(page, f"see-it-page-{width}.png", tmp_path, full_page=True)


def test_a_tips_key_does_what_the_tip_says(opened: Opened) -> None:
    """The polite tip names the p key (then +) as the buttons show them;
    clicking p's button turns politeness off and the finish falls, as the tip says."""
    page = opened.page
    tip = page.locator("#tries li", has_text="(polite off)")
    assert tip.locator("kbd").all_inner_texts() == ["p", "+"]
    before = opened.finish()
    page.click('button[data-key="p"]')
    page.wait_for_function("b => document.querySelector('#finish').dataset.finish !== b", arg=before)
    assert page.inner_text("#k-p") == "off"
    assert float(opened.finish()) < float(before)
    assert page.get_attribute("#finish b", "class") == "better"


def test_at_the_start_it_has_seen_one_url(opened: Opened) -> None:
    assert opened.page.inner_text("#seen-title").startswith("seen 1 URL, the frontier")


@pytest.mark.parametrize("opened", [(390, 844)], indirect=True, ids=["phone"])
def test_on_a_phone_the_graph_scrolls_in_its_box_and_says_so(opened: Opened) -> None:
    page = opened.page
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    graph = page.evaluate("(b => [b.scrollWidth, b.clientWidth])(document.querySelector('#graph'))")
    if graph[0] > graph[1]:
        assert page.is_visible("#graph-hint"), "the graph scrolls sideways and nothing says so"
        assert "sideways" in page.inner_text("#graph-hint")


def test_a_models_page_heads_its_bounds_with_the_margin_line(chromium: Any, tmp_path: Path) -> None:
    """A scenario that models a real crawl (its margin key) shows the line `crawlsim run`
    prints above the bounds; one that models nothing shows its bounds without it."""
    from crawlsim.cli import main
    from crawlsim.scenario.files import find_scenario

    isro = find_scenario("isro").read_text(encoding="utf-8")
    (tmp_path / "model.toml").write_text("margin = 0.05\n" + isro, encoding="utf-8")
    shown = {}
    for name in ("model", "isro"):
        path = tmp_path / f"{name}.html"
        scenario = str(tmp_path / "model.toml") if name == "model" else "isro"
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["html", scenario, "-o", str(path), "--budget", "0.01"]) == 0
        with browser_page(chromium) as page:
            page.goto(path.as_uri())
            page.wait_for_selector("#bounds .bound")
            shown[name] = page.evaluate(
                "[...document.querySelectorAll('#bounds-panel > *')].filter(e => !e.hidden).map(e => e.innerText)"
            )
    title, margin, *_ = shown["model"]
    assert title == "lower bounds on the model's finish time"
    assert margin.startswith("bounds of a model of a real crawl: proven for the model; the real site may land 5.0%")
    assert shown["isro"][0] == "lower bounds on the finish time"
    assert not any("proven for the model" in text for text in shown["isro"])


def polite_page(tmp_path: Path) -> Path:
    """polite's offline page, simulated on a small budget (quick to build)."""
    from crawlsim.cli import main

    path = tmp_path / "polite.html"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["html", "polite", "-o", str(path), "--budget", "0.01"]) == 0
    return path


def _apps_seen_box(name: str) -> str:
    """The terminal app's seen-set panel at the end of scenario ``name``'s crawl (its own
    event loop, in a thread: Playwright's runs in this one)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from crawlsim.scenario import load_scenario
    from crawlsim.tui.app import CrawlApp
    from crawlsim.tui.widgets import SeenView

    async def read() -> str:
        app = CrawlApp(load_scenario(name), paused=True, animate=False, threaded=False)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.press("end")
            await pilot.pause()
            return " ".join(app.query_one(SeenView).plain().split())

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, read()).result()


def test_the_page_and_the_app_name_the_rest_of_the_seen_set_alike(chromium: Any, tmp_path: Path) -> None:
    """At the end of polite's crawl (robots.txt refuses some links: seen, skipped) both
    boxes say what the seen set holds beyond the frontier and in flight in one wording."""
    from crawlsim.words import SEEN_REST

    with browser_page(chromium) as page:
        page.goto(polite_page(tmp_path).as_uri())
        page.wait_for_selector("#seen .rest")
        page.eval_on_selector("#scrub", "s => { s.value = 1000; s.dispatchEvent(new Event('input')); }")
        page.wait_for_function("() => document.querySelector('#seen .set.frontier').innerText.trim() === 'frontier 0'")
        on_page = page.inner_text("#seen .rest").strip()
    in_app = _apps_seen_box("polite")
    assert on_page.startswith(SEEN_REST + " ")
    assert f" {on_page} " in f" {in_app} ", (in_app, on_page)


def test_the_pages_busiest_host_counts_its_fetches_as_run_does(chromium: Any, tmp_path: Path) -> None:
    """polite's a.com: its page fetches, and its robots.txt apart (the page said `8 fetches`,
    its robots.txt among them, beside a summary that counts robots.txt apart)."""
    with browser_page(chromium) as page:
        page.goto(polite_page(tmp_path).as_uri())
        page.wait_for_selector("#bounds .bound")
        bounds = page.evaluate("[...document.querySelectorAll('#bounds .bound')].map(e => e.innerText)")
    assert "busiest host 13.0 s (a.com, 7 fetches + 1 robots.txt)" in bounds
