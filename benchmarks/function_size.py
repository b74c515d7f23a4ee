"""Functions over 60 lines or above cyclomatic complexity 15, by radon.

    python benchmarks/function_size.py              # crawlsim/: one line per function
    python benchmarks/function_size.py crawlsim/core

The architecture's limits (60 lines, complexity 15) for every function;
the test suite checks the same limits (tests/test_architecture.py).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import NamedTuple

from radon.complexity import cc_visit
from radon.visitors import Class, Function

MAX_LINES = 60
MAX_COMPLEXITY = 15


class Oversized(NamedTuple):
    path: str
    name: str
    lines: int
    complexity: int


def _functions(blocks: list) -> list[Function]:
    found: list[Function] = []
    for block in blocks:
        if isinstance(block, Class):
            found.extend(_functions(block.methods))
        elif isinstance(block, Function):
            found.append(block)
            found.extend(_functions(block.closures))
    return found


def oversized(root: pathlib.Path) -> list[Oversized]:
    """Every function under ``root`` over either limit, sorted by path and name."""
    rows = set()
    paths = [root] if root.is_file() else sorted(root.rglob("*.py"))
    for path in paths:
        for fn in _functions(cc_visit(path.read_text(encoding="utf-8"))):
            lines = fn.endline - fn.lineno + 1
            if lines > MAX_LINES or fn.complexity > MAX_COMPLEXITY:
                rows.add(Oversized(str(path), fn.fullname, lines, fn.complexity))
    return sorted(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default="crawlsim")
    args = parser.parse_args(argv)
    rows = oversized(pathlib.Path(args.root))
    for row in rows:
        print(f"{row.path}:{row.name}  lines={row.lines} cc={row.complexity}")
    print(f"{len(rows)} functions over {MAX_LINES} lines or complexity {MAX_COMPLEXITY}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
