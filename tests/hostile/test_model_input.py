"""``crawlsim model`` on hostile traces: whatever the trace reader accepts
becomes a scenario ``run`` accepts, or one line naming the trace and what in
it a scenario cannot hold -- never a file ``run`` refuses, never an internal
error -- and its work grows linearly with the trace.

The probes are small traces written here (an emoji URL, options that inject
a table, a fetch of two days, a fetch that ends before it starts, a robots
link no host can have); the property test writes random small traces with
hostile strings, options and times.  The linearity tests count comparisons
and calls at n and 4n, never seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from crawlsim.cli import main as cli
from crawlsim.scenario import load_scenario
from crawlsim.trace.events import (
    Discovered,
    Done,
    Event,
    FetchFailed,
    FetchFinished,
    FetchStarted,
    HostDeferred,
    RetryScheduled,
    RobotsLoaded,
    Skipped,
)
from crawlsim.trace.jsonl import TraceError, read_trace, trace_line, trace_line_with_options


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """A command's exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(argv)
    return code, out.getvalue(), err.getvalue()


def write_trace(path: Path, events: list[Event], options: dict[str, Any] | None = None) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for e in events:
            out.write(trace_line_with_options(e, options) if isinstance(e, Done) else trace_line(e))
    return path


def fetch(fetch_id: int, url: str, host: str, start: float, end: float, *, kind: str = "page",
          links: tuple[Event, ...] = (), status: int = 200) -> list[Event]:
    """One fetch: its start, the links logged for it, its end."""
    return [
        FetchStarted(start, fetch_id, url, host, kind, 0, 1, 0, url, False),  # type: ignore[arg-type]
        *links,
        FetchFinished(end, fetch_id, url, host, kind, status, 0, 0),  # type: ignore[arg-type]
    ]


def one_page(url: str = "http://a.com/", *, start: float = 0.0, end: float = 0.5,
             links: tuple[Event, ...] = ()) -> list[Event]:
    host = url.split("/")[2]
    return [
        Discovered(0.0, url, host, 0, None),
        *fetch(1, url, host, start, end, links=links),
        Done(max(start, end), 1, 1),
    ]


def model(trace: Path, out: Path) -> tuple[int, str]:
    """``crawlsim model`` on ``trace``: its status and its one line of error, if any."""
    code, _, err = run_cli(["model", str(trace), "-o", str(out)])
    return code, err


def runs(site: Path) -> bool:
    """``crawlsim run`` reads the model and runs it."""
    code, _, err = run_cli(["run", str(site), "--json"])
    assert code == 0, err
    return True


def refused(code: int, err: str, trace: Path, out: Path, *expected: str) -> bool:
    """The model was refused in one line naming the trace and ``expected``, and nothing was written."""
    lines = err.strip().splitlines()
    assert code == 2, err
    named = " ".join(f"crawlsim: error: {trace}:".split())  # the one line's spaces, as printed
    assert len(lines) == 1 and lines[0].startswith(named), err
    assert all(text in lines[0] for text in expected), err
    assert not out.exists()
    return True


# --------------------------------------------------------------------------- the probes


@pytest.mark.parametrize("name", ["\U0001F600.jsonl", "rec\n[crawl]\nworkers = 0\n.jsonl", 'a"b\\c.jsonl'])
def test_a_trace_named_with_emoji_or_a_newline_gives_a_model_run_reads(name: str, tmp_path: Path) -> None:
    trace = write_trace(tmp_path / name, one_page())
    site = tmp_path / "site.toml"
    assert model(trace, site)[0] == 0
    assert runs(site)
    assert load_scenario(str(site)).title == "Model of " + name.replace("\n", "\\n")


def test_a_url_outside_the_basic_plane_is_written_as_itself(tmp_path: Path) -> None:
    url = "http://a.com/\U0001F600?q=\U0001F680"
    link = Skipped(0.1, "http://a.com/\U0001F4A9", url, "seen", "/\U0001F4A9")
    trace = write_trace(tmp_path / "t.jsonl", one_page(url, links=(link,)))
    site = tmp_path / "site.toml"
    assert model(trace, site)[0] == 0
    assert runs(site)
    scenario = load_scenario(str(site))
    assert scenario.seeds == [url]
    assert "\\ud83d" not in site.read_text(encoding="utf-8")  # no surrogate pair, which TOML refuses


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"wrkers": 4}, "options.wrkers: unknown crawler option; did you mean 'workers'?"),
        ({"workers": 0}, "options.workers is 0; expected a whole number 1-100,000"),
        ({"a b": 1}, 'options."a b": unknown crawler option'),
        ({'x = 1\n[hosts."evil.com"]\nlatency': 1}, 'options."x = 1\\n[hosts.'),
        ({"retry_statuses": [None]}, "options.retry_statuses[0]: expected an HTTP status code"),
        ({"gap": 1e9}, "options.gap: "),
        ({"allow": ["\ud800"]}, 'crawl.allow[0]: "\\ud800" is not valid Unicode text'),
    ],
    ids=["unknown", "workers-0", "space", "newline-injects-a-table", "null-status", "gap-huge", "lone-surrogate"],
)
def test_options_a_scenario_cannot_hold_are_named_in_one_line(
    options: dict[str, Any], expected: str, tmp_path: Path
) -> None:
    trace = write_trace(tmp_path / "t.jsonl", one_page(), options)
    out = tmp_path / "site.toml"
    code, err = model(trace, out)
    assert refused(code, err, trace, out, expected)


