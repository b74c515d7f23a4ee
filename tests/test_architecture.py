"""ARCHITECTURE.md's layers and size limits, enforced rather than described.

* Imports only point down the layers declared in pyproject.toml's
  ``[tool.importlinter]`` contract (trace < core < drivers/sim < cluster <
  scenario < views < front ends < commands < cli, with ``crawlsim.errors`` below all), checked by
  import-linter on the installed package's source.
* Every module of the package sits in some layer, so a new module cannot
  slip past the contract by not being named in it.
* No function is over 60 lines or above cyclomatic complexity 15 (radon).
* No module is over 900 lines.
* ARCHITECTURE.md's map lists every package and module of ``crawlsim/``
  where it is, and nothing that is not there.
* No import circle between modules, counting imports inside functions and
  under ``TYPE_CHECKING`` (a circle is a circle whenever it runs).
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import re
import sys
import tomllib
from pathlib import Path

import pytest

import crawlsim

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"

def _layers() -> list[list[str]]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [[m.strip() for m in layer.replace("|", ":").split(":")] for layer in contract["layers"]]


def test_imports_only_point_down_the_layers(tmp_path: Path) -> None:
    """lint-imports in a fresh interpreter: in the test process, another
    test's imports (Twisted's zope.interface, through Scrapy) add attributes
    to classes that import-linter's option check cannot read."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--config", str(PYPROJECT), "--cache-dir", str(tmp_path), "--no-logo"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"lint-imports found an import that points up a layer:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"


def test_every_module_of_the_package_is_in_a_layer() -> None:
    placed = {m for layer in _layers() for m in layer}
    top = {f"crawlsim.{info.name}" for info in pkgutil.iter_modules(crawlsim.__path__)}
    unplaced = sorted(top - placed - {"crawlsim.__main__"})
    assert unplaced == [], f"add these to a layer in pyproject.toml's [tool.importlinter]: {unplaced}"


def test_no_function_is_too_long_or_too_branchy() -> None:
    spec = importlib.util.spec_from_file_location("function_size", ROOT / "benchmarks" / "function_size.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["function_size"] = module
    spec.loader.exec_module(module)
    rows = module.oversized(ROOT / "crawlsim")
    offenders = [f"{Path(r.path).relative_to(ROOT)}:{r.name} ({r.lines} lines, complexity {r.complexity})" for r in rows]
    assert offenders == [], "split these by meaning:\n" + "\n".join(offenders)


MAX_MODULE_LINES = 900
"""Modules of one job: a module past this size holds several concepts; split it along them."""


def test_no_module_is_over_900_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "crawlsim").rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


_MAP_ENTRY = re.compile(r"^(?P<indent>(?:  )*)(?P<name>[A-Za-z_]\w*(?:/|\.py))(?:\s|$)")
"""A line of the map naming a package (``name/``) or a module (``name.py``),
two spaces of indent per level; a description's continuation lines are
indented further than any entry and are not entries."""


def _mapped() -> set[str]:
    """The paths ARCHITECTURE.md's map (its first code block) lists."""
    block = ARCHITECTURE.read_text(encoding="utf-8").split("```", 2)[1]
    folders: list[str] = []
    listed: set[str] = set()
    for line in block.splitlines():
        entry = _MAP_ENTRY.match(line)
        if entry is None or len(entry["indent"]) // 2 > len(folders):
            continue
        del folders[len(entry["indent"]) // 2 :]
        listed.add("/".join([*folders, entry["name"]]))
        if entry["name"].endswith("/"):
            folders.append(entry["name"].removesuffix("/"))
    return listed


def _package_tree() -> set[str]:
    """Every package (``crawlsim/x/``) and module (``crawlsim/x/y.py``) of the source."""
    source = ROOT / "crawlsim"
    tree = {init.parent.relative_to(ROOT).as_posix() + "/" for init in source.rglob("__init__.py")}
    tree |= {
        path.relative_to(ROOT).as_posix()
        for path in source.rglob("*.py")
        if path.name not in {"__init__.py", "__main__.py"} and "__pycache__" not in path.parts
    }
    return tree


def test_the_map_lists_every_package_and_module_where_it_is() -> None:
    listed = _mapped()
    assert "crawlsim/trace/events.py" in listed  # the map's format is read as written
    missing = sorted(_package_tree() - listed)
    assert missing == [], f"add these to ARCHITECTURE.md's map, under their folder: {missing}"
    gone = sorted(p for p in listed if not (ROOT / p).exists())
    assert gone == [], f"ARCHITECTURE.md's map lists what is not in the tree: {gone}"


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in it (top level,
    functions, ``TYPE_CHECKING``); ``from pkg import mod`` is an import of the
    module, ``from mod import name`` of ``mod``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{up}.{base}" if base else up
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in modules else base)
    return (found & modules) - {name}


def import_circles(root: Path = ROOT) -> list[set[str]]:
    """The import graph's circles: its strongly connected components of more than one module (Tarjan)."""
    files = {_module_of(p, root): p for p in (root / "crawlsim").rglob("*.py") if "__pycache__" not in p.parts}
    graph = {name: _imports(path, name, set(files)) for name, path in files.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[set[str]] = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            part = set(stack[stack.index(v) :])
            del stack[stack.index(v) :]
            if len(part) > 1:
                circles.append(part)

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return circles


def test_no_import_circles() -> None:
    circles = [sorted(c) for c in import_circles()]
    assert circles == [], f"modules that import each other (imports in functions and TYPE_CHECKING count): {circles}"


def test_the_circle_finder_finds_a_circle(tmp_path: Path) -> None:
    """The finder on a small tree of its own: a -> b -> a (in a function) and d -> e -> d
    (under TYPE_CHECKING, relative) are found; c beside them is in neither."""
    package = tmp_path / "crawlsim"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from crawlsim import b\n")
    (package / "b.py").write_text("def f():\n    from crawlsim.a import g\n")
    (package / "c.py").write_text("import crawlsim.a\n")
    (package / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from crawlsim import e\n")
    (package / "e.py").write_text("from . import d\n")
    found = sorted(sorted(c) for c in import_circles(tmp_path))
    assert found == [["crawlsim.a", "crawlsim.b"], ["crawlsim.d", "crawlsim.e"]]
