"""`crawlsim check`: grade a user's own ``crawl(start_url, get_urls, max_workers)``.

The crawler runs with real threads (or asyncio) against simulated services
(``services.py``) on small webs built to expose each classic mistake
(``cases.py``), in a child process when it comes from a file
(``sandbox.py``, ``child.py``); what the services observed is judged into
plain-language checks and a rubric level (``judge.py``, ``report.py``).

    report = run_check("examples/interview/reference_threadpool.py:crawl", quick=True)
    report.ok, report.level, print(report.render())

Names load on first use, so the sandboxed child, which imports this package,
does not pay for the judge and the CLI.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CheckInputError": "crawlsim.check.loader",
    "CheckReport": "crawlsim.check.report",
    "CheckResult": "crawlsim.check.report",
    "SimulatedFetchError": "crawlsim.check.services",
    "main": "crawlsim.check.cli",
    "run_check": "crawlsim.check.grade",
}

__all__ = ["CheckInputError", "CheckReport", "CheckResult", "SimulatedFetchError", "main", "run_check"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'crawlsim.check' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
