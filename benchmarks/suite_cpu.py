"""Which tests cost the suite's CPU? A pytest plugin that writes CPU seconds per test phase.

    PYTHONPATH=benchmarks python -m pytest -q -p suite_cpu -p no:randomly tests/test_notebooks.py
    sort -rn suite-cpu.txt | head -20

Wall-clock durations (``--durations``) on a shared two-core machine say more
about the neighbours than about the test; CPU seconds do not move much with
load.  Each setup, call and teardown is charged this process's CPU plus that
of the child processes it waited for (a notebook's kernel, a ``crawlsim``
command, a server stopped at module end, Chromium): ``getrusage`` counts a
child once it has been reaped.  Under xdist every worker appends its own
lines.  ``$SUITE_CPU_OUT`` names the file (default ``suite-cpu.txt``).  A
measurement, not a test.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest

_ROWS: list[tuple[float, str, str]] = []


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _charged(phase: str, item: Any) -> Iterator[None]:
    began = _cpu()
    yield
    _ROWS.append((_cpu() - began, phase, item.nodeid))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: Any) -> Iterator[None]:
    yield from _charged("setup", item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Iterator[None]:
    yield from _charged("call", item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: Any) -> Iterator[None]:
    yield from _charged("teardown", item)


def pytest_sessionfinish(session: Any) -> None:
    with open(os.environ.get("SUITE_CPU_OUT", "suite-cpu.txt"), "a", encoding="utf-8") as out:
        for seconds, phase, nodeid in sorted(_ROWS, reverse=True):
            out.write(f"{seconds:8.2f} {phase:8} {nodeid}\n")
