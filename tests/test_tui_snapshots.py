"""Screenshots of the terminal app at fixed frames.

Each app is built with ``animate=False`` (no frame timer exists) and
``paused=True`` at an exact simulated time, and runs its crawl on the UI
thread (``threaded=False``), so nothing moves between the keys pressed and
the picture taken.  Update with ``pytest --snapshot-update`` after a
deliberate change, and look at the report before accepting it.
"""

from __future__ import annotations

from crawlsim.scenario import load_scenario
from crawlsim.tui.app import CrawlApp


def still(name: str, at: float, **overrides: object) -> CrawlApp:
    scenario = load_scenario(name)
    if overrides:
        scenario = scenario.with_options(**overrides)
    return CrawlApp(scenario, paused=True, at=at, animate=False, threaded=False)


def test_see_it_mid_crawl(snap_compare) -> None:
    assert snap_compare(still("see-it", 7.0), terminal_size=(160, 48))


def test_see_it_normalize_off_small_terminal(snap_compare) -> None:
    # n twice: rfc3986 -> aggressive -> off; the red duplicates and the finish change
    assert snap_compare(still("see-it", 12.0), press=["n", "n"], terminal_size=(80, 24))


def test_busiest_host_summarised_by_host(snap_compare) -> None:
    assert snap_compare(still("busiest-host", 60.0), terminal_size=(160, 48))


def test_polite_waiting_hosts(snap_compare) -> None:
    assert snap_compare(still("polite", 5.3), terminal_size=(120, 40))
