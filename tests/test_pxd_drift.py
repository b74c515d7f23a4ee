"""Each ``.pxd`` in the package still describes the ``.py`` beside it.

The compiled build (``CRAWLSIM_BUILD=compiled``) reads a module's ``.pxd`` to
make its classes C classes; the pure build, the one the tests run, never
reads it.  So a ``.pxd`` can drift from its ``.py`` unseen, and the compiled
build then breaks: a ``cdef class`` has no instance dictionary, so every
attribute its methods set must be declared (else ``AttributeError`` at run
time), and a declared attribute or ``cpdef`` method the ``.py`` no longer
has is a stale declaration (a ``cpdef`` one does not even compile).  Checked
here without Cython: the ``.pxd`` read line by line, the ``.py`` by ``ast``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "crawlsim"

_CLASS = re.compile(r"^cdef\s+class\s+(\w+)")
_METHOD = re.compile(r"^\s*c?p?def\s+(?:inline\s+)?(?:[\w.\[\]]+\s+)?(\w+)\s*\(")
_ATTRIBUTES = re.compile(r"^\s+cdef\s+(?:public\s+|readonly\s+)?[\w.\[\]]+\s+(\w+(?:\s*,\s*\w+)*)\s*$")


@dataclass
class Declared:
    """What a ``.pxd`` (or a ``.py``) says one class has."""

    attributes: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)


def read_pxd(text: str) -> dict[str, Declared]:
    """Each ``cdef class`` of a ``.pxd``, with its ``cdef`` attributes and its
    ``cdef``/``cpdef`` methods (module-level declarations under ``""``)."""
    classes: dict[str, Declared] = {}
    current = ""
    for line in text.splitlines():
        code = line.split("#", 1)[0].rstrip()
        if not code.strip() or code.lstrip().startswith(("@", "cimport", "from ")):
            continue
        if (start := _CLASS.match(code)) is not None:
            current = start[1]
            classes[current] = Declared()
            continue
        if not code[0].isspace():
            current = ""
        declared = classes.setdefault(current, Declared())
        if (method := _METHOD.match(code)) is not None:
            declared.methods.add(method[1])
        elif (names := _ATTRIBUTES.match(code)) is not None:
            declared.attributes.update(n.strip() for n in names[1].split(","))
    return classes


def _self_attributes(function: ast.FunctionDef) -> set[str]:
    """Every ``self.NAME`` a method assigns (``self`` being its first argument)."""
    if not function.args.args:
        return set()
    me = function.args.args[0].arg
    return {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == me
    }


def _is_dataclass(cls: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in cls.decorator_list)


def read_py(text: str) -> dict[str, Declared]:
    """Each class of a module, with the instance attributes its methods set
    (and its fields, for a dataclass) and its methods; the module's own
    functions under ``""``."""
    tree = ast.parse(text)
    classes = {"": Declared(methods={n.name for n in tree.body if isinstance(n, ast.FunctionDef)})}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        found = classes[cls.name] = Declared()
        for node in cls.body:
            if isinstance(node, ast.FunctionDef):
                found.methods.add(node.name)
                if not any(ast.unparse(d) in ("staticmethod", "classmethod") for d in node.decorator_list):
                    found.attributes |= _self_attributes(node)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _is_dataclass(cls):
                found.attributes.add(node.target.id)
    return classes


def drift(pxd_text: str, py_text: str) -> list[str]:
    """What the ``.pxd`` says that the ``.py`` contradicts, one line each."""
    declared, actual = read_pxd(pxd_text), read_py(py_text)
    problems = []
    for name, decl in sorted(declared.items()):
        if name and name not in actual:
            problems.append(f"cdef class {name}: no such class in the .py")
            continue
        has = actual[name]
        where = f"class {name}" if name else "module"
        problems += [
            f"{where}: declares method {m}, which the .py does not have" for m in sorted(decl.methods - has.methods)
        ]
        if name:
            problems += [
                f"{where}: declares attribute {a}, which the .py never sets"
                for a in sorted(decl.attributes - has.attributes)
            ]
            problems += [
                f"{where}: sets self.{a}, which the .pxd does not declare"
                for a in sorted(has.attributes - decl.attributes)
            ]
    return problems


PXDS = sorted(PACKAGE.rglob("*.pxd"))


def test_the_package_has_pxd_files_to_check() -> None:
    assert len(PXDS) >= 5, PXDS


@pytest.mark.parametrize("pxd", PXDS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_pxd_declares_exactly_what_its_py_has(pxd: Path) -> None:
    py = pxd.with_suffix(".py")
    assert py.exists(), f"{pxd.name} has no .py beside it"
    assert drift(pxd.read_text(encoding="utf-8"), py.read_text(encoding="utf-8")) == []


PY = """
class Queue:
    def __init__(self):
        self.heap = []
        self.size = 0

    def push(self, item):
        self.heap.append(item)
"""


@pytest.mark.parametrize(
    ("pxd", "problem"),
    [
        (
            "cdef class Queue:\n    cdef public list heap\n    cdef public Py_ssize_t size\n    cpdef push(self, item)\n",
            None,
        ),
        (
            "cdef class Queue:\n    cdef public list heap\n    cpdef push(self, item)\n",
            "sets self.size, which the .pxd does not declare",
        ),
        (
            "cdef class Queue:\n    cdef public list heap, old\n    cdef Py_ssize_t size\n",
            "declares attribute old, which the .py never sets",
        ),
        (
            "cdef class Queue:\n    cdef public list heap\n    cdef public Py_ssize_t size\n    cpdef pop(self)\n",
            "declares method pop",
        ),
        ("cdef class Stack:\n    cdef public list heap\n", "cdef class Stack: no such class"),
    ],
)
def test_the_check_finds_each_kind_of_drift(pxd: str, problem: str | None) -> None:
    found = drift(pxd, PY)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0], found
