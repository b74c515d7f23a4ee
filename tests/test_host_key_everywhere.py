"""One host key: every module that groups URLs by host derives the same key.

Four host-key functions once disagreed (the real crawler gave
``a.com`` for ``http://A.com:80/x`` where the core gave ``a.com:80``).  Here
every URL of the WPT URL test data and of the shipped scenarios' webs, in
every normalization mode, is keyed by each module that keys hosts -- the
scheduler (the ``host`` of its events), the replay behind the app, the real
crawler's redirect check and :func:`~crawlsim.core.urls.split_host` -- and all
must equal :func:`~crawlsim.core.urls.host_key`.
"""

from __future__ import annotations

import json

import pytest

from crawlsim.core import CrawlOptions, Scheduler
from crawlsim.trace.events import Discovered, FetchStarted
from crawlsim.core.urls import MODES, canonicalize, host_key, parse_steps, split_host
from crawlsim.real.fetcher import _host_key as real_crawler_host_key
from crawlsim.views.replay import host_of_url
from crawlsim.scenario import load_scenario
from crawlsim.scenario.files import list_scenarios
from crawlsim.sim.driver import simulate
from tests.conformance import conformance_file


def _wpt_http_urls() -> list[str]:
    """Absolute http(s) URLs of the WPT data, as written (resolved against their base)."""
    path = conformance_file("urltestdata.json", "WPT URL test data")
    cases = [c for c in json.loads(path.read_text(encoding="utf-8")) if isinstance(c, dict)]
    out = []
    for case in cases:
        href = case.get("href")
        if isinstance(href, str) and href.startswith(("http://", "https://")):
            out.append(href)
    return out


def _scenario_urls() -> list[str]:
    urls: set[str] = set()
    for name in list_scenarios():
        if name == "million":
            continue
        run = simulate(load_scenario(name).with_options(normalize="off"), series=False)
        urls.update(e.url for e in run.trace if isinstance(e, FetchStarted))
    return sorted(urls)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("source", ["wpt", "scenarios"])
def test_every_module_derives_the_same_host_key(mode: str, source: str) -> None:
    written = _wpt_http_urls() if source == "wpt" else _scenario_urls()
    assert len(written) > 20
    steps = parse_steps(mode)
    sched = Scheduler(CrawlOptions(scope="any", normalize=mode, robots=False))
    sched.add_seeds(written, 0.0)
    filed = {e.url: e.host for e in sched.drain_events() if isinstance(e, Discovered)}
    assert filed, "the scheduler accepted none of the URLs"
    for url, host in filed.items():
        key = host_key(url)
        assert host == key, (url, host, key)
        assert split_host(url)[0] == key, url
        assert host_of_url(url) == key, url
        assert real_crawler_host_key(url, steps) == host_key(canonicalize(url, None, mode) or url), url
    # and a spelled-out default port is the same server as none, in every mode
    for url in filed:
        authority, _, path = url.removeprefix("http://").partition("/")
        if url.startswith("http://") and ":" not in authority:
            respelled = f"http://{authority}:80/{path}"
            assert host_key(respelled) == host_key(url), (url, respelled)
