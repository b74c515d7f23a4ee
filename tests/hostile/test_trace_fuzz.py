"""The trace reader fuzzed: real traces (a crawl's, a polite crawl's with
robots.txt, deferrals and retries, a cluster's with a node failure) mutated the ways a file gets broken or forged -- a field of the
wrong type, NaN, huge or negative numbers, deep nesting, a line cut short,
keys unknown, missing or given twice, lines out of order, bad UTF-8 -- are
either read or refused with the reader's one error (:class:`TraceError`, a
``UsageError``); and every trace it reads replays, and is drawn by the app,
without an error.

Inputs stay small (a few dozen lines) and the app runs a short Pilot
session per example, so no example can take long.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawlsim.cluster.config import ClusterConfig, Failure
from crawlsim.cluster.sim import simulate_cluster
from crawlsim.trace.events import TraceError, event_to_dict
from crawlsim.errors import UsageError
from crawlsim.views.replay import describe_event
from crawlsim.trace.node_tags import WORKERS_KEY
from crawlsim.scenario import load_scenario
from crawlsim.views.session import trace_result
from crawlsim.trace.jsonl import RecordedTrace, read_trace
from crawlsim.sim.driver import simulate
from crawlsim.tui.app import CrawlApp

SCENARIO = load_scenario("see-it")


def _crawl_lines(name: str) -> list[str]:
    return [json.dumps(event_to_dict(e)) for e in simulate(load_scenario(name)).trace]


def _cluster_lines() -> list[str]:
    config = ClusterConfig(nodes=3, fail=(Failure(node=1, at=1.0, recover=2.0),))
    trace = simulate_cluster(SCENARIO, config, trace=True).cluster_trace()
    records = list(trace.dicts())
    records[-1][WORKERS_KEY] = trace.workers
    return [json.dumps(r) for r in records]


POLITE = _crawl_lines("polite")
BASES = {
    "crawl": _crawl_lines("see-it"),
    "cluster": _cluster_lines(),
    # robots.txt, deferrals, retries and failures, in a window of a few dozen lines
    "polite": POLITE[:40],
    "polite-end": POLITE[-40:],
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
"""Any JSON value, of any type (NaN and infinities among the floats)."""
plausible = (
    st.floats(0, 1e9) | st.integers(-3, 100_000) | st.sampled_from(["page", "robots", "a.com", "http://a.com/", "seen", ""])
)
"""Values of the right kinds in the allowed ranges: most forged traces pass the reader with these."""


def _set_field(line: str, key: str, value: Any) -> str:
    data = json.loads(line)
    if not isinstance(data, dict):
        return line
    data[key] = value
    return json.dumps(data)  # NaN and infinities written as JSON's non-numbers


@st.composite
def mutation(draw: st.DrawFn, lines: list[str]) -> bytes:
    """One real trace with one to three things wrong in it, as file bytes."""
    out: list[bytes] = [line.encode() for line in lines]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(out) - 1))
        line = out[i].decode("utf-8", "replace")
        parsed = json.loads(line) if _is_json(line) else None
        keys = list(parsed) if isinstance(parsed, dict) else ["t"]
        key = draw(st.sampled_from([*keys, "node", "workers", "extra"]))
        kind = draw(st.integers(0, 10))
        if kind == 0:
            out[i] = _set_field(line, key, draw(json_values)).encode() if _is_json(line) else out[i]
        elif kind in (1, 2):
            out[i] = _set_field(line, key, draw(plausible)).encode() if _is_json(line) else out[i]
        elif kind == 3:
            out[i] = _set_field(line, key, draw(st.sampled_from([float("nan"), float("inf"), -1.0, 1e308, 10**30]))).encode() if _is_json(line) else out[i]
        elif kind == 4:
            depth = draw(st.sampled_from([10, 1000, 100_000]))
            out[i] = ("[" * depth + "]" * depth).encode()
        elif kind == 5:
            out[i] = out[i][: draw(st.integers(0, max(0, len(out[i]) - 1)))]
        elif kind == 6 and _is_json(line) and isinstance(data := json.loads(line), dict):
            data.pop(key, None)
            out[i] = json.dumps(data).encode()
        elif kind == 7:
            out[i] = out[i].replace(b"{", f'{{"{key}": 1, '.encode(), 1)  # the key twice, or a new one
        elif kind == 8:
            j = draw(st.integers(0, len(out) - 1))
            out[i], out[j] = out[j], out[i]  # times out of order
        elif kind == 9:
            at = draw(st.integers(0, len(out[i])))
            out[i] = out[i][:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\n"])) + out[i][at:]
        else:
            del out[i : i + draw(st.integers(1, 5))]
            if not out:
                out = [b""]
    return b"\n".join(out) + b"\n"


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):  # a line a mutation before nested deep
        return False
    return True


def read_bytes(data: bytes) -> RecordedTrace | None:
    """The reader on ``data``: what it accepts, or None when it refuses it
    with its one error; anything else it raises fails the test."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.jsonl"
        path.write_bytes(data)
        try:
            return read_trace(path)
        except TraceError as err:
            assert isinstance(err, UsageError)
            message = str(err)
            assert message.startswith(f"{path}: ") and "\n" not in message
            return None


def replay_everywhere(recorded: RecordedTrace) -> None:
    """Everything a view asks of a replay, at every event's time and past the end."""
    replay = trace_result(recorded).replay
    for t in sorted({*replay.times[::7], replay.end, replay.end + 1.0, 0.0}):
        replay.seek(t)
        replay.counters()
        replay.recent(10, hide_seen=True)
        replay.value_at(t)
        for slot in range(min(len(replay.lanes), 8)):
            replay.current_span(slot)
        for host in replay.host_order():
            host.waiting(t)
    replay.seek(0.0)
    for e in replay.events:
        describe_event(e)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(sorted(BASES)).flatmap(lambda name: mutation(BASES[name])))
def test_the_reader_raises_only_its_own_error_and_what_it_reads_replays(data: bytes) -> None:
    recorded = read_bytes(data)
    if recorded is not None:
        replay_everywhere(recorded)


async def _draw(recorded: RecordedTrace) -> None:
    app = CrawlApp(trace=recorded, trace_file="fuzzed.jsonl", paused=True, animate=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("end", "home", "full_stop", "right", "w")
        await pilot.pause()


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(sorted(BASES)).flatmap(lambda name: mutation(BASES[name])))
def test_the_app_draws_every_trace_the_reader_accepts(data: bytes) -> None:
    """A short Pilot session per accepted example (refused ones are the test above's)."""
    recorded = read_bytes(data)
    if recorded is not None:
        asyncio.run(asyncio.wait_for(_draw(recorded), 120))
