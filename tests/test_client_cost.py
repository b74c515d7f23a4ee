"""``client_cost``: the crawler's own work per response as one serial resource
(what ``crawlsim model`` writes from a real crawl's busy event loop).  Where
pages come back at once, that work -- not the server -- holds the crawl, at
any number of workers; without the key the simulation is what it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.scenario import ScenarioError
from crawlsim.scenario.files import scenario_from_dict
from crawlsim.sim.driver import simulate


def web(links: list[list[int]], latency: list[float], cost: float | None, workers: int) -> dict[str, object]:
    urls = [f"http://a.test/p{i}" for i in range(len(links))]
    pages = {u: {"links": [urls[j % len(urls)] for j in out], "latency": lat}
             for u, out, lat in zip(urls, links, latency, strict=True)}
    data: dict[str, object] = {
        "start": urls[0],
        "crawl": {"workers": workers, "per_host": workers, "gap": 0.0, "robots": False},
        "hosts": {"*": {"latency": 0.001}},
        "pages": pages,
    }
    if cost is not None:
        data["client_cost"] = cost
    return data


graphs = st.integers(2, 25).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(0, n - 1), max_size=4), min_size=n, max_size=n),
        st.lists(st.floats(0.0, 0.05), min_size=n, max_size=n),
    )
)


@settings(max_examples=40, deadline=None)
@given(graph=graphs, cost=st.floats(0.001, 0.02), workers=st.integers(1, 16))
def test_the_crawlers_work_is_serial_and_only_delays(graph: tuple[list[list[int]], list[float]],
                                                    cost: float, workers: int) -> None:
    links, latency = graph
    plain = simulate(scenario_from_dict(web(links, latency, None, workers)))
    held = simulate(scenario_from_dict(web(links, latency, cost, workers)))
    assert held.stats.pages_fetched == plain.stats.pages_fetched  # the same pages, whatever it costs
    # one response at a time: however many workers, the work alone takes fetches * cost
    assert held.finish_time >= held.stats.fetches * cost * (1 - 1e-9)
    assert held.finish_time >= plain.finish_time - 1e-9  # the work only ever delays
    assert held.finish_time <= plain.finish_time + held.stats.fetches * cost + 1e-9  # and at most by all of it


def test_more_workers_do_not_beat_the_crawlers_own_work() -> None:
    """20 pages served at once, 10 ms of the crawler's work each: 16 workers take as long as 1."""
    links = [[i + 1] for i in range(19)] + [[]]
    fan = [[*range(1, 20)]] + [[] for _ in range(19)]
    for graph in (links, fan):
        one = simulate(scenario_from_dict(web(graph, [0.0] * 20, 0.01, 1)))
        many = simulate(scenario_from_dict(web(graph, [0.0] * 20, 0.01, 16)))
        assert one.finish_time == pytest.approx(0.2) and many.finish_time == pytest.approx(0.2)


def test_a_negative_client_cost_names_the_key() -> None:
    with pytest.raises(ScenarioError, match="client_cost.*expected a number >= 0"):
        scenario_from_dict(web([[]], [0.0], -1.0, 1))


def test_the_model_of_a_real_crawl_carries_its_own_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real crawl's trace says how busy its event loop was; the model makes it
    ``client_cost`` (per fetch), says so in ``assumes``, and keeps each page's
    time less that work."""
    import tomllib

    from crawlsim.cli import main
    from crawlsim.real.server import ServerProcess
    from tests.test_real_crawl import make_scenario

    trace, site = tmp_path / "rec.jsonl", tmp_path / "site.toml"
    scenario = make_scenario({"http://a.test/": ["/p1", "/p2"], "http://a.test/p1": [], "http://a.test/p2": []},
                             latency=0.01)
    with ServerProcess(scenario) as server:
        resolve = [f"--resolve={h}={a}:{p}" for h, (a, p) in server.resolve().items()]
        assert main(["crawl", "http://a.test/", *resolve, "--gap", "0", "-o", str(trace), "--json"]) == 0
    done = json.loads(trace.read_text().splitlines()[-1])
    assert done["options"]["client_busy"] > 0 and done["options"]["client_cpu"] > 0
    assert main(["model", str(trace), "-o", str(site)]) == 0
    data = tomllib.loads(site.read_text())
    started = [json.loads(line) for line in trace.read_text().splitlines() if '"FetchStarted"' in line]
    before = next(i for i, e in enumerate(started) if e["kind"] == "page")  # robots.txt: the start-up's
    busy = done["options"]["client_busy"] - done["options"]["client_busy_start"]
    assert data["client_cost"] == pytest.approx(busy / (len(started) - before), abs=1e-6)
    assert "per response, one at a time" in data["assumes"]
    assert "client_busy" not in data["crawl"] and "client_cpu" not in data["crawl"]
    capsys.readouterr()
    assert main(["run", str(site), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pages_fetched"] == 3


def test_an_absurd_busy_time_in_a_trace_is_refused_by_model(tmp_path: Path) -> None:
    """A Done line whose crawler was busy for 1e300 s is a hostile trace: one
    line naming the file and the key, exit 2, and no model that `run` refuses."""
    import json
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="b.html">b</a>', encoding="utf-8")
    (site / "b.html").write_text("b", encoding="utf-8")
    trace = tmp_path / "rec.jsonl"
    crawlsim = [sys.executable, "-m", "crawlsim"]
    subprocess.run([*crawlsim, "crawl", str(site), "-o", str(trace)], capture_output=True, check=True, timeout=120)
    lines = trace.read_text(encoding="utf-8").splitlines()
    done = json.loads(lines[-1])
    done["options"]["client_busy"] = 1e300
    trace.write_text("\n".join([*lines[:-1], json.dumps(done)]) + "\n", encoding="utf-8")
    model = tmp_path / "site.toml"
    result = subprocess.run([*crawlsim, "model", str(trace), "-o", str(model)], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith(f"crawlsim: error: {trace}: the Done line's options.client_busy")
    assert len(result.stderr.splitlines()) == 1 and not model.exists()
