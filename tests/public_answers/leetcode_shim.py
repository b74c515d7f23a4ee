"""LeetCode 1242's interface over the grader's ``get_urls``, for the corpus's LeetCode answers.

LeetCode calls ``Solution().crawl(startUrl, htmlParser)`` with an object whose
``getUrls(url)`` fetches a page; ``crawlsim check`` calls
``crawl(start_url, get_urls, max_workers)``.  Each LeetCode answer in this
folder ends with ``crawl = leetcode_crawl(Solution)``, the thin wrapper the
corpus adds: a new ``Solution`` per call (LeetCode builds one per test) and
``max_workers`` unused, since LeetCode's signature has none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class HtmlParser:
    """``htmlParser.getUrls`` is the grader's ``get_urls``."""

    def __init__(self, get_urls: Callable[[str], Iterable[str]]) -> None:
        self.getUrls = get_urls


def leetcode_crawl(solution_class: type) -> Callable[..., Any]:
    """``crawl(start_url, get_urls, max_workers)`` running one LeetCode ``Solution``."""

    def crawl(start_url: str, get_urls: Callable[[str], Iterable[str]], max_workers: int | None = None) -> Any:
        return solution_class().crawl(start_url, HtmlParser(get_urls))

    return crawl
