"""Turn ``FILE.py:FUNCTION`` into a callable, or say in one line what is wrong.

Every mistake in the user's input (no such file, a syntax error, no such
function, the wrong signature...) becomes a :class:`CheckInputError` whose
message is one line meant for a person; the CLI prints it and exits 2.  A
traceback would point at crawlsim, not at the user's mistake.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlsim.errors import UsageError

CALL_SHAPE = "FUNCTION(start_url, get_urls, max_workers)"


class CheckInputError(UsageError):
    """The target cannot be checked; the message says why, in one line."""


@dataclass(frozen=True)
class Target:
    """A loaded crawler: the function, whether it is ``async def``, a label
    for the report, and the file its code lives in (to point at the user's
    line when it raises)."""

    function: Callable[..., Any]
    is_async: bool
    label: str
    source_file: str | None


def parse_target(target: str) -> tuple[Path, str]:
    """Split ``"FILE.py:FUNCTION"`` (or ``"FILE.py"``, meaning its ``crawl``)
    and check what can be checked without running the user's code: the
    shape, the function name, that the file exists."""
    if not isinstance(target, str) or not target.strip():
        raise CheckInputError("expected FILE.py:FUNCTION, e.g. examples/interview/reference_threadpool.py:crawl")
    path_text, sep, name = target.strip().rpartition(":")
    if not sep or not path_text.endswith(".py"):
        path_text, name = target.strip(), "crawl"
    if not path_text.endswith(".py"):
        raise CheckInputError(f"expected FILE.py:FUNCTION, got {target!r}")
    if not name.isidentifier():
        raise CheckInputError(f"{name!r} is not a Python function name (expected FILE.py:FUNCTION)")
    path = Path(path_text)
    if not path.is_file():
        raise CheckInputError(f"{path_text}: no such file")
    return path, name


def load_target(
    target: str | Callable[..., Any], params: tuple[str, ...] = (), round_name: str | None = None
) -> Target:
    """Load and validate ``target`` ("FILE.py:FUNCTION", "FILE.py" meaning
    its ``crawl``, or a callable); ``params`` are a follow-up round's extra
    parameters, which the signature must also take.  This imports the user's file: `crawlsim
    check` does it only in its sandboxed child (``child.py``)."""
    if callable(target) and not isinstance(target, str):
        return _validated(
            target, getattr(target, "__qualname__", repr(target)), _source_file(target), params, round_name
        )
    path, name = parse_target(target)
    path_text = str(path)
    module = _import_file(path)
    if not hasattr(module, name):
        available = sorted(
            n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and _defined_in(v, module)
        )
        hint = f"; functions defined there: {', '.join(available)}" if available else ""
        raise CheckInputError(f"{path_text}: no function named {name!r}{hint}")
    function = getattr(module, name)
    if not callable(function):
        kind = type(function).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        raise CheckInputError(f"{path_text}:{name} is {article} {kind}, not a function")
    return _validated(function, f"{path_text}:{name}", str(path.resolve()), params, round_name)


def _import_file(path: Path) -> Any:
    """Import ``path`` as a fresh module.  Its directory is on ``sys.path``
    while it imports, so a solution can import a helper next to it.  No
    bytecode is written while it imports: checking a file leaves no
    ``__pycache__`` folder beside it in the user's folder."""
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    module_name = f"_crawlsim_check_{resolved.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, resolved)
    if spec is None or spec.loader is None:
        raise CheckInputError(f"{path}: cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(resolved.parent))
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        raise CheckInputError(f"{where}: syntax error: {exc.msg}") from None
    except BaseException as exc:  # the user's module-level code failed: their mistake, not ours
        sys.modules.pop(module_name, None)
        line = _user_line(exc, str(resolved))
        raise CheckInputError(f"{path}{line}: importing it raised {type(exc).__name__}: {exc}") from None
    finally:
        sys.dont_write_bytecode = writes_bytecode
        try:
            sys.path.remove(str(resolved.parent))
        except ValueError:
            pass
    return module


def _user_line(exc: BaseException, filename: str) -> str:
    tb = exc.__traceback__
    line = ""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    return line


def _defined_in(value: Any, module: Any) -> bool:
    return bool(getattr(value, "__module__", None) == module.__name__)


def _source_file(function: Callable[..., Any]) -> str | None:
    try:
        found = inspect.getsourcefile(inspect.unwrap(function))
    except TypeError:
        return None
    return str(Path(found).resolve()) if found else None


def is_async_function(function: Callable[..., Any]) -> bool:
    """``async def`` functions (also behind ``functools.partial`` or as a
    callable object's ``__call__``)."""
    return inspect.iscoroutinefunction(function) or bool(
        inspect.iscoroutinefunction(
            getattr(function, "__call__", None)  # noqa: B004 - a callable object's method
        )
    )


def _validated(
    function: Callable[..., Any],
    label: str,
    source_file: str | None,
    params: tuple[str, ...] = (),
    round_name: str | None = None,
) -> Target:
    """Refuse a function that cannot be called as ``f(start_url, get_urls,
    max_workers)`` before running anything: every case would fail with the
    same TypeError, which says less than this."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        signature = None  # a builtin or C callable: let the call decide
    if signature is not None:
        try:
            signature.bind("http://a.com/", lambda url: [], 8, *[1] * len(params))
        except TypeError:
            shape = CALL_SHAPE.replace("FUNCTION", label.rpartition(":")[2])
            if params:
                shape = shape[:-1] + ", " + ", ".join(params) + f"), the signature the {round_name} round calls"
            raise CheckInputError(f"{label}{signature} cannot be called as {shape}") from None
    return Target(function, is_async_function(function), label, source_file)
