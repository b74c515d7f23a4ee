"""Generated webs: pages computed on demand from a seed, nothing stored per link.

Both kinds number their pages so that every page is linked from a "parent"
(page ``k`` of a host is a child of page ``(k - 1) // branching``, and the
home page of host ``i`` a child of host ``(i - 1) // host_branching``).  That
guarantees every page is reachable from the seeds whatever the random links
do, so a complete crawl has a known answer: every page.

Random links come from one 64-bit hash of (seed, page) stepped with a linear
congruential generator -- a few hundred nanoseconds per link, against
several microseconds for ``random.Random`` -- because link generation is the
floor of a million-page simulation.

Content: a fraction ``duplicate_rate`` of pages repeat their parent's text
exactly, and ``near_duplicate_rate`` repeat it with two words changed.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Hashable, Iterator, Mapping

from crawlsim.sim.hashing import LCG_A, LCG_C, M64, mix64, salt_of, stable_hash, unit
from crawlsim.sim.text import near_key
from crawlsim.sim.web import Loc, Web, loose_identity, rfc3986_identity

_M32 = 0xFFFFFFFF


def _check_rate(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name}: expected a rate between 0 and 1, got {value!r}")


class _DupMixin:
    """Exact and near-duplicate content, decided per page by a hash."""

    _dup_rate: float
    _near_rate: float
    _dup_salt: int

    def _dup_kind(self, h: int) -> str:
        """``"dup"``, ``"near"`` or ``""`` for the page whose hash is ``h``."""
        if not (self._dup_rate or self._near_rate):
            return ""
        u = unit(mix64(h ^ self._dup_salt))
        if u < self._dup_rate:
            return "dup"
        if u < self._dup_rate + self._near_rate:
            return "near"
        return ""


class SiteTreeWeb(_DupMixin, Web):
    """One host whose pages form a tree: ``branching`` children per page, down
    to ``depth`` levels below the home page.

    Paths are the child numbers: ``/``, ``/0``, ``/0/2``, ...  Each page links
    (root-relative) to its children, then its parent, then home.
    """

    def __init__(
        self,
        host: str = "a.com",
        branching: int = 3,
        depth: int = 3,
        *,
        seed: int = 0,
        duplicate_rate: float = 0.0,
        near_duplicate_rate: float = 0.0,
    ) -> None:
        super().__init__()
        if branching < 1 or depth < 0:
            raise ValueError(f"expected branching >= 1 and depth >= 0, got {branching}, {depth}")
        _check_rate("duplicate_rate", duplicate_rate)
        _check_rate("near_duplicate_rate", near_duplicate_rate)
        self.host = host.lower()
        self.branching = branching
        self.depth = depth
        self._prefix = f"http://{self.host}"
        self._path_re = re.compile(re.escape(self._prefix) + r"/((?:0|[1-9]\d*)(?:/(?:0|[1-9]\d*))*)?")
        self._dup_rate = duplicate_rate
        self._near_rate = near_duplicate_rate
        self._dup_salt = salt_of(seed, "duplicates")
        home = self._prefix + "/"
        self.seeds = (home,)
        # Links are root-relative paths of digits: resolved on this host they
        # keep its spelling, so they are identities when the home URL is canonical.
        # Only this class's own links: a subclass may write others, so it promises
        # nothing unless it says so itself.
        self.spells_identities = type(self) is SiteTreeWeb and rfc3986_identity(home) == home

    def _locate(self, url: str) -> Loc | None:
        m = self._path_re.fullmatch(url)
        ident = url
        if m is None:
            loose = loose_identity(url)
            if loose is None or not (loose == self._prefix or loose.startswith(self._prefix + "/")):
                return None
            ident = loose
            m = self._path_re.fullmatch(ident)
            if m is None:
                return ident, self.host, None
        key = tuple(int(s) for s in m[1].split("/")) if m[1] else ()
        if len(key) > self.depth or any(c >= self.branching for c in key):
            return ident, self.host, None
        return ident, self.host, key

    def _links_at(self, key: Hashable) -> list[str]:
        path: tuple[int, ...] = key  # type: ignore[assignment]
        here = "".join(f"/{c}" for c in path)
        out = [f"{here}/{c}" for c in range(self.branching)] if len(path) < self.depth else []
        if path:
            parent = "".join(f"/{c}" for c in path[:-1]) or "/"
            out.append(parent)
            if parent != "/":
                out.append("/")
        return out

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        path: tuple[int, ...] = key  # type: ignore[assignment]
        return self._content_key(path), None

    def _content_key(self, path: tuple[int, ...]) -> str:
        ident = self._prefix + ("".join(f"/{c}" for c in path) or "/")
        kind = self._dup_kind(stable_hash(ident)) if path else ""
        if kind == "dup":
            return self._content_key(path[:-1])
        if kind == "near":
            return near_key(self._content_key(path[:-1]), ident)
        return ident

    def hosts(self) -> Iterator[str]:
        return iter((self.host,))

    def host_size(self, host: str) -> int | None:
        if host.lower() != self.host:
            return None
        b, d = self.branching, self.depth
        return d + 1 if b == 1 else (b ** (d + 1) - 1) // (b - 1)


class PowerLawWeb(_DupMixin, Web):
    """Many hosts of Zipf-skewed sizes, mostly intra-host links plus some
    cross-host ones; scales lazily to millions of pages.

    ``host_pages`` gives some hosts (by number) their own page count: the
    others keep their Zipf share of ``pages``, so "50 hosts of 40 pages, one
    of 400" is ``pages = 2000, hosts = 50, zipf = 0, host_pages = {0: 400}``
    (``page_count`` is then the new total).

    Host ``i`` is ``h{i}.example`` with pages ``/`` (page 0) and ``/p1`` ..
    ``/p{size-1}``; host 0 is the largest.  Page ``k`` links to: its host's home,
    its tree parent, its tree children, and ``extra_links`` random targets --
    each one on another host with probability ``cross_rate`` (a uniformly
    random page of the whole web, so big hosts draw more inlinks), otherwise
    a page of its own host drawn with a bias toward low numbers (popular
    pages get many inlinks: a heavy-tailed in-degree).  A home page also
    links to ``host_branching`` other homes, which makes every host reachable
    from ``http://h0.example/``.
    """

    def __init__(
        self,
        pages: int = 10_000,
        hosts: int = 100,
        *,
        seed: int = 0,
        zipf: float = 1.0,
        branching: int = 4,
        host_branching: int = 8,
        extra_links: int = 3,
        cross_rate: float = 0.1,
        duplicate_rate: float = 0.0,
        near_duplicate_rate: float = 0.0,
        host_pages: Mapping[int, int] | None = None,
    ) -> None:
        super().__init__()
        if hosts < 1 or pages < hosts:
            raise ValueError(f"expected at least one page per host, got pages={pages}, hosts={hosts}")
        if pages >= 1 << 32 or hosts >= 1 << 31:
            raise ValueError("expected fewer than 2**32 pages")
        if zipf < 0:
            raise ValueError(f"zipf: expected an exponent >= 0, got {zipf!r}")
        if branching < 1 or host_branching < 1 or extra_links < 0:
            raise ValueError("expected branching >= 1, host_branching >= 1 and extra_links >= 0")
        _check_rate("cross_rate", cross_rate)
        _check_rate("duplicate_rate", duplicate_rate)
        _check_rate("near_duplicate_rate", near_duplicate_rate)
        self.page_count = pages
        self.host_count = hosts
        self.zipf = zipf
        self.branching = branching
        self.host_branching = host_branching
        self.extra_links = extra_links
        self.cross_rate = cross_rate
        self._sizes, self._offsets = _zipf_sizes(pages, hosts, zipf)
        if host_pages:
            self._sizes, self._offsets = _with_sizes(self._sizes, host_pages)
            self.page_count = self._offsets[hosts]
            if self.page_count >= 1 << 32:
                raise ValueError("expected fewer than 2**32 pages")
        self._salt = salt_of(seed, "power-law")
        self._cross_cut = int(cross_rate * 1024)
        self._dup_rate = duplicate_rate
        self._near_rate = near_duplicate_rate
        self._dup_salt = salt_of(seed, "duplicates")
        self._url_re = re.compile(r"http://h(0|[1-9]\d*)\.example/(?:p([1-9]\d*))?")
        self._host_re = re.compile(r"(?:www\.)?h(0|[1-9]\d*)\.example")
        self.seeds = ("http://h0.example/",)
        # Every link is ``url(host, page)`` of a page that exists -- this class's
        # links; a subclass may write others, so it promises nothing unless it says so.
        self.spells_identities = type(self) is PowerLawWeb
        self._homes = [f"http://h{i}.example/" for i in range(hosts)]
        """Every host's home URL, built once: about 70 bytes a host, a tenth
        of what the crawler keeps per page, and most links start with one."""

    @staticmethod
    def url(host: int, page: int) -> str:
        """The canonical URL of page ``page`` of host ``host``."""
        return f"http://h{host}.example/p{page}" if page else f"http://h{host}.example/"

    def size_of(self, host: int) -> int:
        """Page count of host number ``host``."""
        return self._sizes[host]

    def _locate(self, url: str) -> Loc | None:
        m = self._url_re.fullmatch(url)
        ident = url
        if m is None:
            loose = loose_identity(url)
            if loose is None:
                return None
            m = self._url_re.fullmatch(loose)
            if m is None:
                rest = loose[7:] if loose.startswith("http://") else ""
                hm = self._host_re.fullmatch(rest.split("/", 1)[0])
                if hm is None or int(hm[1]) >= self.host_count:
                    return None
                return loose, f"h{hm[1]}.example", None
            ident = loose
        h = int(m[1])
        if h >= self.host_count:
            return None
        k = int(m[2]) if m[2] else 0
        host = f"h{h}.example"
        if k >= self._sizes[h]:
            return ident, host, None
        return ident, host, (h << 32) | k

    def _plain_page(self, url: str) -> list[str] | None:
        """Web's ``_plain_page`` for this web's own spelling of a URL (what
        the crawler fetches almost always): one match, no identity or host
        string built; any other spelling takes the general path."""
        m = self._url_re.fullmatch(url)
        if m is None:
            return super()._plain_page(url)
        host, page = m.group(1, 2)
        h = int(host)
        if h >= self.host_count:
            return None
        k = int(page) if page else 0
        return self._links_at((h << 32) | k) if k < self._sizes[h] else None

    def _links_at(self, key: Hashable) -> list[str]:
        # The floor of a million-page simulation: each string is one
        # f-string on a precomputed home URL, and a home page's links to
        # other homes are a slice of those.
        g: int = key  # type: ignore[assignment]
        h = g >> 32
        k = g & _M32
        size = self._sizes[h]
        homes = self._homes
        base = homes[h]
        b = self.branching
        if k:
            parent = (k - 1) // b
            out = [base, f"{base}p{parent}"] if parent else [base]
        else:
            first = h * self.host_branching + 1
            out = homes[first : first + self.host_branching]
        first = k * b + 1
        last = first + b
        if last > size:  # noqa: PLR1730 (hot path: no call)
            last = size
        for c in range(first, last):
            out.append(f"{base}p{c}")
        x = mix64(self._salt ^ g)
        cut = self._cross_cut
        pages = self.page_count
        offsets = self._offsets
        for _ in range(self.extra_links):
            x = (x * LCG_A + LCG_C) & M64
            u = (x >> 22) & _M32
            if (x >> 54) < cut:
                t = (u * pages) >> 32
                th = bisect_right(offsets, t) - 1
                tk = t - offsets[th]
                out.append(f"{homes[th]}p{tk}" if tk else homes[th])
            else:
                t = (((u * u) >> 32) * size) >> 32
                out.append(f"{base}p{t}" if t else base)
        return out

    def _content_at(self, key: Hashable) -> tuple[str, str | None]:
        g: int = key  # type: ignore[assignment]
        return self._content_key(g), None

    def _content_key(self, g: int) -> str:
        h, k = g >> 32, g & _M32
        kind = self._dup_kind(g ^ self._salt) if k else ""
        if kind == "dup":
            return self._content_key((h << 32) | (k - 1) // self.branching)
        if kind == "near":
            return near_key(self._content_key((h << 32) | (k - 1) // self.branching), self.url(h, k))
        return self.url(h, k)

    def hosts(self) -> Iterator[str]:
        return (f"h{i}.example" for i in range(self.host_count))

    def host_size(self, host: str) -> int | None:
        m = self._host_re.fullmatch(host.lower())
        if m is None or int(m[1]) >= self.host_count:
            return None
        return self._sizes[int(m[1])]


def _with_sizes(sizes: array[int], override: Mapping[int, int]) -> tuple[array[int], array[int]]:
    """``sizes`` with some hosts' counts replaced, and the running offsets again."""
    out = array("q", sizes)
    for host, count in override.items():
        if not 0 <= host < len(out) or count < 1:
            raise ValueError(f"host {host}: expected a host of the web and at least one page, got {count}")
        out[host] = count
    offsets = array("q", bytes(8 * (len(out) + 1)))
    running = 0
    for i, size in enumerate(out):
        offsets[i] = running
        running += size
    offsets[len(out)] = running
    return out, offsets


def _zipf_sizes(pages: int, hosts: int, s: float) -> tuple[array[int], array[int]]:
    """Host sizes proportional to ``1 / (rank + 1) ** s`` (at least one page
    each, summing to ``pages``) and their running offsets; two flat arrays,
    so ten thousand hosts cost about 160 KB."""
    total_w = 0.0
    for i in range(hosts):
        total_w += (i + 1) ** -s
    spare = pages - hosts
    sizes = array("q", bytes(8 * hosts))
    used = 0
    for i in range(hosts):
        extra = int(spare * ((i + 1) ** -s) / total_w)
        sizes[i] = 1 + extra
        used += extra
    for i in range(spare - used):
        sizes[i % hosts] += 1
    offsets = array("q", bytes(8 * (hosts + 1)))
    running = 0
    for i in range(hosts):
        offsets[i] = running
        running += sizes[i]
    offsets[hosts] = running
    return sizes, offsets


__all__ = ["PowerLawWeb", "SiteTreeWeb"]
