"""The build a ``pip install .`` makes: pure Python unless ``CRAWLSIM_BUILD=compiled``
asks for the compiled one, and only then does the install need Cython (and a C compiler)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BACKEND = Path(__file__).resolve().parent.parent / "build_backend" / "crawlsim_build.py"


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("crawlsim_build_under_test", BACKEND)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # setuptools' own requirements (it would run setup.py for them): only what crawlsim adds is tested
    monkeypatch.setattr(module._meta, "get_requires_for_build_wheel", lambda config_settings=None: ["setuptools"])
    return module


@pytest.mark.parametrize(
    ("value", "build"), [(None, "pure"), ("", "pure"), ("pure", "pure"), (" Compiled ", "compiled")]
)
def test_the_build_is_pure_unless_compiled_is_asked_for(
    backend: ModuleType, monkeypatch: pytest.MonkeyPatch, value: str | None, build: str
) -> None:
    if value is None:
        monkeypatch.delenv("CRAWLSIM_BUILD", raising=False)
    else:
        monkeypatch.setenv("CRAWLSIM_BUILD", value)
    assert backend.requested_build() == build
    assert any(r.startswith("Cython") for r in backend.get_requires_for_build_wheel()) == (build == "compiled")


def test_an_unknown_build_stops_the_install_in_one_line(backend: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAWLSIM_BUILD", "fast")
    with pytest.raises(SystemExit) as stopped:
        backend.requested_build()
    assert stopped.value.code == "crawlsim: error: CRAWLSIM_BUILD: expected one of pure, compiled, got 'fast'"

