"""URL fuzzing: canonicalize never raises, and its output is its own
canonical form, in every mode and every combination of steps."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from crawlsim.core.urls import MODES, STEPS, canonicalize

SCHEMES = ["http", "https", "HTTP", "HtTpS", "ftp", "mailto", "javascript", "", "http:", "h\tttp"]
HOSTS = [
    "a.com", "A.COM", "www.a.com", "WWW.A.com", "www.", "www.www.", "www.www", "www", "www.a.com.",
    "xn--bcher-kva.de", "bücher.de", "ÄÖ.example", "127.0.0.1", "0x7f.1", "[::1]", "[::FFFF:1.2.3.4]", "[::1",
    "user:pw@a.com", "@a.com", "a.com.", "a..com", "-a.com", "a_b.com", "%41.com", "a.com%2F", "", " ", "a com",
]
PORTS = ["", ":", ":80", ":443", ":8080", ":0080", ":65535", ":99999", ":x"]
SEGMENTS = ["a", "b", ".", "..", "%2e", "%2E%2e", "", "x y", "%zz", "%41", "é", ";jsessionid=1", "a;sid=2", "\\", "//"]
QUERIES = ["", "?", "?b=2&a=1", "?sessionid=9&lang=en", "?a=%20", "?q=a b", "?&&", "?sid=1&SID=2"]
FRAGMENTS = ["", "#", "#top", "#a#b", "# x"]
SPACE = ["", " ", "\t", "\n", "\r\n", " \t "]


@st.composite
def url_like(draw: st.DrawFn) -> str:
    """Absolute, relative and broken URLs built from parts that have tripped parsers."""
    shape = draw(st.sampled_from(["absolute", "absolute", "relative", "net-path", "raw"]))
    if shape == "raw":
        return draw(st.text(max_size=30))
    path = "/".join(draw(st.lists(st.sampled_from(SEGMENTS), max_size=5)))
    path = ("/" if draw(st.booleans()) else "") + path
    tail = path + draw(st.sampled_from(QUERIES)) + draw(st.sampled_from(FRAGMENTS))
    if shape == "relative":
        body = tail
    else:
        authority = draw(st.sampled_from(HOSTS)) + draw(st.sampled_from(PORTS))
        body = "//" + authority + tail
        if shape == "absolute":
            body = draw(st.sampled_from(SCHEMES)) + ":" + body
    return draw(st.sampled_from(SPACE)) + body + draw(st.sampled_from(SPACE))


STEP_SETS = st.one_of(st.sampled_from(list(MODES)), st.frozensets(st.sampled_from(STEPS)))
BASES = st.one_of(st.none(), st.sampled_from(["http://a.com/d/e", "https://WWW.b.org:443/x/?q#f", "http://[::1]:9/"]))
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""README's command: 300 random URLs per run (a different 300 each run)."""
FUZZ_EXHAUSTIVE = settings(FUZZ, max_examples=3000)
"""The exhaustive step (``-m exhaustive``, run by .ci/run): 3,000."""


def check_canonical(href: str, base: str | None, steps: object) -> None:
    once = canonicalize(href, base, steps)  # type: ignore[arg-type]
    if once is None:
        return
    assert isinstance(once, str) and once.split(":", 1)[0].lower() in ("http", "https")
    twice = canonicalize(once, None, steps)  # type: ignore[arg-type]
    assert twice == once, f"{href!r} -> {once!r} -> {twice!r}"


@FUZZ
@given(href=url_like(), base=BASES, steps=STEP_SETS)
@example(href="http://a.com:443/", base=None, steps="aggressive")
@example(href="http://www./", base=None, steps="aggressive")
@example(href="http://www.www./x", base=None, steps="aggressive")
@example(href="http:// ", base=None, steps="off")
@example(href="http:// :", base=None, steps=frozenset({"default_port"}))
def test_canonicalize_never_raises_and_is_idempotent(href: str, base: str | None, steps: object) -> None:
    check_canonical(href, base, steps)


@pytest.mark.exhaustive
@FUZZ_EXHAUSTIVE
@given(href=url_like(), base=BASES, steps=STEP_SETS)
def test_canonicalize_never_raises_and_is_idempotent_exhaustive(href: str, base: str | None, steps: object) -> None:
    check_canonical(href, base, steps)


@pytest.mark.parametrize(
    ("href", "mode", "expected"),
    [
        ("http://a.com:443/", "aggressive", "https://a.com/"),
        ("http://www./", "aggressive", "https://www./"),
        ("http://www.www./x", "aggressive", "https://www./x"),
        ("http://www.www.a.com/x", "aggressive", "https://a.com/x"),
        ("http:// ", "off", None),
        ("http:// :80", "off", None),  # a blank host: default_port would strip it to no host at all
    ],
)
def test_the_four_cases_found_by_hand(href: str, mode: str, expected: str | None) -> None:
    assert canonicalize(href, mode=mode) == expected
