"""URL canonicalization: what counts as "the same page".

A link is first resolved against the page it was found on, then put through
a set of *steps*.  Four named modes are presets of steps:

``off``
    resolved against its page, otherwise kept exactly as written.
``fragment``
    drop the ``#fragment`` only (the interview answer).
``rfc3986``
    the safe steps of RFC 3986 section 6: lowercase scheme and host, drop the
    default port, remove ``.``/``..`` segments, drop the fragment.  With all
    four on, parsing is done by a WHATWG URL parser (``ada-url``), which also
    percent-encodes and rewrites hosts the way browsers do; that is what makes
    the mode match the web-platform-tests URL cases.
``aggressive``
    the safe steps plus the risky ones a production crawler often takes:
    drop ``www.``, treat http as https, strip trailing slashes, sort query
    parameters, delete session-id parameters.

Each step can be switched on or off on its own: ``"rfc3986-dot_segments"``,
``"fragment+www"`` or a set of step names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from ada_url import URL as _WhatwgURL

from crawlsim.errors import CrawlsimError

SAFE_STEPS = frozenset({"lowercase", "default_port", "dot_segments", "fragment"})
RISKY_STEPS = frozenset({"www", "https", "trailing_slash", "sort_query", "session_ids"})
STEPS: tuple[str, ...] = (
    "lowercase",
    "default_port",
    "dot_segments",
    "fragment",
    "www",
    "https",
    "trailing_slash",
    "sort_query",
    "session_ids",
)
MODES: dict[str, frozenset[str]] = {
    "off": frozenset(),
    "fragment": frozenset({"fragment"}),
    "rfc3986": SAFE_STEPS,
    "aggressive": SAFE_STEPS | RISKY_STEPS,
}
SESSION_PARAMS = frozenset({"sessionid", "session_id", "sid", "jsessionid", "phpsessid", "aspsessionid", "sessid"})
DEFAULT_PORTS = {"http": 80, "https": 443}

MAX_URL_LENGTH = 8192
"""The longest URL (as written, and once resolved) that gets a canonical
form; a longer one is ``malformed``.  RFC 9110 (section 4.1) asks senders
and recipients to support URIs of at least 8,000 octets, and common servers
answer a longer request line with 414 (nginx's default header buffer is
8 KB, Apache's ``LimitRequestLine`` 8,190), so a longer link could not be
fetched from most servers anyway; refusing it by its length, before any
parsing, keeps the work per link bounded whatever a page contains."""
MAX_HOST_LENGTH = 253
"""The longest host name DNS can carry (RFC 1035 section 2.3.4, in text:
253 octets without the root's trailing dot)."""
MAX_LABEL_LENGTH = 63
"""The longest label (the part between dots) of a host name (RFC 1035)."""

# An absolute URL that a WHATWG parser would return unchanged (lowercase
# host whose last label starts with a letter, no port, no dot segments, only
# unreserved characters): skipping the parser for it is a pure speed-up.
# Its host is at most 253 octets of labels of at most 63 (the bounds that
# make a longer one malformed), and the whole URL at most MAX_URL_LENGTH.
_PLAIN_URL = (
    r"(?=.{0,%d}\Z)https?://(?=[^/]{1,%d}/)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?"
    r"(?:/(?!\.\.?(?:[/?]|$))[A-Za-z0-9._~-]*)+" % (MAX_URL_LENGTH, MAX_HOST_LENGTH)
)
_ALREADY_CANONICAL = re.compile(_PLAIN_URL + r"(?:\?[A-Za-z0-9._~=&-]*)?", re.DOTALL)
# The same, for the other subsets of the safe steps (``off``, ``fragment``...),
# resolved by urllib.parse rather than the WHATWG parser: such a URL is
# returned as written too -- unless its query is empty, as urllib drops a bare
# "?" (the WHATWG parser keeps it).
_ALREADY_AS_WRITTEN = re.compile(_PLAIN_URL + r"(?:\?[A-Za-z0-9._~=&-]+)?", re.DOTALL)


class CanonicalizeError(CrawlsimError, ValueError):
    """Why a link has no canonical form: ``reason`` is ``malformed`` or ``scheme``."""

    def __init__(self, reason: str, href: str) -> None:
        super().__init__(f"{reason}: {href!r}")
        self.reason = reason


def parse_steps(spec: str | Iterable[str]) -> frozenset[str]:
    """Turn a mode name, a ``mode+step-step`` string or a set of steps into a
    set of step names; ``ValueError`` names the unknown part."""
    if isinstance(spec, str):
        tokens = re.findall(r"[+-]?[^+-]+", spec.strip())
        if not tokens:
            raise ValueError(f"expected one of {', '.join(MODES)} (or steps joined by + and -), got {spec!r}")
        steps: set[str] = set()
        for i, token in enumerate(tokens):
            sign, name = ("+", token) if token[0] not in "+-" else (token[0], token[1:])
            name = name.strip()
            if name in MODES and i == 0 and sign == "+":
                steps |= MODES[name]
            elif name in STEPS:
                (steps.add if sign == "+" else steps.discard)(name)
            else:
                raise ValueError(
                    f"unknown normalization {name!r}; expected a mode ({', '.join(MODES)}) "
                    f"or steps ({', '.join(STEPS)})"
                )
        return frozenset(steps)
    steps = set(spec)
    unknown = steps - set(STEPS)
    if unknown:
        raise ValueError(f"unknown normalization steps {sorted(unknown)}; expected some of {', '.join(STEPS)}")
    return frozenset(steps)


def mode_name(steps: str | Iterable[str]) -> str:
    """The one name of a set of normalization steps, as every surface shows it.

    Steps equal to a named mode are that mode (``aggressive``, never its
    steps spelled out); any other set is the nearest named mode plus what
    differs (``rfc3986+www``, ``aggressive-sort_query``), which
    :func:`parse_steps` reads back to the same steps.  Nearest is fewest
    steps added or removed; a tie goes to the smaller mode."""
    wanted = parse_steps(steps)
    nearest = min(MODES, key=lambda name: len(MODES[name] ^ wanted))
    base = MODES[nearest]
    added = [f"+{s}" for s in STEPS if s in wanted - base]
    removed = [f"-{s}" for s in STEPS if s in base - wanted]
    return nearest + "".join(added + removed)


def canonicalize(href: str, base: str | None = None, mode: str | Iterable[str] = "rfc3986") -> str | None:
    """One canonical absolute URL for ``href`` found on page ``base``, or
    ``None`` when it is malformed or not http(s).  Never raises on a URL."""
    try:
        return canonical_or_raise(href, base, parse_steps(mode))
    except CanonicalizeError:
        return None


def canonical_or_raise(href: str, base: str | None, steps: frozenset[str]) -> str:
    """Like :func:`canonicalize` with pre-parsed steps, raising
    :class:`CanonicalizeError` with the reason -- the scheduler's hot path.

    Every step is linear in the URL's length, and a URL longer than
    :data:`MAX_URL_LENGTH` is refused before any of them runs.  The answer
    depends on the three arguments alone, so the last few thousand answers
    for short URLs are remembered: a small web simulated many times over
    (the offline page's 1,440 what-if crawls, a sweep, the advisor's
    reruns) asks the same questions again and again.  An href that
    :func:`_canonical` resolves without reading its page (one already in
    canonical form, when the WHATWG parser serves) is remembered once for
    every page that links to it, not once per page; under the safe steps
    alone it is its own answer, and is not remembered at all."""
    plain = SAFE_STEPS <= steps and _ALREADY_CANONICAL.fullmatch(href) is not None
    if plain and steps.isdisjoint(RISKY_STEPS):
        return href  # _canonical's answer (the match bounds its length and host), not remembered
    if len(href) <= _REMEMBERED_LENGTH and (base is None or len(base) <= _REMEMBERED_LENGTH):
        if plain:
            base = None  # _canonical reads no base for it: the same answer from any page
        return _remembered(href, base, steps)
    return _canonical(href, base, steps)


_REMEMBERED_LENGTH = 256
"""Only URLs (and bases) this short are remembered: the memory is bounded
(``_remembered``'s 65,536 answers of at most ~1 KB each; about 300 bytes
for a typical link, so some 20 MB when full).  That many hold every link of
the app's 5,000-page crawl of ``million`` (34,000 distinct hrefs) under one
normalization mode, and of a 2,000-page scenario under all four: a crawl
rerun after a knob turn asks them in the same order, and a cache smaller
than one crawl's links would have evicted each answer before it was asked again."""


@functools.lru_cache(maxsize=1 << 16)
def _remembered(href: str, base: str | None, steps: frozenset[str]) -> str:
    return _canonical(href, base, steps)  # an error is not remembered: it is raised afresh each time


def _canonical(href: str, base: str | None, steps: frozenset[str]) -> str:
    if len(href) > MAX_URL_LENGTH:
        raise CanonicalizeError("malformed", _clipped(href))
    plain = False  # href matches _ALREADY_CANONICAL: the risky steps split it without a parse
    if SAFE_STEPS <= steps:
        plain = _ALREADY_CANONICAL.fullmatch(href) is not None
        url = href if plain else _whatwg(href, base)
    else:
        url = _resolve_as_written(href, base, steps)
    if not steps.isdisjoint(RISKY_STEPS):
        url = _risky(url, steps, plain)
    _check_lengths(url, href)
    return url


def _check_lengths(url: str, href: str) -> None:
    """Raise ``malformed`` when the resolved ``url`` is longer than
    :data:`MAX_URL_LENGTH`, or its host name is longer than DNS allows (a
    label over 63 octets, the name over 253); an IP literal has no labels."""
    if len(url) > MAX_URL_LENGTH:
        raise CanonicalizeError("malformed", _clipped(href))
    if len(url) <= MAX_LABEL_LENGTH + 8:  # "https://" and at most 63 more: no host in it can be too long
        return
    host = _host_and_port(url)[0]
    if len(host) <= MAX_LABEL_LENGTH and host.isascii() or host.startswith("["):
        return  # the common case: a short host cannot break either bound
    name = host.encode("utf-8", "surrogatepass").removesuffix(b".")  # octets, without the root's dot
    if len(name) > MAX_HOST_LENGTH or any(len(label) > MAX_LABEL_LENGTH for label in name.split(b".")):
        raise CanonicalizeError("malformed", _clipped(href))


def _clipped(href: str) -> str:
    """``href`` as an error shows it: at most 80 characters."""
    return href if len(href) <= 80 else href[:77] + "..."


def canonical_is_fixpoint(steps: frozenset[str]) -> bool:
    """Whether every output of :func:`canonical_or_raise` under ``steps`` is
    its own canonical form, whatever the base.

    True for ``rfc3986`` (a WHATWG serialization of an http(s) URL re-parses
    to itself), which lets the scheduler skip a link written exactly as a URL
    it has already seen without canonicalizing it.  Not guaranteed for the
    other presets: ``off`` keeps a trailing ``#`` that a second pass drops,
    ``fragment`` keeps spaces a second pass strips, and ``aggressive`` strips
    a trailing slash before removing a ``;jsessionid=`` that ended in one.
    """
    return steps == SAFE_STEPS


def already_canonical_test(steps: frozenset[str]) -> Callable[[str], object] | None:
    """A quick test for hrefs that :func:`canonical_or_raise` would return
    unchanged under ``steps`` (whatever the base), or ``None`` when there is
    no such shortcut.  The scheduler runs it on every link before the full
    canonicalization: most links on a large web are already canonical, and a
    regex match is several times cheaper than a parse."""
    if steps == SAFE_STEPS:
        return _ALREADY_CANONICAL.fullmatch
    if steps < SAFE_STEPS:  # off, fragment, ...: resolved by urllib, as written
        return _ALREADY_AS_WRITTEN.fullmatch
    return None


def hostname_of(url: str) -> str:
    """Lowercase hostname without the port (scope compares these); an IPv6
    literal keeps its brackets, as :func:`split_host` gives it."""
    return split_host(url)[1]


def _whatwg(href: str, base: str | None) -> str:
    try:
        parsed = _WhatwgURL(href, base) if base else _WhatwgURL(href)
    except ValueError:
        raise CanonicalizeError("malformed", href) from None
    if parsed.protocol not in ("http:", "https:"):
        raise CanonicalizeError("scheme", href)
    parsed.hash = ""
    return parsed.href


def _resolve_as_written(href: str, base: str | None, steps: frozenset[str]) -> str:
    """``href`` resolved against ``base`` and put through the steps that are
    on, by :mod:`urllib.parse` (the WHATWG parser normalizes everything at
    once, so it serves only when all the safe steps are on)."""
    href = href.strip()
    url, parts, port = _split_absolute(href, base)
    scheme = parts.scheme.lower()
    netloc = parts.netloc
    if "lowercase" in steps or "default_port" in steps:
        netloc = _normal_netloc(parts, port, scheme, steps)
    path = parts.path
    if "dot_segments" in steps:
        path = remove_dot_segments(path or "/")
    keep_fragment = "fragment" not in steps
    text = urlunsplit(
        SplitResult(
            scheme if "lowercase" in steps else parts.scheme,
            netloc,
            path,
            parts.query,
            parts.fragment if keep_fragment else "",
        )
    )
    if keep_fragment and url.endswith("#") and not text.endswith("#"):
        text += "#"
    if not keep_fragment and "#" in text:
        text = text.split("#", 1)[0]
    return text.rstrip()  # "x #top" -> "x", as a second pass (which strips the href) would give


def _split_absolute(href: str, base: str | None) -> tuple[str, SplitResult, int | None]:
    """``href`` resolved against ``base``, its parts and its port; raises
    :class:`CanonicalizeError` unless it is an http(s) URL with a host."""
    try:
        url = urljoin(base, href) if base else href
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise CanonicalizeError("malformed", href) from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise CanonicalizeError("scheme" if scheme else "malformed", href)
    if not parts.hostname or parts.hostname.isspace():  # "http:// :" names no host (a step would strip it to none)
        raise CanonicalizeError("malformed", href)
    return url, parts, port


def _normal_netloc(parts: SplitResult, port: int | None, scheme: str, steps: frozenset[str]) -> str:
    """The authority with the ``lowercase`` and ``default_port`` steps applied
    (user info kept as written)."""
    userinfo, _, hostport = parts.netloc.rpartition("@")
    if "lowercase" in steps:
        host = parts.hostname or ""
        if ":" in host:  # IPv6 literal: urlsplit drops the brackets
            host = f"[{host}]"
    else:
        host = hostport.rsplit(":", 1)[0] if port is not None or hostport.endswith(":") else hostport
    if port is not None and not ("default_port" in steps and port == DEFAULT_PORTS[scheme]):
        host = f"{host}:{port}"
    return f"{userinfo}@{host}" if userinfo else host


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4: resolve ``.`` and ``..``; ``..`` never climbs above the root."""
    out: list[str] = []
    segments = path.split("/")[1:] if path.startswith("/") else path.split("/")
    for seg in segments:
        if seg == "..":
            if out:
                out.pop()
        elif seg != ".":
            out.append(seg)
    result = "/" + "/".join(out)
    if segments and segments[-1] in (".", "..") and not result.endswith("/"):
        result += "/"
    return result


def _risky(url: str, steps: frozenset[str], plain: bool = False) -> str:
    """The risky steps that are on, in the one order that makes them a
    fixpoint (a second pass changes nothing).  ``plain``: ``url`` matches
    _ALREADY_CANONICAL, so it is split by its first ``/`` and ``?`` (the
    parts urlsplit would give it: no user info, port, ``;`` or fragment)."""
    scheme, netloc, path, query, fragment = _split_plain(url) if plain else urlsplit(url)
    scheme, netloc = _risky_authority(scheme, netloc, steps, plain)
    # (a plain URL's path has no ";" and an empty query has no parameter: nothing to do for those)
    if "session_ids" in steps and not plain:  # before trailing_slash: removing ";jsessionid=1" may expose a slash
        path = _SESSION_IN_PATH.sub("", path)
    if "trailing_slash" in steps:
        path = path.rstrip("/") or "/"
    if query and ("session_ids" in steps or "sort_query" in steps):
        query = _risky_query(query, steps)
    if plain:  # what urlunsplit gives for a host and a path that starts with "/", without its calls
        return f"{scheme}://{netloc}{path}?{query}" if query else f"{scheme}://{netloc}{path}"
    return urlunsplit((scheme, netloc, path, query, fragment))


def _risky_authority(scheme: str, netloc: str, steps: frozenset[str], plain: bool) -> tuple[str, str]:
    """The scheme and authority after the ``https`` and ``www`` steps (a plain URL's host is lowercase)."""
    if "https" in steps and scheme.lower() == "http":
        scheme = "https"
        netloc = netloc.removesuffix(":80")
        if "default_port" in steps:  # http://a.com:443/ -> https://a.com/, as a second pass would give
            netloc = netloc.removesuffix(":443")
    if "www" in steps and (not plain or netloc.startswith("www.")):
        netloc = _without_www(netloc)
    return scheme, netloc


def _split_plain(url: str) -> tuple[str, str, str, str, str]:
    """``urlsplit(url)`` of a URL matching _ALREADY_CANONICAL (``http(s)://host/path[?query]``)."""
    scheme, _, rest = url.partition("://")
    netloc, _, tail = rest.partition("/")
    path, _, query = tail.partition("?")
    return scheme, netloc, "/" + path, query, ""


_SESSION_IN_PATH = re.compile(r";(?:jsessionid|phpsessid|sid|sessionid)=[^/;?]*", re.IGNORECASE)


def _without_www(netloc: str) -> str:
    """Every leading ``www.`` of the host, so a second pass changes nothing --
    but never the whole host: "www." alone (or "www.www.") stays, or the URL
    would lose its host."""
    userinfo, at, hostport = netloc.rpartition("@")
    count = len(_LEADING_WWW.match(hostport)[0]) // 4  # one pass: slicing "www." off one at a time was quadratic
    if count and not hostport[4 * count :].partition(":")[0].strip("."):
        count -= 1  # only dots (or nothing) after the last "www.": keep that one as the host
    return f"{userinfo}{at}{hostport[4 * count :]}"


_LEADING_WWW = re.compile(r"(?:www\.)*", re.IGNORECASE)


def _risky_query(query: str, steps: frozenset[str]) -> str:
    """The query without session-id parameters and/or sorted, as the steps say."""
    params = [p for p in query.split("&") if p]
    if "session_ids" in steps:
        params = [p for p in params if p.split("=", 1)[0].lower() not in SESSION_PARAMS]
    if "sort_query" in steps:
        params.sort()
    return "&".join(params)


_AUTHORITY = re.compile(r"[^:]*://([^/?#]*)")


def _host_and_port(url: str) -> tuple[str, str]:
    """The lowercase host (an IPv6 literal in its brackets) and the port text
    of an absolute URL's authority, user info dropped; ``("", "")`` when it
    has no ``scheme://`` authority."""
    m = _AUTHORITY.match(url)
    if m is None:
        return "", ""
    netloc = m[1]
    if "@" in netloc:
        netloc = netloc.rpartition("@")[2]
    netloc = netloc.lower()
    if netloc.startswith("["):  # an IPv6 literal: "[::1]:8080" -> "[::1]", "8080"
        end = netloc.find("]")
        if end < 0:
            return netloc, ""
        return netloc[: end + 1], netloc[end + 2 :] if netloc[end + 1 : end + 2] == ":" else ""
    host, _, port = netloc.partition(":")
    return host, port


def host_key(url: str) -> str:
    """The one host key of an absolute URL: the server whose politeness
    limits a request to ``url`` counts against.

    Lowercase host, the port only when it is not the scheme's default
    (``http://A.com:80/x`` and ``http://a.com/x`` reach one server, so they
    share one key), no user info, an IPv6 literal in its brackets.  Every
    module that groups URLs by host -- the scheduler, the real crawler, the
    checker's cases, the replay -- derives it here, so a host is the same
    host in every view.  ``""`` when ``url`` has no ``scheme://`` authority.
    """
    host, port = _host_and_port(url)
    return _with_port(url, host, port)


def _with_port(url: str, host: str, port: str) -> str:
    """``host``, with ``:port`` unless that is ``url``'s scheme's default."""
    if not port or (port.isdigit() and int(port) == DEFAULT_PORTS.get(url[: url.index(":")].lower())):
        return host
    return f"{host}:{port}"


host_of = host_key
"""The old name of :func:`host_key` (kept for callers outside the core)."""


def split_host(url: str) -> tuple[str, str]:
    """``(host_key(url), hostname)``: the politeness key and the name scope
    compares, of an absolute URL, without a full parse."""
    host, port = _host_and_port(url)
    return _with_port(url, host, port), host
