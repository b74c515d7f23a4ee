"""Test-wide settings.

Hypothesis' per-example deadline is off everywhere: CI machines are shared
and slow calls are not what these properties are about (speed is measured by
``benchmarks/``, never asserted in tests).

The ``slow`` marker (registered in pyproject) is put here on the few tests
that take seconds of CPU each -- executed notebooks, rendered animations,
the app rerunning a 2,000-page crawl eight times -- so that

* ``python -m pytest -m "not slow"`` gives a quick loop while working, and
* under pytest-xdist they are handed out *first*: the long ones then run
  side by side at the start instead of one of them finishing alone at the
  end (README's command runs them all, well within its time budget).

Tests may also be marked ``@pytest.mark.slow`` in their own file (as
tests/test_tui.py does); this list names the ones in files other helpers own.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import settings

from tests.shared_builds import SharedBuilds, shared_root

# Cache compiled bytecode even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1, as on some CI machines): the suite starts
# hundreds of Python processes -- xdist workers, `crawlsim` commands, check
# sandboxes, notebook kernels -- and each would otherwise compile every
# crawlsim module and rewrite every test module from source again.  Set
# before collection (so rewritten test modules are cached) and in the
# environment the workers and subprocesses inherit.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

settings.register_profile("crawlsim", deadline=None)
settings.load_profile("crawlsim")

SLOW = (
    # measured with `python -m pytest --durations=30` (seconds, one core, idle machine)
    "tests/test_notebooks.py::test_notebook_runs_and_its_asserts_hold[07_how_far_bfs_reaches]",  # 11.6
    "tests/test_notebooks.py::test_notebook_runs_and_its_asserts_hold[03_workers_vs_busiest_host]",  # 5.0
    "tests/test_notebooks.py::test_notebook_runs_and_its_asserts_hold[01_bfs_by_hand]",  # 5.0
    "tests/test_notebook_widget.py::test_animate_writes_a_gif",  # 3.9
    "tests/test_notebook_widget.py::test_animate_writes_an_mp4",  # 3.6
    "tests/test_notebook_widget.py::test_a_million_page_web_is_capped_for_the_widget",  # 75 (narrating 5,000 pages)
)


SLOW_FILES = ("tests/test_notebooks.py::test_notebook_runs", "tests/test_notebooks.py::test_student_edition")
"""Every notebook execution (a kernel each, 2-12 s idle): started first so no
worker is left with one at the end."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests listed in SLOW, then put every slow test first (stable order otherwise)."""
    for item in items:
        if item.nodeid in SLOW or item.nodeid.startswith(SLOW_FILES):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def shared_builds(tmp_path_factory: pytest.TempPathFactory) -> SharedBuilds:
    """Costly ``crawlsim`` outputs (the see-it page) made once per session,
    shared by all xdist workers (tests/shared_builds.py)."""
    return SharedBuilds(shared_root(tmp_path_factory))
