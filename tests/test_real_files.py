"""The crawling guide's first exercise: crawl a local folder of HTML files and list the
pages unreachable from index.html (tests/fixtures/site)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crawlsim.real.files import crawl_folder, html_files, path_of, start_path


def crawl_main(argv: list[str]) -> int:
    """``crawlsim crawl ARGV`` as the console script runs it (its one catch turns a mistake into exit 2)."""
    from crawlsim.cli import main

    return main(["crawl", *argv])


SITE = Path(__file__).resolve().parent / "fixtures" / "site"
UNREACHABLE = ["blog/draft.html", "docs/api.html", "orphan.html"]


def test_unreachable_pages_of_the_fixture_site() -> None:
    report = crawl_folder(SITE / "index.html")
    assert report.unreachable == UNREACHABLE
    # relative links, "./x#frag" spellings, "/"-rooted links, "blog/" -> blog/index.html,
    # and <base href> (guide.html's "api.html" means docs/reference/api.html)
    assert report.reachable == [
        "about.html",
        "blog/index.html",
        "blog/post1.html",
        "docs/guide.html",
        "docs/reference/api.html",
        "index.html",
    ]
    assert report.broken == {"missing.html": ["index.html"]}
    stats = report.result.stats
    assert stats.skipped["scheme"] == 1  # mailto:
    assert stats.skipped["scope"] == 1  # another site: never fetched
    assert stats.duplicate_fetches == 0  # about.html and ./about.html#team are one fetch


def test_the_cli_lists_unreachable_pages(capsys: pytest.CaptureFixture[str]) -> None:
    assert crawl_main([str(SITE / "index.html")]) == 0
    out = capsys.readouterr().out
    listed = out.split("unreachable from index.html (3):\n", 1)[1].split("broken links")[0].split()
    assert listed == UNREACHABLE
    assert "missing.html  (linked from index.html)" in out


@pytest.mark.parametrize("form", ["folder", "file-url"])
def test_a_folder_or_a_file_url_starts_at_index_html(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    target = str(SITE) if form == "folder" else (SITE / "index.html").as_uri()
    assert crawl_main([target, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unreachable"] == UNREACHABLE
    assert data["pages_fetched"] == 7 and data["failed"] == 1  # six HTML pages and logo.svg; missing.html failed


def test_links_cannot_climb_out_of_the_folder(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "secret.html").write_text("<p>outside</p>")
    (site / "index.html").write_text('<a href="../secret.html">up</a> <a href="../../../../etc/hostname">etc</a>')
    report = crawl_folder(site)
    assert report.reachable == ["index.html"]
    assert set(report.broken) == {"secret.html", "etc/hostname"}  # resolved inside the folder, where nothing is
    assert path_of(site.resolve(), "http://site.invalid/%2E%2E/secret.html") in (None, "secret.html")


def test_every_page_reachable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "s"
    shutil.copytree(SITE, site)
    for name in UNREACHABLE:
        (site / name).unlink()
    assert html_files(site) == [
        "about.html",
        "blog/index.html",
        "blog/post1.html",
        "docs/guide.html",
        "docs/reference/api.html",
        "index.html",
    ]
    assert crawl_main([str(site / "index.html")]) == 0
    assert "every HTML file is reachable from index.html" in capsys.readouterr().out


def test_mistakes_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert crawl_main(["no/such/file.html"]) == 2
    assert capsys.readouterr().err.startswith("crawlsim: error: no such file")
    assert start_path("http://a.com/") is None
