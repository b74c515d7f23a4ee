"""crawlsim's build backend: setuptools' own, deciding which build to make and saying so.

``CRAWLSIM_BUILD`` picks the build, and this module is the one place that reads it:

``pure`` (the default)
    the package as it is: nothing to compile, so ``pip install .`` is quick;
``compiled``
    the hot modules compiled by Cython (``setup.py``; several minutes of CPU
    on a small machine): Cython is added to the build's requirements, and the
    install fails loudly when compiling is not possible.

An editable install (``pip install -e .``) is always pure Python, so an
edited ``.py`` file is never shadowed by a stale extension.

pip captures a build backend's output and shows it only with ``-v`` (or when
the build fails), so a long compile looked like a hung install.  The backend
therefore says which build it makes, and when compiling how long it took, on
the installing terminal itself (``/dev/tty``), or on stderr where there is no
terminal (a CI log, ``pip install -v``'s).  Installing again replaces the
build, so every build says which one it is: a compiled build replaced by a
pure one never goes unnoticed.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from setuptools import build_meta as _meta
from setuptools.build_meta import *  # noqa: F403 (every hook not defined here is setuptools')

BUILDS = ("pure", "compiled")
_COMPILE = "_CRAWLSIM_COMPILE"
"""Set while a compiled wheel is built: only then does ``setup.py`` declare its extensions."""


def requested_build() -> str:
    """``CRAWLSIM_BUILD``: ``pure`` (unset or empty) or ``compiled``; anything else stops the install."""
    build = os.environ.get("CRAWLSIM_BUILD", "").strip().lower() or "pure"
    if build not in BUILDS:
        raise SystemExit(f"crawlsim: error: CRAWLSIM_BUILD: expected one of {', '.join(BUILDS)}, got {build!r}")
    return build


def say(text: str) -> None:
    """One line to whoever installs: on the terminal when there is one (pip hides stderr), else stderr.

    On the terminal the line starts on a line of its own and ends in two
    spaces instead of a newline: pip's spinner, still turning, backs over one
    character and so turns (and at the end says "done") after the line."""
    line = f"crawlsim: {text}"
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write(f"\n{line}  ")
            return
    except OSError:  # no controlling terminal (CI), or no /dev/tty (Windows)
        pass
    sys.stderr.write(f"{line}\n")
    sys.stderr.flush()


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, plus Cython for the compiled build."""
    need = list(_meta.get_requires_for_build_wheel(config_settings))
    if requested_build() == "compiled":
        need.append("Cython>=3.0")
    return need


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' wheel, compiled when ``CRAWLSIM_BUILD=compiled``, saying which build it is."""
    if requested_build() == "pure":
        say("installing the pure-Python build (CRAWLSIM_BUILD=compiled compiles the hot modules)")
        return _meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    say("CRAWLSIM_BUILD=compiled: compiling the hot modules with Cython and the C compiler (a minute or more)")
    wall, cpu = time.monotonic(), _cpu_seconds()
    os.environ[_COMPILE] = "1"
    try:
        name = _meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    finally:
        del os.environ[_COMPILE]
    say(f"compiled in {time.monotonic() - wall:.0f} s ({_cpu_seconds() - cpu:.0f} s of CPU)")
    return name


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' editable wheel: always pure Python, saying so."""
    requested = requested_build()
    ignored = " (CRAWLSIM_BUILD=compiled applies to `pip install .`, not -e)" if requested == "compiled" else ""
    say(f"an editable install is the pure-Python build{ignored}")
    return _meta.build_editable(wheel_directory, config_settings, metadata_directory)


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (Cython's workers, each ``gcc``)."""
    spent = os.times()
    return spent.user + spent.system + spent.children_user + spent.children_system
