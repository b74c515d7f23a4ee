"""canonicalize(): each mode reproduces its seed's examples; conformance."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlsim import canonicalize
from crawlsim.core.urls import MODES, STEPS, parse_steps
from tests.conformance import conformance_file

PAGE = "https://a.com/docs/guide/"


# the safe RFC 3986 steps (the crawling guide's asserts)
@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("../api?x=1#top", "https://a.com/docs/api?x=1"),
        ("HTTP://Example.COM:80/a/./b/../c#frag", "http://example.com/a/c"),
        ("https://a.com", "https://a.com/"),
        ("//cdn.a.com:8443/x", "https://cdn.a.com:8443/x"),
        ("mailto:hi@a.com", None),
    ],
)
def test_rfc3986_mode_matches_seed_000(href: str, expected: str | None) -> None:
    assert canonicalize(href, PAGE, mode="rfc3986") == expected


def test_rfc3986_keeps_paths_case_sensitive() -> None:
    assert canonicalize("/Docs", PAGE) != canonicalize("/docs", PAGE)


# the aggressive steps (the textbook's example)
def test_aggressive_mode_matches_seed_002_printed_example() -> None:
    assert canonicalize("http://WWW.Example.com/Page/?sessionid=99&lang=en", mode="aggressive") == (
        "https://example.com/Page?lang=en"
    )


def test_aggressive_mode_answers_seed_002_recall_question() -> None:
    assert canonicalize("HTTP://Site.example/News/?ref=homepage&id=42", mode="aggressive") == (
        "https://site.example/News?id=42&ref=homepage"
    )


def test_aggressive_merges_seed_002_three_spellings() -> None:
    spellings = ["http://www.example.com/page/", "https://example.com/page", "https://example.com/page?sessionid=8827"]
    assert len({canonicalize(u, mode="aggressive") for u in spellings}) == 1
    assert len({canonicalize(u, mode="rfc3986") for u in spellings}) == 3


# the interview's rules: the fragment only
def test_fragment_mode_drops_only_the_fragment() -> None:
    assert canonicalize("http://a.com/x#top", mode="fragment") == "http://a.com/x"
    assert canonicalize("http://A.com:80/./x#top", mode="fragment") == "http://A.com:80/./x"


def test_off_mode_resolves_against_the_page_and_keeps_the_rest() -> None:
    assert canonicalize("x#top", "http://a.com/d/", mode="off") == "http://a.com/d/x#top"
    assert canonicalize("http://A.com:80/x", mode="off") == "http://A.com:80/x"


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("href", ["http://[::1", "http://a.com:99999/", "javascript:void(0)", "", "http://"])
def test_malformed_or_foreign_links_give_none_in_every_mode(mode: str, href: str) -> None:
    # "" is a link to the page itself, which every mode keeps
    assert canonicalize(href, "http://a.com/", mode=mode) in (None, canonicalize("http://a.com/", mode=mode))


def test_each_step_switches_on_its_own() -> None:
    url = "HTTP://WWW.A.com:80/x/./y/?b=2&a=1&sid=9#f"
    assert canonicalize(url, mode="lowercase") == "http://www.a.com:80/x/./y/?b=2&a=1&sid=9#f"
    # the scheme always comes out lowercase: Python's URL splitter reports it so
    assert canonicalize(url, mode="default_port") == "http://WWW.A.com/x/./y/?b=2&a=1&sid=9#f"
    assert canonicalize(url, mode="dot_segments") == "http://WWW.A.com:80/x/y/?b=2&a=1&sid=9#f"
    assert canonicalize(url, mode="rfc3986+sort_query") == "http://www.a.com/x/y/?a=1&b=2&sid=9"
    assert canonicalize(url, mode="rfc3986+session_ids") == "http://www.a.com/x/y/?b=2&a=1"
    assert canonicalize(url, mode="aggressive-www") == "https://www.a.com/x/y?a=1&b=2"
    assert canonicalize(url, mode="aggressive-trailing_slash-https") == "http://a.com/x/y/?a=1&b=2"


def test_unknown_step_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown normalization 'rfc'"):
        parse_steps("rfc")
    assert parse_steps(["www", "fragment"]) == {"www", "fragment"}
    assert set(STEPS) == set(MODES["aggressive"])


def _wpt_cases() -> list[dict]:
    data = conformance_file("urltestdata.json", "WPT URL cases")
    return [c for c in json.loads(data.read_text()) if isinstance(c, dict)]


def test_rfc3986_mode_matches_wpt_http_cases() -> None:
    cases = [c for c in _wpt_cases() if not c.get("failure") and c["href"].startswith(("http:", "https:"))]
    matched = sum(canonicalize(c["input"], c["base"]) == c["href"].split("#", 1)[0] for c in cases)
    print(f"WPT http(s) cases matched by rfc3986 mode: {matched}/{len(cases)}")
    # docs/explanation/fidelity.md's figure, exactly: every one of the 229 (a single miss is a regression)
    misses = [c["input"] for c in cases if canonicalize(c["input"], c["base"]) != c["href"].split("#", 1)[0]]
    assert (matched, len(cases)) == (229, 229), misses


@pytest.mark.parametrize("mode", list(MODES))
def test_no_wpt_input_raises_in_any_mode(mode: str) -> None:
    cases = _wpt_cases()
    assert len(cases) == 869  # docs/explanation/fidelity.md: "no input of the 869 raises in any mode"
    for case in cases:
        result = canonicalize(case["input"], case["base"], mode=mode)
        assert result is None or result.lower().startswith(("http:", "https:"))


def test_wpt_failure_cases_are_rejected() -> None:
    failures = [c for c in _wpt_cases() if c.get("failure") and (c["base"] or "").startswith("http")]
    assert failures
    assert all(canonicalize(c["input"], c["base"]) is None for c in failures)


@given(st.text(max_size=40), st.sampled_from(list(MODES)))
def test_never_raises_on_arbitrary_text(href: str, mode: str) -> None:
    result = canonicalize(href, "http://a.com/b/", mode=mode)
    assert result is None or result.lower().startswith(("http://", "https://"))


@given(st.from_regex(r"https?://[a-z]{1,5}\.com(/[a-z.]{0,4}){0,3}", fullmatch=True))
def test_rfc3986_is_idempotent(url: str) -> None:
    once = canonicalize(url)
    assert once is not None
    assert canonicalize(once) == once


URLISH = st.text(alphabet="aAbB.:/?#&=;%- x1", max_size=24)


@given(URLISH, st.sampled_from(list(MODES)), st.sampled_from(["", "s", ";jsessionid=1", "www."]))
def test_every_mode_is_idempotent(tail: str, mode: str, extra: str) -> None:
    """Canonicalizing a canonical URL changes nothing, in every mode: a seen
    set keyed by canonical URLs must not see one page under two keys."""
    once = canonicalize(f"http://{extra}a.com/{extra}{tail}", mode=mode)
    if once is not None:
        assert canonicalize(once, mode=mode) == once


# The shortcuts the scheduler takes (already_canonical_test) and the risky
# steps' split without a parse must give what the full parse gives.
PLAINISH = st.from_regex(
    r"https?://(www\.){0,2}[a-z0-9-]{1,6}(\.[a-z0-9]{1,4}){0,2}(/[a-zA-Z0-9._~%;?#=&-]{0,6}){1,3}", fullmatch=True
)
STEP_SETS = st.sets(st.sampled_from(STEPS)).map(frozenset)
BASES = st.sampled_from([None, "http://a.com/b/", "https://www.a.com/x?y=1", "HTTP://Q.example:80/./z"])


def _parsed(href: str, base: str | None, steps: frozenset[str]) -> str | None:
    """canonical_or_raise by the full parse only (no shortcut taken)."""
    from crawlsim.core.urls import SAFE_STEPS, CanonicalizeError, _check_lengths, _resolve_as_written, _risky, _whatwg

    try:
        url = _whatwg(href, base) if SAFE_STEPS <= steps else _resolve_as_written(href, base, steps)
        url = _risky(url, steps) if not steps.isdisjoint(RISKY) else url
        _check_lengths(url, href)
    except CanonicalizeError:
        return None
    return url


RISKY = frozenset(STEPS) - MODES["rfc3986"]


@given(PLAINISH, BASES, STEP_SETS)
def test_shortcuts_give_what_the_full_parse_gives(href: str, base: str | None, steps: frozenset[str]) -> None:
    from crawlsim.core.urls import already_canonical_test

    test = already_canonical_test(steps)
    if test is not None and test(href) is not None:
        assert _parsed(href, base, steps) == href
    assert canonicalize(href, base, mode=steps) == _parsed(href, base, steps)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("href", ["http://a.com/x?", "http://a.com/x?b=1&a=2", "http://www.a.com/x/", "https://a.b/"])
def test_shortcuts_on_the_edges(mode: str, href: str) -> None:
    """A bare "?" is kept by the WHATWG parser and dropped by urllib's: each shortcut says as its parser does."""
    from crawlsim.core.urls import already_canonical_test

    steps = parse_steps(mode)
    test = already_canonical_test(steps)
    if test is not None and test(href) is not None:
        assert _parsed(href, PAGE, steps) == href
    assert canonicalize(href, PAGE, mode=steps) == _parsed(href, PAGE, steps)


