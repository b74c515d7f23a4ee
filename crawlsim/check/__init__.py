"""`crawlsim check`: grade a user's own ``crawl(start_url, get_urls, max_workers)``.

The crawler runs with real threads (or asyncio) against simulated services
(``services.py``) on small webs built to expose each classic mistake
(``cases.py``); what the services observed is judged into plain-language
checks and a rubric level (``judge.py``, ``report.py``).

    report = run_check("examples/interview/reference_threadpool.py:crawl", quick=True)
    report.ok, report.level, print(report.render())
"""

from crawlsim.check.cli import main
from crawlsim.check.grade import run_check
from crawlsim.check.loader import CheckInputError
from crawlsim.check.report import CheckReport, CheckResult
from crawlsim.check.services import SimulatedFetchError

__all__ = ["CheckInputError", "CheckReport", "CheckResult", "SimulatedFetchError", "main", "run_check"]
