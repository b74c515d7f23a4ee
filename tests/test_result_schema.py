"""One result shape: every command that reports a crawl writes the JSON
that docs/reference/result.schema.json describes, and a field means the same
in each (a real crawl's bounds are measured, not left out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from crawlsim.cli import main
from crawlsim.commands.crawl import main as crawl_main
from tests.test_real_crawl import served_see_it

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "docs" / "reference" / "result.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def valid(data: dict[str, Any]) -> dict[str, Any]:
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert errors == [], errors
    return data


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", ["see-it", "polite", "interview"])
def test_run_json_follows_the_schema(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    valid(cli_json(capsys, "run", name, "--json"))


def test_a_cluster_run_says_why_it_has_no_single_process_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    data = valid(cli_json(capsys, "run", "polite", "--nodes", "2", "--json"))
    assert set(data["bounds"].values()) == {None} and "per node" in data["bounds_note"]


def test_compare_json_is_two_results(capsys: pytest.CaptureFixture[str]) -> None:
    data = cli_json(capsys, "compare", "polite", "--b", "workers=8", "--json")
    for side in ("a", "b"):
        valid(data[side])


def test_sweep_json_rows_are_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = cli_json(capsys, "sweep", "polite", "--workers", "1,2", "--jobs", "1", "-o", str(tmp_path), "--json")
    run = cli_json(capsys, "run", "polite", "--workers", "2", "--json")
    for row in rows:
        valid(row)
    # a field means the same in each: the sweep's 2-worker row is run's 2-worker result
    row = next(r for r in rows if r["workers"] == 2)
    for key in ("finish_time", "bounds", "busiest_host", "binding_bound", "efficiency", "pages_reachable", "top_hosts"):
        assert row[key] == run[key], key
    written = json.loads((tmp_path / "sweep.json").read_text())
    assert written["rows"] == rows


def test_sweep_nodes_rows_are_cluster_run_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # a cluster sweep's rows kept their own shape: `nodes` was the grid's node
    # count where run --nodes --json has its per-node list, `advice` the cluster's
    rows = cli_json(capsys, "sweep", "polite", "--nodes", "1,2", "--jobs", "1", "--no-plot", "-o", str(tmp_path),
                    "--json")
    run = cli_json(capsys, "run", "polite", "--nodes", "2", "--json")
    for row in rows:
        valid(row)
    row = next(r for r in rows if r["cluster"]["nodes"] == 2)
    assert {k: v for k, v in row.items() if k not in ("index", "workers")} == run


def test_a_real_crawl_has_the_same_keys_and_measured_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # crawl --json lacked bounds, binding_bound, busiest_host, explanation,
    # advice, top_hosts and efficiency although it said it printed run's keys
    with served_see_it(tmp_path, "0.02") as (first, hosts_file):
        argv = [first, "--hosts-file", str(hosts_file), "--json", "--workers", "4", "--per-host", "1"]
        code = crawl_main([*argv, "--gap", "0", "--scope", "any", "--no-robots", "--max-time", "20"])
    assert code == 0
    data = valid(json.loads(capsys.readouterr().out))
    assert set(SCHEMA["required"]) <= set(data)
    assert data["clock"] == "wall" and data["stopped"] is None
    bounds = data["bounds"]
    assert None not in bounds.values()
    assert max(bounds.values()) <= data["finish_time"]  # proven for a real crawl too
    assert data["binding_bound"] in bounds and 0 < data["efficiency"] <= 1
    assert data["top_hosts"][0]["host"] == data["busiest_host"]["host"]
    assert data["advice"] is None and "crawlsim model" in data["advice_note"]


def test_the_reference_page_names_every_field() -> None:
    page = (SCHEMA_PATH.parent / "result.md").read_text()
    for key, spec in SCHEMA["properties"].items():
        assert f"| `{key}` |" in page, key
        assert spec.get("description"), key
    assert "pages reachable" in SCHEMA["properties"]["pages_reachable"]["description"].lower() or (
        "reachable from the seeds" in SCHEMA["properties"]["pages_reachable"]["description"]
    )
