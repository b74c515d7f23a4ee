"""The ``[pages]`` table: an explicit web, page URL -> links as written (and its answers)."""

from __future__ import annotations

from crawlsim.scenario.checks import Checks, key_path
from crawlsim.sim.explicit import ExplicitWeb, PageSpec
from crawlsim.sim.latency import show_value
from crawlsim.sim.web import rfc3986_identity


PAGE_KEYS = ("links", "content", "status", "headers", "latency", "before")

class PagesTable(Checks):
    """``[pages]`` -> :class:`~crawlsim.sim.explicit.ExplicitWeb`."""

    def pages(self, value: object) -> ExplicitWeb:
        pages = self.table(value, "pages", '{"http://a.com/" = ["/x"]}')
        specs: dict[str, PageSpec] = {}
        first_spelling: dict[str, str] = {}
        for url, spec in pages.items():
            key = key_path("pages", url)
            ident = rfc3986_identity(url)
            if ident is None:
                raise self.fail(
                    key, f'expected pages keyed by absolute http(s) URLs such as "http://a.com/", got {show_value(url)}'
                )
            if ident in first_spelling:
                raise self.fail(key, f"same page as {show_value(first_spelling[ident])} ({ident}); list each page once")
            first_spelling[ident] = url
            if isinstance(spec, list):
                specs[url] = PageSpec(tuple(self.strings(spec, key)))
            elif isinstance(spec, dict):
                self.known(spec, PAGE_KEYS, "pages", url)
                headers = self.table(spec.get("headers", {}), key_path("pages", url, "headers"))
                for name, text in headers.items():
                    self.string(text, key_path("pages", url, "headers", name))
                content = spec.get("content")
                if "latency" in spec:
                    self.page_latency[ident] = self.number(spec["latency"], key_path("pages", url, "latency"))
                specs[url] = PageSpec(
                    links=tuple(self.strings(spec.get("links", []), key_path("pages", url, "links"))),
                    content=None if content is None else self.string(content, key_path("pages", url, "content")),
                    status=self.status(spec.get("status", 200), key_path("pages", url, "status")),
                    headers=dict(headers),
                    before=self.earlier_answers(spec.get("before", []), "pages", url, "before"),
                )
            else:
                raise self.fail(
                    key,
                    f"expected a list of links as written, or a table {{links = [...], status = 404}}; got {show_value(spec)}",
                )
        return ExplicitWeb(specs)

    def earlier_answers(self, value: object, *prefix: str) -> tuple[tuple[int, dict[str, str]], ...]:
        """``pages.URL.before``: the page's answers to its first attempts, in order."""
        if not isinstance(value, list):
            raise self.fail(key_path(*prefix), 'expected a list such as [{status = 429, headers = '
                                               f'{{"Retry-After" = "1"}}}}], got {show_value(value)}')
        answers = []
        for i, answer in enumerate(value):
            entry = self.table(answer, key_path(*prefix, i))
            self.known(entry, ("status", "headers"), *prefix, i)
            headers = self.table(entry.get("headers", {}), key_path(*prefix, i, "headers"))
            answers.append((self.status(entry.get("status"), key_path(*prefix, i, "status")),
                            {name: self.string(text, key_path(*prefix, i, "headers", name))
                             for name, text in headers.items()}))
        return tuple(answers)


__all__ = ["PAGE_KEYS", "PagesTable"]
