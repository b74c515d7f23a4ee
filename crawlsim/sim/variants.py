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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

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
    respell = _SPELLERS.get(kind)
    if respell is None:
        raise ValueError(f"unknown variant kind {kind!r}; expected one of {', '.join(KINDS)}")
    j = url.find("/", i + 3)
    host, path = (url[i + 3 :], "/") if j < 0 else (url[i + 3 : j], url[j:])
    return respell(_Parts(url, url[:i], host, path), r)


class _Parts(NamedTuple):
    """An absolute URL split once for the spellers: ``path`` is ``/`` when absent
    and keeps its query and fragment."""

    url: str
    scheme: str
    host: str
    path: str


# One function per kind: each returns a spelling of the same page, or the
# URL unchanged when the kind does not apply (a fragment already there...).


def _fragment(u: _Parts, r: int) -> str:
    return u.url if "#" in u.url else f"{u.url}#s{r % 7}"


def _case(u: _Parts, r: int) -> str:
    form = r % 3
    if form == 0:
        return f"{u.scheme.upper()}://{u.host}{u.path}"
    if form == 1:
        return f"{u.scheme}://{u.host.upper()}{u.path}"
    return f"{u.scheme.capitalize()}://{u.host.capitalize()}{u.path}"


def _port(u: _Parts, r: int) -> str:
    if ":" in u.host:
        return u.url
    return f"{u.scheme}://{u.host}:{443 if u.scheme.lower() == 'https' else 80}{u.path}"


def _dots(u: _Parts, r: int) -> str:
    rest = u.path[1:]
    return f"{u.scheme}://{u.host}/./{rest}" if r % 2 else f"{u.scheme}://{u.host}/up/../{rest}"


def _relative(u: _Parts, r: int) -> str:
    return u.path


def _www(u: _Parts, r: int) -> str:
    return u.url if u.host.lower().startswith("www.") else f"{u.scheme}://www.{u.host}{u.path}"


def _trailing_slash(u: _Parts, r: int) -> str:
    # a path that cannot take a slash (one already, a query, a fragment) gets ``www.`` instead
    if u.path.endswith("/") or "?" in u.path or "#" in u.path:
        return _www(u, r)
    return u.url + "/"


def _session(u: _Parts, r: int) -> str:
    base, hash_, frag = u.url.partition("#")
    return f"{base}{'&' if '?' in base else '?'}sid={r & 0xFFFFFFFF:08x}{hash_}{frag}"


def _https(u: _Parts, r: int) -> str:
    return f"https://{u.host}{u.path}" if u.scheme.lower() == "http" else f"http://{u.host}{u.path}"


_SPELLERS: dict[str, Callable[[_Parts, int], str]] = {
    "fragment": _fragment,
    "case": _case,
    "port": _port,
    "dots": _dots,
    "relative": _relative,
    "www": _www,
    "trailing_slash": _trailing_slash,
    "session": _session,
    "https": _https,
}
assert tuple(_SPELLERS) == KINDS, "a speller per variant kind, in KINDS order"


def all_spellings(url: str, kinds: Sequence[str] = KINDS) -> list[str]:
    """One spelling of ``url`` per kind (for tests and teaching)."""
    return [spell(url, k, 1) for k in kinds]


__all__ = ["KINDS", "RISKY_KINDS", "SAFE_KINDS", "Variants", "all_spellings", "spell"]