def test_options_a_scenario_can_hold_are_its_crawl_table(tmp_path: Path) -> None:
    options = {"workers": 3, "gap": 0.25, "max_pages": None, "retry_statuses": [429, 503], "user_agent": "x\ny"}
    trace = write_trace(tmp_path / "t.jsonl", one_page(), options)
    site = tmp_path / "site.toml"
    assert model(trace, site)[0] == 0
    scenario = load_scenario(str(site))
    assert (scenario.options.workers, scenario.options.gap, scenario.options.max_pages) == (3, 0.25, None)


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [(0.0, 200_000.0, "takes 200,000 s in the model"), (5.0, 1.0, "ends at 1 s, before it started at 5 s")],
    ids=["two-days", "backwards"],
)
def test_a_fetch_time_a_scenario_cannot_hold_is_named(start: float, end: float, expected: str, tmp_path: Path) -> None:
    events = one_page(start=start, end=end)
    events.insert(1, HostDeferred(start, "a.com", start, "gap"))  # nothing before the start: no lag to hide it
    trace = write_trace(tmp_path / "t.jsonl", events)
    out = tmp_path / "site.toml"
    code, err = model(trace, out)
    assert refused(code, err, trace, out, expected)


@pytest.mark.parametrize("status", [0, 999])
def test_a_status_a_scenario_cannot_hold_is_named(status: int, tmp_path: Path) -> None:
    events = one_page()
    events[2] = FetchFinished(0.5, 1, "http://a.com/", "a.com", "page", status, 0, 0)
    trace = write_trace(tmp_path / "t.jsonl", events)
    out = tmp_path / "site.toml"
    code, err = model(trace, out)
    assert refused(code, err, trace, out, f"was answered {status}; a scenario's pages answer an HTTP status 100-599")


@pytest.mark.parametrize("bad", ["http://a.com:99999/x", "http://[::1/x"])
def test_a_robots_link_no_host_can_have_is_left_out_of_robots_txt(bad: str, tmp_path: Path) -> None:
    events = one_page(links=(Skipped(0.1, bad, "http://a.com/", "robots", bad),
                             Skipped(0.1, "http://a.com/private x", "http://a.com/", "robots", "/private x")))
    events.insert(1, RobotsLoaded(0.0, "a.com", 200, None, False))
    trace = write_trace(tmp_path / "t.jsonl", events)
    site = tmp_path / "site.toml"
    assert model(trace, site)[0] == 0
    assert runs(site)
    robots = load_scenario(str(site)).data["hosts"]["a.com"]["robots"]
    assert robots == "User-agent: *\nDisallow: /private%20x\n"  # one line per rule, whatever the path held


def test_the_output_cannot_be_the_trace_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = write_trace(tmp_path / "rec.jsonl", one_page())
    before = trace.read_bytes()
    monkeypatch.chdir(tmp_path)
    for spelling in ("rec.jsonl", "./rec.jsonl", str(trace)):
        code, _, err = run_cli(["model", "rec.jsonl", "-o", spelling])
        assert code == 2 and "is the trace itself" in err and len(err.strip().splitlines()) == 1
    assert trace.read_bytes() == before


# --------------------------------------------------------------------------- the property

HOSTILE = st.text(
    st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list('"\\\n\r\t\x00\x7f[]=#. ') + ["\U0001F600"]),
    max_size=8,
)
"""Text of every kind a URL or a link may carry in a trace (the reader refuses lone surrogates in events)."""
PATH = HOSTILE.map(lambda s: s.replace("?", "").replace("#", "").replace("%", ""))
"""A hostile path that stays in the path (no query or fragment that would make two pages one)."""
VALID_OPTIONS = st.fixed_dictionaries({}, optional={
    "workers": st.integers(1, 64), "per_host": st.none() | st.integers(1, 8), "gap": st.floats(0, 10),
    "max_pages": st.none() | st.integers(1, 100), "scope": st.sampled_from(["host", "domain", "any"]),
    "retry_statuses": st.lists(st.sampled_from([429, 500, 503]), max_size=3), "user_agent": HOSTILE,
    "allow": st.lists(st.sampled_from(["a", "^http", "x+"]), max_size=2), "robots": st.booleans(),
})
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5,
)
ANY_OPTIONS = st.dictionaries(st.sampled_from(["workers", "gap", "retry_statuses", "a b", "x\ny", "max_pages"]) | HOSTILE,
                              ANY_JSON, max_size=3)


