"""The notebook widget in a real browser: JupyterLab in headless Chromium.

nbclient runs the notebooks' Python; these tests check what a student sees.
One JupyterLab, started once for the module on a free loopback port with a
token, serves a temporary folder holding a notebook of every shipped cell
that shows the widget (as written in its notebook) and a notebook of the ways a teacher may show one (as a cell's
last expression, ``w = show(...)`` then ``w``, ``display(w)`` twice: two or
three views of one widget).  Chromium opens each notebook, runs all its
cells, presses Play in one view of each widget and sees the clock advance
past the first frame in every view of it; the same server's Notebook 7
front end does the same with the teacher's cells (and, in the exhaustive
step, Notebook 7's own server, ``python -m notebook``).  One Chromium serves the
module, a fresh context per test.  One test also sees the picture
change frame to frame, then moves the workers slider, then the nodes
slider, with the keyboard and sees the finish time change.  Screenshots go
to ``tmp_path`` (and ``$CRAWLSIM_ARTEFACTS`` when set).

Selected with ``-m browser``; part of the default run whenever a Chromium
binary exists (see :mod:`tests.browser`).
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.scenario import load_scenario
from tests.browser import (  # noqa: F401 (chromium: a fixture)
    Server, browser_page, chromium, keep_screenshot, needs_chromium, save_artefact,
)

pytestmark = [pytest.mark.browser, needs_chromium]

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

WIDGET = 'from crawlsim.notebook import show\nw = show("see-it", frames=12, interval_ms=300)'

TEACHER_CELLS = [
    'from IPython.display import display\nfrom crawlsim.notebook import show\nshow("isro", frames=12)',
    'w = show("see-it", frames=12)\nw',
    'v = show("isro", frames=12, layout="level")\ndisplay(v)\ndisplay(v)',
]
"""Each shows one widget more than once: shown and returned; shown, then its
name; shown, then displayed twice."""


def _widget_cells(path: Path) -> list[str]:
    """The code cells of a notebook that show a widget, as written."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    return [source for source in sources if "show(" in source]


SHIPPED = sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb") if _widget_cells(path))
SHIPPED_CELLS = [cell for name in SHIPPED for cell in _widget_cells(NOTEBOOKS / f"{name}.ipynb")]
"""Every cell of a shipped notebook that shows a widget: run together in one
notebook (``shipped.ipynb``), since what the browser checks is the widget each
shows; the rest of each notebook (its sweeps, its tables) is the kernel's
business, run and asserted by ``tests/test_notebooks.py``."""


def _notebook(path: Path, sources: list[str]) -> Path:
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"cell{i}", "metadata": {}, "outputs": [],
                   "source": source} for i, source in enumerate(sources)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }))
    return path


