"""Content fingerprints: the same page under different URLs.

Normalization cannot see that two unrelated URLs serve the same article
(mirrors, syndication).  ``exact`` hashes the text after lowercasing and
collapsing whitespace, so case and blank lines do not matter.  ``simhash``
builds a 64-bit fingerprint from word 3-shingles: documents that differ in a
few words land within a small Hamming distance.  Near-duplicate lookup splits
the fingerprint into ``distance + 1`` bands; by the pigeonhole principle two
fingerprints within ``distance`` bits agree exactly on at least one band.
"""

from __future__ import annotations

from hashlib import blake2b


def normalized_text(text: str) -> str:
    return " ".join(text.lower().split())


def exact_fingerprint(text: str) -> int:
    return int.from_bytes(blake2b(normalized_text(text).encode(), digest_size=8).digest(), "little")


def simhash(text: str, shingle: int = 3) -> int:
    """The 64-bit simhash of ``text``'s word ``shingle``-grams: bit ``b`` is
    set when more than half of the grams' hashes have it set.

    Linear, and counted by C code rather than one Python step per bit and
    gram: the hashes are written out as one string of 64 binary digits each,
    and bit ``b``'s count is the number of ``1`` in every 64th character
    (a 2 MB page took seconds the other way, on the crawler's event loop)."""
    words = normalized_text(text).split()
    grams = [" ".join(words[i : i + shingle]) for i in range(max(1, len(words) - shingle + 1))]
    hashes = [int.from_bytes(blake2b(gram.encode(), digest_size=8).digest(), "little") for gram in grams]
    digits = "".join([format(h, "064b") for h in hashes])
    # (the digit of bit b is at 63 - b of each hash's 64: the most significant first)
    return sum(1 << bit for bit in range(64) if 2 * digits[63 - bit :: 64].count("1") > len(hashes))


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


class ContentIndex:
    """Remembers fingerprints of fetched pages; answers "a copy of which URL?"."""

    def __init__(self, mode: str, distance: int = 3) -> None:
        self.mode = mode
        self.distance = distance
        self._exact: dict[int, str] = {}
        bands = distance + 1
        self._band_bits = [(i * 64 // bands, (i + 1) * 64 // bands) for i in range(bands)]
        self._bands: list[dict[int, list[tuple[int, str]]]] = [{} for _ in range(bands)]

    def check_and_add(self, url: str, text: str) -> str | None:
        """The URL this content duplicates, or None (and remember it)."""
        if self.mode == "off":
            return None
        if self.mode == "exact":
            fp = exact_fingerprint(text)
            first = self._exact.get(fp)
            if first is None:
                self._exact[fp] = url
            return first
        fp = simhash(text)
        keys = [fp >> lo & ((1 << (hi - lo)) - 1) for lo, hi in self._band_bits]
        for band, key in zip(self._bands, keys):
            for other, other_url in band.get(key, ()):
                if hamming(fp, other) <= self.distance:
                    return other_url
        for band, key in zip(self._bands, keys):
            band.setdefault(key, []).append((fp, url))
        return None
