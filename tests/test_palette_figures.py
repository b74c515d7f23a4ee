"""The notebook's picture (the widget, the GIF and the stills draw it) uses
the one palette, and each legend swatch is what its state is drawn with:
read from the matplotlib artists."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex, to_rgba

from crawlsim.notebook.draw import LANE_KEY_GID, STATE_COLOURS, CrawlFigure
from crawlsim.notebook.runs import snapshot
from crawlsim.palette import STATES, page_style
from crawlsim.views.replay import PageState

BY_LABEL = {style.label: style for style in STATES.values()}


@pytest.fixture(scope="module", params=[("see-it", 12.0, {"normalize": "off"}), ("polite", 30.0, {})])
def figure(request: pytest.FixtureRequest) -> CrawlFigure:
    name, t, overrides = request.param
    return snapshot(name, t, **overrides)


def test_page_colours_are_the_palettes() -> None:
    for state in PageState:
        assert STATE_COLOURS[state] == page_style(state).hex


def test_graph_legend_swatches_are_the_colours_pages_are_drawn_in(figure: CrawlFigure) -> None:
    legend = figure.ax_graph.get_legend()
    swatches = {to_hex(handle.get_markerfacecolor()) for handle in legend.legend_handles}
    assert swatches == {STATE_COLOURS[state] for state in PageState}
    drawn = {to_hex(face) for face in figure.nodes.get_facecolor()}
    assert drawn <= swatches


def lane_key(figure: CrawlFigure) -> dict[str, tuple[str, str | None]]:
    (key,) = [a for a in figure.ax_lanes.artists if a.get_gid() == LANE_KEY_GID]
    return {
        text.get_text(): (to_hex(handle.get_facecolor()), handle.get_hatch())
        for handle, text in zip(key.legend_handles, key.get_texts(), strict=True)
    }


def test_lane_key_swatches_are_the_bars_colours_and_hatches(figure: CrawlFigure) -> None:
    key = lane_key(figure)
    for word, (face, hatch) in key.items():
        style = BY_LABEL[word]
        assert face == style.hex and (hatch or "") == style.hatch, word
    for name, bars in figure.bars.items():
        if len(bars.get_paths()):  # every state a bar is drawn in has its swatch, same colour and hatch
            style = STATES[name]
            assert style.label in key, f"{name} drawn without a swatch"
            assert {to_hex(c) for c in bars.get_facecolor()} == {style.hex}
            assert (bars.get_hatch() or "") == style.hatch
    assert key["duplicate"][0] != key["fetching"][0]


def test_duplicates_are_hatched_red_bars_and_red_pages() -> None:
    figure = snapshot("see-it", 12.0, normalize="off")
    assert len(figure.bars["duplicate"].get_paths()) >= 3
    red = to_rgba(STATES["duplicate"].hex)
    assert sum(tuple(face) == red for face in figure.nodes.get_facecolor()) >= 3
    assert figure.bars["duplicate"].get_hatch() == STATES["duplicate"].hatch
    # and a cross on each duplicate page, so it reads without colour too
    reds = sum(tuple(face) == red for face in figure.nodes.get_facecolor())
    assert len(figure.duplicate_marks.get_offsets()) == reds
    figure.update(0.0)
    assert len(figure.duplicate_marks.get_offsets()) == 0


def test_curves_are_drawn_in_their_states_colours(figure: CrawlFigure) -> None:
    assert to_hex(figure.frontier_line.get_color()) == STATES["frontier"].hex
    assert to_hex(figure.flight_line.get_color()) == STATES["fetching"].hex
