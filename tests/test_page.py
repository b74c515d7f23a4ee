"""The offline page's data (crawlsim/page/): what the page draws is what the
replay says, every setting's figures are the simulation's, the keys follow
the app's knob rules, and a web too costly to precompute gets a smaller
offer that says so.  The page in a browser: tests/test_browser_page.py.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cli import main
from crawlsim.page.build import Tables, choose_offer, offer_line, scenario_data, trace_data
from crawlsim.page.frames import LOST
from crawlsim.page.grid import Offer, build_grid, full_offer
from crawlsim.views.replay import PageState
from crawlsim.scenario import load_scenario
from crawlsim.views.session import Knobs, run_session
from crawlsim.trace.jsonl import read_trace
from crawlsim.sim.driver import simulate

ROOT = Path(__file__).resolve().parent.parent


def page_data(text: str) -> dict[str, Any]:
    """The data block of a written page, unpacked as the page's script does."""
    packed = re.search(r'<script type="application/octet-stream" id="data">(.*?)</script>', text, re.DOTALL)
    assert packed is not None
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))))


def test_the_keys_follow_the_apps_knob_rules() -> None:
    start = Knobs.for_scenario(load_scenario("see-it"))
    grid = build_grid(start, full_offer(start))
    assert grid.states[0] == start
    to, change = grid.moves[0]["+"]  # type: ignore[misc]
    assert grid.states[to] == start.more_workers() and grid.states[to].workers == 5
    assert change == "workers 4→5"
    one = grid.states.index(replace(start, workers=1))
    assert grid.moves[one]["-"] == -1  # the end of the ladder: nothing changes
    eight = next(i for i, k in enumerate(grid.states) if k.workers == 8)
    assert grid.moves[eight]["+"] is None  # 16 workers: not offered
    polite_off = grid.states[grid.moves[0]["p"][0]]  # type: ignore[index]
    assert polite_off.overrides()["per_host"] is None and polite_off.overrides()["gap"] == 0.0
    # every setting the keys reach is in the grid, and polite off ignores the gap: one crawl
    assert len(grid.states) == 4 * 8 * 2 * 8 * 5
    assert len(grid.runs()) == 4 * 8 * (8 + 1) * 5


TEXTUAL_KEY = {" ": "space", ".": "full_stop", "+": "plus", "-": "minus", "[": "left_square_bracket",
               "]": "right_square_bracket", "ArrowLeft": "left", "ArrowRight": "right"}
"""The page's keys (the browser's ``KeyboardEvent.key``) by their Textual names; a letter is itself."""
APP_ONLY = {
    "N", "M", "P",  # a cluster's nodes and partition: the page draws one crawler
    "c",  # the scenario picker: the page is one scenario
    "home", "end", "w", "q",  # seek to an end, the why panel, quit
    "equals_sign", "underscore",  # the unshifted + and - (the page maps = and _ the same way)
}


def test_the_pages_keys_are_the_apps_keys_with_the_same_meanings() -> None:
    """The page sits below the app in the layers, so ``KEY_WORDS`` cannot be
    derived from ``CrawlApp.BINDINGS``: this keeps the two in step instead.
    A key the app gains is on the page, or named here as the app's own."""
    from crawlsim.page.build import KEY_WORDS
    from crawlsim.page.grid import KEYS
    from crawlsim.tui.app import CrawlApp

    bound = {key: b for b in CrawlApp.BINDINGS for key in b.key.split(",")}  # type: ignore[union-attr]
    page = {TEXTUAL_KEY.get(key, key): words for key, words in KEY_WORDS.items()}
    assert set(page) <= set(bound), set(page) - set(bound)
    assert set(bound) - set(page) == APP_ONLY
    for key, words in page.items():
        said = set(re.split(r"[ /]", bound[key].description))  # type: ignore[union-attr]
        app_words = bound[key].description  # type: ignore[union-attr]
        assert said & set(re.split(r"[ /]", words)), f"{key}: the page says {words!r}, the app {app_words!r}"
    assert set(KEYS) <= set(KEY_WORDS)  # every what-if key the page simulates is on its key line


