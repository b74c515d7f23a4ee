"""Every teaching notebook runs top to bottom, with no network, and passes
its own asserts (the notebooks' cells check the facts they teach); so does
its student edition, with the reference answers typed into its prediction
cells, and then every reveal says "right".

Each notebook is executed with nbclient in a fresh namespace of one kernel
per test process (:class:`SharedKernel`): starting a kernel and importing
matplotlib and ipywidgets into it cost about as much CPU as a short
notebook's cells, so it is done once.  Before a notebook, the kernel's user
namespace is reset (``%reset -f``: no name survives from the notebook
before, so a lesson that forgets an import still fails), its figures closed
and crawlsim's own modules dropped, so the notebook imports the product
afresh: no cache of it holds what an earlier notebook put there (notebook 11
puts its comparison-counting ``str`` subclass into ``canonicalize``'s cache).
After a notebook, the process state it could leave behind for the next one
(working folder, environment, ``sys.path``, matplotlib's settings, threads)
must be as it was before, or that notebook's test fails saying what changed
(a thread left running only gets the next notebook a new kernel: it may be
one still winding down, which is timing, not a mistake in the lesson).
A notebook that fails gets the kernel restarted behind it.  The kernel is
the interpreter running the tests: a ``python3`` kernelspec pointing at
``sys.executable`` is put first on ``JUPYTER_PATH``, so a user-level
kernelspec for some other Python can never be picked up instead.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawlsim.notebook import editions
from crawlsim.notebook.reveal import NOT_PREDICTED

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
    "09_bfs_dfs_side_by_side",
    "10_discovery_and_discarded_edges",
    "11_list_or_set_seen",
    "12_head_of_line_blocking",
    "13_backoff_jitter_retry_after",
    "14_bloom_filter_false_positives",
    "15_folder_of_html_unreachable",
    "16_distributed",
    "17_a_crawl_never_ends",
    "18_best_first_by_name",
]
"""Each notebook must run well under a minute (they take a few seconds)."""


def _code(notebook: dict[str, Any]) -> list[str]:
    return [editions.source(c) for c in notebook["cells"] if c["cell_type"] == "code"]


def _bound_names(text: str, pure: frozenset[str] = frozenset()) -> set[str] | None:
    """The names a cell binds, when it is only asserts and ``name = expression``
    lines (nothing else it could change; ``pure`` names the notebook's own
    functions it may call, see :func:`_pure_functions`); None for any other cell."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = [n for t in statement.targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
            if not all(isinstance(n, ast.Name) for n in targets):
                return None
            names.update(n.id for n in targets if isinstance(n, ast.Name))
        elif not isinstance(statement, ast.Assert):
            return None
    if any(isinstance(node, ast.NamedExpr) or _may_change_state(node, pure) for node in ast.walk(tree)):
        return None
    return names


_PURE_BUILTINS = frozenset(
    {"abs", "all", "any", "bool", "dict", "enumerate", "float", "frozenset", "int", "isinstance", "len", "list", "max",
     "min", "print", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "type", "zip"}
)
"""Calls a dropped cell may make: builtins that change none of their arguments."""
_PURE_METHODS = frozenset(
    {"count", "endswith", "get", "index", "items", "join", "keys", "removeprefix", "removesuffix", "split",
     "startswith", "strip", "values"}
)
"""Methods of lists, dicts and strings that read and never change their object."""


def _may_change_state(node: ast.AST, pure: frozenset[str] = frozenset()) -> bool:
    """A call of anything but a pure builtin or one of the notebook's own
    ``pure`` functions (``w.set_workers(4)``, ``seen.append(x)``), an await or
    a yield could change an object a kept cell reads, so a cell holding one
    is never dropped."""
    if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
        return True
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id not in _PURE_BUILTINS | pure
        return not (isinstance(node.func, ast.Attribute) and node.func.attr in _PURE_METHODS)
    return False


