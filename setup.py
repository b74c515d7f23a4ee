"""The optional compiled build: the hot modules' own ``.py`` files, compiled by Cython.

``pip install .`` compiles ``crawlsim.build_info.COMPILED_MODULES`` when it
can, and otherwise installs the pure-Python package, saying so in one line
(the package then works the same, only slower), as SQLAlchemy's optional
extensions do.  ``CRAWLSIM_BUILD`` forces either build:

``auto`` (the default)
    compile if Cython and a C compiler work, else pure Python;
``compiled``
    compile, and fail the install loudly when that is not possible (CI);
``pure``
    never compile.

Editable installs (``pip install -e .``) are always pure Python (the build
backend in ``build_backend/`` says so), so an edited ``.py`` file is never
shadowed by a stale extension.  Cython reads the files in pure-Python mode
with ``annotation_typing`` off: a ``float`` annotation does not become a C
double, so every value, and so every event, is exactly what the pure build
gives (``.ci/run`` checks it).  The types Cython does use are in the
``.pxd`` files beside the hot ``.py`` files (which classes are C classes,
their counters and flags as C ints, the hot methods ``cpdef``): declarations
only, which pure Python never reads.
"""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

MODES = ("auto", "compiled", "pure")
MODE = os.environ.get("CRAWLSIM_BUILD", "auto").strip().lower()
EDITABLE = os.environ.get("_CRAWLSIM_EDITABLE") == "1"
DIRECTIVES = {"annotation_typing": False, "binding": True, "language_level": 3}
"""``binding``: compiled functions keep their signatures, docstrings and ``__wrapped__``-style introspection."""


def say(text: str) -> None:
    print(f"crawlsim: {text}", file=sys.stderr, flush=True)


def extensions() -> list[Extension]:
    """The modules to compile, as plain extensions of their ``.py`` files (Cython
    turns them into C only when ``build_ext`` runs: pip asks for the build's
    requirements, Cython among them, by running this file before Cython is there)."""
    if MODE not in MODES:
        raise SystemExit(f"crawlsim: error: CRAWLSIM_BUILD: expected one of {', '.join(MODES)}, got {MODE!r}")
    if MODE == "pure" or EDITABLE:
        return []
    names = runpy.run_path(os.path.join("crawlsim", "build_info.py"))["COMPILED_MODULES"]
    return [Extension(name, [name.replace(".", "/") + ".py"]) for name in names]


class OptionalBuildExt(build_ext):
    """``build_ext`` that compiles the extensions with Cython, and falls back to
    the pure-Python build when that fails (unless ``CRAWLSIM_BUILD=compiled``)."""

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
        except Exception as err:  # no Cython, no compiler, a compile error: the same fallback
            self._fall_back(err)
            self._drop_built()
        else:
            say(f"compiled {len(self.extensions)} modules with Cython")

    def _fall_back(self, err: Exception) -> None:
        """The pure-Python build after all, in one line -- or the install's failure, when forced."""
        if MODE == "compiled":
            raise SystemExit(f"crawlsim: error: CRAWLSIM_BUILD=compiled, but compiling failed: {err}") from err
        why = str(err).splitlines()[0][:120] if str(err) else ""
        say(f"could not compile the extensions ({type(err).__name__}: {why}): installing the pure-Python build")

    def _drop_built(self) -> None:
        """Remove any extension already built, so the install is wholly pure Python, not half."""
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)


def _cythonized(exts: list[Extension]) -> list[Extension]:
    """``exts`` with their ``.py`` sources translated to C (in ``build/cython``, not beside them)."""
    from Cython.Build import cythonize

    threads = os.cpu_count() or 1
    return cythonize(exts, compiler_directives=DIRECTIVES, build_dir="build/cython", quiet=True, nthreads=threads)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
