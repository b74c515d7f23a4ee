"""Student and teacher editions of the teaching notebooks.

The shipped notebooks are the *teacher* edition: every answer is in them, and
they run top to bottom with every check passing.  Cells carry tags that say
what a student may see:

``prediction``
    the student writes a value here (``my_b = 47`` for the teacher).  The
    student edition keeps the cell with each assignment's value replaced by
    ``...``, and keeps any ``# comment`` after it (the hint).
``reveal``
    compares the prediction with the simulation (:func:`crawlsim.notebook.reveal.reveal`);
    kept in both editions: a prediction still at ``...`` is answered with
    "not predicted yet", not an error.  In the student edition its code is
    folded away (``jupyter.source_hidden``), since the explanation it prints
    is written in it.
``answer``
    states or computes an answer: removed from the student edition, or, when
    the cell's metadata has ``crawlsim.placeholder``, replaced by that text (a
    stub for the student to fill in, such as an empty ``crawl`` function,
    tagged ``exercise``).
``check``
    asserts that hold the answers: removed from the student edition.

Notebooks are JSON (nbformat 4): this module reads and writes them with the
standard library only, so ``crawlsim notebooks`` works from a plain install
without Jupyter.  Outputs are cleared in both editions.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from crawlsim.outfile import written

Notebook = dict[str, Any]
Cell = dict[str, Any]
Edition = Literal["student", "teacher"]

ANSWER, CHECK, PREDICTION, REVEAL, EXERCISE = "answer", "check", "prediction", "reveal", "exercise"
HIDDEN_FROM_STUDENTS = frozenset({ANSWER, CHECK})
"""Tags of the cells a student edition leaves out (or replaces by a stub)."""

_ASSIGNMENT = re.compile(r"^(?P<target>\s*[A-Za-z_][A-Za-z_0-9]*\s*=\s*)(?P<value>.*?)(?P<hint>\s+#.*)?$")


def tags(cell: Cell) -> frozenset[str]:
    return frozenset(cell.get("metadata", {}).get("tags", ()))


def source(cell: Cell) -> str:
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def _with_source(cell: Cell, text: str) -> Cell:
    new = copy.deepcopy(cell)
    new["source"] = text
    return new


def _cleared(cell: Cell) -> Cell:
    """The cell without outputs: editions are handed out unexecuted."""
    new = copy.deepcopy(cell)
    if new.get("cell_type") == "code":
        new["outputs"] = []
        new["execution_count"] = None
    return new


def blank_prediction(text: str) -> str:
    """Each ``name = value  # hint`` line of a prediction cell becomes
    ``name = ...  # hint``; other lines (comments, blank lines) stay."""
    lines = []
    for line in text.splitlines():
        match = _ASSIGNMENT.match(line)
        if match and not line.lstrip().startswith("#"):
            line = f"{match['target']}...{match['hint'] or ''}"
        lines.append(line)
    return "\n".join(lines)


def _exercise(cell: Cell, stub: str) -> Cell:
    """The stub a student fills in, tagged ``exercise`` instead of ``answer``."""
    new = _with_source(cell, stub)
    new["metadata"] = {"tags": [EXERCISE]}
    return new


def _student_cell(cell: Cell) -> Cell | None:
    """One cell as a student sees it, or None when it is left out."""
    marks = tags(cell)
    if marks & HIDDEN_FROM_STUDENTS:
        stub = cell.get("metadata", {}).get("crawlsim", {}).get("placeholder")
        return None if stub is None else _exercise(cell, stub)
    if PREDICTION in marks:
        return _with_source(cell, blank_prediction(source(cell)))
    if REVEAL in marks:
        return _collapsed(cell)
    return cell


def _collapsed(cell: Cell) -> Cell:
    """The cell with its code folded away (JupyterLab's ``source_hidden``):
    a reveal's explanation is in its code, out of view until it has run."""
    new = copy.deepcopy(cell)
    new.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
    return new


def student_edition(notebook: Notebook) -> Notebook:
    """The notebook with answers and checks removed and predictions blank."""
    edition = copy.deepcopy(notebook)
    cells = (_student_cell(cell) for cell in notebook["cells"])
    edition["cells"] = [_cleared(cell) for cell in cells if cell is not None]
    edition["metadata"].setdefault("crawlsim", {})["edition"] = "student"
    return edition


def teacher_edition(notebook: Notebook) -> Notebook:
    """The whole notebook, outputs cleared."""
    edition = copy.deepcopy(notebook)
    edition["cells"] = [_cleared(cell) for cell in notebook["cells"]]
    edition["metadata"].setdefault("crawlsim", {})["edition"] = "teacher"
    return edition


def fill_predictions(student: Notebook, teacher: Notebook) -> Notebook:
    """The student edition with every prediction cell holding the teacher's
    reference answer (matched by cell id): what a class that predicted
    everything right would have typed.  CI runs this to check that every
    reveal says "right"."""
    reference = {cell["id"]: source(cell) for cell in teacher["cells"] if PREDICTION in tags(cell)}
    filled = copy.deepcopy(student)
    for cell in filled["cells"]:
        if PREDICTION in tags(cell):
            cell["source"] = reference[cell["id"]]
    return filled


EDITIONS = {"student": student_edition, "teacher": teacher_edition}


def read(path: Path) -> Notebook:
    notebook: Notebook = json.loads(path.read_text(encoding="utf-8"))
    return notebook


def _as_lines(cell: Cell) -> Cell:
    """The source as a list of lines, the way Jupyter stores it (small diffs)."""
    new = dict(cell)
    new["source"] = source(cell).splitlines(keepends=True)
    return new


def write(notebook: Notebook, path: Path) -> None:
    notebook = {**notebook, "cells": [_as_lines(cell) for cell in notebook["cells"]]}
    with written(path) as out:  # whole or not at all: a full disk leaves no torn notebook
        out.write(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def shipped_notebooks_dir() -> Path:
    """The teaching notebooks: ``crawlsim/notebooks_data`` inside an installed
    package (a wheel copies them there as package data), else the source
    tree's ``notebooks/`` (``crawlsim/notebooks_data`` is a symlink to it)."""
    here = Path(str(resources.files("crawlsim")))
    for folder in (here / "notebooks_data", here.parent / "notebooks"):
        if any(folder.glob("*.ipynb")):
            return folder
    raise FileNotFoundError("the teaching notebooks are not installed with this copy of crawlsim")


def notebooks_in(folder: Path) -> list[Path]:
    return sorted(folder.glob("[0-9]*.ipynb"))


def make_editions(paths: Iterable[Path], dest: Path, edition: Edition) -> Iterator[Path]:
    """Write ``edition`` of each notebook into ``dest``; yield each path written."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in paths:
        target = dest / path.name
        write(EDITIONS[edition](read(path)), target)
        yield target
