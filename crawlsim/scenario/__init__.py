"""Scenarios: one TOML file = a web, crawler options and host latencies.

A scenario is how a person asks crawlsim a what-if without writing Python,
so a mistake in one must come back as one clear line -- which file, which
key, what was expected, what was given -- never a traceback.  The CLI prints
``str(ScenarioError)`` and exits 2.

The smallest scenario::

    start = "http://a.com/"
    seed = 7
    [crawl]                      # any CrawlOptions field; CLI flags override
    workers = 4
    per_host = 1
    [hosts."a.com"]
    latency = 1.0                # or {model = "lognormal", median = 2.0, sigma = 0.5}
    [pages]                      # page URL -> links exactly as written
    "http://a.com/" = ["/x", "x#top", "http://b.com/"]

Beyond that: ``title``, ``description``, ``try`` (suggested experiments);
``[web]`` for a generated web (``kind = "site_tree"`` or ``"power_law"``) and
spelling variants; ``[[traps]]`` (``calendar``, ``session``); per host
``robots``, ``fail_rate``, ``fail_status``, ``dead_rate``, ``throttle`` and
``mirror_of``; ``[hosts."*"]`` for every host not named.  The full reference
is ``docs/reference/scenarios.md``.

The package: :mod:`~crawlsim.scenario.files` finds and loads a file,
:mod:`~crawlsim.scenario.build` composes one builder per table (each in its
``*_table.py`` beside what it builds) on the checks of
:mod:`~crawlsim.scenario.checks`, into a
:class:`~crawlsim.scenario.loaded.Scenario`; :mod:`~crawlsim.scenario.from_trace`
turns a recorded crawl into a scenario that models it.
"""

from crawlsim.scenario.checks import ScenarioError
from crawlsim.scenario.files import load_scenario
from crawlsim.scenario.loaded import Scenario

__all__ = ["Scenario", "ScenarioError", "load_scenario"]
