"""The notebook widget in a real browser: JupyterLab in headless Chromium.

nbclient runs the notebooks' Python; this test checks what a student sees.
JupyterLab starts on a free loopback port with a token and a temporary
folder holding one notebook; Chromium opens it, runs its cell, presses
Play and sees the picture change frame to frame, then moves the workers
slider, then the nodes slider, with the keyboard and sees the finish time
change.  Screenshots go
to ``tmp_path`` (and ``$CRAWLSIM_ARTEFACTS`` when set).

Selected with ``-m browser``; part of the default run whenever a Chromium
binary exists (see :mod:`tests.browser`).
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cluster.config import ClusterConfig
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.scenario import load_scenario
from tests.browser import Server, browser_page, needs_chromium, save_artefact

pytestmark = [pytest.mark.browser, needs_chromium]

CELL = 'from crawlsim.notebook import show\nw = show("see-it", frames=12, interval_ms=300)'


def _notebook(folder: Path) -> Path:
    path = folder / "widget.ipynb"
    path.write_text(json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "id": "widget", "metadata": {}, "outputs": [],
                   "source": CELL}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }))
    return path


def _jupyter_lab(folder: Path, token: str) -> Server:
    """JupyterLab on loopback, port chosen by the OS, every Jupyter folder
    (config, runtime, workspaces, settings) inside ``folder``."""
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(folder / name.lower())
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    argv = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", "--ServerApp.port=0",
        "--ServerApp.port_retries=0", "--allow-root", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={folder}",
        f"--LabApp.workspaces_dir={folder / 'workspaces'}", f"--LabApp.user_settings_dir={folder / 'settings'}",
        "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    notification = folder / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')  # no news pop-up
    return Server(argv, r"http://127\.0\.0\.1:(\d+)/", cwd=folder, env=env)


def test_the_widget_plays_and_reruns_in_jupyterlab(tmp_path: Path) -> None:
    folder = tmp_path / "lab"
    folder.mkdir()
    _notebook(folder)
    token = secrets.token_hex(16)
    server = _jupyter_lab(folder, token)
    try:
        port = server.address()
        with browser_page(height=1600) as page:  # tall enough for the whole widget
            try:
                _exercise(page, port, token, tmp_path)
            except Exception:
                save_artefact(page.screenshot(full_page=True), "widget-failure.png", tmp_path)
                raise
    finally:
        server.stop()


def _exercise(page: Any, port: str, token: str, tmp_path: Path) -> None:
    """Open the notebook, run it, play, then move the workers slider."""
    if True:
        if True:
            page.goto(f"http://127.0.0.1:{port}/lab/tree/widget.ipynb?token={token}")
            _run_the_cell(page)
            image = page.locator("img.widget-image")
            clock = page.locator(".widget-label", has_text=" s of ")
            image.wait_for()
            page.wait_for_function("() => document.querySelector('img.widget-image').naturalWidth > 0")
            assert clock.inner_text().startswith("t = 0.0 s of 19.0 s")  # opens at the start
            frames = [image.screenshot()]
            save_artefact(page.screenshot(full_page=True), "widget-start.png", tmp_path)

            play = page.locator(".widget-play button").first
            play.click()
            for _ in range(2):
                _wait_for_new_time(page, clock.inner_text())
                frames.append(image.screenshot())
            assert len(set(frames)) == 3, "the picture did not change from frame to frame while playing"
            save_artefact(frames[-1], "widget-playing.png", tmp_path)
            play.click()  # the same button pauses
            idle = page.locator(".jp-StatusBar-TextItem", has_text="| Idle")
            idle.wait_for()  # every tick sent before the pause is drawn

            summary = page.locator(".widget-html-content", has_text="finish ")
            assert "finish 19.0 s" in summary.inner_text()
            handle = page.locator(".widget-slider", has=page.locator("label", has_text="workers")).locator(
                ".noUi-handle")
            handle.focus()
            handle.press("Home")  # 4 workers -> 1 (the slider's minimum)
            page.locator(".widget-label", has_text=" s of 26.0 s").wait_for()  # the one-worker run, redrawn
            assert "finish 26.0 s" in summary.inner_text() and "previous run 19.0 s" in summary.inner_text()
            idle.wait_for()
            save_artefact(page.screenshot(full_page=True), "widget-one-worker.png", tmp_path)

            nodes = page.locator(".widget-slider", has=page.locator("label", has_text="nodes")).locator(".noUi-handle")
            nodes.focus()
            nodes.press("End")  # 1 node -> 16 (the slider's maximum), one worker each
            page.locator(".widget-html-content", has_text="nodes 1→16").wait_for()  # rerun on 16 nodes
            cluster = simulate_cluster(load_scenario("see-it").with_options(workers=1), ClusterConfig(nodes=16))
            assert f"finish {cluster.finish_time:.1f} s" in summary.inner_text()
            assert "16 nodes, host-hash" in summary.inner_text()
            idle.wait_for()
            save_artefact(page.screenshot(full_page=True), "widget-sixteen-nodes.png", tmp_path)
            save_artefact(page.locator(".jp-OutputArea-output").first.screenshot(), "widget-output.png", tmp_path)


def _run_the_cell(page: Any) -> None:
    """Wait until the kernel is connected and idle (the status bar says
    so), then run the notebook's one cell as a user would: click into it
    and press Shift+Enter; wait for its execution count."""
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").wait_for()
    page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt", has_text="[1]").wait_for()


def _wait_for_new_time(page: object, before: str) -> None:
    """Wait until the clock label shows another time than ``before``."""
    page.wait_for_function(  # type: ignore[attr-defined]
        "before => [...document.querySelectorAll('.widget-label')].some("
        "e => e.innerText.includes(' s of ') && e.innerText !== before)", arg=before)
