"""Every teaching notebook runs top to bottom, with no network, and passes
its own asserts (the notebooks' cells check the facts they teach).

Each notebook is executed with nbclient in a fresh kernel.  The kernel is
the interpreter running the tests: a ``python3`` kernelspec pointing at
``sys.executable`` is put first on ``JUPYTER_PATH``, so a user-level
kernelspec for some other Python can never be picked up instead.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = [
    "01_bfs_by_hand",
    "02_same_page_different_spelling",
    "03_workers_vs_busiest_host",
    "04_politeness",
    "05_bfs_vs_dfs_and_traps",
    "06_same_content_different_url",
    "07_how_far_bfs_reaches",
    "08_interview_practice",
]
"""Each notebook must run well under a minute (they take a few seconds)."""


@pytest.fixture(scope="session")
def jupyter_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (crawlsim tests)",
                "language": "python",
            }
        )
    )
    return root


def test_the_eight_notebooks_are_there() -> None:
    assert [p.stem for p in NOTEBOOKS] == EXPECTED
    index = (NOTEBOOK_DIR / "README.md").read_text()
    for name in EXPECTED:
        assert f"{name}.ipynb" in index


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs"
    assert path.stat().st_size < 40_000


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_its_asserts_hold(path: Path, jupyter_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(p for p in (str(jupyter_path), os.environ.get("JUPYTER_PATH")) if p))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises on a failed assert in any cell (or a cell over nbclient's timeout)
