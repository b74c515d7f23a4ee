"""The compiled build: the hot modules' own ``.py`` files, compiled by Cython.

``pip install .`` installs the pure-Python package; ``CRAWLSIM_BUILD=compiled
pip install .`` compiles ``crawlsim.build_info.COMPILED_MODULES`` and fails
the install loudly when it cannot (no C compiler, a compile error).  The
build backend (``build_backend/crawlsim_build.py``) reads ``CRAWLSIM_BUILD``,
says which build it makes, and tells this file to declare the extensions
only while it builds a compiled wheel (an editable install is always pure,
so an edited ``.py`` file is never shadowed by a stale extension).

Cython reads the files in pure-Python mode with ``annotation_typing`` off: a
``float`` annotation does not become a C double, so every value, and so
every event, is exactly what the pure build gives (``.ci/compiled`` checks
it).  The types Cython does use are in the ``.pxd`` files beside the hot
``.py`` files (which classes are C classes, their counters and flags as C
ints, the hot methods ``cpdef``): declarations only, which pure Python
never reads.
"""

from __future__ import annotations

import os
import runpy

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILE = os.environ.get("_CRAWLSIM_COMPILE") == "1"
DIRECTIVES = {"annotation_typing": False, "binding": True, "language_level": 3}
"""``binding``: compiled functions keep their signatures, docstrings and ``__wrapped__``-style introspection."""


def extensions() -> list[Extension]:
    """The modules to compile, as plain extensions of their ``.py`` files (Cython
    turns them into C only when ``build_ext`` runs: pip asks for the build's
    requirements, Cython among them, by running this file before Cython is there)."""
    if not COMPILE:
        return []
    names = runpy.run_path(os.path.join("crawlsim", "build_info.py"))["COMPILED_MODULES"]
    return [Extension(name, [name.replace(".", "/") + ".py"]) for name in names]


class CythonBuildExt(build_ext):
    """``build_ext`` that translates the extensions to C with Cython first, and
    turns any failure into one line that says the compiled build failed."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # one gcc per core

    def run(self) -> None:
        if not self.extensions:
            super().run()
            return
        try:
            # to C only now: pip runs this file to ask for the build's requirements, before Cython is there
            for ext, translated in zip(self.extensions, _cythonized(self.extensions), strict=True):
                ext.sources = translated.sources
            super().run()
        except Exception as err:  # no Cython, no compiler, a compile error
            raise SystemExit(
                f"crawlsim: error: CRAWLSIM_BUILD=compiled, but compiling failed: {err} "
                "(without CRAWLSIM_BUILD, pip installs the pure-Python build, which needs no compiler)"
            ) from err


def _cythonized(exts: list[Extension]) -> list[Extension]:
    """``exts`` with their ``.py`` sources translated to C (in ``build/cython``, not beside them)."""
    from Cython.Build import cythonize

    threads = os.cpu_count() or 1
    return cythonize(exts, compiler_directives=DIRECTIVES, build_dir="build/cython", quiet=True, nthreads=threads)


setup(ext_modules=extensions(), cmdclass={"build_ext": CythonBuildExt})
