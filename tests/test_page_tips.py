"""The see-it page's tips say what its own keys do: each names the keys to
press and the setting they reach as the page's buttons show it, and each
claim it makes holds in the runs the page carries (the page's data, not a
fresh simulation: the reader sees those figures).  The page in a browser:
tests/test_browser_page.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from crawlsim.page.build import KEY_WORDS
from tests.shared_builds import SharedBuilds
from tests.test_page import page_data

pytestmark = pytest.mark.slow
"""Slow: the page is the session's shared see-it page (1,440 small crawls)."""

PRESS = re.compile(r"press (?P<keys>(?:\S+ )+?)(?:once more )?\((?P<knob>\w+) (?P<value>[^)]+)\)")
"""``press - - (workers 2)``, ``press - once more (workers 1)``: keys, then the
knob and the value they reach, each from where the tip's previous keys left it."""
KNOB_IDS = {"normalize": "n", "workers": "w", "polite": "p", "gap": "g", "order": "o"}
"""The knob words of the page's controls, by the id of the value each shows."""


@dataclass
class Setting:
    """One setting of the page's knobs, read from its data as the page draws it."""

    data: dict[str, Any]
    state: dict[str, Any]

    def press(self, keys: str) -> Setting:
        """The setting the page's keys (``"- -"``) lead to from this one."""
        state = self.state
        for key in keys.split():
            move = state["moves"][key]
            assert isinstance(move, list), f"the page does not offer {key!r} from {state['knobs']['all']}"
            state = self.data["states"][move[0]]
        return Setting(self.data, state)

    @property
    def run(self) -> dict[str, Any]:
        return self.data["runs"][self.state["run"]]

    @property
    def finish(self) -> float:
        return float(self.run["finish"])

    @property
    def duplicates(self) -> int:
        """The duplicate fetches the counters show at the end of the crawl."""
        block = self.data["blocks"][self.run["block"]]
        return int(self.data["strings"][block["counters"][-1][1]].split()[0])


@pytest.fixture(scope="module")
def start(shared_builds: SharedBuilds) -> Setting:
    """The see-it page's first setting (the scenario's own), from the session's shared page."""
    done = shared_builds.cli(("html", "see-it"), "see-it.html")
    assert done.returncode == 0, done.stderr
    data = page_data(done.path.read_text(encoding="utf-8"))
    return Setting(data, data["states"][0])


def fewer_workers_stop_helping_at_two(start: Setting) -> None:
    assert start.press("- -").finish == start.finish
    assert start.press("- - -").finish > start.finish


def polite_off_lets_workers_help_until_the_depth_bound(start: Setting) -> None:
    off = start.press("p")
    assert off.finish < start.finish
    five = off.press("+")
    assert five.finish < off.finish
    assert five.run["bounds"]["binding"] == "depth"
    assert five.finish == pytest.approx(five.run["bounds"]["depth"])
    assert five.press("+ + +").finish == five.finish  # workers 8: the depth bound still holds


def normalize_off_fetches_duplicates(start: Setting) -> None:
    off = start.press("n n")
    assert start.duplicates == 0 < off.duplicates
    assert off.finish > start.finish
    urls = [url for _, _, url in start.data["urls"]]
    for spelling in ("x#top", "http://A.COM/about", "a.com:80"):  # as the page spells them
        assert any(spelling in url for url in urls), spelling


def fragment_removes_some_duplicates(start: Setting) -> None:
    assert 0 < start.press("n n n").duplicates < start.press("n n").duplicates


def a_gap_costs_only_past_two_seconds(start: Setting) -> None:
    two = start.press("] ] ] ]")
    assert two.finish == start.finish
    assert two.run["bounds"]["binding"] == start.run["bounds"]["binding"] == "busiest_host"
    assert two.run["bounds"]["busiest_host"] == start.run["bounds"]["busiest_host"]
    assert two.press("]").finish > start.finish


CLAIMS: dict[str, Callable[[Setting], None]] = {
    "- -": fewer_workers_stop_helping_at_two,
    "p": polite_off_lets_workers_help_until_the_depth_bound,
    "n n": normalize_off_fetches_duplicates,
    "n n n": fragment_removes_some_duplicates,
    "] ] ] ]": a_gap_costs_only_past_two_seconds,
}
"""Each tip's claims, by the keys it names."""


def test_every_tip_names_the_pages_keys_and_the_setting_they_reach(start: Setting) -> None:
    tips = start.data["tries"]
    assert tips
    for tip in tips:
        presses = list(PRESS.finditer(tip))
        assert presses and tip.startswith("press "), f"a tip that names no keys: {tip!r}"
        setting = start
        for press in presses:
            assert set(press["keys"].split()) <= set(KEY_WORDS), tip
            setting = setting.press(press["keys"])
            shown = setting.state["knobs"][KNOB_IDS[press["knob"]]]
            assert shown == press["value"], f"{tip!r}: the page shows {press['knob']} {shown}"
        assert "=" not in tip and "unset" not in tip, f"config syntax, not the page's keys: {tip!r}"


def test_every_tip_claim_holds_in_the_pages_own_runs(start: Setting) -> None:
    keys = [PRESS.match(tip)["keys"].strip() for tip in start.data["tries"]]  # type: ignore[index]
    assert sorted(keys) == sorted(CLAIMS), "each tip's claims are checked below, and only the tips'"
    for key in keys:
        CLAIMS[key](start)