def _jupyter_lab(folder: Path, token: str, app: str = "jupyterlab") -> Server:
    """JupyterLab on loopback, port chosen by the OS, every Jupyter folder
    (config, runtime, workspaces, settings) inside ``folder``.  Its server
    also serves Notebook 7's front end (``/notebooks/...``) when Notebook 7
    is installed, as ``jupyter lab`` does: every installed front end's
    server extension is loaded.  ``app="notebook"``: Notebook 7's own
    server (``python -m notebook``), with the same settings."""
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(folder / name.lower())
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    argv = [
        sys.executable, "-m", app, "--no-browser", "--ServerApp.ip=127.0.0.1", "--ServerApp.port=0",
        "--ServerApp.port_retries=0", "--allow-root", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
        # window.jupyterapp, in both front ends: the tests run cells and read the model through it
        "--expose-app-in-browser", "--JupyterNotebookApp.expose_app_in_browser=True",
    ]
    if app == "jupyterlab":
        argv += [f"--LabApp.workspaces_dir={folder / 'workspaces'}", f"--LabApp.user_settings_dir={folder / 'settings'}",
                 "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    notification = folder / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')  # no news pop-up
    return Server(argv, r"http://127\.0\.0\.1:(\d+)/", cwd=folder, env=env)


class Lab(NamedTuple):
    port: str
    token: str
    notebook7: bool = False

    def url(self, notebook: str) -> str:
        if self.notebook7:
            return f"http://127.0.0.1:{self.port}/notebooks/{notebook}?token={self.token}"
        # reset: a fresh workspace, not the last test's open tabs
        return f"http://127.0.0.1:{self.port}/lab/tree/{notebook}?reset&token={self.token}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One JupyterLab for the module, serving copies of the shipped
    notebooks that show the widget and the test's own notebooks."""
    folder = tmp_path_factory.mktemp("lab")
    _notebook(folder / "shipped.ipynb", ["from crawlsim.notebook import show", *SHIPPED_CELLS])
    _notebook(folder / "widget.ipynb", [WIDGET])
    _notebook(folder / "teacher.ipynb", TEACHER_CELLS)
    _notebook(folder / "teacher7.ipynb", TEACHER_CELLS)  # the same cells, opened in Notebook 7
    token = secrets.token_hex(16)
    server = _jupyter_lab(folder, token)
    try:
        yield Lab(server.address(), token)
    finally:
        server.stop()


@pytest.mark.parametrize("name", ["shipped", "teacher"])
def test_every_view_of_every_widget_plays(lab: Lab, name: str, chromium: Any, tmp_path: Path) -> None:
    assert len(SHIPPED) >= 3  # 01, 03 and 16 show the widget
    shown = len(SHIPPED_CELLS)  # each shipped widget cell shows its widget once
    with browser_page(chromium, height=1600) as page:
        try:
            page.goto(lab.url(f"{name}.ipynb"))
            _run_all_cells(page)
            cells = page.locator(".jp-CodeCell").filter(has=page.locator(".crawlsim-play"))
            views = page.locator(".jp-CodeCell .crawlsim-play").count()
            assert (cells.count(), views) == ((3, 7) if name == "teacher" else (shown, shown))
            for index in range(cells.count()):  # one widget per cell, shown once or more
                _play_and_see_every_view_advance(cells.nth(index))
        except Exception:
            keep_screenshot(page, f"widget-{name}-failure.png", tmp_path, full_page=True)
            raise


def _play_and_see_every_view_advance(cell: Any) -> None:
    """Press Play in the cell's last view of its widget; the clock of every
    view moves past the first frame; press again (pause)."""
    clocks = cell.locator(".widget-label", has_text=" s of ")
    start = [clocks.nth(i).text_content() for i in range(clocks.count())]
    play = cell.locator(".crawlsim-play").last
    play.click()
    for i, shown in enumerate(start):
        seen = {shown}
        for _ in range(2):  # the first frame, then past it
            _wait_for_another_time(clocks.nth(i), seen)
            seen.add(clocks.nth(i).text_content())
    play.click()  # pause, so the next widget plays alone


def _wait_for_another_time(clock: Any, seen: set[str]) -> None:
    """Wait until ``clock`` shows a time not in ``seen`` (its text content:
    JupyterLab skips rendering cells scrolled out of view, so their inner text is empty)."""
    clock.page.wait_for_function(
        "([el, seen]) => el.textContent.includes(' s of ') && !seen.includes(el.textContent)",
        arg=[clock.element_handle(), sorted(seen)])


RUN_TIMEOUT_MS = 300_000
"""Running every cell of a notebook: notebook 03 sweeps a 2,000-page web
several times, which takes minutes on a loaded two-core machine."""

KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
        && panel.sessionContext.session.kernel;
    return !!(kernel && kernel.status === 'idle' && panel.content && panel.content.model
              && window.jupyterapp.commands.isEnabled('notebook:run-all-cells'));
}"""
"""The open notebook's kernel has started and is idle, and "Run All Cells"
is enabled for it (JupyterLab's and Notebook 7's application object,
exposed to the page by the server)."""

ALL_CELLS_RAN = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cells = [...panel.content.model.cells].filter(cell => cell.type === 'code');
    for (const cell of cells) {
        for (let i = 0; i < cell.outputs.length; i++) {
            const output = cell.outputs.get(i);
            if (output.type === 'error') {
                return 'error: ' + output.toJSON().ename + ': ' + output.toJSON().evalue;
            }
        }
    }
    const kernel = panel.sessionContext.session.kernel;
    return cells.length > 0 && cells.every(cell => cell.executionCount !== null)
        && kernel.status === 'idle' ? 'ran' : false;
}"""
"""``'ran'`` once every code cell of the open notebook has an execution
count and the kernel is idle again, the first error a cell raised when one
did, ``false`` meanwhile.  Read from the notebook's model, not its DOM:
JupyterLab does not render cells scrolled out of view."""


def _run_all_cells(page: Any) -> None:
    """Wait until the notebook's kernel is idle, run all its cells (the
    application's own "Run All Cells" command: the menu's item is disabled
    for a moment while a freshly opened notebook becomes the current one),
    and wait until every cell has run; a cell's error fails at once."""
    page.locator(".jp-Notebook .jp-Cell:visible").first.click()  # the notebook is the current widget
    page.wait_for_function(KERNEL_IDLE, timeout=RUN_TIMEOUT_MS)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    outcome = page.wait_for_function(ALL_CELLS_RAN, timeout=RUN_TIMEOUT_MS).json_value()
    assert outcome == "ran", f"a cell failed in the browser: {outcome}"


@pytest.fixture(scope="module")
def notebook7(lab: Lab) -> Lab:
    """Jupyter Notebook 7 (when installed): its front end, served by the
    module's JupyterLab server (one server runs every installed front end,
    as ``jupyter lab`` does), on a copy of the teacher's notebook (a kernel
    of its own, not the one JupyterLab's test ran).  The main suite covers
    Notebook 7's front end on Lab's server; the exhaustive step
    (:func:`test_every_view_plays_on_the_notebook_7_server`) also starts
    the real Notebook 7 server, ``python -m notebook``, as its users do."""
    pytest.importorskip("notebook", minversion="7")
    return lab._replace(notebook7=True)


