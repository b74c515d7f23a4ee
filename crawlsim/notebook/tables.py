"""Small tables for notebooks, without pandas.

The teaching notebooks show a handful of rows at a time (a BFS trace, one
line per normalization mode); a dependency on pandas for that would be the
heaviest import in the project.  :class:`Table` renders as HTML in Jupyter
and as aligned text anywhere else (``print(table)``, a test failure).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


def short(url: str) -> str:
    """``http://isro.gov.in/missions`` -> ``isro.gov.in/missions``: tables
    about one scheme read better without it."""
    for scheme in ("http://", "https://"):
        if url.startswith(scheme):
            rest = url[len(scheme) :]
            return rest[:-1] if rest.endswith("/") and rest.count("/") == 1 else rest
    return url


def cell(value: Any) -> str:
    """Text of one cell: lists joined with commas, floats trimmed."""
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value):,}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(v) for v in value) or "-"
    return str(value)


@dataclass
class Table:
    """Rows under named columns; shows itself as HTML or text."""

    columns: Sequence[str]
    rows: list[Sequence[Any]] = field(default_factory=list)
    caption: str = ""

    @classmethod
    def of(cls, columns: Sequence[str], rows: Iterable[Sequence[Any]], caption: str = "") -> Table:
        return cls(list(columns), [list(r) for r in rows], caption)

    def column(self, name: str) -> list[Any]:
        """The raw values of one column (for asserts)."""
        k = list(self.columns).index(name)
        return [row[k] for row in self.rows]

    def _repr_html_(self) -> str:
        head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td style='text-align:left'>{html.escape(cell(v))}</td>" for v in row) + "</tr>"
            for row in self.rows
        )
        caption = f"<caption style='caption-side:top;text-align:left'>{html.escape(self.caption)}</caption>"
        return f"<table>{caption if self.caption else ''}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __str__(self) -> str:
        texts = [list(self.columns)] + [[cell(v) for v in row] for row in self.rows]
        widths = [max(len(r[k]) for r in texts) for k in range(len(self.columns))]
        lines = ["  ".join(t.ljust(w) for t, w in zip(r, widths)).rstrip() for r in texts]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(([self.caption] if self.caption else []) + lines)

    def __repr__(self) -> str:
        return str(self)


__all__ = ["Table", "cell", "short"]
