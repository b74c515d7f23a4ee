"""Which build of crawlsim is running: pure Python, or with its hot modules compiled.

The compiled build is these same ``.py`` files compiled by Cython (pure-Python
mode: no ``.pyx``, no second copy of any code path), built by ``pip install .``
when a C compiler is there (``setup.py``).  Only the crawl's own per-fetch
work is compiled: the scheduler and its parts (``plain`` among them: the
checks every link and response passes, which the scheduler calls as C
functions), and the simulator's driver.
The generated web's link generation and the URL helpers stay pure Python in
both builds, because the fair BFS that ``benchmarks/sim_vs_bfs.py`` measures
the simulation against calls them too.

This module imports nothing of crawlsim: ``setup.py`` reads
:data:`COMPILED_MODULES` from it before the package's dependencies exist.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util

COMPILED_MODULES: tuple[str, ...] = (
    "crawlsim.core.frontier",
    "crawlsim.core.gate",
    "crawlsim.core.ledger",
    "crawlsim.core.plain",
    "crawlsim.core.politeness",
    "crawlsim.core.retry",
    "crawlsim.core.scheduler",
    "crawlsim.core.seen",
    "crawlsim.core.slots",
    "crawlsim.sim.driver",
    "crawlsim.sim.latency",
)
"""The modules the compiled build compiles (everything else is pure Python in both)."""


def compiled_modules() -> list[str]:
    """Those of :data:`COMPILED_MODULES` that load from a compiled extension here."""
    found = []
    for name in COMPILED_MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            found.append(name)
    return found


def build_name() -> str:
    """``"compiled with Cython"`` when the hot modules are compiled, else ``"pure Python"``."""
    return "compiled with Cython" if compiled_modules() else "pure Python"
