"""The vocabulary: every concept a user sees, with its one spelling.

One table, so that ``run``, its ``--json``, the app, the page and the docs
name a thing the same way: :data:`WORDS` says each concept's word, what it
means, and the spellings it must not be shown under (``request`` where the
word is ``fetch``).  ``docs/reference/words.md`` carries :func:`render` of
it (a test checks), and a test walks every command's ``--help``, the
keys and strings of every ``--json``, the app's labels and the see-it
page's text for the spellings it refuses.

It imports nothing of crawlsim, so every layer may use it; the
normalization modes' steps live with the steps in ``core/urls.py`` (a test
checks the two name the same modes).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Word:
    """One concept: the word every surface shows, what it means, and the
    spellings that would name it otherwise."""

    word: str
    meaning: str
    not_spelled: tuple[str, ...] = ()


WORDS: tuple[Word, ...] = (
    Word("page", "one document of the web, its true identity"),
    Word("URL", "a canonical URL string as the crawler keys it; one page may have several (its spellings)"),
    Word("fetch", "one request for a URL (robots.txt fetches are counted apart)", ("request", "requests")),
    Word("HTTP request", "what a server receives on a connection (`crawlsim serve`); the crawler's side is a fetch"),
    Word("duplicate fetch", "a fetch of a page already fetched, or in flight, under another spelling"),
    Word("failed fetch", "a fetch that ended in an HTTP error or a network error after its retries"),
    Word("frontier", "the URLs accepted and waiting to be fetched", ("queue size",)),
    Word("in flight", "the fetches started and not yet answered", ("in-flight requests",)),
    Word("seen set", "every URL the crawler has accepted: the frontier, the ones in flight and the rest"),
    Word("pages reachable", "the web's pages reachable from the seeds by its true links, within the scope"),
    Word("pages fetched", "the pages that answered under some spelling"),
    Word("pages lost", "pages reachable but never fetched under any spelling, each with a reason", ("pages missed",)),
    Word("narrowed", "what the crawl's settings left out: beyond the scope, or lost to caps, depth or robots.txt"),
    Word("lower bound", "a time the crawl could not have finished before, from the run's own figures"),
    Word("depth", "the bound of the longest chain of links, each fetch after the one that found it"),
    Word("busiest host", "the bound of the host whose fetches, spaced by politeness, take longest"),
    Word("work", "the bound of busy worker-seconds divided by the workers"),
    Word("binding", "the largest of the bounds: what holds the crawl, and so the knob to turn"),
    Word("efficiency", "the binding bound divided by the finish time, at most 100%"),
    Word(
        "time left",
        "how long a running crawl still needs: a lower bound over the pages known so far (`time_left_lower`) "
        "and an estimate that guesses the pages not yet found from the discovery rate (`time_left_estimate`)",
        ("ETA",),
    ),
    Word(
        "margin",
        "how far a bound resting on something measured may sit above the real finish or time left: for a model "
        "of a real crawl, from the recording's own spread or as its scenario file states it (its bounds are the "
        "model's); for a running "
        "crawl's time left, what the latency floor it assumes adds (`time_left_margin`)",
    ),
    Word("off", "normalization mode: URLs keyed as written"),
    Word("fragment", "normalization mode: drop the #fragment"),
    Word("rfc3986", "normalization mode: the safe steps (lowercase, default_port, dot_segments, fragment)"),
    Word(
        "aggressive",
        "normalization mode: the safe steps and the risky ones (www, https, trailing_slash, sort_query, session_ids)",
    ),
)
"""Every concept a user sees, in the order the docs page lists them."""

NORMALIZATION_MODES: tuple[str, ...] = tuple(w.word for w in WORDS if w.meaning.startswith("normalization mode:"))
"""The named normalization modes, as :data:`WORDS` spells them (``core/urls.py``'s MODES, the same names)."""

BOUNDS = "lower bounds"
"""The short heading over a crawl's three bounds, where a pane is too narrow for :func:`bounds_heading`'s."""


def bounds_heading(*, model: bool = False, short: bool = False) -> str:
    """The heading every surface puts over a crawl's three bounds: ``lower bounds
    on the finish time``; ``lower bounds on the model's finish time`` for a model
    of a real crawl (they are proven for the model, not for the real site); cut
    down to :data:`BOUNDS` (``short``) where a pane has no room, the same words."""
    if short:
        return BOUNDS
    whose = "the model's" if model else "the"
    return f"{BOUNDS} on {whose} finish time"


BINDING_MARK = "<- binding"
"""How a list of the three bounds marks the one that binds (``run``'s table, the
animated picture's legend): beside it, where colour or weight alone may not print."""

SEEN_REST = "fetched, failed or skipped"
"""The seen set beyond the frontier and the fetches in flight, as the app's and the
page's seen-set box say it: URLs fetched (duplicate fetches among them), failed, or
skipped by robots.txt (seen before robots.txt is asked), in the legends' words."""

BEGIN = "<!-- the vocabulary table: crawlsim/words.py renders it -->"
END = "<!-- end of the vocabulary table -->"


def counted(n: int, word: str) -> str:
    """``1 fetch``, ``7 fetches``, ``2 URLs``, ``3 retries``, ``2,360 pages``: a count, its
    thousands separated, and its word (the one count-and-plural rule every surface uses)."""
    if n == 1:
        return f"{n} {word}"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return f"{n:,} {word[:-1]}ies"
    return f"{n:,} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{n:,} {word}s"


def fetches_and_robots(fetches: int, robots: int) -> str:
    """``7 fetches + 1 robots.txt``: one host's fetches counted as the summary counts the
    crawl's (a fetch is a page's; robots.txt fetches apart), the robots.txt part only when
    the host had one."""
    return counted(fetches, "fetch") + (f" + {robots:,} robots.txt" if robots else "")


def signed_percent(share: float) -> str:
    """A signed change as a share, in whole percent when that shows it (``-32%``),
    else one decimal (``-1.4%``), else ``-<0.1%``: never a ``-0%`` that reads as no
    change with a sign (the one rule every surface quoting a change or an error uses)."""
    for text in (f"{share:+.0%}", f"{share:+.1%}"):
        if text not in ("+0%", "-0%", "+0.0%", "-0.0%"):
            return text
    return "0%" if share == 0 else f"{'-' if share < 0 else '+'}<0.1%"


def busiest_host_note(host: str, fetches: int | None = None, robots: int = 0) -> str:
    """``b.com, 6 fetches`` (``a.com, 7 fetches + 1 robots.txt``): the host that sets the
    busiest-host bound and its fetches (:func:`fetches_and_robots`), as every surface writes
    it beside that bound; ``b.com`` alone where one count would not be true (a sweep's
    curve spans several crawls)."""
    return host if fetches is None else f"{host}, {fetches_and_robots(fetches, robots)}"


def per_host_limit(per_host: int | None) -> str:
    """The per-host limit as ``run``'s and ``crawl``'s banners both say it:
    ``per host at most 2 fetches at a time``, or ``no per-host limit``."""
    return f"per host at most {counted(per_host, 'fetch')} at a time" if per_host else "no per-host limit"


def refused() -> dict[str, str]:
    """Each spelling no surface may show -> the word to show instead."""
    return {wrong: w.word for w in WORDS for wrong in w.not_spelled}


def render() -> str:
    """The table as docs/reference/words.md shows it, between :data:`BEGIN` and :data:`END`."""
    rows = [BEGIN, "", "| word | means | never shown as |", "| --- | --- | --- |"]
    for w in WORDS:
        never = ", ".join(f"`{s}`" for s in w.not_spelled)
        rows.append(f"| **{w.word}** | {w.meaning} | {never} |")
    return "\n".join([*rows, "", END])


__all__ = [
    "BEGIN", "BINDING_MARK", "BOUNDS", "END", "NORMALIZATION_MODES", "SEEN_REST", "WORDS", "Word", "bounds_heading",
    "busiest_host_note", "counted", "fetches_and_robots", "per_host_limit", "refused", "render", "signed_percent",
]
