"""The one palette (``crawlsim.palette``): every two states a view draws
side by side read apart -- in colour, in greyscale, and for the three
common colour blindnesses -- and the duplicate fetch is unmistakably its
own colour.

Distances are CIEDE2000 (coloraide's ``delta_e(method="2000")``) between
the two colours as seen: as they are, and through Machado et al. (2009)'s
full-severity protanopia and deuteranopia and Brettel et al. (1997)'s
tritanopia simulations.  Greyscale is the CIELAB lightness difference."""

from __future__ import annotations

import itertools

import pytest
from coloraide import Color
from rich.color import Color as RichColor
from rich.color import ColorSystem

from crawlsim.palette import LANE_STATES, PAGE_STATES, SPAN_STATES, STATES, as_dict, page_style, span_style
from crawlsim.views.replay import PageState

VISIONS = {
    "normal": lambda c: c,
    "protanopia": lambda c: c.filter("protan", method="machado"),
    "deuteranopia": lambda c: c.filter("deutan", method="machado"),
    "tritanopia": lambda c: c.filter("tritan", method="brettel"),
}
MIN_DELTA_E = 10.0
"""Any two states of one view, under every vision: clearly different colours
(2.3 is a just-noticeable difference; 10 reads at a glance)."""
MIN_LIGHTNESS = 6.5
"""Any two states of one view in greyscale (CIELAB L*, 0-100)."""
DUPLICATE_DELTA_E = 15.0
DUPLICATE_LIGHTNESS = 12.0
"""Duplicate against fetching and fetched, the pairs the lesson is about."""

VIEWS = {
    "pages": PAGE_STATES,
    "lanes": tuple(s for s in LANE_STATES if s != "idle"),  # idle is a thin line, not a fill
}
PAIRS = sorted({(view, *sorted(pair)) for view, states in VIEWS.items() for pair in itertools.combinations(states, 2)})


def seen(name: str, vision: str) -> Color:
    return VISIONS[vision](Color(STATES[name].hex)).convert("srgb").clip()


def lightness(name: str) -> float:
    return float(Color(STATES[name].hex).convert("lab")["lightness"])


def hue_apart(a: float, b: float) -> float:
    """Degrees between two hues around the circle (359 and 1 are 2 apart, not 358)."""
    difference = abs(a - b) % 360
    return min(difference, 360 - difference)


def test_hues_are_apart_around_the_circle() -> None:
    assert hue_apart(359, 1) == hue_apart(1, 359) == 2
    assert hue_apart(10, 190) == 180 and hue_apart(30, 100) == 70 and hue_apart(720, 0) == 0


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize(("view", "a", "b"), PAIRS)
def test_every_two_states_of_a_view_differ_under_each_vision(view: str, a: str, b: str, vision: str) -> None:
    distance = seen(a, vision).delta_e(seen(b, vision), method="2000")
    assert distance >= MIN_DELTA_E, f"{view}: {a} and {b} are {distance:.1f} apart for {vision}"


@pytest.mark.parametrize(("view", "a", "b"), PAIRS)
def test_every_two_states_of_a_view_differ_in_greyscale(view: str, a: str, b: str) -> None:
    difference = abs(lightness(a) - lightness(b))
    assert difference >= MIN_LIGHTNESS, f"{view}: {a} and {b} differ by L* {difference:.1f}"


@pytest.mark.parametrize("other", ["fetching", "fetched"])
def test_duplicate_stands_out_from_fetching_and_fetched(other: str) -> None:
    for vision in VISIONS:
        assert seen("duplicate", vision).delta_e(seen(other, vision), method="2000") >= DUPLICATE_DELTA_E, vision
    assert abs(lightness("duplicate") - lightness(other)) >= DUPLICATE_LIGHTNESS
    hue = Color(STATES["duplicate"].hex).convert("oklch")["hue"]
    assert hue_apart(hue, Color(STATES[other].hex).convert("oklch")["hue"]) > 60


def test_duplicate_is_red_and_the_only_red() -> None:
    """Red family: an OKLCH hue within 15-40 degrees (red, not orange or pink),
    strongly saturated; no other state near it in hue with any saturation."""
    def hue_chroma(name: str) -> tuple[float, float]:
        c = Color(STATES[name].hex).convert("oklch")
        return float(c["hue"]), float(c["chroma"])

    hue, chroma = hue_chroma("duplicate")
    assert 15 <= hue <= 40 and chroma >= 0.18
    for name in STATES:
        if name != "duplicate":
            h, c = hue_chroma(name)
            assert c < 0.05 or hue_apart(h, hue) > 25, name


def test_glyphs_and_hatches_tell_states_apart_without_colour() -> None:
    glyphs = [STATES[s].glyph for s in STATES]
    assert len(set(glyphs)) == len(glyphs)
    for states in VIEWS.values():
        marks = [(STATES[s].glyph, STATES[s].hatch) for s in states]
        assert len(set(marks)) == len(marks)


@pytest.mark.parametrize("name", list(STATES))
def test_terminal_colour_is_the_nearest_256_colour_and_ink_reads(name: str) -> None:
    """``ansi`` is what Rich sends a 256-colour terminal for ``hex``; ``ink``
    is the better-contrasted of black and white on it (WCAG ratio >= 3)."""
    style = STATES[name]
    assert RichColor.parse(style.hex).downgrade(ColorSystem.EIGHT_BIT).number == style.ansi
    background = Color(style.hex).luminance()
    ink = Color(style.ink).luminance()
    ratio = (max(background, ink) + 0.05) / (min(background, ink) + 0.05)
    other = Color("#ffffff" if style.ink == "#000000" else "#000000").luminance()
    assert ratio >= 3.0 and ratio >= (max(background, other) + 0.05) / (min(background, other) + 0.05)


def test_256_colour_terminals_keep_every_state_of_a_view_apart() -> None:
    for states in VIEWS.values():
        numbers = [STATES[s].ansi for s in states]
        assert len(set(numbers)) == len(numbers)


def test_page_and_span_states_map_onto_the_palette() -> None:
    assert [page_style(state).name for state in PageState] == list(PAGE_STATES)
    assert PageState.IN_FLIGHT.label == "in flight" and page_style(PageState.IN_FLIGHT).name == "fetching"
    assert set(SPAN_STATES.values()) <= set(LANE_STATES)
    assert span_style("ok") is STATES["fetched"]


def test_as_dict_is_plain_json_data() -> None:
    import json

    data = json.loads(json.dumps(as_dict()))
    assert data["states"]["duplicate"]["hex"] == STATES["duplicate"].hex
    assert data["page_states"] == list(PAGE_STATES)
