"""The interface every simulated web offers a driver, and its shared logic.

A *web* answers four questions about any URL, however it is spelled:

* ``links(url)``: the links on that page exactly as written (relative,
  odd-cased, with fragments...), so the crawler's own normalization is what
  gets tested;
* ``response(url, attempt, now)``: status, headers, links and content, after
  the host's failures and throttling;
* ``page_of(url)``: the page's true identity, so a driver can tell when two
  spellings fetched the same page (a duplicate fetch);
* ``robots_txt(host)``: the host's robots.txt, or ``None`` for a 404.

Concrete webs implement three small hooks -- ``_locate`` (URL to identity,
host and a private page key), ``_links_at`` and ``_content_at`` -- and
inherit the rest.  Keeping the page key private lets a generated web parse a
URL once and then work with integers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import NamedTuple, Self

from crawlsim.core.urls import SAFE_STEPS, CanonicalizeError, canonical_or_raise, host_key, parse_steps
from crawlsim.sim.policies import NO_HEADERS, HostPolicies
from crawlsim.sim.text import content_text
from crawlsim.sim.variants import Variants

Loc = tuple[str, str, Hashable | None]
"""What ``_locate`` returns: (identity, host, key).  ``key`` is ``None`` when
the host is known but the page does not exist (a 404)."""

ROBOTS_PATH = "/robots.txt"

PlainPage = Callable[[str], list[str] | None]
"""``url -> links of a plain 200 page, or None``: what :meth:`Web.plain_pages` returns."""
_LOOSE_STEPS = parse_steps("aggressive-https")


class Response:
    """One simulated HTTP response.

    ``links`` are as written on the page (empty unless the status is 200).
    ``content_key`` identifies the text: equal keys mean equal text (mirrors,
    copies).  ``content`` builds the text itself, only when asked for, since
    most simulations never fingerprint.  ``body`` is set when the text is
    given rather than generated (robots.txt, pages written in a scenario).

    A page's content key and body are looked up only when first read: a
    simulation that does not fingerprint content never pays for them (about
    a microsecond a page, at a million pages).
    """

    __slots__ = ("_body", "_content_key", "_source", "headers", "links", "page", "status")

    def __init__(
        self,
        status: int,
        headers: Mapping[str, str],
        links: list[str],
        page: str,
        content_key: str = "",
        body: str | None = None,
        *,
        source: tuple[Web, Hashable] | None = None,
    ) -> None:
        self.status = status
        self.headers = headers
        self.links = links
        self.page = page
        self._content_key = content_key
        self._body = body
        self._source = source

    def _resolve(self) -> None:
        if self._source is not None:
            web, key = self._source
            self._content_key, self._body = web._content_at(key)
            self._source = None

    @property
    def content_key(self) -> str:
        self._resolve()
        return self._content_key

    @property
    def body(self) -> str | None:
        self._resolve()
        return self._body

    @property
    def content(self) -> str:
        """The page text (generated from ``content_key`` unless ``body`` is set)."""
        if self.body is not None:
            return self.body
        return content_text(self.content_key) if self.content_key else ""

    @property
    def ok(self) -> bool:
        return self.status == 200

    def _fields(self) -> tuple[object, ...]:
        return (self.status, dict(self.headers), self.links, self.page, self.content_key, self.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Response) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable links: not hashable

    def __repr__(self) -> str:
        status, headers, links, page, key, body = self._fields()
        return f"Response({status}, {headers}, {links}, {page!r}, {key!r}, {body!r})"


class Unlisted(NamedTuple):
    """Page key of a URL an explicit web links to but has no entry for: a page with no links."""

    page: str


def rfc3986_identity(url: str) -> str | None:
    """The RFC 3986 canonical form of an absolute URL, or ``None``."""
    try:
        return canonical_or_raise(url, None, SAFE_STEPS)
    except CanonicalizeError:
        return None


def loose_identity(url: str) -> str | None:
    """The identity form of generated webs: every spelling variant of a page
    maps to it (http scheme, lowercase host without ``www.`` or default port,
    no dot segments, fragment, trailing slash or session id, sorted query)."""
    try:
        ident = canonical_or_raise(url, None, _LOOSE_STEPS)
    except CanonicalizeError:
        return None
    if ident.startswith("https://"):
        ident = "http://" + ident[8:]
    return ident


class Web(ABC):
    """A simulated web.  See the module docstring for the contract.

    ``seeds`` are the start URLs a scenario uses unless it names its own.
    ``policies`` (robots, failures, throttling) and ``variants`` (spelling
    rewrites of links) apply to the whole web; set them with :meth:`configure`.
    """

    def __init__(self) -> None:
        self.seeds: tuple[str, ...] = ()
        self.policies = HostPolicies()
        self.variants: Variants | None = None
        self.spells_identities = False
        """A web's promise (set by the web, never by a user): every link it
        writes, resolved against the page it is on and put through the RFC
        3986 steps, is unchanged by them and is its own :meth:`page_of` --
        while it has no spelling variants.  What lets
        :meth:`fetches_are_identities` answer without a crawl."""

    def configure(
        self,
        *,
        seeds: tuple[str, ...] | list[str] | None = None,
        policies: HostPolicies | None = None,
        variants: Variants | None = None,
    ) -> Self:
        """Set the start URLs, host policies or link variants (build time only)."""
        if seeds is not None:
            self.seeds = tuple(seeds)
        if policies is not None:
            self.policies = policies
        if variants is not None:
            self.variants = variants if variants.rate else None
        return self

    # -- hooks ---------------------------------------------------------------

    @abstractmethod
    def _locate(self, url: str) -> Loc | None:
        """(identity, host, key) of ``url``, or ``None`` if no host here has it."""

    @abstractmethod
    def _links_at(self, key: Hashable) -> list[str]:
        """A fresh list of the links on the page with this key."""

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        """(content key, given text or ``None``) of the page with this key."""
        return str(key), None

    def _status_at(self, key: Hashable) -> tuple[int, Mapping[str, str]]:
        """Status and headers of an existing page when its host behaves."""
        return 200, NO_HEADERS

    @abstractmethod
    def hosts(self) -> Iterator[str]:
        """Every host this web serves (lazily: a large web has many)."""

    def host_size(self, host: str) -> int | None:
        """Number of pages on ``host``, or ``None`` if unknown or unbounded."""
        return None

    # -- composition support (see compose.py) ---------------------------------

    def _server_of(self, key: Hashable) -> Web:
        """The innermost web that serves the page with this key."""
        return self

    def _serving(self, url: str) -> Web | None:
        """Which part of this web serves ``url`` (``None``: nobody, or a 404)."""
        loc = self._locate(url)
        return None if loc is None or loc[2] is None else self._server_of(loc[2])

    def _count_pages(self, host: str, top: Web) -> int | None:
        """Pages of ``host`` this web contributes when ``top`` routes the URLs
        (so a page two parts could serve is counted once)."""
        return self.host_size(host)

    # -- the public contract ---------------------------------------------------

    def page_of(self, url: str) -> str:
        """The true identity of the page ``url`` names."""
        loc = self._locate(url)
        if loc is not None:
            return loc[0]
        return rfc3986_identity(url) or url

    def fetches_are_identities(self, steps: frozenset[str], seeds: Iterable[object]) -> bool:
        """Whether every URL a crawl from ``seeds`` under normalization
        ``steps`` can fetch is its own :meth:`page_of`.

        Why: a traced run names each fetch's page, and asking ``page_of``
        means the core keeps every page identity it fetched (a dict entry
        per page, a third of what tracing costs at 100,000 pages).  When
        this is true ``page_of(url) == url`` for every fetch, so the core's
        own identity (the URL) names the same pages and finds the same
        (no) duplicate fetches.  Proof: a fetched URL is a seed or a link
        canonicalized under ``steps``; the seeds are checked here, and under
        exactly the RFC 3986 steps the links of a web that
        :attr:`spells_identities` (no variants) canonicalize to themselves.
        """
        if not self.spells_identities or self.variants is not None or steps != SAFE_STEPS:
            return False
        for seed in seeds:
            if not isinstance(seed, str):
                continue  # the core skips it as malformed
            try:
                url = canonical_or_raise(seed, None, steps)
            except CanonicalizeError:
                continue  # skipped, never fetched
            if self.page_of(url) != url:
                return False
        return True

    def page_at(self, url: str) -> str | None:
        """The true identity of the page at ``url``, or ``None`` if the web has
        no page there (fetching it answers 404)."""
        loc = self._locate(url)
        return None if loc is None or loc[2] is None else loc[0]

    def links(self, url: str) -> list[str]:
        """Links on the page at ``url`` as written (``[]`` if there is no page)."""
        loc = self._locate(url)
        if loc is None or loc[2] is None:
            return []
        out = self._links_at(loc[2])
        if self.variants is not None and out:
            out = self.variants.apply(loc[0], out)
        return out

    def robots_txt(self, host: str) -> str | None:
        """robots.txt of ``host`` (lowercase, with any non-default port), or ``None`` for a 404."""
        return self.policies.robots(host)

    def _earlier_answer(self, key: Hashable, attempt: int) -> tuple[int, Mapping[str, str]] | None:
        """The answer to attempt ``attempt`` of the page at ``key`` when it answered
        otherwise before its own status (a recorded 429, then 200); None: its own."""
        return None

    def answers_before(self) -> bool:
        """True when some page answers its first attempts otherwise (:meth:`_earlier_answer`):
        the quick plain answer, which knows no attempt, is then off."""
        return False

    def response(self, url: str, attempt: int = 1, now: float | None = None) -> Response:
        """What fetching ``url`` returns.

        ``attempt`` is the scheduler's ``Fetch.attempt`` (1 for the first
        try), so a retry gets a fresh failure draw; ``now`` (simulated seconds) enables
        time-based throttle bursts.  ``/robots.txt`` is served too, so a
        driver may fetch it like any page.
        """
        if url.endswith(ROBOTS_PATH) or ROBOTS_PATH + "?" in url:
            robots = self._robots_response(url)
            if robots is not None:
                return robots
        loc = self._locate(url)
        if loc is None:
            return Response(404, NO_HEADERS, [], rfc3986_identity(url) or url, "")
        ident, host, key = loc
        if self.policies.active:
            verdict = self.policies.verdict(host, ident, attempt, now)
            if verdict is not None:
                return Response(verdict[0], verdict[1], [], ident, "")
        if key is None:
            return Response(404, NO_HEADERS, [], ident, "")
        earlier = self._earlier_answer(key, attempt)
        if earlier is not None:
            return Response(earlier[0], earlier[1], [], ident, "")
        status, headers = self._status_at(key)
        redirect = 300 <= status < 400  # a redirect's links are where it points (a recorded crawl's Location)
        out = self._links_at(key) if status == 200 or redirect else []
        if self.variants is not None and out:
            out = self.variants.apply(ident, out)
        return Response(status, headers, out, ident, source=(self, key))

    def plain_pages(self) -> PlainPage | None:
        """A quicker :meth:`response` for the common page: ``url -> links``,
        the links of a page that answers 200 with no headers (what
        ``response(url).links`` gives then), or ``None`` for any other answer
        (a 404, a robots.txt path, a page with a status or headers of its
        own), which ``response`` then gives in full.  ``None`` instead of the
        function when the web has active policies (failures, throttling, dead
        links) or spelling variants: each answer then needs a draw.

        Why: a driver that does not fingerprint content needs only these
        links, and should not pay for a :class:`Response` per fetch -- a
        million of them in the ``million`` scenario.  A web may override
        :meth:`_plain_page` for its common URLs (``PowerLawWeb`` reads its own
        spelling without building an identity).
        """
        if self.policies.active or self.variants is not None or self.answers_before():
            return None
        return self._plain_page

    def _plain_page(self, url: str) -> list[str] | None:
        """The links of ``url`` when it answers a plain 200, else ``None``
        (:meth:`plain_pages`; the web has no active policies or variants)."""
        if url.endswith(ROBOTS_PATH) or ROBOTS_PATH + "?" in url:
            return None
        loc = self._locate(url)
        if loc is None or loc[2] is None:
            return None
        key = loc[2]
        status, headers = self._status_at(key)
        return self._links_at(key) if status == 200 and not headers else None

    def _robots_response(self, url: str) -> Response | None:
        ident = rfc3986_identity(url)
        if ident is None:
            return None
        rest = ident.split("://", 1)[1]
        if rest.split("?", 1)[0].partition("/")[2] != ROBOTS_PATH[1:]:
            return None
        text = self.robots_txt(host_key(ident))
        if text is None:
            return Response(404, NO_HEADERS, [], ident, "")
        return Response(200, NO_HEADERS, [], ident, ident, text)


__all__ = ["ROBOTS_PATH", "Loc", "PlainPage", "Response", "Unlisted", "Web", "loose_identity", "rfc3986_identity"]
