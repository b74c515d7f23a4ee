"""Frames (RGBA pixel arrays) to a GIF or an MP4 file.

The frames come from :meth:`crawlsim.notebook.draw.CrawlFigure.frames`,
already rendered, so these writers only encode:

* GIF with Pillow (which matplotlib already needs).  Every frame is mapped
  onto one palette, made once: the style's colours exactly (so the depth and
  work bounds, or a duplicate's red and the busiest host's purple, never
  merge into one palette entry as an adaptive per-frame palette did), then
  the colours of the fullest frame.  One palette also means no flicker
  between frames.  The last frame is held by its duration, not by copies.
* MP4 by piping raw RGBA frames to ffmpeg (libx264, yuv420p: what every
  player and slide program accepts).  The binary comes from the
  ``imageio-ffmpeg`` wheel, else an ``ffmpeg`` on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from matplotlib.colors import to_rgb
from PIL import Image

from crawlsim.errors import UsageError
from crawlsim.extras import MissingExtraError

PALETTE_SIZE = 256


def ffmpeg_path() -> str:
    """The ffmpeg binary: the ``video`` extra's bundled one, else one on PATH."""
    try:
        import imageio_ffmpeg

        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except (ImportError, RuntimeError):
        found = shutil.which("ffmpeg")
        if found:
            return found
    raise MissingExtraError("video", "writing an MP4", otherwise="or put ffmpeg on PATH, or write a .gif")


def palette_for(fullest: np.ndarray, colours: Sequence[str]) -> Image.Image:
    """A ``P`` image holding the palette: ``colours`` exactly, then the most
    common colours of ``fullest`` (an RGBA frame) to fill 256 entries."""
    fixed = [tuple(round(255 * c) for c in to_rgb(colour)) for colour in dict.fromkeys(colours)]
    rest = PALETTE_SIZE - len(fixed)
    adaptive = Image.fromarray(fullest[..., :3]).quantize(colors=rest, method=Image.Quantize.MEDIANCUT)
    entries = [channel for rgb in fixed for channel in rgb] + (adaptive.getpalette() or [])[: 3 * rest]
    entries += [0] * (3 * PALETTE_SIZE - len(entries))
    palette = Image.new("P", (1, 1))
    palette.putpalette(entries[: 3 * PALETTE_SIZE])
    return palette


def write_gif(path: Path, frames: Iterable[np.ndarray], palette: Image.Image, fps: int, hold: float) -> int:
    """Write ``frames`` to ``path`` as a looping GIF at ``fps``, the last
    frame shown ``hold`` seconds longer.  Returns the number of frames."""
    images = [
        Image.fromarray(frame[..., :3]).quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames
    ]
    if not images:
        raise ValueError("no frames to write")
    step = 1000 / fps
    durations = [round(step)] * len(images)
    durations[-1] = round(step + 1000 * hold)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, disposal=1)
    return len(images)


def write_mp4(path: Path, frames: Iterable[np.ndarray], fps: int, hold: float, shown: Path | None = None) -> int:
    """Pipe ``frames`` (all one even size) to ffmpeg as H.264 at ``fps``; the
    last frame repeated for ``hold`` seconds.  Returns the frames written.
    An error names ``shown`` (the file the user asked for), else ``path``."""
    process: subprocess.Popen[bytes] | None = None
    count = 0
    try:
        last: np.ndarray | None = None
        for frame in frames:
            process = process or _ffmpeg(path, frame.shape[1], frame.shape[0], fps)
            if not _send(process, frame):
                break
            last, count = frame, count + 1
        if process is None or last is None:
            raise ValueError("no frames to write")
        for _ in range(round(fps * hold)):
            count += _send(process, last)
        _, err = process.communicate()  # closes stdin: ffmpeg finishes the file
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        raise UsageError(f"ffmpeg could not write {str(shown or path)!r}: {lines[-1] if lines else process.returncode}")
    return count


def _send(process: subprocess.Popen[bytes], frame: np.ndarray) -> bool:
    """One raw frame to ffmpeg; False if it has stopped listening (it failed:
    its error is read when it is waited for)."""
    assert process.stdin is not None
    try:
        process.stdin.write(frame.tobytes())
    except BrokenPipeError:
        return False
    return True


def _ffmpeg(path: Path, width: int, height: int, fps: int) -> subprocess.Popen[bytes]:
    command = [
        ffmpeg_path(), "-y", "-loglevel", "error",
        "-f", "rawvideo", "-pix_fmt", "rgba", "-s", f"{width}x{height}", "-r", str(fps), "-i", "-",
        "-an", "-c:v", "libx264", "-pix_fmt", "yuv420p", str(path),
    ]  # fmt: skip
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


__all__ = ["ffmpeg_path", "palette_for", "write_gif", "write_mp4"]
