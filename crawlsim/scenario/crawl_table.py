"""The ``[crawl]`` table: the crawler's options, checked by the core's own
rules -- the same ones, in the same words, as the command line's flags."""

from __future__ import annotations

from typing import Any

from crawlsim.core.options import (
    CrawlOptions,
    OptionError,
    did_you_mean,
    option_from_value,
    option_names,
    with_implied_order,
)
from crawlsim.scenario.checks import Checks, key_path


class CrawlTable(Checks):
    """``[crawl]`` -> :class:`~crawlsim.core.options.CrawlOptions`."""

    def options(self, value: object, seed: int) -> CrawlOptions:
        """The [crawl] table, checked by the core's one set of rules
        (:data:`crawlsim.core.options.RULES`), with ``"none"`` for "no limit"
        as on the command line (``per_host = "none"``); this only adds the
        file's name."""
        crawl = self.table(value, "crawl", "{workers = 4}")
        known = option_names()
        values: dict[str, Any] = {}
        for k, v in crawl.items():
            if k not in known:
                raise self.fail(key_path("crawl", k), f"unknown crawler option{did_you_mean(k, known)}")
            try:
                values[k] = option_from_value(k, v)
            except OptionError as err:
                raise self.fail(f"crawl.{err.key}", err.message) from None
        values.setdefault("seed", seed)
        try:
            return CrawlOptions.from_mapping(with_implied_order(values))
        except OptionError as err:
            raise self.fail(f"crawl.{err.key}", err.message) from None


__all__ = ["CrawlTable"]
