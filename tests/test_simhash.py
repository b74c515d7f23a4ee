"""``simhash`` counts its bits in C code, with the same answer as the
textbook loop (one step per bit per shingle), which took seconds on a 2 MB
page -- inside one ``on_response`` call on the real crawler's event loop."""

from __future__ import annotations

from hashlib import blake2b

from hypothesis import given
from hypothesis import strategies as st

from crawlsim.core.content import normalized_text, simhash


def textbook_simhash(text: str, shingle: int = 3) -> int:
    words = normalized_text(text).split()
    grams = [" ".join(words[i : i + shingle]) for i in range(max(1, len(words) - shingle + 1))]
    weights = [0] * 64
    for gram in grams:
        h = int.from_bytes(blake2b(gram.encode(), digest_size=8).digest(), "little")
        for bit in range(64):
            weights[bit] += 1 if h >> bit & 1 else -1
    return sum(1 << bit for bit in range(64) if weights[bit] > 0)


WORDS = st.lists(st.sampled_from(["a", "b", "c", "Dd", "é", "a\nb", "  ", "x" * 40]), max_size=60)


@given(WORDS.map(" ".join), st.integers(1, 4))
def test_simhash_is_the_textbook_one(text: str, shingle: int) -> None:
    assert simhash(text, shingle) == textbook_simhash(text, shingle)


@given(st.text(max_size=300))
def test_simhash_of_any_text_is_the_textbook_one(text: str) -> None:
    assert simhash(text) == textbook_simhash(text)
