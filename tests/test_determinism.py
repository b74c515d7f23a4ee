"""The same scenario, seed and options give the identical trace and output:
in one process, across processes, and whatever Python's string-hash seed;
another seed may give another crawl."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crawlsim.cli import main
from crawlsim.views.summary import summary_dict
from crawlsim.trace.events import event_to_dict
from crawlsim.scenario import Scenario, load_scenario
from crawlsim.scenario.files import reseeded, scenario_from_dict
from crawlsim.sim.bounds import compute_bounds
from crawlsim.sim.driver import simulate

JITTERY = {
    # random latencies, a randomised gap, retries and failures: everything
    # that draws from a random number generator
    "start": "http://h0.example/",
    "seed": 11,
    "crawl": {"workers": 6, "per_host": 2, "gap": 0.2, "randomize_gap": True, "scope": "any", "max_retries": 2},
    "hosts": {
        "*": {"latency": {"model": "lognormal", "median": 0.4, "sigma": 0.6}, "fail_rate": 0.1},
        "h1.example": {
            "latency": {"model": "uniform", "low": 0.1, "high": 2.0},
            "throttle": {"status": 429, "retry_after": 1.5, "rate": 0.2},
        },
    },
    "web": {"kind": "power_law", "pages": 400, "hosts": 8},
}


def jittery(seed: int | None = None) -> Scenario:
    return scenario_from_dict({**JITTERY, **({"seed": seed} if seed is not None else {})}, path="<jittery>")


def fingerprint(s: Scenario) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    run = simulate(s)
    return [event_to_dict(e) for e in run.trace], summary_dict(run, compute_bounds(s, run), scenario=s)


@pytest.mark.parametrize("name", ["see-it", "polite", "trap", "variants"])
def test_shipped_scenarios_repeat_exactly(name: str) -> None:
    s = load_scenario(name)
    assert fingerprint(s) == fingerprint(s)


def test_random_draws_repeat_exactly() -> None:
    trace, summary = fingerprint(jittery())
    assert summary["retries"] > 0  # the failures and throttling did draw
    assert (trace, summary) == fingerprint(jittery())
    # a fresh scenario object built from the same data is the same crawl too
    assert fingerprint(scenario_from_dict(dict(JITTERY), path="<again>"))[0] == trace


def test_another_seed_gives_another_crawl() -> None:
    a = fingerprint(jittery(1))
    b = fingerprint(jittery(2))
    assert a[0] != b[0]
    assert a[1]["finish_time"] != b[1]["finish_time"]


def test_reseeding_a_shipped_scenario_changes_only_the_random_parts() -> None:
    s = load_scenario("busiest-host")  # fixed latencies, generated web
    assert fingerprint(reseeded(s, 3)) == fingerprint(reseeded(s, 3))
    assert fingerprint(reseeded(s, 3))[0] != fingerprint(reseeded(s, 4))[0]


def _cli(argv: list[str], hashseed: str) -> str:
    code = "import sys; from crawlsim.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    result = subprocess.run(
        [sys.executable, "-c", code, *argv],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_cli_json_is_identical_across_processes_and_hash_seeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "jittery.toml"
    path.write_text(_toml(JITTERY))
    argv = ["run", str(path), "--json", "--workers", "5"]
    first = _cli(argv, "1")
    assert first == _cli(argv, "12345")
    assert main(argv) == 0
    assert capsys.readouterr().out == first  # and the same as in this process


def test_trace_files_are_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a", "b"):
        for suffix in (".jsonl", ".json"):
            assert main(["trace", "trap", "-o", str(tmp_path / f"{name}{suffix}"), "--gap", "0.3"]) == 0
    capsys.readouterr()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def _toml(data: dict[str, object]) -> str:
    """Just enough TOML for JITTERY (tables of scalars and inline tables)."""

    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return repr(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for table in ("crawl", "web"):
        lines.append(f"[{table}]")
        lines += [f"{k} = {value(v)}" for k, v in data[table].items()]  # type: ignore[attr-defined]
    for host, spec in data["hosts"].items():  # type: ignore[attr-defined]
        lines.append(f'[hosts."{host}"]')
        lines += [f"{k} = {value(v)}" for k, v in spec.items()]
    return "\n".join(lines) + "\n"
