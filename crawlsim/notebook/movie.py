"""`crawlsim animate`: a crawl as a GIF or MP4, or as still frames, for slides.

It lives with the notebook's drawing code because it is that drawing, played:
the frames are the notebook's picture (:class:`crawlsim.notebook.draw.CrawlFigure`)
at evenly spaced simulated times, rendered by blitting (only what moves is
redrawn) and encoded by :mod:`crawlsim.notebook.writers` (Pillow for
``.gif``, ffmpeg for ``.mp4``).  ``--frames`` writes still pictures instead,
at named moments (:mod:`crawlsim.notebook.moments`) or times, as PNG or SVG:

    crawlsim animate see-it -o crawl.gif --workers 2 --normalize off
    crawlsim animate trap -o trap.mp4 --order dfs --layout level --seconds 12
    crawlsim animate see-it --normalize off --frames start,first-duplicate,end -o slides/see-it.svg
    crawlsim animate see-it --frames 0,1.5,end -o slides/ --format png

A progress bar goes to stderr on a terminal; stdout gets one ``wrote FILE``
line per file (``--quiet``: neither, as in ``crawlsim html``).  A mistake (unknown extension or
moment, a moment that never happens, no ffmpeg, a bad scenario or option)
prints one line ``crawlsim: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawlsim.cli_options import ArgumentParser, add_crawler_flags, add_quiet_flag, overrides_from_args
from crawlsim.errors import UsageError
from crawlsim.outfile import check_writable, make_folder, replaced
from crawlsim.notebook.progress import Stages, stages
from crawlsim.notebook.writers import ffmpeg_path
from crawlsim.scenario.files import DEFAULT_SCENARIO

if TYPE_CHECKING:
    from crawlsim.notebook.draw import CrawlFigure
    from crawlsim.notebook.moments import Moment
    from crawlsim.scenario import Scenario
    from crawlsim.views.session import Result

FORMATS = (".gif", ".mp4")
STILL_FORMATS = (".png", ".svg")
HOLD_SECONDS = 1.5
"""The last frame is held this long, so a looping GIF shows the finish."""
SLIDE_INCHES = (8.0, 5.75)
"""The picture's size in inches unless ``--dpi`` says otherwise.  Text is set
in points, so the fewer inches, the larger a share of the picture a letter
takes: at 8 in wide, a quarter more than the notebook's 10 in -- what a
projector needs for the back of a room -- and still room for the legends."""
SLIDE_SIZE = (1280, 920)
"""Default pixels of a movie or a still: 160 dots per inch of :data:`SLIDE_INCHES`."""
SIZE_LIMITS = (100, 8000)
DPI_LIMITS = (10.0, 1200.0)
MAX_FRAMES = {".gif": 600, ".mp4": 18_000}
"""Most frames a movie may have (``--fps`` times ``--seconds``): a GIF is
held in memory whole (600 slide-sized frames are about 0.7 GB), an MP4 is
streamed to ffmpeg (18,000 frames: ten minutes at 30 frames per second)."""


class AnimateError(UsageError):
    """A user's mistake: the CLI prints it on one line and exits 2.  A
    :class:`~crawlsim.errors.UsageError`, so code that handles the one
    command-line mistake type handles this one too."""


def _movie_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise AnimateError(
            f"cannot write {str(path)!r}: expected a file name ending in {' or '.join(FORMATS)} "
            f"(or {' or '.join(STILL_FORMATS)} with --frames)"
        )
    return suffix


def picture_size(size: str | None, dpi: float | None) -> tuple[tuple[float, float], float]:
    """(figure size in inches, dots per inch) for ``--size WxH`` and ``--dpi``.

    Neither: :data:`SLIDE_SIZE` at :data:`SLIDE_INCHES`.  ``--size`` alone:
    that many pixels, :data:`SLIDE_INCHES`' height (so text keeps its share
    of the picture).  ``--dpi`` alone: :data:`SLIDE_INCHES` at that density
    (a smaller or sharper copy of the same picture).  Both: exactly that."""
    if dpi is not None and not DPI_LIMITS[0] <= dpi <= DPI_LIMITS[1]:
        raise AnimateError(f"--dpi {dpi:g}: expected dots per inch from {DPI_LIMITS[0]:g} to {DPI_LIMITS[1]:g}")
    if size is None:
        density = dpi if dpi is not None else SLIDE_SIZE[0] / SLIDE_INCHES[0]
        return SLIDE_INCHES, density
    width, height = parse_size(size)
    density = dpi if dpi is not None else height / SLIDE_INCHES[1]
    return (width / density, height / density), density


def parse_size(text: str) -> tuple[int, int]:
    """``1280x720`` as (1280, 720); one line naming what was expected otherwise."""
    low, high = SIZE_LIMITS
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise AnimateError(f"--size {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 1280x720")
    width, height = (int(p) for p in parts)
    if not (low <= width <= high and low <= height <= high):
        raise AnimateError(f"--size {text!r}: width and height must be {low}-{high} pixels")
    return width, height


def _draw(
    scenario: Scenario | str, overrides: dict[str, Any], *, layout: str, dpi: float, figsize: tuple[float, float],
    steps: Stages,
) -> tuple[Scenario, Result, CrawlFigure]:
    """Simulate and build the picture (at its last moment).  The size is
    rounded to even pixels: libx264 needs them."""
    from crawlsim.notebook.draw import CrawlFigure
    from crawlsim.notebook.runs import as_scenario, run
    from crawlsim.views.plots import chart_title

    scen = as_scenario(scenario, overrides)
    steps.start(f"simulating {scen.name}")
    result = run(scen)
    width = 2 * round(figsize[0] * dpi / 2) / dpi
    height = 2 * round(figsize[1] * dpi / 2) / dpi
    drawing = CrawlFigure(figsize=(width, height), dpi=dpi)
    subtitle = result.knobs.describe() if result.knobs is not None else ""
    drawing.show_run(result.replay, title=chart_title(scen.name, scen.title), layout=layout, finish=result.finish,
                     bounds=result.bounds, subtitle=subtitle + (f" · {result.note}" if result.note else ""))
    return scen, result, drawing


def animate(
    scenario: Scenario | str,
    path: str | Path,
    *,
    fps: int = 10,
    seconds: float = 8.0,
    layout: str = "host",
    dpi: float = SLIDE_SIZE[0] / SLIDE_INCHES[0],
    figsize: tuple[float, float] = SLIDE_INCHES,
    progress: bool = False,
    **overrides: Any,
) -> Path:
    """Write ``scenario``'s crawl (with crawler option ``overrides``) to
    ``path`` (.gif or .mp4): ``seconds`` of playback at ``fps`` frames per
    second, then the final frame held for a moment.  ``progress`` shows a
    bar on a terminal.  Returns the path."""
    from crawlsim.notebook.draw import SPAN_COLOURS, STATE_COLOURS, frame_times
    from crawlsim.notebook.writers import palette_for, write_gif, write_mp4
    from crawlsim.palette import STATES
    from crawlsim.views.plots import BOUND_COLOURS, FINISH_COLOUR

    out = Path(path)
    if fps < 1:
        raise AnimateError(f"--fps: expected a whole number >= 1, got {fps}")
    if not seconds > 0:
        raise AnimateError(f"--seconds: expected a positive number of seconds, got {seconds:g}")
    suffix = _movie_suffix(out)  # before the simulation: fail fast on a bad name
    if not fps * seconds <= MAX_FRAMES[suffix]:
        raise AnimateError(f"--seconds {seconds:g} at --fps {fps} is {fps * seconds:,.0f} frames; a {suffix} movie "
                           f"may have at most {MAX_FRAMES[suffix]:,} (give fewer --seconds or a lower --fps)")
    if suffix == ".mp4":
        ffmpeg_path()
    check_writable(out)  # made when missing, as for every output file (before the simulation)
    with stages(progress) as steps:
        _, result, drawing = _draw(scenario, overrides, layout=layout, dpi=dpi, figsize=figsize, steps=steps)
        times = frame_times(result.finish, max(1, round(fps * seconds) - 1))
        steps.start(f"drawing {len(times)} frames", total=len(times))
        rendered = drawing.frames(times)

        def counted() -> Any:
            for frame in rendered:
                steps.advance()
                yield frame

        with replaced(out) as temp:  # a full disk or Ctrl-C: no half-encoded movie left looking finished
            if suffix == ".gif":
                (fullest,) = drawing.frames([result.finish])
                inks = [style.ink for style in STATES.values()]  # the hatches' lines
                colours = [*STATE_COLOURS.values(), *SPAN_COLOURS.values(), *inks, *BOUND_COLOURS.values(), FINISH_COLOUR]
                write_gif(temp, counted(), palette_for(fullest, colours), fps, HOLD_SECONDS)
            else:
                write_mp4(temp, counted(), fps, HOLD_SECONDS, shown=out)
    return out


def still_frames(
    scenario: Scenario | str,
    moments: str | Sequence[str],
    path: str | Path,
    *,
    fmt: str | None = None,
    layout: str = "host",
    dpi: float = SLIDE_SIZE[0] / SLIDE_INCHES[0],
    figsize: tuple[float, float] = SLIDE_INCHES,
    progress: bool = False,
    **overrides: Any,
) -> list[tuple[Path, Moment]]:
    """Write the picture at each of ``moments`` (names such as ``start``,
    ``first-duplicate``, ``busiest-host-saturated``, ``end``, or times in
    seconds; a comma-separated string or a list) as PNG or SVG.

    ``path`` is ``NAME.png``/``NAME.svg`` (files ``NAME-MOMENT.png``) or a
    folder (files ``SCENARIO-MOMENT.FMT``); ``fmt`` is ``png`` or ``svg``.
    Every moment is checked before anything is written.  Returns each file
    written with its moment (its time, and why that time)."""
    from crawlsim.notebook.moments import parse_moments, resolve

    items = parse_moments(moments if isinstance(moments, str) else ",".join(moments))
    out = Path(path)
    folder, stem, suffix = _still_target(out, fmt)
    make_folder(folder, out)
    with stages(progress) as steps:
        scen, result, drawing = _draw(scenario, overrides, layout=layout, dpi=dpi, figsize=figsize, steps=steps)
        chosen = resolve(items, result)
        steps.start(f"writing {len(chosen)} still frame{'s' if len(chosen) != 1 else ''}", total=len(chosen))
        written = []
        for moment in chosen:
            target = folder / f"{stem or scen.name}-{moment.label}{suffix}"
            drawing.update(moment.t)
            with replaced(target) as temp:
                drawing.save(temp, suffix[1:])
            written.append((target, moment))
            steps.advance()
    return written


def _still_target(out: Path, fmt: str | None) -> tuple[Path, str, str]:
    """(folder, file-name stem or "" for the scenario's name, suffix) of the
    still frames for ``-o out`` and ``--format fmt``."""
    wanted = f".{fmt.lower().lstrip('.')}" if fmt else None
    if wanted is not None and wanted not in STILL_FORMATS:
        raise AnimateError(f"--format {fmt}: still frames are {' or '.join(s[1:] for s in STILL_FORMATS)}")
    suffix = out.suffix.lower()
    if suffix in STILL_FORMATS:
        if wanted is not None and wanted != suffix:
            raise AnimateError(f"-o {str(out)!r} is {suffix[1:]} but --format says {wanted[1:]}: pick one")
        return out.parent, out.stem, suffix
    if suffix in FORMATS:
        raise AnimateError(
            f"--frames writes still frames: -o NAME.png, NAME.svg or a folder, not {str(out)!r} "
            f"(leave out --frames for a {suffix[1:]})"
        )
    return out, "", wanted or ".png"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crawlsim animate",
        description="Export a simulated crawl as an animation (GIF or MP4), or as still frames at named "
                    "moments (PNG or SVG), for slides.",
    )
    parser.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO,
                        help=f"shipped scenario name or TOML path (default: {DEFAULT_SCENARIO})")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help='crawl.gif or crawl.mp4 (ffmpeg, or the "video" extra); '
                             "with --frames NAME.png, NAME.svg or a folder")
    parser.add_argument("--frames", metavar="MOMENTS", default=None,
                        help="still frames instead of a movie: comma-separated moments, each start, "
                             "first-duplicate, busiest-host-saturated, end, or a time in seconds (e.g. 0,1.5,end)")
    parser.add_argument("--format", choices=("png", "svg"), default=None,
                        help="still frame format when -o is a folder (default: png; else -o's suffix)")
    parser.add_argument("--fps", type=int, default=10, metavar="N", help="frames per second (default: 10)")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of the playback (default: 8)")
    parser.add_argument("--layout", choices=("host", "level"), default="host",
                        help="group pages by host or by BFS level (default: host)")
    parser.add_argument("--size", metavar="WxH", default=None,
                        help=f"picture size in pixels, rounded to even (default: {SLIDE_SIZE[0]}x{SLIDE_SIZE[1]}, large enough "
                             "type for the back of a room; the type keeps its share of the picture at any size)")
    parser.add_argument("--dpi", type=float, default=None, metavar="N",
                        help=f"dots per inch: text is in points, so a higher --dpi at one --size makes it bigger "
                             f"(default: {SLIDE_SIZE[0] / SLIDE_INCHES[0]:g} without --size; with it, height / "
                             f"{SLIDE_INCHES[1]:g})")
    add_quiet_flag(parser)  # a progress bar is drawn only on a terminal anyway
    add_crawler_flags(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``crawlsim animate``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        lines = _export(args)
    except OSError as err:
        raise UsageError(f"cannot write {args.output!r}: {err.strerror or err}") from None
    if not args.quiet:
        for line in lines:
            print(line)
    return 0


def _export(args: argparse.Namespace) -> list[str]:
    """Write the files ``args`` ask for (still frames with ``--frames``, else
    a movie); one line per file, saying what it shows."""
    overrides = overrides_from_args(args)
    progress = not args.quiet
    figsize, dpi = picture_size(args.size, args.dpi)
    if args.frames is not None:
        stills = still_frames(args.scenario, args.frames, args.output, fmt=args.format, layout=args.layout,
                              dpi=dpi, figsize=figsize, progress=progress, **overrides)
        return [f"wrote {path} (t = {moment.t:.2f} s: {moment.why})" for path, moment in stills]
    if args.format is not None:
        raise AnimateError(f"--format {args.format} is for still frames: add --frames (e.g. --frames start,end)")
    if Path(args.output).suffix.lower() in STILL_FORMATS:
        raise AnimateError(f"-o {args.output!r} is a still frame: say which moments with --frames, e.g. --frames end")
    path = animate(args.scenario, args.output, fps=args.fps, seconds=args.seconds, layout=args.layout,
                   dpi=dpi, figsize=figsize, progress=progress, **overrides)
    return [f"wrote {path}"]


if __name__ == "__main__":
    from crawlsim.errors import guarded

    raise SystemExit(guarded(main, sys.argv[1:]))


__all__ = ["AnimateError", "animate", "build_parser", "ffmpeg_path", "main", "still_frames"]