def _every_view_plays_in_notebook_7(notebook7: Lab, notebook: str, chromium: Any, tmp_path: Path) -> None:
    """Notebook 7 at ``notebook7`` opens the teacher's ``notebook``, runs it,
    and every view of each of its three widgets plays."""
    with browser_page(chromium, height=1600) as page:
        try:
            page.goto(notebook7.url(notebook))
            _run_all_cells(page)
            cells = page.locator(".jp-CodeCell").filter(has=page.locator(".crawlsim-play"))
            assert (cells.count(), page.locator(".jp-CodeCell .crawlsim-play").count()) == (3, 7)
            for index in range(cells.count()):
                _play_and_see_every_view_advance(cells.nth(index))
        except Exception:
            keep_screenshot(page, f"widget-notebook7-{Path(notebook).stem}-failure.png", tmp_path, full_page=True)
            raise


def test_every_view_plays_in_jupyter_notebook_7(notebook7: Lab, chromium: Any, tmp_path: Path) -> None:
    _every_view_plays_in_notebook_7(notebook7, "teacher7.ipynb", chromium, tmp_path)


@pytest.mark.exhaustive  # a second Jupyter server: run by the exhaustive step only
def test_every_view_plays_on_the_notebook_7_server(
    tmp_path_factory: pytest.TempPathFactory, chromium: Any, tmp_path: Path
) -> None:
    """The same, on the server Notebook 7's users start (``python -m
    notebook``), not on JupyterLab's."""
    pytest.importorskip("notebook", minversion="7")
    folder = tmp_path_factory.mktemp("notebook7")
    _notebook(folder / "teacher.ipynb", TEACHER_CELLS)
    token = secrets.token_hex(16)
    server = _jupyter_lab(folder, token, app="notebook")
    try:
        _every_view_plays_in_notebook_7(Lab(server.address(), token, notebook7=True), "teacher.ipynb",
                                        chromium, tmp_path)
    finally:
        server.stop()


def test_the_widget_plays_and_reruns_in_jupyterlab(lab: Lab, chromium: Any, tmp_path: Path) -> None:
    with browser_page(chromium, height=1600) as page:  # tall enough for the whole widget
        try:
            _exercise(page, lab, tmp_path)
        except Exception:
            keep_screenshot(page, "widget-failure.png", tmp_path, full_page=True)
            raise


def _exercise(page: Any, lab: Lab, tmp_path: Path) -> None:
    """Open the notebook, run it, play, then move the workers slider."""
    page.goto(lab.url("widget.ipynb"))
    _run_all_cells(page)
    image = page.locator("img.widget-image")
    clock = page.locator(".widget-label", has_text=" s of ")
    image.wait_for()
    page.wait_for_function("() => document.querySelector('img.widget-image').naturalWidth > 0")
    assert clock.inner_text().startswith("t = 0.0 s of 19.0 s")  # opens at the start
    frames = [image.screenshot()]
    keep_screenshot(page, "widget-start.png", tmp_path, full_page=True)

    play = page.locator(".crawlsim-play")
    play.click()
    seen = {clock.text_content()}
    for _ in range(2):
        _wait_for_another_time(clock, seen)
        seen.add(clock.text_content())
        frames.append(image.screenshot())
    assert len(set(frames)) == 3, "the picture did not change from frame to frame while playing"
    save_artefact(frames[-1], "widget-playing.png", tmp_path)
    play.click()  # the same button pauses
    idle = page.locator(".jp-StatusBar-TextItem", has_text="| Idle")
    idle.wait_for()

    summary = page.locator(".widget-html-content", has_text="finish ")
    assert "finish 19.0 s" in summary.inner_text()
    handle = page.locator(".widget-slider", has=page.locator("label", has_text="workers")).locator(
        ".noUi-handle")
    handle.focus()
    handle.press("Home")  # 4 workers -> 1 (the slider's minimum)
    page.locator(".widget-label", has_text=" s of 26.0 s").wait_for()  # the one-worker run, redrawn
    assert "finish 26.0 s" in summary.inner_text() and "previous run 19.0 s" in summary.inner_text()
    idle.wait_for()
    keep_screenshot(page, "widget-one-worker.png", tmp_path, full_page=True)

    nodes = page.locator(".widget-slider", has=page.locator("label", has_text="nodes")).locator(".noUi-handle")
    nodes.focus()
    nodes.press("End")  # 1 node -> 16 (the slider's maximum), one worker each
    page.locator(".widget-html-content", has_text="nodes 1→16").wait_for()  # rerun on 16 nodes
    cluster = simulate_cluster(load_scenario("see-it").with_options(workers=1), ClusterConfig(nodes=16))
    assert f"finish {cluster.finish_time:.1f} s" in summary.inner_text()
    assert "16 nodes, host-hash" in summary.inner_text()
    idle.wait_for()
    keep_screenshot(page, "widget-sixteen-nodes.png", tmp_path, full_page=True)
    keep_screenshot(page.locator(".jp-OutputArea-output").first, "widget-output.png", tmp_path)
