"""Crawler options: one frozen record, validated once, shared by every driver.

Names follow Scrapy where Scrapy has one (``CONCURRENT_REQUESTS`` ->
``workers``, ``CONCURRENT_REQUESTS_PER_DOMAIN`` -> ``per_host``,
``DOWNLOAD_DELAY`` -> ``gap``, ``RANDOMIZE_DOWNLOAD_DELAY`` ->
``randomize_gap``, ``DEPTH_LIMIT`` -> ``depth_limit``, ``ROBOTSTXT_OBEY`` ->
``robots``, ``RETRY_TIMES`` -> ``max_retries``, ``RETRY_HTTP_CODES`` ->
``retry_statuses``, ``USER_AGENT`` -> ``user_agent``).  Scrapy has no
token bucket: ``rate`` and ``burst`` are golang.org/x/time/rate's
``Limiter(r, b)`` and nginx ``limit_req``'s ``rate``/``burst``.

Every value is checked here, once, by one table of rules (:data:`RULES`):
the right type, finite, within a range a person would find sensible,
regular expressions compiled, and a Bloom filter's memory estimated before
it is built.  The scenario loader and the command line hand their values to
this same table (:func:`option_from_text` reads a command-line string), so
``--gap inf``, ``--set gap=inf`` and ``gap = inf`` in a file are refused
with the same words.  Bad values raise :class:`OptionError`, whose message
names the key, what was expected and what was given, and suggests the
nearest known key for a typo.
"""

from __future__ import annotations

import ast
import difflib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, cast

from crawlsim.core.limits import bloom_bytes, memory_budget, show_bytes
from crawlsim.core.priorities import PRIORITIES, NamedPriority, priority_named
from crawlsim.core.urls import MODES, STEPS, parse_steps
from crawlsim.errors import UsageError

ORDERS = ("bfs", "dfs", "lifo", "best")
FRONTIERS = ("per-host", "fifo", "download-slots", "download-slots-one-queue")
SCOPES = ("host", "domain", "any")
SEEN_KINDS = ("exact", "hash", "bloom")
CONTENT_DEDUP = ("off", "exact", "simhash")

Priority = Callable[[str, int], float]
"""Best-first priority: ``priority(url, depth)``; lower values go first."""

_NONE_WORDS = ("none", "null")
"""How text (a flag, ``--set``, a TOML string) writes "no value" for an optional option."""


class OptionError(UsageError):
    """A crawler option has a bad name or value.  ``key`` names it."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


def show_value(value: object) -> str:
    """A value as an error message quotes it: TOML spelling (``"fast"``,
    ``true``), and the kind of a table or list rather than its contents."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = json.dumps(value)
        return text if len(text) <= 80 else text[:76] + '..."'
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple, set, frozenset)):
        return "a list"
    if value is None:
        return "nothing"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# -- the rules ---------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """What one option accepts.  ``kind`` is one of ``int``, ``number``,
    ``bool``, ``choice``, ``text``, ``regexes``, ``statuses``, ``normalize``,
    ``priority`` (a name of :data:`~crawlsim.core.priorities.PRIORITIES` or a
    function); ``low``/``high`` bound numbers (inclusive); ``optional``
    allows ``None``; ``unit`` words the expectation (``"seconds"``)."""

    kind: str
    low: float | None = None
    high: float | None = None
    optional: bool = False
    choices: tuple[str, ...] = ()
    unit: str = ""


MAX_SETTING_SECONDS = 86_400
"""Longest duration a crawl's settings give, whether options or a scenario file's values (a day):
beyond it a simulated crawl's clock and its printed figures stop meaning anything.  How long a
real command may run is another limit (``crawlsim.real.flags.MAX_RUN_SECONDS``)."""
MAX_PATTERNS = 100
MAX_PATTERN_LENGTH = 1000
MAX_USER_AGENT = 200

RULES: dict[str, Rule] = {
    "workers": Rule("int", 1, 100_000),
    "per_host": Rule("int", 1, 100_000, optional=True),
    "gap": Rule("number", 0, 3600, unit="seconds"),
    "randomize_gap": Rule("bool"),
    "rate": Rule("number", 0.0001, 100_000, optional=True, unit="requests a second"),
    "burst": Rule("int", 1, 100_000),
    "order": Rule("choice", choices=ORDERS),
    "priority": Rule("priority", optional=True),
    "frontier": Rule("choice", choices=FRONTIERS),
    "normalize": Rule("normalize"),
    "scope": Rule("choice", choices=SCOPES),
    "allow": Rule("regexes"),
    "deny": Rule("regexes"),
    "depth_limit": Rule("int", 0, 100_000, optional=True),
    "max_pages": Rule("int", 1, 10**10, optional=True),
    "max_pages_per_host": Rule("int", 1, 10**10, optional=True),
    "robots": Rule("bool"),
    "user_agent": Rule("text"),
    "max_crawl_delay": Rule("number", 0, MAX_SETTING_SECONDS, unit="seconds"),
    "max_retry_after": Rule("number", 0, MAX_SETTING_SECONDS, unit="seconds"),
    "max_retries": Rule("int", 0, 100),
    "retry_statuses": Rule("statuses"),
    "backoff_base": Rule("number", 0, 3600, unit="seconds"),
    "backoff_max": Rule("number", 0, MAX_SETTING_SECONDS, unit="seconds"),
    "seen": Rule("choice", choices=SEEN_KINDS),
    "bloom_capacity": Rule("int", 1, 10**18),
    "bloom_error_rate": Rule("number", 1e-9, 0.5),
    "content_dedup": Rule("choice", choices=CONTENT_DEDUP),
    "simhash_distance": Rule("int", 0, 64),
    "seed": Rule("int", -(2**63), 2**63 - 1),
    "record_events": Rule("bool"),
}
"""One rule per option: the single place a value's type and range are decided."""


