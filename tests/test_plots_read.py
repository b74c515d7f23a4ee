"""Charts that read: which bound belongs to which line, every bound the
legend names is on the chart, labels off the lines, and pictures big
enough for a projector (``crawlsim animate --size/--dpi``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from PIL import Image

from crawlsim.notebook.movie import SLIDE_SIZE
from crawlsim.views.plots import BOUND_GID, FINISH_GID, SweepSeries, crossings, draw_sweep


def animate_main(argv: list[str]) -> int:
    """``crawlsim animate ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["animate", *argv])


WORKERS = [1, 2, 4, 8, 16]


def per_host_sweep() -> list[SweepSeries]:
    """busiest-host swept over per_host 1, 2, 4 (the figures ``crawlsim sweep
    busiest-host --workers 1,2,4,8,16 --per-host 1,2,4`` prints), with the
    last line ending low, near the 1.5 s depth bound's label."""
    work = [500.0, 250.0, 125.0, 62.5, 31.2]
    return [
        SweepSeries("per_host=1", WORKERS, [500, 273, 184, 154, 153], [1.5] * 5, [153.2] * 5, work, "h0.example"),
        SweepSeries("per_host=2", WORKERS, [500, 251, 137, 93, 78], [1.5] * 5, [153.2, 76.6, 76.6, 76.6, 76.6], work,
                    "h0.example"),
        SweepSeries("per_host=4", WORKERS, [500, 251, 126, 68, 20], [1.5] * 5, [153.2, 76.6, 38.3, 38.3, 38.3], work,
                    "h0.example"),
    ]


@pytest.fixture()
def chart() -> Figure:
    figure = Figure(figsize=(8, 5), dpi=110)
    draw_sweep(figure.add_subplot(), per_host_sweep(), title="busiest-host")
    return figure


def lines_with(figure: Figure, prefix: str) -> list[Line2D]:
    return [line for line in figure.axes[0].get_lines() if str(line.get_gid() or "").startswith(prefix)]


def test_each_lines_own_bound_is_drawn_in_that_lines_colour(chart: Figure) -> None:
    finish = {str(line.get_label()): to_hex(line.get_color()) for line in lines_with(chart, FINISH_GID)}
    per_line = [line for line in lines_with(chart, f"{BOUND_GID}:busiest_host:")]
    assert len(per_line) == 3
    for line in per_line:
        series = str(line.get_gid()).rsplit(":", 1)[1]
        assert to_hex(line.get_color()) == finish[series], series
    assert len({to_hex(line.get_color()) for line in per_line}) == 3
    legend = [text.get_text() for text in chart.axes[0].get_legend().get_texts()]
    assert "busiest host bound (h0.example): one per line, in its colour" in legend


def test_every_bound_the_legend_names_is_inside_the_axes_and_over_the_lines(chart: Figure) -> None:
    ax = chart.axes[0]
    low, high = ax.get_ylim()
    legend = {text.get_text() for text in ax.get_legend().get_texts()}
    finish_z = max(line.get_zorder() for line in lines_with(chart, FINISH_GID))
    busiest = "busiest host bound (h0.example)"
    for key, word in (("depth", "depth bound"), ("work", "work bound"), ("busiest_host", busiest)):
        drawn = [line for line in lines_with(chart, f"{BOUND_GID}:{key}:")]
        assert any(text.startswith(word) for text in legend), word
        ys = [float(y) for line in drawn for y in line.get_ydata()]
        assert ys and any(low <= y <= high for y in ys), word
        # the work bound runs along the lines where it binds: drawn over them, it still shows
        assert all(line.get_zorder() > finish_z for line in drawn), word


def test_bound_labels_cross_no_line(chart: Figure) -> None:
    ax = chart.axes[0]
    labels = [t for t in ax.texts if isinstance(t, Text) and "bound" in t.get_text()]
    assert [t.get_text() for t in labels] == ["depth bound 1.5 s"]
    others = [line for line in ax.get_lines() if "depth" not in str(line.get_gid())]
    for label in labels:
        assert crossings(label, others) == 0, label.get_text()


def test_the_old_place_of_the_depth_label_was_on_a_line(chart: Figure) -> None:
    """The chart above is a real test of placement: right-aligned at the
    last point, where the label used to go, it sits on the per_host=4 line."""
    ax = chart.axes[0]
    (label,) = [t for t in ax.texts if "depth bound" in t.get_text()]
    label.xy = (16, 1.5)
    label.set_position((-2, 3))
    label.set_horizontalalignment("right")
    label.set_verticalalignment("bottom")
    others = [line for line in ax.get_lines() if "depth" not in str(line.get_gid())]
    assert crossings(label, others) > 0


def size_of(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


@pytest.mark.parametrize(
    ("flags", "expected"),
    [(["--size", "320x240"], (320, 240)), (["--dpi", "40"], (320, 230)), (["--size", "400x300", "--dpi", "50"], (400, 300))],
)
def test_size_and_dpi_set_a_stills_pixels(tmp_path: Path, flags: list[str], expected: tuple[int, int]) -> None:
    out = tmp_path / "s.png"
    assert animate_main(["see-it", "--frames", "end", "-o", str(out), "--quiet", *flags]) == 0
    assert size_of(tmp_path / "s-end.png") == expected


@pytest.mark.slow  # a few GIF frames
def test_size_sets_a_gifs_pixels(tmp_path: Path) -> None:
    out = tmp_path / "c.gif"
    assert animate_main(["see-it", "-o", str(out), "--fps", "2", "--seconds", "1", "--size", "300x200", "--quiet"]) == 0
    assert size_of(out) == (300, 200)


@pytest.mark.parametrize("size", ["12x", "wide", "1280x720x2", "50x50", "1280 by 720", "-1x300"])
def test_a_bad_size_is_one_error_line_and_exit_2(tmp_path: Path, size: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert animate_main(["see-it", "--frames", "end", "-o", str(tmp_path / "s.png"), f"--size={size}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crawlsim: error: --size"), err
    assert not list(tmp_path.iterdir())


def test_the_default_picture_has_type_for_the_back_of_a_room() -> None:
    """The smallest text of the default picture is at least 1.6 % of its
    height (the notebook's 10 x 7.2 in picture at 800 x 576 had 1.35 %)."""
    from crawlsim.notebook.movie import SLIDE_INCHES
    from crawlsim.notebook.runs import snapshot

    dpi = SLIDE_SIZE[0] / SLIDE_INCHES[0]
    figure = snapshot("see-it", figsize=SLIDE_INCHES, dpi=dpi)
    sizes = [t.get_fontsize() for t in figure.figure.findobj(Text) if t.get_text().strip() and t.get_visible()]
    assert min(sizes) * dpi / 72 / SLIDE_SIZE[1] >= 0.016
    assert (round(SLIDE_INCHES[0] * dpi), round(SLIDE_INCHES[1] * dpi)) == SLIDE_SIZE
