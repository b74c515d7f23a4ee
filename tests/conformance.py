"""Where the third-party conformance data lives, and what to do without it.

The data (WPT's ``urltestdata.json``, Google's robots.txt cases) is kept in
``shared/conformance/`` beside the checkout, not in it (or in the folder
``CRAWLSIM_CONFORMANCE_DIR`` names).  Without it the
conformance tests skip and say where they looked -- unless
``CRAWLSIM_REQUIRE_CONFORMANCE=1`` is set (``.ci/run`` sets it: CI always has
the data), which turns that skip into a failure, so the docs' conformance
figures can never go untested there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FOLDER = "CRAWLSIM_CONFORMANCE_DIR"
"""Names the folder when it is elsewhere (a git worktree one level deeper, a CI cache)."""
CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance"
REQUIRE = "CRAWLSIM_REQUIRE_CONFORMANCE"


def conformance_file(name: str, what: str) -> Path:
    """``shared/conformance/<name>``; skips (or fails, when required) if it is missing."""
    path = Path(os.environ.get(FOLDER) or CONFORMANCE) / name
    if not path.is_file():
        message = f"{what} not found at {path} (the project's shared/conformance folder)"
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{message}, and {REQUIRE}=1 says it must be there")
        pytest.skip(message)
    return path
