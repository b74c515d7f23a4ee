"""HTML for the crawler: links as written and ``<base href>`` (selectolax's
lexbor), a linear nesting pre-scan that refuses nesting bombs, and parsing
off the event loop on a daemon thread with a deadline."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from crawlsim.core.urls import CanonicalizeError, canonical_or_raise
from crawlsim.errors import CrawlsimError
from crawlsim.real.defaults import AS_WRITTEN, INLINE_PARSE_CHARS, INLINE_PARSE_TAGS, MAX_NESTING


def parse_html(text: str, url: str, want_content: bool = False) -> tuple[list[str], str | None, str | None]:
    """(hrefs as written, base URL from ``<base href>`` or None, page text or None).

    The text is ``<main>``'s when the page has one, else ``<body>``'s: the
    part that identifies the page, not its navigation.
    """
    tree = LexborHTMLParser(text)
    base = None
    node = tree.css_first("base[href]")
    if node is not None:
        href = node.attributes.get("href")
        if href:
            try:
                base = canonical_or_raise(href.strip(), url, AS_WRITTEN)
            except CanonicalizeError:
                base = None
    links = [h for a in tree.css("a[href], area[href]") if (h := a.attributes.get("href")) is not None]
    content = None
    if want_content:
        main = tree.css_first("main") or tree.body
        content = main.text(separator=" ", strip=True) if main is not None else ""
    return links, base, content


class ParseError(CrawlsimError):
    """A page that cannot be parsed within the limits (the reason is the message)."""


# Start and end tags of elements that can hold others.  Void elements and
# those a parser closes by itself when a sibling starts (p, li, td, option,
# ...) are left out, so ordinary pages that never close them do not count
# as deep.
_NESTING_TAG = re.compile(
    r"<(/?)(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|"
    r"p|li|dt|dd|option|optgroup|tr|td|th|thead|tbody|tfoot|rt|rp)[\s/>])[a-zA-Z]",
    re.IGNORECASE,
)


def nesting_depth(text: str) -> int:
    """The deepest element nesting the tags of ``text`` imply (start tags minus
    end tags, at the worst point): a linear-time pre-scan, an upper bound
    good enough to refuse a nesting bomb before the parser sees it."""
    depth = deepest = 0
    for slash in _NESTING_TAG.findall(text):
        if slash:
            depth = max(0, depth - 1)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def parse_html_checked(
    text: str, url: str, want_content: bool = False, max_nesting: int | None = MAX_NESTING
) -> tuple[list[str], str | None, str | None]:
    """:func:`parse_html` after the nesting pre-scan (:class:`ParseError` when too deep)."""
    if max_nesting is not None:
        depth = nesting_depth(text)
        if depth > max_nesting:
            raise ParseError(f"too deeply nested: elements {depth} deep (at most {max_nesting} are parsed)")
    return parse_html(text, url, want_content)


async def parse_html_off_loop(
    text: str,
    url: str,
    want_content: bool = False,
    *,
    timeout: float | None,
    max_nesting: int | None = MAX_NESTING,
) -> tuple[list[str], str | None, str | None]:
    """:func:`parse_html_checked` on a thread of its own, so the event loop
    (every other fetch, the politeness clock) keeps running while a large
    page is parsed; :class:`ParseError` ``parse took too long`` after
    ``timeout`` seconds.

    A small page with at most ``max_nesting`` ``<`` in it cannot nest deeper
    than that and parses in about a millisecond: it is parsed at once on the
    loop, since handing it to a thread would cost more.

    A parse cannot be interrupted: one that overruns is abandoned and runs to
    its end on its daemon thread (lexbor releases the GIL, so the crawl goes
    on beside it, and the thread never delays interpreter exit).  The
    nesting pre-scan keeps such overruns to pages that are merely huge.
    """
    if len(text) <= INLINE_PARSE_CHARS and text.count("<") <= (max_nesting or INLINE_PARSE_TAGS):
        # Few tags, so shallow: parsed at once, without the scan or a thread hand-off.
        return parse_html(text, url, want_content)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[list[str], str | None, str | None]] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return  # timed out and abandoned
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result, error = None, None
        try:
            result = parse_html_checked(text, url, want_content, max_nesting)
        except Exception as exc:  # noqa: BLE001 - handed to the waiting coroutine
            error = exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop has closed: nobody is waiting any more

    threading.Thread(target=work, name=f"crawlsim-parse {url[:80]}", daemon=True).start()
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        raise ParseError(f"parse took too long: over {timeout:g} s (abandoned)") from None