def _bound(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) and abs(x) < 10**12 else f"{x:g}"


def check_option(key: str, value: Any) -> Any:
    """``value`` as option ``key`` stores it (a list becomes a tuple, ...),
    or :class:`OptionError` saying what was expected and what was given."""
    rule = RULES.get(key)
    if rule is None:
        raise OptionError(key, f"unknown crawler option{did_you_mean(key, RULES)}")
    if value is None and rule.optional:
        return None
    return _CHECKS[rule.kind](key, value, rule)


def _check_int(key: str, value: Any, rule: Rule) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 1e6 in a file means a million
    if isinstance(value, bool) or not isinstance(value, int):
        none = " (or none)" if rule.optional else ""
        raise OptionError(key, f"expected a whole number{none}, got {show_value(value)}")
    _in_range(key, value, rule, "a whole number")
    return value


def _check_number(key: str, value: Any, rule: Rule) -> float:
    what = f"a number of {rule.unit}" if rule.unit else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OptionError(key, f"expected {what}, got {show_value(value)}")
    if not math.isfinite(value):
        raise OptionError(key, f"expected a finite {what[2:]}, got {show_value(value)}")
    _in_range(key, value, rule, what)
    return value


def _check_bool(key: str, value: Any, rule: Rule) -> bool:
    if not isinstance(value, bool):
        raise OptionError(key, f"expected true or false, got {show_value(value)}")
    return value


def _check_choice(key: str, value: Any, rule: Rule) -> str:
    if not isinstance(value, str) or value not in rule.choices:
        hint = did_you_mean(value, rule.choices) if isinstance(value, str) else ""
        raise OptionError(key, f"expected one of {', '.join(rule.choices)}; got {value!r}{hint}")
    return value


def _check_normalize(key: str, value: Any, rule: Rule) -> str | frozenset[str]:
    if isinstance(value, (list, tuple, set, frozenset)):
        if not all(isinstance(v, str) for v in value):
            bad = next(v for v in value if not isinstance(v, str))
            raise OptionError(key, f"expected a mode name or a list of step names (strings), got {show_value(bad)}")
        value = frozenset(value)
    elif not isinstance(value, str):
        raise OptionError(key, f"expected a mode such as \"rfc3986\" or a list of steps, got {show_value(value)}")
    try:
        parse_steps(value)
    except ValueError as exc:
        raise OptionError(key, f"{exc}{_normalize_hint(value)}") from None
    return value


