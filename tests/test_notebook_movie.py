"""``crawlsim animate`` lives in the notebook package (``crawlsim.notebook.movie``):
the command finds it, and ``from crawlsim.notebook import animate`` is the
function whatever was imported first."""

from __future__ import annotations

import subprocess
import sys

from crawlsim.cli import COMMANDS


def test_the_animate_command_loads_the_notebook_movie_module() -> None:
    module, function, _ = COMMANDS["animate"]
    code = f"import {module} as m; print(callable(m.{function}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "True"


def test_notebook_animate_is_the_function_after_the_movie_module_loaded() -> None:
    # A submodule sets its name on its package when imported: were the movie
    # module called ``animate``, this import order would hand out the module.
    code = (
        "import crawlsim.notebook.movie\n"
        "from crawlsim.notebook import animate\n"
        "print(animate.__module__, animate.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["crawlsim.notebook.movie", "animate"]


# -- still frames at named moments (crawlsim animate --frames) ---------------------

import itertools  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from crawlsim.notebook.moments import MomentError, parse_moments, resolve  # noqa: E402
from crawlsim.notebook.runs import run, snapshot  # noqa: E402
from crawlsim.views.plots import BOUND_COLOURS, BOUND_STYLES  # noqa: E402
from crawlsim.views.session import Result  # noqa: E402


def animate_main(argv: list[str]) -> int:
    """``crawlsim animate ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["animate", *argv])

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def see_it_off() -> Result:
    """see-it with normalization off: it has duplicate fetches."""
    return run("see-it", normalize="off")


@pytest.mark.slow  # renders several frames (3-4 s)
def test_still_frames_at_named_moments_exist_and_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["see-it", "--normalize", "off", "--frames", "start,first-duplicate,end", "-o", str(tmp_path / "s.png"),
            "--dpi", "40"]
    assert animate_main(argv) == 0
    out, err = capsys.readouterr()
    files = [tmp_path / f"s-{name}.png" for name in ("start", "first-duplicate", "end")]
    pictures = [f.read_bytes() for f in files]
    assert all(p.startswith(PNG) for p in pictures)
    assert all(a != b for a, b in itertools.combinations(pictures, 2))
    assert [line.split()[1] for line in out.splitlines()] == [str(f) for f in files]
    assert err == ""  # not a terminal: no progress bar


def test_still_frames_as_svg_into_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert animate_main(["isro", "--frames", "0,1.5s,end", "-o", str(tmp_path), "--format", "svg"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["isro-0s.svg", "isro-1.5s.svg", "isro-end.svg"]
    assert all("<svg" in (tmp_path / n).read_text() for n in names)
    assert "t = 1.50 s" in capsys.readouterr().out


def test_first_duplicate_is_drawn_while_the_first_duplicate_fetch_is_in_flight(see_it_off: Result) -> None:
    (moment,) = resolve(["first-duplicate"], see_it_off)
    spans = [s for lane in see_it_off.replay.lanes for s in lane]
    duplicates = [s for s in spans if s.duplicate]
    containing = [s for s in duplicates if s.start <= moment.t < s.end]
    assert containing and all(s.start >= containing[0].start for s in duplicates)
    see_it_off.replay.seek(moment.t)
    assert see_it_off.replay.counters().duplicates_in_flight >= 1


def test_busiest_host_saturated_is_where_the_busiest_host_stays_at_its_limit(see_it_off: Result) -> None:
    (moment,) = resolve(["busiest-host-saturated"], see_it_off)
    assert see_it_off.bounds is not None and see_it_off.options is not None
    host, limit = see_it_off.bounds.busiest_host_name, see_it_off.options.per_host
    assert limit is not None and see_it_off.options.gap == 0
    spans = [s for lane in see_it_off.replay.lanes for s in lane if s.host == host]

    def in_flight(t: float) -> int:
        return sum(s.start <= t < s.end for s in spans)

    assert in_flight(moment.t) == limit
    last_start = max(s.start for s in spans)
    edges = sorted({moment.t, *(x for s in spans for x in (s.start, s.end) if moment.t < x <= last_start)})
    assert all(in_flight((a + b) / 2) >= limit for a, b in itertools.pairwise(edges))  # never idle below it


def test_moments_parse_names_and_times() -> None:
    assert parse_moments(" start, 1.5s ,END,start") == ["start", "1.5s", "end"]
    for bad in ("-1", "nan", "", "soon"):
        with pytest.raises(MomentError):
            parse_moments(bad)


def test_an_unknown_moment_exits_2_with_a_suggestion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert animate_main(["see-it", "--frames", "start,first-dupe", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("crawlsim: error: ") and "\n" not in err
    assert "did you mean 'first-duplicate'?" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("frames", "message"),
    [("start,first-duplicate", "fetches no page twice"), ("0,99", "after the crawl's end at 19.0 s")],
)
def test_a_moment_that_never_happens_is_one_clear_line_and_nothing_is_written(
    frames: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert animate_main(["see-it", "--frames", frames, "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("crawlsim: error: --frames ") and "\n" not in err and message in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--frames", "end", "-o", "x.gif"], "--frames writes still frames"),
        (["-o", "x.png"], "say which moments with --frames"),
        (["--frames", "end", "-o", "x.png", "--format", "svg"], "pick one"),
        (["-o", "x.gif", "--format", "png"], "is for still frames"),
        (["--frames", "end", "-o", f"{__file__}/x.png"], "is not a folder"),  # a file where the folder would be made
    ],
)
def test_output_mistakes_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert animate_main(["see-it", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("crawlsim: error: ") and "\n" not in err and message in err


def test_a_gif_shows_progress_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: stderr counts as a terminal
    out = tmp_path / "a.gif"
    assert animate_main(["isro", "-o", str(out), "--fps", "3", "--seconds", "1", "--dpi", "30"]) == 0
    err = capsys.readouterr().err
    assert "simulating isro" in err and "drawing 3 frames" in err
    with Image.open(out) as gif:
        assert gif.n_frames >= 2 and gif.info["loop"] == 0


def test_the_gif_palette_keeps_every_bound_colour_exactly(see_it_off: Result) -> None:
    from matplotlib.colors import to_rgb

    from crawlsim.notebook.writers import palette_for

    figure = snapshot("see-it", normalize="off", dpi=30)
    (frame,) = figure.frames([see_it_off.finish])
    palette = palette_for(frame, list(BOUND_COLOURS.values())).getpalette() or []
    entries = [tuple(palette[i:i + 3]) for i in range(0, len(palette), 3)]
    wanted = [tuple(round(255 * c) for c in to_rgb(colour)) for colour in BOUND_COLOURS.values()]
    assert len(entries) == 256 and entries[:3] == wanted  # not merged into one adaptive entry


def test_quiet_means_nothing_but_errors_even_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-q`` means what it means in ``crawlsim html``: no progress, no "wrote" line."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert animate_main(["isro", "--frames", "end", "-o", str(tmp_path / "i.png"), "--dpi", "30", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert (tmp_path / "i-end.png").stat().st_size > 0


# -- the picture's style (artists, not pixels) ----------------------------------------


def test_the_crawl_picture_draws_each_bound_in_its_own_colour_and_style() -> None:
    figure = snapshot("see-it", dpi=30)
    bounds = [line for line in figure.ax_lanes.get_lines() if "bound" in str(line.get_label())]
    assert len(bounds) == 3
    colours = {line.get_color() for line in bounds}
    styles = {line.get_linestyle() for line in bounds}
    assert len(colours) == 3 and len(styles) == 3
    assert colours == set(BOUND_COLOURS.values())
    assert len(set(BOUND_STYLES.values())) == 3
    labels = [t.get_text() for t in figure.ax_lanes.get_yticklabels()]
    assert labels == ["w1", "w2", "w3", "w4"]  # workers numbered as in the app's legend and the notebook
    assert "seconds" in figure.ax_curves.get_xlabel()


def test_the_count_axis_has_integer_ticks_only() -> None:
    figure = snapshot("see-it", normalize="off", dpi=30)  # frontier up to 8: matplotlib's own ticks are 2.5, 5, 7.5
    ticks = figure.ax_curves.get_yticks()
    low, high = figure.ax_curves.get_ylim()
    shown = [t for t in ticks if low <= t <= high]
    assert len(shown) >= 2 and all(float(t).is_integer() for t in shown)


@pytest.mark.slow  # renders several frames (3-4 s)
def test_blitted_frames_match_a_full_redraw(see_it_off: Result) -> None:
    figure = snapshot("see-it", normalize="off", dpi=40)
    times = [0.0, 2.5, see_it_off.finish / 2, see_it_off.finish]
    frames = list(figure.frames(times))
    for t, frame in zip(times, frames, strict=True):
        figure.update(t)
        figure.canvas.draw()
        full = np.asarray(figure.canvas.buffer_rgba())
        differing = int((frame != full).any(axis=2).sum())
        # only where a fixed page label overlaps a moving node edge may the order differ
        assert differing <= math.ceil(0.001 * frame.shape[0] * frame.shape[1]), t
    assert all((a != b).any() for a, b in itertools.pairwise(frames))


def test_the_pictures_legends_say_the_apps_and_the_pages_words(capsys: pytest.CaptureFixture[str]) -> None:
    """polite skips links robots.txt refuses: the picture's key says ``unseen`` and ``skipped``
    as the app's legend and the see-it page's do, and marks the binding bound as ``run`` does."""
    import re

    from crawlsim.cli import main
    from crawlsim.page.look import look_data
    from crawlsim.tui.pages import PagesView
    from crawlsim.words import BINDING_MARK

    figure = snapshot("polite", dpi=30)
    in_picture = [t.get_text() for t in figure.ax_graph.get_legend().get_texts()]
    on_page = [look["label"] for look in look_data()["states"]][: len(in_picture)]
    in_app = re.findall(r"([a-z]+) \d+", PagesView.legend(figure.replay, 300).plain)
    assert in_picture == on_page
    assert {"unseen", "skipped"} <= set(in_app) and set(in_app) - {"dup"} <= set(in_picture)
    marks = [t.get_text() for t in figure.ax_lanes.get_legend().get_texts()]
    assert main(["run", "polite"]) == 0
    run_lines = [line for line in capsys.readouterr().out.splitlines() if BINDING_MARK in line]
    assert len(run_lines) == 1 and run_lines[0].rstrip().endswith(BINDING_MARK)
    assert [m.splitlines()[-1] for m in marks if BINDING_MARK in m] == [BINDING_MARK]