def test_a_link_in_canonical_form_is_remembered_once_for_every_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer for an href the WHATWG parser would leave as written does
    not depend on its page, so 30 pages linking to it cost one computation."""
    import crawlsim.core.urls as urls

    computed: list[tuple[str, str | None]] = []
    real = urls._canonical

    def counting(href: str, base: str | None, steps: frozenset[str]) -> str:
        computed.append((href, base))
        return real(href, base, steps)

    monkeypatch.setattr(urls, "_canonical", counting)
    href = "http://www.remembered-once.example/Some/Page/?b=2&a=1"  # in no other test: not remembered yet
    for n in range(30):
        assert urls.canonical_or_raise(href, f"http://h{n}.example/p/{n}", MODES["aggressive"]) == (
            "https://remembered-once.example/Some/Page?a=1&b=2"
        )
    assert computed == [(href, None)]


def test_a_canonical_link_under_the_safe_steps_is_its_own_answer_unremembered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under the safe steps alone an href already in canonical form is the
    answer itself: the same as the full parse gives, and not held in the
    memory of answers (a crawl's million distinct links would only churn it)."""
    import crawlsim.core.urls as urls

    asked: list[str] = []

    def remembered(href: str, base: str | None, steps: frozenset[str]) -> str:
        asked.append(href)
        return urls._canonical(href, base, steps)

    monkeypatch.setattr(urls, "_remembered", remembered)
    steps = parse_steps("rfc3986")
    href = "http://safe-steps.example/a/b?x=1"
    assert urls.canonical_or_raise(href, PAGE, steps) == href == urls._canonical(href, PAGE, steps)
    assert urls.canonical_or_raise(href, None, steps) == href  # a seed: no page
    long_page = PAGE + "x" * 300  # a page too long to be remembered: the same answer
    assert urls.canonical_or_raise(href, long_page, steps) == href
    assert asked == []
    too_long_label = "http://" + "a" * 64 + ".example/"  # no shortcut for it: still refused
    with pytest.raises(urls.CanonicalizeError):
        urls.canonical_or_raise(too_long_label, PAGE, steps)
    asked.clear()
    urls.canonical_or_raise("/relative/link", PAGE, steps)  # a relative link still is
    assert asked == ["/relative/link"]
