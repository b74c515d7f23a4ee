"""The core must stay sans-I/O: importing it (or the trace package below it)
loads no clock, threads, event loop, simulator or GUI library.  Checked in a
fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ["simpy", "textual", "asyncio", "threading", "time", "matplotlib", "ipywidgets"]


def _loaded_after(statement: str) -> list[str]:
    # the interpreter itself may load some (site hooks load `time`): count only new ones
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"{statement}\n"
        f"print(','.join(m for m in {FORBIDDEN!r} if m in sys.modules and m not in before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_core_modules_load_nothing_forbidden() -> None:
    modules = ["options", "urls", "scope", "seen", "content", "frontier", "retry", "robots", "scheduler"]
    stmt = "\n".join(f"import crawlsim.core.{m}" for m in modules)
    assert _loaded_after(stmt) == []


def test_the_trace_package_below_the_core_loads_nothing_forbidden() -> None:
    """The core imports its events from crawlsim.trace, so the trace must be as plain as the core."""
    modules = ["events", "store", "jsonl", "cluster", "node_tags", "chrome"]
    stmt = "\n".join(f"import crawlsim.trace.{m}" for m in modules)
    assert _loaded_after(stmt) == []


def test_a_whole_crawl_in_the_core_loads_nothing_forbidden() -> None:
    stmt = (
        "from crawlsim.core import Scheduler, CrawlOptions\n"
        "s = Scheduler(CrawlOptions(content_dedup='simhash', seen='bloom'))\n"
        "s.add_seeds(['http://a.com/'], 0.0)\n"
        "f = s.poll(0.0)[0]\n"
        "s.on_response(f.id, 1.0, links=['/x'], content='hello')"
    )
    assert _loaded_after(stmt) == []


def test_import_crawlsim_and_crawl_do_not_load_front_ends() -> None:
    stmt = "import crawlsim\ncrawlsim.crawl('http://a.com/', lambda u: [], 2)"
    loaded = _loaded_after(stmt)
    assert not {"textual", "matplotlib", "ipywidgets", "simpy"} & set(loaded)
