"""`crawlsim animate`: export a crawl as a GIF or MP4 for slides.

It lives with the notebook's drawing code because it is that drawing, played:
the frames are the notebook's picture (:class:`crawlsim.notebook.draw.CrawlFigure`)
at evenly spaced simulated times, written by a matplotlib movie writer:
``PillowWriter`` for ``.gif`` (Pillow comes with matplotlib) and
``FFMpegWriter`` for ``.mp4``.  The ffmpeg binary comes from the
``imageio-ffmpeg`` wheel, so no system package is needed; an ``ffmpeg`` on
``PATH`` is the fallback.

    crawlsim animate see-it -o crawl.gif --workers 2 --normalize off
    crawlsim animate trap -o trap.mp4 --order dfs --layout level --seconds 12

A mistake (unknown extension, no ffmpeg, a bad scenario or option) prints one
line ``crawlsim animate: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawlsim.cli_options import add_crawler_flags, overrides_from_args
from crawlsim.core.options import OptionError
from crawlsim.errors import UsageError
from crawlsim.scenario import DEFAULT_SCENARIO, ScenarioError

if TYPE_CHECKING:
    from matplotlib.animation import AbstractMovieWriter

    from crawlsim.scenario import Scenario

FORMATS = (".gif", ".mp4")
HOLD_SECONDS = 1.5
"""The last frame is held this long, so a looping GIF shows the finish."""


class AnimateError(UsageError):
    """A user's mistake: the CLI prints it on one line and exits 2.  A
    :class:`~crawlsim.errors.UsageError`, so code that handles the one
    command-line mistake type handles this one too."""


def ffmpeg_path() -> str:
    """The ffmpeg binary: imageio-ffmpeg's bundled one, else one on PATH."""
    try:
        import imageio_ffmpeg

        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except (ImportError, RuntimeError):
        found = shutil.which("ffmpeg")
        if found:
            return found
    raise AnimateError("writing MP4 needs ffmpeg: pip install imageio-ffmpeg (or write a .gif)")


def movie_writer(path: Path, fps: int) -> AbstractMovieWriter:
    """The matplotlib writer for ``path``'s extension."""
    from matplotlib import animation, rcParams

    suffix = path.suffix.lower()
    if suffix == ".gif":
        return animation.PillowWriter(fps=fps)
    if suffix == ".mp4":
        rcParams["animation.ffmpeg_path"] = ffmpeg_path()
        # yuv420p: the pixel format every player (and slide software) accepts
        return animation.FFMpegWriter(fps=fps, codec="libx264", extra_args=["-pix_fmt", "yuv420p"])
    raise AnimateError(
        f"cannot write {str(path)!r}: expected a file name ending in {' or '.join(FORMATS)}"
    )


def animate(
    scenario: Scenario | str,
    path: str | Path,
    *,
    fps: int = 10,
    seconds: float = 8.0,
    layout: str = "host",
    dpi: float = 80,
    figsize: tuple[float, float] = (10.0, 7.2),
    **overrides: Any,
) -> Path:
    """Write ``scenario``'s crawl (with crawler option ``overrides``) to
    ``path`` (.gif or .mp4): ``seconds`` of playback at ``fps`` frames per
    second, then the final frame held for a moment.  Returns the path."""
    from crawlsim.notebook.draw import CrawlFigure, frame_times
    from crawlsim.notebook.runs import as_scenario, run

    out = Path(path)
    if fps < 1:
        raise AnimateError(f"--fps: expected a whole number >= 1, got {fps}")
    if not seconds > 0:
        raise AnimateError(f"--seconds: expected a positive number of seconds, got {seconds:g}")
    writer = movie_writer(out, fps)  # before the simulation: fail fast on a bad name
    if not out.parent.is_dir():
        raise AnimateError(f"cannot write {str(out)!r}: no such directory {str(out.parent)!r}")
    scen = as_scenario(scenario, overrides)
    result = run(scen)
    # libx264 needs even pixel sizes: round the figure to an even size at this dpi
    width = 2 * round(figsize[0] * dpi / 2) / dpi
    height = 2 * round(figsize[1] * dpi / 2) / dpi
    drawing = CrawlFigure(figsize=(width, height), dpi=dpi)
    drawing.show_run(result.replay, title=scen.title, layout=layout, finish=result.finish, bounds=result.bounds)
    frames = max(1, round(fps * seconds) - 1)
    times = frame_times(result.finish, frames) + [result.finish] * round(fps * HOLD_SECONDS)
    with writer.saving(drawing.figure, str(out), dpi):
        for t in times:
            drawing.update(t)
            writer.grab_frame()
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawlsim animate",
        description="Export a simulated crawl as an animation (GIF or MP4) for slides.",
    )
    parser.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO,
                        help=f"shipped scenario name or TOML path (default: {DEFAULT_SCENARIO})")
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="crawl.gif or crawl.mp4")
    parser.add_argument("--fps", type=int, default=10, help="frames per second (default: 10)")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of the playback (default: 8)")
    parser.add_argument("--layout", choices=("host", "level"), default="host",
                        help="group pages by host or by BFS level (default: host)")
    parser.add_argument("--dpi", type=float, default=80, help="pixels per inch of the 10x7.2 in figure (default: 80)")
    add_crawler_flags(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``crawlsim animate``; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse printed usage and the error
        return int(exit_.code or 0)
    try:
        overrides = overrides_from_args(args)
        path = animate(args.scenario, args.output, fps=args.fps, seconds=args.seconds, layout=args.layout,
                       dpi=args.dpi, **overrides)
    except (AnimateError, ScenarioError, OptionError) as err:
        print(f"crawlsim animate: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"crawlsim animate: error: cannot write {args.output!r}: {err.strerror or err}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["AnimateError", "animate", "build_parser", "ffmpeg_path", "main", "movie_writer"]