def _normalize_hint(value: str | frozenset[str]) -> str:
    """``"; did you mean 'aggressive'?"`` for the first unknown word of a
    mode or step spec (``agressive``, ``rfc3986+sort_qeury``), else ``""``."""
    if isinstance(value, frozenset):
        words = sorted(value)
    else:
        words = [re.sub(r"^[+-]", "", t).strip() for t in re.findall(r"[+-]?[^+-]+", value)]
    unknown = [w for w in words if w not in MODES and w not in STEPS]
    return did_you_mean(unknown[0], [*MODES, *STEPS]) if unknown else ""


def _check_priority(key: str, value: Any, rule: Rule) -> Callable[..., Any]:
    """A name of :data:`~crawlsim.core.priorities.PRIORITIES` (a fresh copy of
    it), a named priority, or any function ``priority(url, depth) -> number``."""
    if isinstance(value, str):
        name = value.strip()
        if name not in PRIORITIES:
            names = ", ".join(PRIORITIES)
            hint = did_you_mean(name, PRIORITIES)
            raise OptionError(key, f"expected one of {names} (or a function in Python); got {value!r}{hint}")
        return priority_named(name)
    if isinstance(value, NamedPriority):
        return value.fresh()
    if not callable(value):
        names = ", ".join(PRIORITIES)
        raise OptionError(
            key, f"expected a priority name ({names}) or a function priority(url, depth), got {show_value(value)}"
        )
    return value  # type: ignore[no-any-return]


def _in_range(key: str, value: float, rule: Rule, what: str) -> None:
    if rule.low is not None and value < rule.low:
        raise OptionError(key, f"expected {what} >= {_bound(rule.low)}, got {show_value(value)}")
    if rule.high is not None and value > rule.high:
        raise OptionError(key, f"expected {what} <= {_bound(rule.high)}, got {show_value(value)}")


def _check_user_agent(key: str, value: Any, rule: Rule) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OptionError(key, f"expected a non-empty string, got {show_value(value)}")
    if len(value) > MAX_USER_AGENT or not value.isprintable():
        raise OptionError(
            key, f"expected printable text of at most {MAX_USER_AGENT} characters (it is sent as a header), got {show_value(value)}"
        )
    return value


def _check_regexes(key: str, value: Any, rule: Rule) -> tuple[str, ...]:
    patterns = (value,) if isinstance(value, str) else value
    if not isinstance(patterns, (list, tuple)):
        raise OptionError(key, f"expected a list of regular expressions, got {show_value(value)}")
    if len(patterns) > MAX_PATTERNS:
        raise OptionError(key, f"expected at most {MAX_PATTERNS} regular expressions, got {len(patterns)}")
    for i, pattern in enumerate(patterns):
        where = f"{key}[{i}]"
        if not isinstance(pattern, str):
            raise OptionError(where, f"expected a regular expression (a string), got {show_value(pattern)}")
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise OptionError(where, f"expected a regular expression of at most {MAX_PATTERN_LENGTH} characters")
        try:
            re.compile(pattern)  # compiled (and cached by re) now, not at crawl start
        except (re.error, RecursionError, OverflowError) as err:
            detail = getattr(err, "msg", None) or "too complex"
            raise OptionError(where, f"expected a regular expression, got {show_value(pattern)} ({detail})") from None
    return tuple(patterns)


def _check_statuses(key: str, value: Any, rule: Rule) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise OptionError(key, f"expected a list of HTTP status codes such as [429, 503], got {show_value(value)}")
    for i, status in enumerate(value):
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise OptionError(f"{key}[{i}]", f"expected an HTTP status code 100-599, got {show_value(status)}")
    return tuple(value)


_CHECKS: dict[str, Callable[[str, Any, Rule], Any]] = {
    "int": _check_int,
    "number": _check_number,
    "bool": _check_bool,
    "choice": _check_choice,
    "text": _check_user_agent,
    "regexes": _check_regexes,
    "statuses": _check_statuses,
    "normalize": _check_normalize,
    "priority": _check_priority,
}
"""Rule kind -> its check: ``check(key, value, rule)`` returns the value as
stored, or raises :class:`OptionError`."""


