"""Student and teacher editions of the lessons, and `crawlsim notebooks`.

A student edition must not give an answer away before the student has
predicted it: no cell tagged ``answer`` or ``check``, no ``assert``, every
prediction blank, and no markdown cell that states a reference value.  These tests read the notebooks as JSON (no
kernel); tests/test_notebooks.py executes both editions.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cli import main as cli_main
from crawlsim.notebook import editions
from crawlsim.notebook.reveal import NOT_PREDICTED, judge

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = editions.notebooks_in(NOTEBOOK_DIR)


def _reference_values(prediction_source: str) -> list[Any]:
    """The values the teacher's prediction cell assigns (``my_b = 47`` -> 47)."""
    tree = ast.parse(prediction_source)
    return [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)]


def _offered_choices(prediction_source: str) -> set[str]:
    """Words a multiple-choice prediction offers in its comments
    (``# site, calendar or shop``): naming them all gives nothing away."""
    comments = [line.split("#", 1)[1] for line in prediction_source.splitlines() if "#" in line]
    listed = [c for c in comments if "," in c or " or " in c]
    return {word.strip(" .:`'\"") for c in listed for word in re.split(r",|\bor\b|:", c)}


def _spellings(value: Any, choices: frozenset[str] = frozenset()) -> list[str]:
    """How a reference value could be written in prose: 106080, 106,080, 106_080.
    Booleans and one-digit numbers are too common in prose to search for."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        if float(value).is_integer():
            value = int(value)
            if abs(value) < 10:
                return []
            return sorted({str(value), f"{value:,}", f"{value:_}"})
        return [f"{value:g}"]
    if isinstance(value, str):
        return [] if value in choices else [value]
    return []


@pytest.fixture(params=NOTEBOOKS, ids=lambda p: p.stem)
def teacher(request: pytest.FixtureRequest) -> dict[str, Any]:
    return editions.read(request.param)


def test_every_lesson_asks_before_it_reveals(teacher: dict[str, Any]) -> None:
    kinds = [
        "prediction" if editions.PREDICTION in editions.tags(c) else "reveal" if editions.REVEAL in editions.tags(c) else ""
        for c in teacher["cells"]
    ]
    marked = [k for k in kinds if k]
    assert marked and marked[0] == "prediction"
    # every prediction is followed by a reveal before the next prediction
    assert "prediction,prediction" not in ",".join(marked) and marked[-1] == "reveal"


def test_student_edition_holds_no_answer_cell_check_or_assert(teacher: dict[str, Any]) -> None:
    student = editions.student_edition(teacher)
    assert student["metadata"]["crawlsim"]["edition"] == "student"
    for cell in student["cells"]:
        assert not editions.tags(cell) & {editions.ANSWER, editions.CHECK}
        assert not re.search(r"^\s*assert\b", editions.source(cell), re.MULTILINE), editions.source(cell)


def test_student_predictions_are_blank_and_their_hints_hold_no_answer(teacher: dict[str, Any]) -> None:
    student = {c["id"]: c for c in editions.student_edition(teacher)["cells"]}
    predictions = [c for c in teacher["cells"] if editions.PREDICTION in editions.tags(c)]
    assert predictions
    for cell in predictions:
        blank = editions.source(student[cell["id"]])
        assert all(value is Ellipsis for value in _reference_values(blank)), blank
        choices = frozenset(_offered_choices(blank))
        for value in _reference_values(editions.source(cell)):
            for spelling in _spellings(value, choices):
                assert spelling not in blank, (cell["id"], spelling)


def test_no_student_markdown_states_a_reference_value(teacher: dict[str, Any]) -> None:
    """A notebook's prose is on screen all at once: no markdown cell of the
    student edition, before or after the question, spells out a value a
    prediction asks for."""
    student = editions.student_edition(teacher)
    prose = "\n".join(editions.source(c) for c in student["cells"] if c["cell_type"] == "markdown")
    for cell in teacher["cells"]:
        if editions.PREDICTION not in editions.tags(cell):
            continue
        choices = frozenset(_offered_choices(editions.source(cell)))
        for value in _reference_values(editions.source(cell)):
            for spelling in _spellings(value, choices):
                assert not re.search(rf"(?<![\w.]){re.escape(spelling)}(?![\w])", prose), (cell["id"], spelling)


def test_student_reveals_are_folded_and_teacher_ones_are_not(teacher: dict[str, Any]) -> None:
    def folded(nb: dict[str, Any]) -> list[bool]:
        return [
            c.get("metadata", {}).get("jupyter", {}).get("source_hidden", False)
            for c in nb["cells"]
            if editions.REVEAL in editions.tags(c)
        ]

    assert all(folded(editions.student_edition(teacher)))
    assert not any(folded(editions.teacher_edition(teacher)))


def test_teacher_edition_is_the_whole_notebook(teacher: dict[str, Any]) -> None:
    edition = editions.teacher_edition(teacher)
    assert [editions.source(c) for c in edition["cells"]] == [editions.source(c) for c in teacher["cells"]]
    assert edition["metadata"]["crawlsim"]["edition"] == "teacher"


def test_filling_a_student_edition_restores_the_teachers_predictions(teacher: dict[str, Any]) -> None:
    filled = editions.fill_predictions(editions.student_edition(teacher), teacher)
    by_id = {c["id"]: editions.source(c) for c in teacher["cells"]}
    for cell in filled["cells"]:
        if editions.PREDICTION in editions.tags(cell):
            assert editions.source(cell) == by_id[cell["id"]]


def test_an_answer_cell_with_a_placeholder_becomes_the_stub() -> None:
    nb = editions.read(NOTEBOOK_DIR / "08_interview_practice.ipynb")
    student = editions.student_edition(nb)
    stubs = [c for c in student["cells"] if "raise NotImplementedError" in editions.source(c)]
    assert len(stubs) == 1 and "def crawl(" in editions.source(stubs[0])
    assert not any("ThreadPoolExecutor(" in editions.source(c) for c in student["cells"])


@pytest.mark.parametrize(
    ("line", "blank"),
    [
        ("my_b = 47   # the smallest b", "my_b = ...   # the smallest b"),
        ('my_host = "a.com"', "my_host = ..."),
        ("# a comment = 3", "# a comment = 3"),
        ("my_x = [1, 2]  # hint", "my_x = ...  # hint"),
    ],
)
def test_blank_prediction(line: str, blank: str) -> None:
    assert editions.blank_prediction(line) == blank


def test_judge_verdicts() -> None:
    assert judge(47, 47).word == "right"
    assert judge(46, 47).word == "wrong" and "you predicted 46" in judge(46, 47).text
    assert judge(150.0, 153.2, tolerance=0.05).right and not judge(150.0, 153.2).right
    assert not judge(1, True).right and not judge(True, 1).right     # a count is not a yes/no
    assert judge(" A.com ", "a.com").right
    pending = judge(..., 47, "because")
    assert pending.word == NOT_PREDICTED and "47" not in pending.text and "because" not in pending.text


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli_main(["notebooks", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_command_writes_each_edition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--student", str(tmp_path / "class"))
    assert code == 0 and f"wrote {len(NOTEBOOKS)} student notebooks" in out
    written = sorted(p.name for p in (tmp_path / "class").iterdir())
    assert written == [p.name for p in NOTEBOOKS]
    for path in (tmp_path / "class").iterdir():
        nb = json.loads(path.read_text())
        assert nb["metadata"]["crawlsim"]["edition"] == "student"
        assert not any(editions.tags(c) & editions.HIDDEN_FROM_STUDENTS for c in nb["cells"])
    code, out, _ = _run(capsys, "--teacher", str(tmp_path / "teacher"))
    assert code == 0
    copy = editions.read(tmp_path / "teacher" / NOTEBOOKS[0].name)
    assert [editions.source(c) for c in copy["cells"]] == [editions.source(c) for c in editions.read(NOTEBOOKS[0])["cells"]]


def test_command_refuses_a_non_empty_folder_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    code, out, err = _run(capsys, "--student", str(tmp_path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--force" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    code, _, _ = _run(capsys, "--student", str(tmp_path), "--force")
    assert code == 0 and (tmp_path / NOTEBOOKS[0].name).exists() and (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "argv",
    [[], ["--student", "a", "--teacher", "b"], ["--student", "x", "--from", "/nonexistent/folder"]],
    ids=["no-edition", "both", "missing-source"],
)
def test_command_mistakes_are_one_line(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(tmp_path / a) if a in {"a", "b", "x"} else a for a in argv]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_shipped_notebooks_are_found_as_package_data() -> None:
    """`crawlsim notebooks` reads crawlsim/notebooks_data (a wheel's package
    data; in the source tree a symlink to notebooks/)."""
    folder = editions.shipped_notebooks_dir()
    assert [p.name for p in editions.notebooks_in(folder)] == [p.name for p in NOTEBOOKS]
    pyproject = (NOTEBOOK_DIR.parent / "pyproject.toml").read_text()
    assert '"*.ipynb"' in pyproject


def test_readme_cites_real_prediction_cells_and_every_lesson_is_cited() -> None:
    """notebooks/README.md maps seed items to prediction cells by id: each id
    it cites is a prediction cell, and every notebook has a cited cell."""
    readme = (NOTEBOOK_DIR / "README.md").read_text()
    cited = set(re.findall(r"`(\d\d-\d\d)`", readme))
    predictions = {
        cell["id"]
        for path in NOTEBOOKS
        for cell in editions.read(path)["cells"]
        if editions.PREDICTION in editions.tags(cell)
    }
    assert cited and cited <= predictions, sorted(cited - predictions)
    assert {c[:2] for c in cited} == {p.name[:2] for p in NOTEBOOKS}
