"""Page text for content fingerprints, made up on demand from a content key.

A page's text is never stored: it is a function of its *content key*.  Two
pages with the same key (mirrors, exact copies) have the same text, hence the
same fingerprint.  A key of the form ``base + NEAR + variation`` is the text of
``base`` with its last word changed, like a page that differs only in a
footer or a date: a near-duplicate that an exact fingerprint misses.

Why the last word and 128 words: a word-shingle simhash moves by the number
of shingles a change touches, so a change at the edge touches the fewest.
Measured with 3-shingles and 64-bit fingerprints, such near-duplicates are at
most about 7 bits apart while unrelated pages are about 32 (never under 18),
so a simhash distance of 8 separates them cleanly.  Random words have no
boilerplate to outweigh a change, which is why the page is this long.
"""

from __future__ import annotations

import hashlib

NEAR = " ~ "
"""Separator of a near-duplicate key (spaces never occur in URLs)."""

WORDS_PER_PAGE = 128
_SYLLABLES = ("ba", "ce", "di", "fo", "gu", "ha", "je", "ki", "lo", "mu", "na", "pe", "ri", "so", "tu", "vy")
WORDS: tuple[str, ...] = tuple(a + b for a in _SYLLABLES for b in _SYLLABLES)
"""256 made-up words, so one digest byte picks one word."""


def near_key(base: str, variation: str) -> str:
    """The content key of a near-duplicate of the page whose key is ``base``."""
    return f"{base}{NEAR}{variation}"


def content_text(key: str) -> str:
    """Deterministic text of :data:`WORDS_PER_PAGE` words for ``key``."""
    base, _, variation = key.partition(NEAR)
    digest = b"".join(
        hashlib.blake2b(f"{i}:{base}".encode(), digest_size=64).digest() for i in range(WORDS_PER_PAGE // 64)
    )
    words = [WORDS[b] for b in digest]
    if variation:
        pick = hashlib.blake2b(variation.encode(), digest_size=1).digest()[0]
        if WORDS[pick] == words[-1]:
            pick = (pick + 1) % len(WORDS)
        words[-1] = WORDS[pick]
    return " ".join(words)


__all__ = ["NEAR", "WORDS", "WORDS_PER_PAGE", "content_text", "near_key"]
