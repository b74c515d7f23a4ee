"""The terminal app draws every state in the palette's colour, and each
legend's swatch is the colour its state is drawn in (read from the
rendered widgets' segments, as a terminal would receive them)."""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.segment import Segment
from textual.geometry import Region
from textual.widget import Widget

from crawlsim.palette import PAGE_STATES, STATES
from crawlsim.scenario import load_scenario
from crawlsim.tui.app import CrawlApp
from crawlsim.tui.widgets import LanesView, PagesView

SIZE = (160, 48)
BY_LABEL = {style.label: style for style in STATES.values()}
BY_GLYPH = {STATES[name].glyph: STATES[name] for name in PAGE_STATES}


def app_for(name: str, at: float, **overrides: object) -> CrawlApp:
    scenario = load_scenario(name)
    if overrides:
        scenario = scenario.with_options(**overrides)
    return CrawlApp(scenario, paused=True, at=at, animate=False, threaded=False)


def hex_of(colour: RichColor | None) -> str | None:
    return None if colour is None else colour.get_truecolor().hex


def rows(widget: Widget) -> list[list[Segment]]:
    """The widget's lines as drawn, border and its titles included."""
    width, height = widget.outer_size
    return [list(strip) for strip in widget.render_lines(Region(0, 0, width, height))]


def fills(line: list[Segment], background: str) -> list[tuple[str, str, str]]:
    """(text, ink, fill) of each segment painted on a colour of its own."""
    return [
        (seg.text, hex_of(seg.style.color), hex_of(seg.style.bgcolor))
        for seg in line
        if seg.style and seg.style.bgcolor is not None and hex_of(seg.style.bgcolor) != background
    ]


def lane_key(lanes: LanesView) -> tuple[dict[str, tuple[str, str]], str | None]:
    """The lanes' legend (the bottom border): swatch word -> (ink, fill), and the idle line's colour."""
    drawn = rows(lanes)
    background = hex_of(drawn[-1][0].style.bgcolor)
    swatches = {text.strip(): (ink, fill) for text, ink, fill in fills(drawn[-1], background)}
    idle = next((hex_of(seg.style.color) for seg in drawn[-1] if seg.text == STATES["idle"].glyph), None)
    return swatches, idle


def lane_fills(lanes: LanesView) -> set[tuple[str, str]]:
    """Every (ink, fill) a worker's lane is painted with."""
    drawn = rows(lanes)
    background = hex_of(drawn[-1][0].style.bgcolor)
    workers = len(lanes.view.replay.lanes)
    return {(ink, fill) for line in drawn[1 : 1 + workers] for _, ink, fill in fills(line, background)}


def mark(text: str) -> str | None:
    """The state glyph a page's segment starts with (``● /docs``), if any."""
    words = text.split(" ", 1)
    return words[0] if words[0] in BY_GLYPH else None


async def check_lanes(app: CrawlApp, expect: set[str]) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lanes = app.query_one(LanesView)
        swatches, idle = lane_key(lanes)
        for word, (ink, fill) in swatches.items():
            style = BY_LABEL[word]
            assert (ink, fill) == (style.ink, style.hex), word
        assert idle == STATES["idle"].hex
        assert expect <= {BY_LABEL[word].name for word in swatches}
        # every colour a lane is painted in has its swatch in the key
        assert lane_fills(lanes) <= set(swatches.values())
        assert swatches["duplicate"][1] != swatches["fetching"][1]


async def test_lane_key_swatches_are_the_lanes_colours_with_duplicates() -> None:
    await check_lanes(app_for("see-it", 12.0, normalize="off"), {"fetched", "duplicate", "fetching"})


async def test_lane_key_names_retries_failures_and_robots_when_the_lanes_show_them() -> None:
    await check_lanes(app_for("polite", 30.0), {"fetched", "retry", "robots", "fetching"})


async def test_lane_key_leaves_out_what_a_run_never_draws() -> None:
    app = app_for("see-it", 7.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        swatches, _ = lane_key(app.query_one(LanesView))
        assert set(swatches) == {"fetched", "duplicate", "fetching"}


async def test_pages_legend_glyphs_are_the_colours_pages_are_drawn_in() -> None:
    for app in (app_for("see-it", 12.0, normalize="off"), app_for("polite", 30.0)):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            drawn = rows(app.query_one(PagesView))
            legend = {seg.text.strip(): hex_of(seg.style.color) for seg in drawn[1] if seg.text.strip() in BY_GLYPH}
            for glyph, colour in legend.items():
                assert colour == BY_GLYPH[glyph].hex, BY_GLYPH[glyph].name
            marks = {
                (glyph, hex_of(seg.style.color))
                for line in drawn[2:-1]
                for seg in line
                if (glyph := mark(seg.text)) and seg.style and seg.style.color is not None
            }
            assert marks, "no page drawn"
            for glyph, colour in marks:
                assert legend.get(glyph) == colour, f"{BY_GLYPH[glyph].name} drawn without its swatch"