_PURE_STATEMENTS = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.If, ast.For, ast.While, ast.Assert,
                    ast.Pass, ast.Break, ast.Continue, ast.Expr)
"""What a pure function's body may hold: no ``global``, ``del``, ``with``,
``try``, import or nested definition."""


def _changes_only_locals(function: ast.FunctionDef, pure: frozenset[str]) -> bool:
    """Its body binds only its own local names and calls only pure builtins,
    read-only methods and functions already known ``pure``."""
    for node in ast.walk(function):
        if node is function or isinstance(node, (ast.arguments, ast.arg)):
            continue
        if isinstance(node, ast.stmt) and not isinstance(node, _PURE_STATEMENTS):
            return False
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return False  # obj.x = ..., d[k] = ...: could be an argument's or a global's
        if isinstance(node, ast.NamedExpr) or _may_change_state(node, pure):
            return False
    return True


def _pure_functions(cells: list[str]) -> frozenset[str]:
    """The functions a notebook defines with ``def`` at a cell's top level,
    undecorated and never bound again, whose bodies change only their own
    locals (``reach(b, k)``): a dropped cell may call them as it may call
    ``len``.  Calls among them count once the callee is known pure."""
    bindings: Counter[str] = Counter()
    defined: dict[str, ast.FunctionDef] = {}
    for text in cells:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bindings[node.id] += 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings[node.name] += 1
            elif isinstance(node, ast.alias):
                bindings[(node.asname or node.name).partition(".")[0]] += 1
        defined.update((n.name, n) for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list)
    pure: frozenset[str] = frozenset()
    while True:
        more = {name for name, f in defined.items() if bindings[name] == 1 and _changes_only_locals(f, pure)}
        if more <= pure:
            return pure
        pure |= more


def _read_names(text: str) -> set[str]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def teachers_run_is_the_students(teacher: dict[str, Any], student: dict[str, Any]) -> bool:
    """The student edition runs exactly the teacher's code cells minus some
    that change nothing a kept cell reads (asserts, and names no later kept
    cell uses): then the teacher's run executes every student cell in the
    same state, and its reveals are the student edition's.  A dropped cell
    may call the notebook's own pure functions (:func:`_pure_functions`);
    no function a kept cell defines may read a name a dropped cell binds
    (its body runs later, whichever cell calls it)."""
    kept, left = _code(student), _code(teacher)
    pure = _pure_functions(left)
    dropped: list[set[str]] = []
    deferred: set[str] = set()
    for text in left:
        if kept and text == kept[0]:
            kept.pop(0)
            if _read_names(text) & set().union(*dropped):
                return False
            deferred |= _read_later(text)
            continue
        names = _bound_names(text, pure)
        if names is None:
            return False
        dropped.append(names)
    return not kept and not deferred & set().union(*dropped)


def _read_later(text: str) -> set[str]:
    """The names read inside the functions (and lambdas) a cell defines."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    bodies = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    return {name for body in bodies for name in _read_names(ast.unparse(body))}


def _filled_student(path: Path) -> dict[str, Any]:
    teacher = editions.read(path)
    return editions.fill_predictions(editions.student_edition(teacher), teacher)


COVERED_BY_THE_TEACHER = {p for p in NOTEBOOKS if teachers_run_is_the_students(editions.read(p), _filled_student(p))}
"""Notebooks whose student-edition run the teacher's run already is: its
test checks the student edition's reveals on that run instead of a second kernel."""


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


_FRESH = """\
__import__("sys").modules.get("matplotlib.pyplot", __import__("types").SimpleNamespace(close=len)).close("all")
[__import__("sys").modules.pop(name) for name in list(__import__("sys").modules)
 if name.partition(".")[0] == "crawlsim"]
get_ipython().run_line_magic("reset", "-f")
"""
"""The first cell run before each notebook: the previous notebook's figures
closed, crawlsim's modules dropped so the notebook imports them afresh (no
cache or memo of the product holds what an earlier notebook put there), and
every name bound before gone (``-f``: without asking)."""