def test_each_setting_shows_its_own_simulations_finish() -> None:
    scenario = load_scenario("see-it")
    data = scenario_data(scenario, budget=0.5)  # a smaller offer (workers 1-8, polite on/off): the same check
    for state in data["states"][:: max(1, len(data["states"]) // 25)]:
        knobs = state["knobs"]
        options = {
            "workers": int(knobs["w"]), "normalize": knobs["n"],
            "per_host": 1 if knobs["p"].startswith("on") else None,
            "gap": float(knobs["g"].split()[0]) if knobs["p"].startswith("on") else 0.0,
        }
        if knobs["o"] in ("BFS", "DFS"):
            options["order"] = knobs["o"].lower()
        else:  # best (shallowest)
            options.update(order="best", priority=knobs["o"][len("best (") : -1])
        expected = simulate(scenario.with_options(**options)).finish_time
        assert data["runs"][state["run"]]["finish"] == pytest.approx(expected, abs=1e-9), knobs["all"]


def test_the_frames_are_the_replays_states_at_each_instant() -> None:
    scenario = load_scenario("see-it")
    result = run_session(scenario, Knobs.for_scenario(scenario).cycle_normalize().cycle_normalize())  # off
    tables = Tables.empty()
    block = tables.blocks[tables.add_run(result)["block"]]
    replay = result.replay
    states = {i: 0 for i in block["own"]}
    for t, changes, counters in zip(block["times"], block["changes"], block["counters"], strict=True):
        for index, state, _ in changes:
            states[index] = state
        replay.seek(t)
        for page in replay.page_list:
            lost = page.state == PageState.UNDISCOVERED and page.note.startswith("lost")
            assert states[tables.urls.index[page.url]] == (LOST if lost else int(page.state)), (t, page.url)
        assert counters[4] == sum(1 for s in states.values() if s == PageState.FRONTIER) == replay.counters().frontier
        assert counters[5] == replay.counters().in_flight
    assert any(s == PageState.DUPLICATE for s in states.values())  # normalization off: duplicate fetches
    kinds = {kind for _, _, kind, _ in block["edges"]}
    assert kinds == {0, 1}  # discovery edges and discarded (already seen) edges


def test_the_isro_step_table_is_the_textbooks() -> None:
    scenario = load_scenario("isro")
    data = scenario_data(scenario, budget=0.01)
    block = data["blocks"][data["runs"][0]["block"]]
    urls = [url for _, _, url in data["urls"]]
    steps = block["steps"]
    assert [urls[row[1]] for row in steps][:4] == [
        "http://isro.gov.in/", "http://isro.gov.in/missions", "http://isro.gov.in/gallery", "http://wikipedia.org/ISRO",
    ]
    discarded = {urls[row[1]]: [urls[i] for i in row[3]] for row in steps}
    assert discarded["http://wikipedia.org/ISRO"] == ["http://wikipedia.org/ISRO"]  # links to itself
    assert discarded["http://isro.gov.in/missions/chandrayaan"] == ["http://isro.gov.in/missions"]
    assert data["stepsFirst"] is True


def test_a_models_page_carries_the_margin_line_run_prints() -> None:
    from crawlsim.scenario.files import scenario_from_dict

    isro = load_scenario("isro")
    model = scenario_from_dict({**isro.data, "margin": 0.05}, name="isro")  # models a real crawl, within 5%
    said = scenario_data(model, budget=0.01)["margin"]
    assert said.startswith("bounds of a model of a real crawl: proven for the model; the real site may land 5.0%")
    assert scenario_data(isro, budget=0.01)["margin"] is None


def test_a_costly_web_gets_a_smaller_offer_and_one_line_saying_so() -> None:
    scenario = load_scenario("busiest-host")
    start = Knobs.for_scenario(scenario)
    offer, grid = choose_offer(start, seconds=0.8, size=50_000, budget=10.0)
    assert len(grid.runs()) * 0.8 <= 10.0
    line = offer_line(scenario, offer, len(grid.runs()), 0.8, None)
    assert line.startswith("This page offers workers ")
    assert "It does not offer other orders, other gaps, other normalizations" in line
    assert "\n" not in line
    capped = offer_line(load_scenario("million"), offer, 3, 2.4, 5_000)
    assert "capped at its first 5,000 pages" in capped


def test_a_recorded_trace_has_its_what_if_keys_off(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    done = subprocess.run([sys.executable, "-m", "crawlsim", "trace", "isro", "-o", str(trace)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    data = trace_data(read_trace(trace), "t.jsonl")
    assert data["states"] == [{"run": 0, "knobs": None, "moves": {}}]
    assert data["runs"][0]["finish"] == 7.0
    assert "what-if keys are off" in data["offer"]


def test_the_command_writes_one_page_and_refuses_mistakes_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "isro.html"
    argv = ["html", "isro", "-o", str(out), "--budget", "0.01", "--title", "BFS by hand", "--note", "Predict it."]
    assert main(argv) == 0
    assert "This page offers" in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert "<title>BFS by hand</title>" in text
    data = page_data(text)
    assert data["note"] == "Predict it." and data["title"] == "BFS by hand"
    for bad, says in (
        (["html", "nosuch", "-o", str(out)], "nosuch"),
        (["html", "isro"], "-o"),
        (["html", "--trace", str(tmp_path / "missing.jsonl"), "-o", str(out)], "missing.jsonl"),
        (["html", "isro", "-o", str(out), "--budget", "0"], "budget"),
    ):
        assert main(bad) == 2, bad
        err = capsys.readouterr().err
        assert err.startswith("crawlsim: error: ") and says in err and err.count("\n") == 1, err


def test_the_notebook_shows_the_page_inline() -> None:
    from crawlsim.notebook import page

    shown = page("isro", budget=0.01)
    assert "<iframe" in shown.data and 'sandbox="allow-scripts"' in shown.data
    assert "srcdoc=\"&lt;!DOCTYPE html&gt;" in shown.data


def test_a_page_that_cannot_be_written_whole_is_not_left_half_written(tmp_path: Path) -> None:
    """Under a file-size limit far below the page's size the write fails:
    one error line, exit 2, and no cut-off page where the user asked for it
    (an earlier good page there stays as it was)."""
    import resource

    trace = Path(__file__).parent / "hostile" / "accepted" / "done_only.jsonl"
    out = tmp_path / "page.html"
    out.write_text("the earlier page\n")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    proc = subprocess.run(
        [sys.executable, "-m", "crawlsim", "html", "--trace", str(trace), "-o", str(out), "-q"],
        capture_output=True, text=True, timeout=300, preexec_fn=small_files,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("crawlsim: error:"), proc.stderr
    assert out.read_text() == "the earlier page\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


@pytest.mark.parametrize("workers", [129, 200, 10_000])
def test_a_scenario_past_the_apps_worker_ladder_gets_a_finite_grid(workers: int) -> None:
    """More workers than the app's ``+`` reaches (128) is legal: the offer
    climbs the ladder to its top and keeps the scenario's own count."""
    start = replace(Knobs.for_scenario(load_scenario("see-it")), workers=workers)
    offers: list[Offer] = []
    climb = threading.Thread(target=lambda: offers.append(full_offer(start)), daemon=True)
    climb.start()
    climb.join(60.0)  # only fails a climb that never ends
    assert offers, "the worker ladder's climb never ended"
    (offer,) = offers
    assert offer.workers == (1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, workers)
    assert build_grid(start, replace(offer, orders=(start.order_choice,))).states[0] == start


def test_an_output_that_cannot_be_written_is_refused_before_any_crawl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import crawlsim.page

    def no_crawls(*args: object, **kwargs: object) -> None:
        raise AssertionError("the page was built before its output was checked")

    monkeypatch.setattr(crawlsim.page, "build_page", no_crawls)
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    for out, says in ((blocker / "p.html", "is not a folder"), (tmp_path / ("n" * 300 + ".html"), "too long"),
                      (tmp_path, "is a folder")):
        assert main(["html", "isro", "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("crawlsim: error: ") and says in err and err.count("\n") == 1, err
    assert not list(tmp_path.glob(".*"))


def test_a_huge_title_is_named_as_what_is_too_big(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 5 MB title in the scenario is refused before any crawl, naming the
    title (not --budget, which cannot help)."""
    text = (ROOT / "scenarios" / "isro.toml").read_text(encoding="utf-8")
    huge = tmp_path / "huge.toml"
    huge.write_text(re.sub(r'(?m)^title = ".*"$', f'title = "{"T" * 5_000_000}"', text), encoding="utf-8")
    assert main(["html", str(huge), "-o", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err
    assert "title has 5,000,000 characters" in err and "--budget" not in err and err.count("\n") == 1, err
    assert main(["html", "isro", "-o", str(tmp_path / "p.html"), "--note", "N" * 50_000]) == 2
    assert "--note has 50,000 characters" in capsys.readouterr().err