def option_from_text(key: str, text: str) -> Any:
    """A command-line string as option ``key`` takes it (``"inf"`` is the
    float infinity, which the rule then refuses), checked by :func:`check_option`.
    ``none`` clears an optional option; lists are written ``[429, 503]`` or ``429,503``."""
    rule = RULES.get(key)
    if rule is None:
        raise OptionError(key, f"unknown crawler option{did_you_mean(key, RULES)}")
    raw = text.strip()
    if raw.lower() in _NONE_WORDS and rule.optional:
        return check_option(key, None)
    read = _FROM_TEXT.get(rule.kind)
    return check_option(key, read(raw) if read is not None else raw)


def option_from_value(key: str, value: Any) -> Any:
    """A value from a scenario file (TOML) as option ``key`` takes it.

    TOML has no null, so "no limit" is written as text there, as on the
    command line: ``per_host = "none"`` is ``--per-host none`` is ``--set
    per_host=none`` (``"null"`` too, any case).  Everything else keeps TOML's
    own types -- a file has real numbers, booleans and lists, so ``robots =
    "yes"`` or ``retry_statuses = "429"`` is a mistake to name, not a string
    to guess at -- and goes to :func:`check_option` as it is."""
    rule = RULES.get(key)
    if rule is None:
        raise OptionError(key, f"unknown crawler option{did_you_mean(key, RULES)}")
    if isinstance(value, str) and rule.optional and value.strip().lower() in _NONE_WORDS:
        return check_option(key, None)
    return check_option(key, value)


def _int_from_text(raw: str) -> Any:
    """``1_000`` -> 1000; ``1e6`` -> 1e6 (the int rule takes whole floats); else as written."""
    try:
        return int(raw.replace("_", ""))
    except ValueError:
        return _float_from_text(raw)


def _float_from_text(raw: str) -> Any:
    try:
        return float(raw)
    except ValueError:
        return raw


_FLAGS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


def _bool_from_text(raw: str) -> Any:
    return _FLAGS.get(raw.lower(), raw)


def _list_from_text(raw: str) -> Any:
    """``[...]`` as a Python literal (left as written if it is not one)."""
    if not raw.startswith("["):
        return raw
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return raw


def _statuses_from_text(raw: str) -> Any:
    """``[429, 503]`` or ``429,503``."""
    if raw.startswith("["):
        return _list_from_text(raw)
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    return [int(p) if p.isdigit() else p for p in parts]


def _normalize_from_text(raw: str) -> Any:
    """A mode or step spec as written, or ``["lowercase", ...]`` as a set of steps."""
    value = _list_from_text(raw)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return frozenset(value)
    return value


_FROM_TEXT: dict[str, Callable[[str], Any]] = {
    "int": _int_from_text,
    "number": _float_from_text,
    "bool": _bool_from_text,
    "regexes": _list_from_text,
    "statuses": _statuses_from_text,
    "normalize": _normalize_from_text,
}
"""Rule kind -> how a command-line string is read before its check; kinds
not listed take the string as written."""


# -- the options record ------------------------------------------------------