@st.composite
def traces(draw: st.DrawFn) -> tuple[list[Event], dict[str, Any], bool]:
    """A small trace, its Done line's options, and whether it is clean: options
    the core accepts, times in order and within a scenario's limits, one URL per
    page -- then only its strings are hostile, and a model must be written."""
    clean = draw(st.booleans())
    hosts = ["a.com", "b.com:8080", "xn--bcher-kva.de"]
    times = st.floats(0, 5.0) if clean else st.floats(0, 1e6) | st.just(-1.0)
    events: list[Event] = []
    urls = [f"http://{draw(st.sampled_from(hosts))}/{draw(PATH)}?u{i}" for i in range(draw(st.integers(1, 5)))]
    if not clean and draw(st.booleans()):
        urls[-1] = draw(HOSTILE)
    events.append(Discovered(0.0, draw(st.sampled_from(urls) | HOSTILE), "a.com", 0, None))
    t = 0.0
    for i, url in enumerate(urls):
        host = url.split("/")[2] if url.startswith("http://") else draw(HOSTILE)
        if draw(st.booleans()):
            events.append(RobotsLoaded(t, host, 200, draw(st.none() | st.floats(0, 5)), draw(st.booleans())))
        if draw(st.booleans()):
            events.append(HostDeferred(t, host, t + draw(times), draw(st.sampled_from(["gap", "retry-after"]))))
        links = tuple(
            Skipped(t, f"http://{draw(st.sampled_from(hosts))}/{draw(HOSTILE)}", url,
                    draw(st.sampled_from(["seen", "robots", "scope", "malformed"])), draw(HOSTILE))
            for _ in range(draw(st.integers(0, 3)))
        )
        duration = draw(times)
        end = t + duration if clean or draw(st.booleans()) else max(0.0, t - duration)
        status = draw(st.sampled_from([200, 404, 429, 503]) if clean else st.integers(0, 999))
        events += fetch(i, url, host, t, end, links=links, status=status)
        if status in (429, 503) and draw(st.booleans()):
            events.append(RetryScheduled(end, url, host, 2, end + draw(times), f"HTTP {status}"))
            events.append(FetchStarted(end, 100 + i, url, host, "page", 0, 2, 0, url, False))
            events.append(FetchFailed(end + draw(times), 100 + i, url, host, "page", "timeout", True))
        t = max(t, end)
    events.append(Done(t, len(urls), len(urls)))
    options = draw(VALID_OPTIONS if clean else VALID_OPTIONS | ANY_OPTIONS)
    return events, options, clean


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(traces(), st.sampled_from(["t.jsonl", "\U0001F600 t.jsonl", "t\n.jsonl"]))
def test_any_trace_the_reader_accepts_gives_a_model_run_accepts(
    drawn: tuple[list[Event], dict[str, Any], bool], name: str
) -> None:
    events, options, clean = drawn
    with folder() as here:
        trace = write_trace(here / name, events, options)
        try:
            read_trace(trace)
        except TraceError:
            assert not clean
            event("refused by the reader")
            return
        site = here / "site.toml"
        code, err = model(trace, site)
        event(f"clean={clean} model exit={code}")
        if code == 0:
            assert runs(site)
        else:
            assert not clean, err
            assert refused(code, err, trace, site)


# --------------------------------------------------------------------------- linear work


class Counted(float):
    """A time that counts the comparisons made with it."""

    count = 0

    def __lt__(self, other: object) -> bool:
        Counted.count += 1
        return float(self) < float(other)  # type: ignore[arg-type]

    def __le__(self, other: object) -> bool:
        Counted.count += 1
        return float(self) <= float(other)  # type: ignore[arg-type]

    def __gt__(self, other: object) -> bool:
        Counted.count += 1
        return float(self) > float(other)  # type: ignore[arg-type]

    def __ge__(self, other: object) -> bool:
        Counted.count += 1
        return float(self) >= float(other)  # type: ignore[arg-type]


def deferral_comparisons(n: int) -> int:
    """Comparisons of wake-up times while modelling n fetches, each after a
    deferral of its host that has not passed (a polite crawl's pending wake-ups)."""
    from crawlsim.scenario.from_trace import Recording

    events: list[Event] = []
    for i in range(n):
        url, t = f"http://h{i}.com/", float(i)
        events += [HostDeferred(t, f"h{i}.com", Counted(t + 1e6), "gap"), *fetch(i, url, f"h{i}.com", t, t + 0.5)]
    Counted.count = 0
    Recording.of(events)
    return Counted.count


def test_modelling_a_trace_of_deferrals_is_linear() -> None:
    small, large = deferral_comparisons(500), deferral_comparisons(2000)
    assert large < 6 * small  # n log n at most; every wake-up scanned per fetch was 16x


def host_key_calls(n: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Host keys computed for the sizes of every host of a web of n one-page hosts."""
    from crawlsim.sim import explicit
    from crawlsim.sim.coverage import declared_size

    calls = 0
    real = explicit.host_key

    def counted(url: str) -> str:
        nonlocal calls
        calls += 1
        return real(url)

    web = explicit.ExplicitWeb({f"http://h{i}.com/": [] for i in range(n)})
    monkeypatch.setattr(explicit, "host_key", counted)
    assert declared_size(web, 10 * n) == n
    return calls


def test_counting_every_hosts_pages_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = host_key_calls(500, monkeypatch), host_key_calls(2000, monkeypatch)
    assert large <= 4 * small + 10  # each page's host once; a scan of every page per host was 16x
