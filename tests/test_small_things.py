"""Small things a class notices: plurals, titles that count what they say,
labels that keep their words, verdicts that say a thing once, and piped
output that a script can read."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from crawlsim.scenario import load_scenario

REPO = Path(__file__).resolve().parent.parent


def test_a_log_line_says_1_link_not_1_links() -> None:
    from crawlsim.trace.events import FetchFinished
    from crawlsim.views.replay import describe_event

    one = FetchFinished(
        t=1.0, fetch_id=1, url="http://a.com/", host="a.com", kind="page", status=200, links=1, new_links=1
    )
    assert describe_event(one).endswith("200, 1 link (1 new)")
    two = FetchFinished(
        t=1.0, fetch_id=1, url="http://a.com/", host="a.com", kind="page", status=200, links=2, new_links=0
    )
    assert describe_event(two).endswith("200, 2 links (0 new)")


def test_the_pages_panel_counts_pages_and_urls_apart() -> None:
    """normalize off on `variants`: 831 URLs of 400 pages; the title said "(831)" for pages."""
    from crawlsim.views.session import Knobs, run_session
    from crawlsim.tui.pages import pages_title

    scenario = load_scenario("variants")
    result = run_session(scenario, Knobs.from_options(scenario.options))
    assert pages_title(result.replay) == "pages by host (400 pages, 831 URLs)"
    same = load_scenario("see-it")
    result = run_session(same, Knobs.from_options(same.options))
    assert pages_title(result.replay) == f"pages by host ({result.coverage.reachable})"


@pytest.mark.parametrize("width", range(8, 120))
def test_the_seen_boxs_label_keeps_its_words_at_every_width(width: int) -> None:
    from crawlsim.tui.seen import rest_label_for
    from crawlsim.words import SEEN_REST

    label = rest_label_for(12, width)
    assert len(label) <= width
    assert label in ("", " 12", f" {SEEN_REST} 12")


def test_piped_run_output_is_not_wrapped_and_has_no_trailing_spaces() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crawlsim", "run", "see-it"],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    ).stdout
    lines = out.splitlines()
    assert all(line == line.rstrip() for line in lines), [line for line in lines if line != line.rstrip()]
    # the advice is one paragraph on one line, from "holds the crawl" to its verdict
    (advice,) = [line for line in lines if "holds the crawl at" in line]
    assert advice.endswith("helps most.") or advice.endswith("help most (equally).") or advice.endswith(".")
    assert len(advice) > 100


def test_a_hint_is_said_once_for_a_cause_that_fails_several_checks() -> None:
    """buggy_seen_on_finish fails basic, fragments, diamond-50, ... for one
    cause: the fix is given with the first, and the others point to it."""
    from crawlsim.check import run_check

    target = f"{REPO / 'examples' / 'interview' / 'buggy_seen_on_finish.py'}:crawl"
    report = run_check(target, quick=True, only=["basic", "fragments", "diamond-50"])
    failed = [c for c in report.failed if c.kind == "correctness"]
    assert [c.name for c in failed] == ["basic", "fragments", "diamond-50"]
    first, *rest = failed
    assert first.hint and first.hint in first.explanation
    for check in rest:
        assert check.same_cause_as == "basic"
        assert check.hint not in check.explanation, check.explanation
        assert "Mark a URL seen" not in check.explanation
        assert check.explanation.endswith("(Same cause as basic: the fix is there.)")
    assert report.render().count("Mark a URL seen when you submit") == 1


def test_seed_replay_says_it_replayed_one_schedule_and_names_the_seed_once() -> None:
    from crawlsim.check.words import SENTENCES

    finding = {"seed": 6, "pages": ["http://a.com/c"], "text": "http://a.com/c was fetched 2 times", "switches": []}
    replayed = SENTENCES["race-caught"]({**finding, "schedules": 2, "seconds": 0.2, "replayed": True})
    assert replayed.startswith("Caught replaying seed 6 (in 0.2 s): ")
    assert "explored" not in replayed and replayed.count("seed 6") == 1
    explored = SENTENCES["race-caught"]({**finding, "schedules": 61, "seconds": 0.8})
    assert explored.startswith("Caught with seed 6 (explored 61 schedules in 0.8 s)")
    assert explored.endswith("Replay it with --seed 6.")


def test_check_seed_names_the_seed_once_and_does_not_claim_to_explore() -> None:
    """`check --seed N` on a check-then-add race: one schedule replayed, and
    "(seed N)" was said three times in one verdict."""
    from crawlsim.check import run_check

    target = f"{REPO / 'examples' / 'interview' / 'buggy_check_then_add.py'}:crawl"
    report = run_check(target, quick=True, only=["seen-race"], seed=30)
    text = report.check("seen-race").explanation
    assert "Caught replaying seed 30" in text, text
    assert "explored" not in text and text.count("seed 30") == 1, text


def test_the_notebook_count_is_not_written_down_and_every_notebook_is_listed() -> None:
    """README said "Fifteen teaching notebooks" beside eighteen: neither it nor
    the class tutorial names a number, and notebooks/README.md (which the
    tutorial points to) lists each one."""
    for page in (REPO / "README.md", REPO / "docs" / "tutorials" / "class.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b(\w+) teaching notebooks", text.replace("The teaching notebooks", "")), page
    listed = (REPO / "notebooks" / "README.md").read_text(encoding="utf-8")
    shipped = sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    assert len(shipped) >= 18
    assert [name for name in shipped if f"({name})" not in listed] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "see-it", "--nodes", "2"],
        ["compare", "see-it", "--a", "workers=1", "--b", "workers=2", "--nodes", "2"],
        ["trace", "see-it", "--nodes", "2", "-o", "t.jsonl"],
    ],
)
def test_the_commands_scenarios_readme_says_run_a_cluster_do(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scenario reference said "Only `run` runs a cluster so far"."""
    from crawlsim.cli import main

    text = (REPO / "docs" / "reference" / "scenarios.md").read_text(encoding="utf-8")
    assert "Only `run` runs a cluster" not in text
    assert f"`{argv[0]}`" in text.split("## `[cluster]`: a crawl on many machines", 1)[1].split("##", 1)[0]
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 0
    out = capsys.readouterr().out
    if argv[0] == "trace":
        assert '"node":' in (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    else:
        assert "node" in out


async def test_the_scenario_picker_opens_over_the_crawl_without_blanking_it() -> None:
    """The app's `Screen` rule made every screen opaque, the picker too: the
    crawl behind it disappeared.  The picker is a modal over the crawl."""
    import html

    from crawlsim.tui.app import CrawlApp
    from crawlsim.tui.picker import ScenarioPicker

    def shown(app: CrawlApp) -> str:
        svg = app.export_screenshot()
        return html.unescape(re.sub(r"<[^>]+>", " ", svg)).replace("\xa0", " ")

    app = CrawlApp(load_scenario("see-it"), paused=True, animate=False, threaded=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "b.com" in shown(app)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ScenarioPicker)
        text = shown(app)
        assert "Open a scenario" in text
        assert "b.com" in text  # the crawl is still drawn around the picker
