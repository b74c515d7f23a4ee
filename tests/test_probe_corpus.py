"""A corpus of absurd scenarios and flags, kept as tests: each one ends
through ``crawlsim run`` as exit code 2 and one line naming the file and the
key, never a traceback, a hang or a crawl that silently loses pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlsim.cli import main
from crawlsim.scenario import load_scenario

PAGES = '\n[pages]\n"http://a.com/" = ["/x"]\n'
START = 'start = "http://a.com/"\n'

# (category, toml text, the key the message must name)
SCENARIOS: list[tuple[str, str, str]] = [
    # crawler options: non-finite, out of range, wrong type, broken regexes, sizes
    ("options", "[crawl]\ngap = inf" + PAGES, "crawl.gap"),
    ("options", "[crawl]\ngap = nan" + PAGES, "crawl.gap"),
    ("options", "[crawl]\ngap = 1e308" + PAGES, "crawl.gap"),
    ("options", "[crawl]\nbackoff_base = inf" + PAGES, "crawl.backoff_base"),
    ("options", "[crawl]\nbackoff_max = -inf" + PAGES, "crawl.backoff_max"),
    ("options", "[crawl]\nmax_retries = 1e9" + PAGES, "crawl.max_retries"),
    ("options", "[crawl]\nmax_retries = 1.5" + PAGES, "crawl.max_retries"),
    ("options", "[crawl]\nmax_retry_after = inf" + PAGES, "crawl.max_retry_after"),
    ("options", "[crawl]\nmax_crawl_delay = -1" + PAGES, "crawl.max_crawl_delay"),
    ("options", '[crawl]\nallow = ["("]' + PAGES, "crawl.allow[0]"),
    ("options", '[crawl]\ndeny = ["ok", "[a-"]' + PAGES, "crawl.deny[1]"),
    ("options", "[crawl]\nallow = [3]" + PAGES, "crawl.allow[0]"),
    ("options", '[crawl]\nseen = "bloom"\nbloom_capacity = 1e14' + PAGES, "crawl.bloom_capacity"),
    ("options", "[crawl]\nbloom_error_rate = 0" + PAGES, "crawl.bloom_error_rate"),
    ("options", "[crawl]\nworkers = 0" + PAGES, "crawl.workers"),
    ("options", "[crawl]\nworkers = 1e12" + PAGES, "crawl.workers"),
    ("options", "[crawl]\nper_host = true" + PAGES, "crawl.per_host"),
    ("options", "[crawl]\ndepth_limit = -1" + PAGES, "crawl.depth_limit"),
    ("options", "[crawl]\nsimhash_distance = 65" + PAGES, "crawl.simhash_distance"),
    ("options", "[crawl]\nretry_statuses = [0]" + PAGES, "crawl.retry_statuses[0]"),
    ("options", '[crawl]\nretry_statuses = "429"' + PAGES, "crawl.retry_statuses"),
    ("options", '[crawl]\nuser_agent = "bot\\r\\nX-Evil: 1"' + PAGES, "crawl.user_agent"),
    ("options", '[crawl]\nnormalize = ["lowercase", 3]' + PAGES, "crawl.normalize"),
    ("options", "[crawl]\nseed = 1.5" + PAGES, "crawl.seed"),
    ("options", '[crawl]\nrobots = "yes"' + PAGES, "crawl.robots"),
    # latencies: beyond an hour, non-finite, shapes that make the mean explode
    ("latency", '[hosts."a.com"]\nlatency = 1e308' + PAGES, 'hosts."a.com".latency'),
    ("latency", '[hosts."a.com"]\nlatency = inf' + PAGES, 'hosts."a.com".latency'),
    ("latency", '[hosts."a.com"]\nlatency = nan' + PAGES, 'hosts."a.com".latency'),
    ("latency", '[hosts."*"]\nlatency = {model = "lognormal", median = 1, sigma = 100}' + PAGES, 'hosts."*".latency.sigma'),
    ("latency", '[hosts."*"]\nlatency = {model = "uniform", low = 0, high = 1e300}' + PAGES, 'hosts."*".latency.high'),
    ("latency", '[hosts."*"]\nlatency = {model = "lognormal", median = 0}' + PAGES, 'hosts."*".latency.median'),
    # host behaviour
    ("hosts", '[hosts."a.com"]\nthrottle = {rate = 0.5, retry_after = inf}' + PAGES, 'hosts."a.com".throttle.retry_after'),
    ("hosts", '[hosts."a.com"]\nthrottle = {every = 1e300, duration = 1}' + PAGES, 'hosts."a.com".throttle.every'),
    ("hosts", '[hosts."a.com"]\nfail_rate = nan' + PAGES, 'hosts."a.com".fail_rate'),
    ("hosts", '[hosts."a.com"]\nfail_status = 1000' + PAGES, 'hosts."a.com".fail_status'),
    # web sizes: estimated before anything is built
    ("web size", '[web]\nkind = "power_law"\npages = 1e9\nhosts = 100', "web.pages"),
    ("web size", '[web]\nkind = "power_law"\npages = 1073741824\nhosts = 1073741824', "web.hosts"),
    ("web size", '[web]\nkind = "site_tree"\nbranching = 1000\ndepth = 64', "web.depth"),
    ("web size", '[web]\nkind = "power_law"\nzipf = inf', "web.zipf"),
    ("web size", '[web]\nkind = "power_law"\nzipf = 1e308', "web.zipf"),
    # the file itself
    ("toml", START + "x = " + "[" * 5000 + "]" * 5000 + PAGES, "nested too deeply"),
    ("toml", START + "x = " + "{a = " * 3000 + "1" + "}" * 3000 + PAGES, "nested too deeply"),
    ("toml", "[crawl\nworkers = 4", "line 1"),
]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("category", "text", "key"), SCENARIOS, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(SCENARIOS)])
def test_an_absurd_scenario_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], category: str, text: str, key: str
) -> None:
    path = tmp_path / "absurd.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = _run(capsys, "run", str(path))
    assert code == 2, (category, err)
    assert out == ""
    assert err.startswith(f"crawlsim: error: {path}: ") and err.count("\n") == 1, err
    assert key in err and "Traceback" not in err


FLAGS: list[tuple[list[str], str]] = [
    (["--gap", "inf"], "gap: expected a finite number of seconds, got inf"),
    (["--set", "gap=inf"], "gap: expected a finite number of seconds, got inf"),
    (["--gap", "nan"], "gap: expected a finite number of seconds, got nan"),
    (["--max-retries", "1e9"], "max_retries: expected a whole number <= 100"),
    (["--max-retry-after", "inf"], "max_retry_after: expected a finite number of seconds"),
    (["--set", "allow=("], "allow[0]: expected a regular expression"),
    (["--set", "backoff_base=inf"], "backoff_base: expected a finite number of seconds"),
    (["--workers", "x"], 'workers: expected a whole number, got "x"'),
    (["--set", "retry_statuses=[429, 1000]"], "retry_statuses[1]: expected an HTTP status code"),
    (["--set", "seen=bloom", "--set", "bloom_capacity=100000000000000"], "bloom_capacity: a Bloom filter"),
]


@pytest.mark.parametrize(("argv", "message"), FLAGS)
def test_an_absurd_flag_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, "run", "see-it", *argv)
    assert (code, out) == (2, "")
    assert err == f"crawlsim: error: {message}" + err[len("crawlsim: error: ") + len(message) :]
    assert err.count("\n") == 1


def test_gap_inf_is_refused_the_same_way_by_flag_file_and_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.toml"
    path.write_text("[crawl]\ngap = inf" + PAGES)
    messages = [
        _run(capsys, "run", "see-it", "--gap", "inf")[2],
        _run(capsys, "run", "see-it", "--set", "gap=inf")[2],
        _run(capsys, "run", str(path))[2],
    ]
    assert messages[0] == messages[1] == "crawlsim: error: gap: expected a finite number of seconds, got inf\n"
    assert messages[2] == f"crawlsim: error: {path}: crawl.gap: expected a finite number of seconds, got inf\n"


def test_an_uncapped_trap_warns_and_suggests_max_pages(tmp_path: Path) -> None:
    text = Path(load_scenario("trap").path or "").read_text().replace("max_pages = 120", "")
    path = tmp_path / "trap.toml"
    path.write_text(text)
    warnings = load_scenario(path).warnings()
    assert len(warnings) == 2 and all("max_pages" in w and str(path) in w for w in warnings)
    assert "calendar trap never ends" in warnings[0]
    assert load_scenario("trap").warnings() == []  # capped: nothing to say
    assert load_scenario(path).with_options(max_pages=50).warnings() == []
