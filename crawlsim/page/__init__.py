"""The "See it" page: a crawl as one self-contained, offline web page.

    from crawlsim.page import build_page
    text, offer = build_page(load_scenario("see-it"))   # the HTML, and what it offers in one line

A front end like the terminal app and the notebook widget, but one that
runs nowhere: the page is written once (``crawlsim html``) and opened from
a file.  The pieces: :mod:`~crawlsim.page.grid` (the knob settings the page
offers and the keys between them), :mod:`~crawlsim.page.frames` (one run,
replayed by :class:`~crawlsim.views.replay.Replay`, as plain frames),
:mod:`~crawlsim.page.layout` (where each URL is drawn),
:mod:`~crawlsim.page.build` (every run, simulated by
:func:`~crawlsim.views.session.run_session`), :mod:`~crawlsim.page.html` (one
file: ``see_it.html`` with ``see_it.css``, ``see_it.js`` and the data
inlined), :mod:`~crawlsim.page.look` (colours and marks).

It sits below the notebook (``crawlsim.notebook.page`` shows it inline)
and above the session layer; it imports no front end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crawlsim.scenario import Scenario
    from crawlsim.trace.jsonl import RecordedTrace


def build_page(
    scenario: Scenario | None = None,
    *,
    trace: RecordedTrace | None = None,
    trace_name: str = "trace",
    title: str | None = None,
    note: str | None = None,
    budget: float | None = None,
) -> tuple[str, str]:
    """The page's HTML for ``scenario`` (or a recorded ``trace``), and the one
    line saying what it offers and what it does not."""
    from crawlsim.page.build import BUDGET_SECONDS, scenario_data, trace_data
    from crawlsim.page.html import render

    if trace is not None:
        data = trace_data(trace, trace_name)
    elif scenario is not None:
        data = scenario_data(scenario, budget=budget or BUDGET_SECONDS)
    else:
        raise ValueError("give a scenario or a trace")
    return render(data, title=title, note=note), str(data["offer"])


__all__ = ["build_page"]
