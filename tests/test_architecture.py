"""ARCHITECTURE.md's layers and size limits, enforced rather than described.

* Imports only point down the layers declared in pyproject.toml's
  ``[tool.importlinter]`` contract (core < drivers/sim < session/replay/plots <
  front ends < commands < cli, with ``crawlsim.errors`` below all), checked by
  import-linter on the installed package's source.
* Every module of the package sits in some layer, so a new module cannot
  slip past the contract by not being named in it.
* No function is over 60 lines or above cyclomatic complexity 15 (radon).
* No module is over 900 lines.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import sys
import tomllib
from pathlib import Path

import pytest

import crawlsim

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"

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
