"""Make the pictures README and the docs show, from the project itself.

    python docs/scripts/pictures.py            # app.svg and sweep.png into docs/images/
    python docs/scripts/pictures.py --page     # also see-it-page.png (about 40 s: 1,440 crawls)
    python docs/scripts/pictures.py --out DIR  # somewhere else (the tests compare with docs/images)

* ``app.svg``: the terminal app on ``see-it`` at 7 s, paused, as Textual's own
  SVG screenshot (the app runs headless under Textual's test driver, so the
  picture depends on nothing but the code).
* ``sweep.png``: the plot ``crawlsim sweep busiest-host --workers 1,2,4,8,16``
  writes.
* ``see-it-page.png``: the page ``crawlsim html see-it`` writes, in headless
  Chromium, with normalization off, twelve steps in.  Making it costs too much
  for every test run, so beside it ``see-it-page.sources`` records a digest of
  the files the page is made from; ``tests/test_docs.py`` fails when they
  change and the picture was not made again.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
APP_SIZE = (120, 36)
APP_AT = 7.0
SWEEP = ["sweep", "busiest-host", "--workers", "1,2,4,8,16", "--jobs", "1"]
PAGE_SOURCES = ["crawlsim/page", "crawlsim/palette.py", "scenarios/see-it.toml"]
"""What the offline page is made from: its picture is stale when one of these changes."""


def app_svg() -> str:
    """The terminal app on see-it at :data:`APP_AT` seconds, as SVG."""
    from crawlsim.scenario import load_scenario
    from crawlsim.tui.app import CrawlApp

    async def shoot() -> str:
        app = CrawlApp(load_scenario("see-it"), paused=True, at=APP_AT, animate=False, threaded=False)
        async with app.run_test(size=APP_SIZE) as pilot:
            await pilot.pause()
            return app.export_screenshot(title="crawlsim see-it")

    return asyncio.run(shoot())


def sweep_png(out: Path) -> None:
    """``crawlsim sweep busiest-host --workers 1,2,4,8,16``'s plot, as ``out``."""
    from crawlsim.cli import main

    with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(io.StringIO()):
        status = main([*SWEEP, "-o", folder])
        if status != 0:
            raise SystemExit(f"crawlsim {' '.join(SWEEP)} exited {status}")
        shutil.copyfile(Path(folder) / "sweep.png", out)


def sources_digest() -> str:
    """A digest of every file in :data:`PAGE_SOURCES` (names and bytes)."""
    digest = hashlib.sha256()
    for source in PAGE_SOURCES:
        path = ROOT / source
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts:
                continue
            digest.update(file.relative_to(ROOT).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def page_png(out: Path) -> None:
    """The see-it page in headless Chromium, normalization off, twelve steps in (the first screen)."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("--page needs Debian's chromium")
    with tempfile.TemporaryDirectory() as folder:
        html = Path(folder) / "see-it.html"
        subprocess.run([sys.executable, "-m", "crawlsim", "html", "see-it", "-o", str(html), "-q"], check=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--headless=new", "--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1440, "height": 1100})
                page.goto(html.as_uri())
                page.wait_for_selector("#finish b")
                for mode in ("aggressive", "off"):  # n cycles on from rfc3986: duplicate fetches to see
                    page.keyboard.press("n")
                    page.wait_for_function("m => document.querySelector('#k-n').innerText === m", arg=mode)
                for _ in range(12):
                    page.keyboard.press(".")
                out.write_bytes(page.screenshot())
            finally:
                browser.close()
    out.with_suffix(".sources").write_text(sources_digest() + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder to write into (default: docs/images)")
    parser.add_argument("--page", action="store_true", help="also the offline page's picture (about 40 s)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "app.svg").write_text(app_svg(), encoding="utf-8")
    sweep_png(args.out / "sweep.png")
    if args.page:
        page_png(args.out / "see-it-page.png")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
