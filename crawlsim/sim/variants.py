"""Spelling variants: one page, many ways to write its URL.

Real pages link to each other with fragments, odd case, explicit default
ports, ``./`` and ``../``, a ``www.`` prefix, a trailing slash, a session id
or the other scheme.  A crawler that compares raw strings fetches the page
once per spelling.  The *safe* kinds are undone by RFC 3986 normalization;
the *risky* ones only by the aggressive mode, which is why that mode exists.

A web rewrites a fraction ``rate`` of its links, chosen by a hash of (seed,
page, link position), so the same page always shows the same spellings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from crawlsim.sim.hashing import mix64, salt_of, stable_hash, unit

SAFE_KINDS: tuple[str, ...] = ("fragment", "case", "port", "dots", "relative")
"""Undone by ``normalize = "rfc3986"`` (``relative`` by link resolution alone)."""
RISKY_KINDS: tuple[str, ...] = ("www", "trailing_slash", "session", "https")
"""Undone only by ``normalize = "aggressive"``."""
KINDS: tuple[str, ...] = SAFE_KINDS + RISKY_KINDS


@dataclass(frozen=True)
class Variants:
    """Rewrite about ``rate`` of a page's absolute links into other spellings."""

    rate: float
    kinds: tuple[str, ...] = KINDS
    seed: int = 0
    _salt: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"expected a rate between 0 and 1, got {self.rate!r}")
        unknown = [k for k in self.kinds if k not in KINDS]
        if unknown or not self.kinds:
            raise ValueError(f"expected some of {', '.join(KINDS)}; got {list(self.kinds)!r}")
        object.__setattr__(self, "kinds", tuple(self.kinds))
        object.__setattr__(self, "_salt", salt_of(self.seed, "variants"))

    def apply(self, page: str, links: list[str]) -> list[str]:
        """``links`` of ``page`` with some rewritten (in place, and returned)."""
        if not self.rate:
            return links
        h = stable_hash(page, self._salt)
        kinds = self.kinds
        for i, link in enumerate(links):
            x = mix64(h + i)
            if unit(x) < self.rate:
                links[i] = spell(link, kinds[(x & 0xFFFF) % len(kinds)], x >> 24)
        return links


def spell(url: str, kind: str, r: int = 0) -> str:
    """Another spelling of the absolute URL ``url`` (one that names the same
    page); ``r`` picks among sub-forms.  Relative links are returned as is."""
    i = url.find("://")
    if i < 0:
        return url
    scheme = url[:i]
    j = url.find("/", i + 3)
    host, path = (url[i + 3 :], "/") if j < 0 else (url[i + 3 : j], url[j:])
    if kind == "fragment":
        return url if "#" in url else f"{url}#s{r % 7}"
    if kind == "case":
        form = r % 3
        if form == 0:
            return f"{scheme.upper()}://{host}{path}"
        if form == 1:
            return f"{scheme}://{host.upper()}{path}"
        return f"{scheme.capitalize()}://{host.capitalize()}{path}"
    if kind == "port":
        if ":" in host:
            return url
        return f"{scheme}://{host}:{443 if scheme.lower() == 'https' else 80}{path}"
    if kind == "dots":
        rest = path[1:]
        return f"{scheme}://{host}/./{rest}" if r % 2 else f"{scheme}://{host}/up/../{rest}"
    if kind == "relative":
        return path
    if kind == "www":
        return url if host.lower().startswith("www.") else f"{scheme}://www.{host}{path}"
    if kind == "trailing_slash":
        if path.endswith("/") or "?" in path or "#" in path:
            return spell(url, "www", r)
        return url + "/"
    if kind == "session":
        base, hash_, frag = url.partition("#")
        return f"{base}{'&' if '?' in base else '?'}sid={r & 0xFFFFFFFF:08x}{hash_}{frag}"
    if kind == "https":
        return f"https://{host}{path}" if scheme.lower() == "http" else f"http://{host}{path}"
    raise ValueError(f"unknown variant kind {kind!r}; expected one of {', '.join(KINDS)}")


def all_spellings(url: str, kinds: Sequence[str] = KINDS) -> list[str]:
    """One spelling of ``url`` per kind (for tests and teaching)."""
    return [spell(url, k, 1) for k in kinds]


__all__ = ["KINDS", "RISKY_KINDS", "SAFE_KINDS", "Variants", "all_spellings", "spell"]