class _FreshPriority:
    """The descriptor behind :attr:`CrawlOptions.priority`: stores what was
    given and, for a :class:`~crawlsim.core.priorities.NamedPriority`, hands
    every reader a fresh copy.  A named priority may keep state for one crawl
    (``host-round-robin`` counts URLs per host); each scheduler reads
    ``options.priority`` once, so each crawl starts from empty state and the
    same options give the same order on every run."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_" + name

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return None  # the dataclass default
        value = obj.__dict__.get(self._slot)
        return value.fresh() if isinstance(value, NamedPriority) else value

    def __set__(self, obj: object, value: Any) -> None:
        obj.__dict__[self._slot] = value  # the frozen dataclass's __init__ and __post_init__ only


@dataclass(frozen=True)
class CrawlOptions:
    """Every knob of the scheduler.  Each field's docstring is its meaning in the
    options reference (``docs/reference/options.md`` is built from these
    docstrings, :data:`RULES` and the defaults below): write it here, once."""

    workers: int = 8
    """Global cap on fetches in flight (Scrapy ``CONCURRENT_REQUESTS``)."""
    per_host: int | None = None
    """Cap on fetches in flight to one host (``CONCURRENT_REQUESTS_PER_DOMAIN``); none means only ``workers``."""
    gap: float = 0.0
    """Minimum seconds between request *starts* to one host (``DOWNLOAD_DELAY``)."""
    randomize_gap: bool = False
    """Multiply each gap by a seeded uniform factor in [0.5, 1.5] (``RANDOMIZE_DOWNLOAD_DELAY``)."""
    rate: float | None = None
    """A token bucket per host: request starts a second it refills (nginx ``limit_req rate``; none: no
    bucket).  In any ``T`` seconds a host gets at most ``burst + rate * T`` starts."""
    burst: int = 1
    """The bucket's size: starts a host may make at once after a quiet spell; no effect without ``rate``
    (a warning says so)."""
    order: str = "bfs"
    """``bfs`` (queue), ``dfs`` (stack; a page's first link is expanded first), ``lifo`` (the URL queued
    last goes first, a page's last link before its first: Scrapy's default ``LifoMemoryQueue``) or
    ``best`` (by ``priority``, lower first)."""
    priority: Priority | None = cast(Any, _FreshPriority())  # noqa: RUF009 (a descriptor: see _FreshPriority)
    """For ``order = "best"``, fixed when a URL is queued: ``shallowest`` (its depth),
    ``host-round-robin`` (how many URLs of its host were queued before it: hosts take turns),
    ``shortest-url`` (its length), or ``priority(url, depth) -> number``, lower first.
    ``--priority NAME`` implies ``--order best``.  A named priority is read back as a
    fresh copy each time (its state belongs to one crawl)."""
    frontier: str = "per-host"
    """``per-host``: one queue per host plus a heap of host ready times (no head-of-line blocking).
    ``fifo``: one queue whose blocked head stalls everyone (for teaching).
    ``download-slots``: Scrapy's scheduler and downloader.  A URL leaves the queue of the host holding
    the fewest fetches waiting or in flight (hosts with equal counts take turns) whenever a worker is
    free, and waits in its
    host's download slot, holding that worker, until the host may start it (``CONCURRENT_REQUESTS``
    counts the waiting); when fewer than ``per_host`` of the host's fetches started before this instant
    are in flight, every URL waiting in the slot starts at once, so a host may run more than
    ``per_host`` (Scrapy's ``DownloaderAwarePriorityQueue``).  ``download-slots-one-queue``: the same,
    the URL leaving being the crawl's next of all hosts (Scrapy's ``ScrapyPriorityQueue``)."""
    normalize: str | frozenset[str] = "rfc3986"
    """A mode (``off``, ``fragment``, ``rfc3986``, ``aggressive``), or steps such as
    ``"rfc3986-dot_segments"`` / ``"fragment+www"`` / a set of step names."""
    scope: str = "host"
    """``host``: a seed's exact hostname; ``domain``: a seed's host or its subdomains
    (a leading ``www.`` ignored); ``any``: everything."""
    allow: tuple[str, ...] = ()
    """Regular expressions, compiled when the options are made; when given, a URL must match one."""
    deny: tuple[str, ...] = ()
    """Regular expressions; a URL matching any of them is out of scope (deny wins over allow)."""
    depth_limit: int | None = None
    """Skip links deeper than this; the seeds are depth 0 (``DEPTH_LIMIT``)."""
    max_pages: int | None = None
    """A trap guard: stop queueing after this many pages."""
    max_pages_per_host: int | None = None
    """A trap guard: stop queueing a host's pages after this many."""
    robots: bool = False
    """Fetch each host's /robots.txt first, through the same fetch path, and obey it (``ROBOTSTXT_OBEY``)."""
    user_agent: str = "crawlsim"
    """Matched against robots.txt groups by its product token (``USER_AGENT``)."""
    max_crawl_delay: float = 10.0
    """Crawl-delay is honoured up to this many seconds."""
    max_retry_after: float = 120.0
    """A Retry-After (seconds or HTTP-date) longer than this many seconds is not waited for: the fetch
    fails finally (reason ``retry-after too long``) instead of holding its host (a robots.txt then
    counts as unreachable: disallow all).  Unreadable, negative or infinite values mean normal backoff."""
    max_retries: int = 2
    """Retries of ``retry_statuses`` and transient errors (``RETRY_TIMES``)."""
    retry_statuses: tuple[int, ...] = (429, 503)
    """HTTP statuses that are retried (``RETRY_HTTP_CODES``)."""
    backoff_base: float = 1.0
    """Retry n waits ``backoff_base * 2**(n-1)`` seconds times a jitter in 0.5-1.5; a ``Retry-After``
    replaces it and holds the whole host."""
    backoff_max: float = 60.0
    """The cap on one retry's backoff, in seconds."""
    seen: str = "exact"
    """Seen set: ``exact`` strings, ``hash`` (64-bit digests) or ``bloom``."""
    bloom_capacity: int = 1_000_000
    """URLs the ``bloom`` seen set is sized for; a filter larger than this machine's memory is refused."""
    bloom_error_rate: float = 0.001
    """The ``bloom`` seen set's false-positive rate at capacity (a false positive loses a page)."""
    content_dedup: str = "off"
    """``off``, ``exact`` fingerprints, or ``simhash`` near-duplicates; a duplicate's links are not followed."""
    simhash_distance: int = 3
    """Bits two simhashes may differ by and still be near-duplicates."""
    seed: int = 0
    """Seeds the jitter and gap randomisation, so runs are reproducible."""
    record_events: bool = True
    """Turn off to skip building event objects (large simulations); counters still run."""

    normalize_steps: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.init:
                value = check_option(f.name, getattr(self, f.name))
                if value is not getattr(self, f.name):
                    object.__setattr__(self, f.name, value)
        if self.order == "best" and self.priority is None:
            raise OptionError(
                "priority",
                f"order = 'best' needs a priority function: a name ({', '.join(PRIORITIES)}; --priority NAME) "
                "or priority(url, depth) in Python",
            )
        if self.seen == "bloom":
            need, have = bloom_bytes(self.bloom_capacity, self.bloom_error_rate), memory_budget()
            if need > have:
                raise OptionError(
                    "bloom_capacity",
                    f"a Bloom filter for {self.bloom_capacity:,} URLs at error rate {self.bloom_error_rate:g} "
                    f"needs about {show_bytes(need)}; this machine has {show_bytes(have)}",
                )
        object.__setattr__(self, "normalize_steps", parse_steps(self.normalize))

    def with_(self, **changes: Any) -> CrawlOptions:
        """A copy with ``changes`` applied (validated, unknown keys rejected)."""
        return CrawlOptions.from_mapping({**self.as_mapping(), **changes})

    def as_mapping(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> CrawlOptions:
        """Build from a plain mapping (a TOML table, CLI flags); unknown keys
        are an :class:`OptionError` that suggests the nearest known key."""
        known = option_names()
        for key in values:
            if key not in known:
                raise OptionError(key, f"unknown crawler option{did_you_mean(key, known)}")
        return cls(**dict(values))


def option_names() -> list[str]:
    """Every key :meth:`CrawlOptions.from_mapping` accepts."""
    return [f.name for f in fields(CrawlOptions) if f.init]


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """``"; did you mean 'workers'?"`` or ``""``."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def with_implied_order(values: dict[str, Any]) -> dict[str, Any]:
    """A priority given without an order means ``order = "best"``; with
    ``bfs`` or ``dfs`` it would be ignored, which is refused instead.  The
    one rule for the command line's flags and a scenario's ``[crawl]`` table
    (that ``best`` needs a priority is :class:`CrawlOptions`' own check)."""
    if values.get("priority") is None:
        return values
    order = values.setdefault("order", "best")
    if order != "best":
        raise OptionError(
            "priority", f'a priority orders a best-first crawl only; got order {order} (use order "best")'
        )
    return values


__all__ = [
    "CONTENT_DEDUP",
    "FRONTIERS",
    "MAX_SETTING_SECONDS",
    "MODES",
    "ORDERS",
    "PRIORITIES",
    "RULES",
    "SCOPES",
    "SEEN_KINDS",
    "STEPS",
    "CrawlOptions",
    "OptionError",
    "Rule",
    "check_option",
    "did_you_mean",
    "option_from_text",
    "option_from_value",
    "option_names",
    "show_value",
    "with_implied_order",
]
