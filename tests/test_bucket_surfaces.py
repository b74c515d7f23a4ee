"""The per-host token bucket shows wherever the crawl's politeness does:
the run summary's options line, a real crawl's politeness line, the
``--rate``/``--burst`` flags, and a warning for a burst that does nothing."""

from __future__ import annotations

import pytest

from crawlsim.cli import main
from crawlsim.views.summary import options_line
from crawlsim.core.options import CrawlOptions
from crawlsim.real.flags import politeness_line


def test_the_options_line_names_the_bucket_only_when_it_is_on() -> None:
    on = CrawlOptions(rate=0.5, burst=2).as_mapping()
    assert "rate 0.5/s per host, burst 2" in options_line(on)
    assert "rate" not in options_line(CrawlOptions().as_mapping())


def test_the_politeness_line_names_the_bucket_only_when_it_is_on() -> None:
    assert "rate 0.25/s per host, burst 3" in politeness_line(CrawlOptions(rate=0.25, burst=3))
    assert "rate" not in politeness_line(CrawlOptions())


def test_rate_and_burst_flags_reach_the_crawl(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--rate", "0.1", "--burst", "2"]) == 0
    assert "rate 0.1/s per host, burst 2" in capsys.readouterr().out


@pytest.mark.parametrize(("flag", "value"), [("--rate", "0"), ("--burst", "0"), ("--rate", "fast")])
def test_rate_and_burst_flags_are_checked_by_the_rules(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", flag, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"crawlsim: error: {flag[2:]}:") and "Traceback" not in err


def test_a_burst_without_a_rate_warns_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "see-it", "--set", "burst=5"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "burst" in line]
    assert warnings == ["crawlsim: warning: burst = 5 has no effect without rate (the per-host token bucket is off)"]
    assert main(["run", "see-it", "--set", "burst=5", "--rate", "1"]) == 0
    assert "burst" not in capsys.readouterr().err
