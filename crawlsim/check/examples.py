"""The shipped interview answers, by name: ``crawlsim check --example NAME``.

The answers live in the source tree's ``examples/interview/``;
``crawlsim/examples_data`` is a symlink to it, so a wheel build copies them
into the package while a checkout or an editable install reads them in
place.  A name works from any folder, where a path such as
``examples/interview/buggy_seen_on_finish.py`` works only in a checkout.

An example is read here, never imported: its docstring's first line is its
description, and the extra parameters of its ``crawl`` name the follow-up
round it answers (``crawl(..., max_workers, max_depth)`` is a ``depth``
answer), so ``--example reference_depth`` needs no ``--follow-up``.
"""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path

from crawlsim.check.loader import CheckInputError
from crawlsim.core.options import did_you_mean

BASE_PARAMS = ("start_url", "get_urls", "max_workers")
"""The base question's parameters; a round's extra ones come after them."""


def examples_dir() -> Path:
    """The shipped answers: ``crawlsim/examples_data`` in an installed
    package, else the source tree's ``examples/interview``."""
    here = Path(str(resources.files("crawlsim")))
    for folder in (here / "examples_data", here.parent / "examples" / "interview"):
        if any(folder.glob("*.py")):
            return folder
    raise CheckInputError("the example answers are not installed with this copy of crawlsim")


def list_examples() -> list[str]:
    """Every shipped answer's name (its file name without ``.py``), sorted."""
    return sorted(path.stem for path in examples_dir().glob("*.py"))


def example_path(name: str) -> Path:
    """The file of the shipped answer ``name`` (``buggy_seen_on_finish``, with or without ``.py``)."""
    stem = name.strip().removesuffix(".py")
    path = examples_dir() / f"{stem}.py"
    if not stem.isidentifier() or not path.is_file():
        known = list_examples()
        raise CheckInputError(
            f"no example named {name!r}{did_you_mean(stem, known)} (`crawlsim check --list-examples` lists them)"
        )
    return path


def describe(path: Path) -> str:
    """The first line of the answer's docstring: what it shows."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def round_params(path: Path) -> tuple[str, ...]:
    """The parameters the answer's ``crawl`` takes after ``max_workers``
    (``()`` for an answer to the base question)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "crawl":
            names = tuple(arg.arg for arg in node.args.args)
            return names[len(BASE_PARAMS) :] if names[: len(BASE_PARAMS)] == BASE_PARAMS else ()
    return ()
