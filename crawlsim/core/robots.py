"""robots.txt as the scheduler applies it, parsed by protego.

Status handling follows RFC 9309: a 2xx body is parsed; a 4xx means "no
rules" (allow all); a 5xx or a network failure, once retries are spent, means
"assume complete disallow".  Two of protego's known differences from Google's
reference matcher are mended here rather than in callers: the crawler's
user-agent is cut to its product token (``FooBot/1.2 (+http://x)`` matches
``User-agent: FooBot``), and a UTF-8 byte-order mark at the start of the file
is dropped, and a ``User-agent:`` line's value is cut at its first space.

protego is imported on first use: it loads :mod:`logging` (and so
:mod:`threading`), which the core itself never needs at import time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


def product_token(user_agent: str) -> str:
    """``FooBot/1.2 (compatible)`` -> ``FooBot`` (RFC 9309 section 2.2.1)."""
    match = re.match(r"[A-Za-z_-]+", user_agent.strip())
    return match.group(0) if match else user_agent.strip()


@dataclass(frozen=True)
class RobotsPolicy:
    """The rules for one host, ready to answer ``allowed(url)``."""

    parser: Any | None
    """A ``protego.Protego`` instance, or None when the rule is all-or-nothing."""
    allow_all: bool
    token: str
    crawl_delay: float | None

    def allowed(self, url: str) -> bool:
        if self.parser is None:
            return self.allow_all
        return bool(self.parser.can_fetch(url, self.token))

    @property
    def disallow_all(self) -> bool:
        return self.parser is None and not self.allow_all


def policy_from_response(status: int, body: str | None, user_agent: str) -> RobotsPolicy:
    """The policy a robots.txt response implies (see module docstring)."""
    token = product_token(user_agent)
    if 200 <= status < 300:
        from protego import Protego

        parser = Protego.parse(_google_compatible(body or ""))
        delay = parser.crawl_delay(token)
        return RobotsPolicy(parser, True, token, float(delay) if delay is not None else None)
    if 400 <= status < 500:
        return RobotsPolicy(None, True, token, None)
    return unreachable_policy(user_agent)


_UA_LINE = re.compile(r"^(\s*user-agent\s*:\s*)([^\s#]+)[ \t]+[^#\n]*", re.IGNORECASE | re.MULTILINE)


def _google_compatible(text: str) -> str:
    """Drop a UTF-8 BOM and cut each ``User-agent:`` value at its first space,
    as Google's reference parser does (``User-agent: Foo Bar`` names ``Foo``)."""
    return _UA_LINE.sub(r"\1\2", text.lstrip("\ufeff"))


def unreachable_policy(user_agent: str) -> RobotsPolicy:
    """5xx or no answer: RFC 9309 says assume everything is disallowed."""
    return RobotsPolicy(None, False, product_token(user_agent), None)