_STATE = """\
(lambda os, sys, threading, matplotlib, json: print(json.dumps({
    "working folder": os.getcwd(), "environment": dict(os.environ), "sys.path": sys.path,
    "threads": sorted(t.name for t in threading.enumerate() if not any(
        str(getattr(o, "__module__", "")).startswith(("ipykernel.", "zmq.")) for o in (t, getattr(t, "_target", None))
    )),
    "matplotlib.rcParams": {k: repr(v) for k, v in matplotlib.rcParams.items() if k != "backend"},
})))(*map(__import__, ("os", "sys", "threading", "matplotlib", "json")))
"""
"""What one notebook could leave behind for the next in a shared kernel, as
one line of JSON: printed after :data:`_FRESH` and again after the
notebook's last cell (``backend`` is left out: pyplot settles it on its
first import; so are the kernel's own threads, some started on first use)."""


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two :data:`_STATE` printouts, one line per part."""
    lines = []
    for part, was in before.items():
        now = after.get(part)
        if isinstance(was, dict) and isinstance(now, dict):
            keys = sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
            lines += [f"{part}[{k!r}]: {was.get(k)!r} -> {now.get(k)!r}" for k in keys]
        elif was != now:
            lines.append(f"{part}: {was!r} -> {now!r}")
    return lines


class SharedKernel:
    """One kernel for every notebook a test process executes, each notebook in
    a fresh namespace, its leftovers checked (see the module docstring)."""

    def __init__(self, jupyter_path: Path) -> None:
        self.jupyter_path = jupyter_path
        self.km: Any = None

    def _start(self) -> Any:
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        with pytest.MonkeyPatch.context() as env:
            paths = (str(self.jupyter_path), os.environ.get("JUPYTER_PATH"))
            env.setenv("JUPYTER_PATH", os.pathsep.join(p for p in paths if p))
            env.setenv("MPLBACKEND", "Agg")
            km = AsyncKernelManager(kernel_name="python3")
            assert km.kernel_spec.argv[0] == sys.executable
            run_sync(km.start_kernel)(cwd=str(NOTEBOOK_DIR), extra_arguments=["--HistoryManager.hist_file=:memory:"])
        return km

    def stop(self) -> None:
        from jupyter_core.utils import run_sync

        if self.km is not None:
            km, self.km = self.km, None
            run_sync(km.shutdown_kernel)(now=True)
            run_sync(km.cleanup_resources)()

    def execute(self, nb: Any) -> Any:
        """Run ``nb`` (changed in place, as nbclient does) after a fresh start
        of the namespace; raise on a failed cell or on state left changed."""
        from jupyter_core.utils import run_sync

        if self.km is None or not run_sync(self.km.is_alive)():
            self.km = self._start()
        own = [nbformat.v4.new_code_cell(_FRESH + _STATE), nbformat.v4.new_code_cell(_STATE)]
        nb.cells = [own[0], *nb.cells, own[1]]
        client = nbclient.NotebookClient(nb, km=self.km, timeout=120, kernel_name="python3")
        try:
            client.execute()  # raises on a failed assert in any cell (or a cell over nbclient's timeout)
        except BaseException:
            self.stop()  # the next notebook gets a new kernel, not what this one left
            raise
        finally:
            if client.kc is not None:
                client.kc.stop_channels()
            nb.cells = nb.cells[1:-1]
        changed = _changes(*(json.loads(_printed(cell)) for cell in own))
        if changed:
            self.stop()  # the next notebook gets a new kernel
        # A thread still winding down is a race, not the lesson's fault: it only
        # costs the next notebook a new kernel.  Anything else left changed fails.
        lasting = [line for line in changed if not line.startswith("threads:")]
        if lasting:
            pytest.fail("the notebook left the kernel changed for the next one: " + "; ".join(lasting))
        return nb


def _printed(cell: Any) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.get("name") == "stdout")


@pytest.fixture(scope="module")
def kernel(jupyter_path: Path) -> Iterator[SharedKernel]:
    """Module-scoped, not session-scoped: the kernel is stopped (and its CPU
    reaped, so benchmarks/suite_cpu.py charges it to this file) when a test
    process moves on to another file."""
    shared = SharedKernel(jupyter_path)
    yield shared
    shared.stop()


def test_the_notebooks_are_there() -> None:
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


def _reveals(nb: Any) -> list[str]:
    """The verdict lines the reveal cells printed (one per reveal call)."""
    printed = [
        output.get("text", "")
        for cell in nb.cells
        if "reveal" in cell.metadata.get("tags", [])
        for output in cell.outputs
        if output.get("name") == "stdout"
    ]
    verdicts = ("right", "wrong", NOT_PREDICTED)
    return [line for text in printed for line in text.splitlines() if line.startswith(verdicts)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_its_asserts_hold(path: Path, kernel: SharedKernel) -> None:
    nb = kernel.execute(nbformat.read(path, as_version=4))
    verdicts = _reveals(nb)
    assert verdicts and all(v.startswith("right") for v in verdicts), verdicts
    if path in COVERED_BY_THE_TEACHER:  # this run is also the student edition's
        _assert_all_right(_filled_student(path), verdicts)


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(set(NOTEBOOKS) - COVERED_BY_THE_TEACHER), ids=lambda p: p.stem)
def test_student_edition_with_the_reference_answers_is_all_right(path: Path, kernel: SharedKernel) -> None:
    filled = _filled_student(path)
    nb = kernel.execute(nbformat.reads(json.dumps(filled), as_version=4))
    _assert_all_right(filled, _reveals(nb))


def _assert_all_right(filled: dict[str, Any], verdicts: list[str]) -> None:
    """Every reveal call of the filled student edition printed a verdict, all "right"."""
    reveal_calls = sum(editions.source(c).count("reveal(") for c in filled["cells"] if editions.REVEAL in editions.tags(c))
    assert len(verdicts) >= reveal_calls > 0      # every reveal call printed a verdict (some run in a loop)
    assert all(v.startswith("right") for v in verdicts), [v for v in verdicts if not v.startswith("right")]


@pytest.mark.slow
def test_an_unanswered_student_edition_still_runs_and_withholds_the_answers(kernel: SharedKernel) -> None:
    path = NOTEBOOK_DIR / "06_same_content_different_url.ipynb"
    student = editions.student_edition(editions.read(path))
    nb = kernel.execute(nbformat.reads(json.dumps(student), as_version=4))
    verdicts = _reveals(nb)
    assert verdicts and all(v.startswith(NOT_PREDICTED) for v in verdicts), verdicts
    assert not any("says" in v for v in verdicts)   # no measured value shown before a prediction


def _nb(*cells: str) -> dict[str, Any]:
    return {"cells": [{"cell_type": "code", "source": text, "metadata": {}} for text in cells]}


def test_a_student_run_is_the_teachers_only_when_what_it_drops_changes_nothing_kept() -> None:
    assert teachers_run_is_the_students(_nb("x = f()", "assert x > 0", "g(x)"), _nb("x = f()", "g(x)"))
    assert teachers_run_is_the_students(_nb("x = f()", "y, z = x, 2\nassert y", "g(x)"), _nb("x = f()", "g(x)"))
    # a dropped cell binds a name a kept cell reads: the student kernel never has it
    assert not teachers_run_is_the_students(_nb("x = f()", "y = 1", "g(y)"), _nb("x = f()", "g(y)"))
    # a dropped cell changes an object (or runs a statement that could)
    assert not teachers_run_is_the_students(_nb("w = f()", "w.value = 2", "g(w)"), _nb("w = f()", "g(w)"))
    assert not teachers_run_is_the_students(_nb("w = f()", "w.append(2)", "g(w)"), _nb("w = f()", "g(w)"))
    assert not teachers_run_is_the_students(_nb("w = f()", "assert (n := 1)", "g(n)"), _nb("w = f()", "g(n)"))
    # an assignment whose right-hand side calls something that may change what a kept cell reads
    assert not teachers_run_is_the_students(_nb("w = f()", "r = w.set_workers(4)", "g(w)"), _nb("w = f()", "g(w)"))
    assert not teachers_run_is_the_students(_nb("w = f()", "x = w.append(1)", "g(w)"), _nb("w = f()", "g(w)"))
    assert not teachers_run_is_the_students(_nb("w = f()", "assert check(w)", "g(w)"), _nb("w = f()", "g(w)"))
    # calls that only read are fine
    assert teachers_run_is_the_students(_nb("w = f()", "n = len(w.items())\nassert n", "g(w)"), _nb("w = f()", "g(w)"))
    # the notebook's own functions: pure ones may be called, others not
    reach = "def reach(b, k):\n    n = 1\n    for i in range(k):\n        n += b ** (i + 1)\n    return n"
    assert teachers_run_is_the_students(
        _nb(reach, "x = f()", "assert reach(2, x)", "g(x)"), _nb(reach, "x = f()", "g(x)")
    )
    twice = "def twice(b):\n    return 2 * reach(b, 1)"
    assert teachers_run_is_the_students(_nb(reach, twice, "assert twice(3)", "g()"), _nb(reach, twice, "g()"))
    for impure in (
        "def h(w):\n    w.append(1)",                  # changes its argument
        "def h(w):\n    w.n = 1",
        "def h(w):\n    w[0] = 1",
        "def h(w):\n    global x\n    x = w",        # binds a global
        "def h(w):\n    return g(w)",                  # calls what may change something
        "def h(w):\n    with w:\n        return 1",
        "@cache\ndef h(w):\n    return 1",            # a decorator could wrap it in anything
    ):
        assert not teachers_run_is_the_students(
            _nb(impure, "w = f()", "assert h(w)", "g(w)"), _nb(impure, "w = f()", "g(w)")
        ), impure
    rebound = "def h(w):\n    return 1"
    assert not teachers_run_is_the_students(
        _nb(rebound, "h = g", "w = f()", "assert h(w)", "g(w)"), _nb(rebound, "h = g", "w = f()", "g(w)")
    )
    # a kept function reads a name only a dropped cell binds: calling it later differs
    late = "def k():\n    return y"
    assert not teachers_run_is_the_students(_nb(late, "y = 1", "k()"), _nb(late, "k()"))
    # a student cell the teacher edition does not have (an exercise stub)
    assert not teachers_run_is_the_students(_nb("def crawl(): return 1", "g()"), _nb("def crawl(): ...", "g()"))


def _tiny(*cells: str) -> Any:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(text) for text in cells]
    return nb


@pytest.mark.slow  # sorted among the notebook runs (conftest.py), so it shares their kernel
def test_a_notebook_in_the_shared_kernel_sees_nothing_the_one_before_left(kernel: SharedKernel) -> None:
    kernel.execute(_tiny("import crawlsim.core.urls as urls\nurls.left_by_the_last_one = 1\nleftover = 2"))
    kernel.execute(_tiny(
        'assert "leftover" not in globals() and "urls" not in globals()',
        'import crawlsim.core.urls\nassert not hasattr(crawlsim.core.urls, "left_by_the_last_one")',
    ))


@pytest.mark.slow  # sorted among the notebook runs (conftest.py), so it shares their kernel
def test_a_notebook_that_leaves_the_kernel_changed_fails_saying_what(kernel: SharedKernel) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"environment\['CRAWLSIM_LEFT_BEHIND'\]: None -> '1'"):
        kernel.execute(_tiny('import os\nos.environ["CRAWLSIM_LEFT_BEHIND"] = "1"'))
    kernel.execute(_tiny('import os\nassert "CRAWLSIM_LEFT_BEHIND" not in os.environ'))  # a new kernel
