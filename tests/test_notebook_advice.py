"""The notebook widget draws a knob's new run first and its advice after:
on the kernel's event loop once the control's change is handled, so the
new finish time reaches the browser before the advisor's reruns start, and a
control moved again before then drops the older advice unseen."""

from __future__ import annotations

import asyncio

import pytest

import crawlsim.notebook.widget as widget_module
from crawlsim.notebook.widget import CrawlWidget
from crawlsim.views.session import ADVICE_PENDING, Knobs, Result, run_session


def explanation_for(name: str, knobs: Knobs) -> str:
    from crawlsim.scenario import load_scenario

    bounds = run_session(load_scenario(name), knobs).bounds
    assert bounds is not None
    return bounds.explanation


@pytest.fixture
def advised(monkeypatch: pytest.MonkeyPatch) -> list[Knobs]:
    """The knobs of every run the widget measured advice for, in order."""
    asked: list[Knobs] = []
    real = widget_module.advise_result

    def recording(result: Result, **kwargs: object) -> Result:
        assert result.knobs is not None
        asked.append(result.knobs)
        return real(result, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(widget_module, "advise_result", recording)
    return asked


async def test_the_summary_says_measuring_until_the_loop_runs_the_advice(advised: list[Knobs]) -> None:
    w = CrawlWidget("see-it")
    await asyncio.sleep(0)  # one turn of the loop: the first run's advice
    w.workers.value = 6
    assert w.result is not None and w.result.knobs.workers == 6
    assert f"finish {w.result.finish:.1f} s" in w.summary.value  # the new finish time: at once
    assert ADVICE_PENDING in w.summary.value and w.result.advice_pending
    await asyncio.sleep(0)
    assert not w.result.advice_pending
    assert ADVICE_PENDING not in w.summary.value
    assert explanation_for("see-it", w.knobs()) in w.summary.value
    assert [k.workers for k in advised] == [4, 6]


async def test_a_control_moved_again_drops_the_older_advice(advised: list[Knobs]) -> None:
    w = CrawlWidget("see-it")
    await asyncio.sleep(0)
    w.workers.value = 6
    w.workers.value = 7  # before the loop came round to the advice of 6 workers
    await asyncio.sleep(0)
    assert [k.workers for k in advised] == [4, 7]  # 6 workers' advice never measured
    assert explanation_for("see-it", w.knobs()) in w.summary.value


def test_without_a_running_loop_the_advice_comes_at_once() -> None:
    w = CrawlWidget("see-it")
    w.workers.value = 6
    assert not w.result.advice_pending
    assert explanation_for("see-it", w.knobs()) in w.summary.value
