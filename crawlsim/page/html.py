"""The page's data and its own files -> one self-contained HTML file.

The page is ``see_it.html`` with ``see_it.css`` and ``see_it.js`` inlined
and the data (:mod:`crawlsim.page.build`) as gzip-compressed JSON in a
base64 ``<script type="application/octet-stream">`` block, which the
browser's own ``DecompressionStream`` unpacks: a few hundred runs of one
small web compress about twentyfold, and nothing is fetched, from the
network or from disk, when the file is opened.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from importlib.resources import files
from typing import Any

MAX_BYTES = 3_000_000
"""The file must stay under this (a course page, an e-mail attachment)."""


def asset(name: str) -> str:
    """One of the page's own files, shipped in the package."""
    return files("crawlsim.page").joinpath(name).read_text(encoding="utf-8")


def render(data: dict[str, Any], *, title: str | None = None, note: str | None = None) -> str:
    """The whole page for ``data``; ``title`` and ``note`` (the teacher's
    note at the top) replace the scenario's own title and description."""
    data = {**data, "title": title or data["title"], "note": note if note is not None else data.get("description", "")}
    packed = base64.b64encode(gzip.compress(json.dumps(data, separators=(",", ":")).encode(), mtime=0)).decode()
    page = asset("see_it.html")
    for marker, value in (
        ("/*CSS*/", asset("see_it.css")),
        ("/*JS*/", asset("see_it.js")),
        ("<!--DATA-->", packed),
        ("<!--TITLE-->", html.escape(data["title"])),
    ):
        page = page.replace(marker, value)
    return page


__all__ = ["MAX_BYTES", "asset", "render"]
