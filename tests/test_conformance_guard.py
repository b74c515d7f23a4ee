"""Without the conformance data the figures' tests skip and say where they
looked; with CRAWLSIM_REQUIRE_CONFORMANCE=1 (as .ci/run sets) they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import conformance


def test_missing_data_skips_with_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conformance, "CONFORMANCE", tmp_path)
    monkeypatch.delenv(conformance.FOLDER, raising=False)
    monkeypatch.delenv(conformance.REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"WPT URL cases not found at {tmp_path}"):
        conformance.conformance_file("urltestdata.json", "WPT URL cases")


def test_missing_data_fails_when_required(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conformance, "CONFORMANCE", tmp_path)
    monkeypatch.delenv(conformance.FOLDER, raising=False)
    monkeypatch.setenv(conformance.REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="CRAWLSIM_REQUIRE_CONFORMANCE=1 says it must be there"):
        conformance.conformance_file("urltestdata.json", "WPT URL cases")


def test_present_data_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "x.json").write_text("[]")
    monkeypatch.setattr(conformance, "CONFORMANCE", tmp_path)
    monkeypatch.delenv(conformance.FOLDER, raising=False)
    assert conformance.conformance_file("x.json", "x") == tmp_path / "x.json"


def test_the_folder_can_be_named_by_its_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "x.json").write_text("[]")
    monkeypatch.setattr(conformance, "CONFORMANCE", tmp_path / "elsewhere")
    monkeypatch.setenv(conformance.FOLDER, str(tmp_path))
    assert conformance.conformance_file("x.json", "x") == tmp_path / "x.json"
