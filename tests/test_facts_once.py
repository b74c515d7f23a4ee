"""Facts kept once: the event log's codes come from the event vocabularies, the grader's
case names in its words are real cases, and the attributes nobody used are gone."""

from __future__ import annotations

from typing import get_args

import pytest

from crawlsim.check.cases import CASE_NAMES
from crawlsim.check.words import FOCUS, HINTS
from crawlsim.trace import store
from crawlsim.trace.store import Trace
from crawlsim.trace.events import DEFER_REASONS, FetchFailed, FetchKind, FetchStarted, HostDeferred, Skipped, SkipReason


def test_every_case_the_words_focus_on_is_a_case_and_every_cause_has_a_hint() -> None:
    assert set(FOCUS) <= set(CASE_NAMES), set(FOCUS) - set(CASE_NAMES)
    causes = {cause for focus in FOCUS.values() for cause in focus}
    assert causes <= set(HINTS), causes - set(HINTS)


def test_the_event_logs_vocabularies_are_the_events_own() -> None:
    assert store._DEFER == DEFER_REASONS
    assert store._REASONS == get_args(SkipReason)
    assert store._KINDS == get_args(FetchKind)


@pytest.mark.parametrize("reason", DEFER_REASONS)
def test_every_defer_reason_is_stored_compactly_and_read_back(reason: str) -> None:
    events = [HostDeferred(1.0, "a.com", 2.5, reason)]  # type: ignore[arg-type]
    trace = Trace(events)
    assert list(trace) == events
    assert trace._objects == []  # a code of its own, not the opaque fallback


@pytest.mark.parametrize("reason", get_args(SkipReason))
def test_every_skip_reason_is_stored_compactly_and_read_back(reason: str) -> None:
    events = [Skipped(0.5, "http://a.com/x", "http://a.com/", reason, "/x")]  # type: ignore[arg-type]
    trace = Trace(events)
    assert list(trace) == events
    assert trace._objects == []


@pytest.mark.parametrize("kind", get_args(FetchKind))
def test_every_fetch_kind_is_stored_compactly_and_read_back(kind: str) -> None:
    events = [
        FetchStarted(0.0, 1, "http://a.com/", "a.com", kind, 0, 1, 0, "http://a.com/", False),  # type: ignore[arg-type]
        FetchFailed(1.0, 1, "http://a.com/", "a.com", kind, "timeout", True),  # type: ignore[arg-type]
    ]
    trace = Trace(events)
    assert list(trace) == events
    assert trace._objects == []


def test_the_classes_codes_do_not_overlap_and_fit_below_the_time_flag() -> None:
    starts = [store._SKIP_BASE, store._DISCOVERED, store._STARTED, store._FINISHED, store._FAILED,
              store._RETRY, store._DEFERRED, store._ROBOTS, store._DONE, store._OPAQUE]
    assert starts == sorted(set(starts))
    assert store._DEFERRED + len(DEFER_REASONS) == store._ROBOTS
    assert store._OPAQUE < store._NEW_TIME
