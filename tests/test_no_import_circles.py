"""No import circles inside ``crawlsim/cluster/`` or ``crawlsim/check/interleave/``.

A circle hidden behind ``TYPE_CHECKING`` is still a circle a reader follows:
each of these packages is read bottom-up, one module at a time, so no module
may import one that imports it back, at the top, under ``TYPE_CHECKING`` or
inside a function.  Read from the source (AST), nothing imported.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import crawlsim

ROOT = Path(crawlsim.__file__).parent
PACKAGES = ["cluster", "check/interleave"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.Module, here: str, is_package: bool, modules: set[str]) -> set[str]:
    """Every module ``tree`` imports anywhere in its body, relative imports resolved;
    ``from pkg import name`` is an import of ``pkg.name`` when that is one of ``modules``."""
    package = here if is_package else here.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return found


def _graph(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of the same package it imports."""
    files = sorted((ROOT / package).glob("*.py"))
    names = {_module_name(f): f for f in files}
    return {
        name: _imported(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py", set(names))
        & names.keys()
        - {name}
        for name, path in names.items()
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_one_that_imports_it_back(package: str) -> None:
    graph = _graph(package)
    assert len(graph) > 3  # the package was found and read
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as err:
        pytest.fail(f"an import circle in crawlsim/{package}: {' -> '.join(err.args[1])}")


def test_the_finder_sees_a_circle_under_type_checking() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n")
    assert _imported(tree, "pkg.a", is_package=False, modules={"pkg.a", "pkg.b"}) == {"typing", "pkg.b"}
    with pytest.raises(graphlib.CycleError):
        graphlib.TopologicalSorter({"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}).prepare()
