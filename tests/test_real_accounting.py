"""A real crawl accounts for every page it found: fetched, or lost with its
reason -- a page a link reaches is never "unreachable" because it failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlsim.real.crawler import HttpLimits, crawl_http, real_options
from crawlsim.real.server import ServerProcess
from tests.test_real_crawl import make_scenario


def crawl_main(argv: list[str]) -> int:
    from crawlsim.cli import main

    return main(["crawl", *argv])


def small_folder(tmp_path: Path) -> Path:
    """index -> a.html (small), big.html (over the byte cap); orphan.html linked from nothing."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="a.html">a</a> <a href="big.html">big</a>')
    (site / "a.html").write_text("<p>a</p>")
    (site / "big.html").write_text("<p>" + "x" * 5000 + "</p>")
    (site / "orphan.html").write_text("<p>nobody links here</p>")
    return site


def test_a_folder_page_over_max_bytes_is_failed_not_unreachable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = small_folder(tmp_path)
    assert crawl_main([str(site / "index.html"), "--json", "--max-bytes", "1000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unreachable"] == ["orphan.html"]
    assert list(data["failed_pages"]) == ["big.html"] and data["failed_pages"]["big.html"].startswith("too large")
    lost = {item["page"].rsplit("/", 1)[1]: item for item in data["pages_lost"]}
    assert set(lost) == {"big.html"} and lost["big.html"]["reason"] == "failed"
    assert "too large" in lost["big.html"]["detail"]
    assert data["pages_reachable"] == data["pages_fetched"] + len(data["pages_lost"])


def test_the_folder_text_report_says_the_page_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = small_folder(tmp_path)
    assert crawl_main([str(site / "index.html"), "--max-bytes", "1000"]) == 0
    out = capsys.readouterr().out
    assert "unreachable from index.html (1):\n  orphan.html\n" in out
    assert "reachable but failed (1):\n  big.html  too large" in out


async def test_an_http_crawl_lists_every_page_found_fetched_or_lost() -> None:
    """404, robots, scope and the cap: each page found is fetched or lost with that reason."""
    pages = {
        "http://a.test/": ["http://b.test/", "/private/x", "/ok", "/gone", "/c1", "/c2"],
        "http://a.test/ok": [],
        "http://a.test/gone": {"links": [], "status": 404},
    }
    robots = "User-agent: *\nDisallow: /private/\n"
    scenario = make_scenario(pages, hosts={"a.test": {"robots": robots}})
    flags = {"gap": 0.0, "max_pages": 3, "workers": 1, "robots": True, "scope": "host"}
    options = real_options(flags, base=scenario.options.as_mapping())
    with ServerProcess(scenario) as server:
        limits = HttpLimits(timeout=5.0)
        result = await crawl_http(scenario.seeds, options, resolve=server.resolve(), limits=limits)
    from crawlsim.commands.crawl import summary_dict

    data = summary_dict(result, scenario.seeds)
    reasons = {item["page"]: item["reason"] for item in data["pages_lost"]}
    assert reasons["http://a.test/gone"] == "failed"
    assert reasons["http://a.test/private/x"] == "robots"
    assert "cap" in reasons.values()
    assert data["pages_reachable"] == data["pages_fetched"] + len(data["pages_lost"])
    # pages_reachable is within the scope, as in a simulation: b.test is what the scope left out
    assert "http://b.test/" not in reasons
    scope = next(item for item in data["narrowed"] if item["by"] == "scope")
    assert (scope["pages"], scope["of"]) == (1, data["pages_reachable"] + 1)
    assert scope["widen"] == "--scope domain or --scope any widens it"
