"""The compact trace reads back exactly the events the scheduler emitted.

``simulate`` keeps its events in a :class:`crawlsim.trace.store.Trace`
(columns, objects built when read) and its frontier series in a
:class:`~crawlsim.trace.store.Series`.  Every reader relies on them being
the same events, in the same order, with the same field types, as the list
the core emitted: checked here on random crawls (every event kind, every
normalization mode, failures, retries, robots.txt) and on hostile events
that the columns cannot hold (they are kept as objects).
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import crawlsim.sim.driver as driver
from crawlsim.trace.store import Series, Trace
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
    event_to_dict,
)
from crawlsim.scenario.files import scenario_from_dict
from tests.test_bounds_properties import random_scenarios


class _PointList(list[tuple[float, int, int]]):
    """The frontier series as a plain list of tuples: the reference a
    :class:`Series` must equal (``note`` as the driver wrote it on a list)."""

    def note(self, t: float, frontier: int, flight: int) -> None:
        point = (t, frontier, flight)
        if not self or self[-1][1:] != point[1:]:
            if self and self[-1][0] == t:
                self[-1] = point
            else:
                self.append(point)


def _same(read: list[Event], emitted: list[Event]) -> None:
    """Equal, and equal as the trace file writes them (types included: True is not 1)."""
    assert read == emitted
    assert [type(e) for e in read] == [type(e) for e in emitted]
    assert repr(read) == repr(emitted)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios(), st.data())
def test_a_simulated_trace_reads_back_as_emitted(data: dict[str, Any], picks: st.DataObject) -> None:
    scenario = scenario_from_dict(data, path="<random>")
    run = driver.simulate(scenario)
    with pytest.MonkeyPatch.context() as patch:  # the same crawl, kept as plain lists
        patch.setattr(driver, "Trace", list)
        patch.setattr(driver, "Series", _PointList)
        plain = driver.simulate(scenario)
    assert isinstance(run.trace, Trace) and isinstance(run.series, Series)
    emitted = plain.trace
    _same(list(run.trace), emitted)
    assert run.trace == emitted and len(run.trace) == len(emitted)
    assert [event_to_dict(e) for e in run.trace] == [event_to_dict(e) for e in emitted]
    assert run.series == plain.series and list(run.series) == plain.series
    n = len(emitted)
    for i in picks.draw(st.lists(st.integers(-n, n - 1), max_size=8)) if n else []:
        assert run.trace[i] == emitted[i]
    start, stop = sorted(picks.draw(st.lists(st.integers(-n - 2, n + 2), min_size=2, max_size=2)))
    assert run.trace[start:stop] == emitted[start:stop]
    assert run.trace[::3] == emitted[::3]


# Values the columns cannot hold as they are: bools where ints belong, ints
# beyond 32 bits, negative packed fields, int times, -0.0, NaN, str subclasses.
class Url(str):
    pass


_texts = st.one_of(st.sampled_from(["http://a.com/", "http://a.com/x", "http://B.com:8080/y", "", "a.com"]), st.text(max_size=6))
_strs = st.one_of(_texts, _texts.map(Url))
_ints = st.one_of(st.integers(-3, 3000), st.integers(-(2**40), 2**40), st.booleans())
_floats = st.one_of(st.floats(allow_nan=True), st.integers(0, 3), st.just(-0.0))
_opt_strs = st.one_of(st.none(), _strs)
_kinds = st.sampled_from(["page", "robots", "other"])


class OddSkip(Skipped):
    """A subclass: equal to nothing but itself, kept as is."""


_events = st.one_of(
    st.builds(Discovered, _floats, _strs, _strs, _ints, _opt_strs),
    st.builds(Skipped, _floats, _strs, _opt_strs, st.sampled_from(["seen", "scope", "robots", "cap", "odd"]), _strs),
    st.builds(FetchStarted, _floats, _ints, _strs, _strs, _kinds, _ints, _ints, _ints, _strs, st.booleans()),
    st.builds(FetchFinished, _floats, _ints, _strs, _strs, _kinds, _ints, _ints, _ints, _opt_strs),
    st.builds(FetchFailed, _floats, _ints, _strs, _strs, _kinds, _strs, st.booleans()),
    st.builds(RetryScheduled, _floats, _strs, _strs, _ints, _floats, _strs),
    st.builds(HostDeferred, _floats, _strs, _floats, st.sampled_from(["gap", "crawl-delay", "retry-after", "x"])),
    st.builds(RobotsLoaded, _floats, _strs, _ints, st.one_of(st.none(), _floats), st.booleans()),
    st.builds(Done, _floats, _ints, _ints),
    st.builds(OddSkip, _floats, _strs, _opt_strs, st.just("seen"), _strs),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_events, max_size=200), st.data())
def test_any_events_read_back_as_appended(events: list[Event], picks: st.DataObject) -> None:
    trace = Trace()
    for e in events:
        trace.append(e)
    assert len(trace) == len(events)
    # repr: NaN is not equal to itself, but prints the same; True and 1, -0.0 and 0.0 print apart
    assert repr(list(trace)) == repr(events)
    assert [type(e) for e in trace] == [type(e) for e in events]
    for i in picks.draw(st.lists(st.integers(0, len(events) - 1), max_size=10)) if events else []:
        assert repr(trace[i]) == repr(events[i])
    assert repr(list(pickle.loads(pickle.dumps(trace)))) == repr(events)


def test_a_trace_is_a_sequence_of_events() -> None:
    events = [Discovered(0.0, "http://a.com/", "a.com", 0, None), Done(1.5, 1, 0)]
    trace = Trace(events)
    assert trace == events and events == trace and trace != events[:1] and trace != "ab"
    assert trace[-1] == events[-1] and trace[5:] == [] and list(reversed(trace)) == events[::-1]
    assert trace.index(events[1]) == 1 and events[0] in trace
    with pytest.raises(IndexError):
        trace[2]
    with pytest.raises(TypeError):
        hash(trace)
    assert not Trace() and bool(trace)


def test_a_series_reads_as_its_points_and_replaces_the_last() -> None:
    series = Series([(0.0, 1, 0), (0.5, 3, 1)])
    series[-1] = (0.5, 2, 1)
    series.append((1.0, 0, 0))
    assert series == [(0.0, 1, 0), (0.5, 2, 1), (1.0, 0, 0)]
    assert series[-1][1:] == (0, 0) and series[1:] == [(0.5, 2, 1), (1.0, 0, 0)]
    assert pickle.loads(pickle.dumps(series)) == series


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)), max_size=40))
def test_a_series_notes_points_as_a_list_would(steps: list[tuple[int, int, int]]) -> None:
    """``Series.note`` on the columns keeps exactly the points the list
    reference keeps: a point only when a count changed, the last one at an
    instant replacing the earlier."""
    series, reference = Series(), _PointList()
    t = 0.0
    for dt, frontier, flight in steps:
        t += dt / 2
        series.note(t, frontier, flight)
        reference.note(t, frontier, flight)
    assert list(series) == reference
