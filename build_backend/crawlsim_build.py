"""crawlsim's build backend: setuptools' own, asking for Cython only where it is used.

A regular wheel (``pip install .``) may compile the hot modules
(``setup.py``), so it asks pip for Cython among its build requirements --
unless ``CRAWLSIM_BUILD=pure``.  An editable install never compiles (an
edited ``.py`` file must not be shadowed by a stale extension): it needs
only setuptools, and ``build_editable`` tells ``setup.py`` so.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _meta
from setuptools.build_meta import *  # noqa: F403 (every hook not defined here is setuptools')

_EDITABLE = "_CRAWLSIM_EDITABLE"
"""Set while an editable wheel is built: setup.py then declares no extension."""


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, plus Cython unless the pure build is forced."""
    need = list(_meta.get_requires_for_build_wheel(config_settings))
    if os.environ.get("CRAWLSIM_BUILD", "auto").strip().lower() != "pure":
        need.append("Cython>=3.0")
    return need


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements only: an editable install is pure Python."""
    return list(_meta.get_requires_for_build_editable(config_settings))


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    """setuptools' editable wheel, with no extension in it."""
    os.environ[_EDITABLE] = "1"
    try:
        return _meta.build_editable(wheel_directory, config_settings, metadata_directory)
    finally:
        del os.environ[_EDITABLE]
