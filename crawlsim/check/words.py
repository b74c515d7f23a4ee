"""The sentences for each kind of :class:`~crawlsim.check.findings.Finding`.

Kept apart from finding problems so that the words can change (or be
translated) without touching what is measured, and so that every sentence
is built from the facts a finding carries, never from a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from crawlsim.check.findings import Finding


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    if word.endswith("ry"):
        return f"{n} {word[:-1]}ies"
    return f"{n} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{n} {word}s"


def named(items: Iterable[str], limit: int = 5) -> str:
    """``a, b and c`` -- at most ``limit`` names, then ``and N more``."""
    items = list(items)
    shown = items[:limit]
    if len(items) > limit:
        return ", ".join(shown) + f" and {len(items) - limit} more"
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _progress(f: dict[str, Any]) -> str:
    return f"{plural(f['fetches'], 'fetch')} of {f['pages_done']} of the {f['pages_expected']} pages so far"


def _crash(f: dict[str, Any]) -> str:
    return f"No result: {f['message']} during this case."


def _stuck(f: dict[str, Any]) -> str:
    since = f" since {f['last_fetch_end']:.2f} s" if f["last_fetch_end"] is not None else " at all"
    text = (
        f"The crawl did not return and stopped making progress: no fetch was started or in flight{since} "
        f"(stopped after {f['stopped_after']:.2f} s; {_progress(f)})"
    )
    if f["in_flight"]:
        text += f"; {plural(len(f['in_flight']), 'fetch')} in flight then: {named(f['in_flight'])}"
    return text + "."


def _too_slow(f: dict[str, Any]) -> str:
    return (
        f"Too slow: still fetching at the {f['deadline']:g} s deadline (three times a sequential crawl of this "
        f"case, plus time for the crawler's own work), after {_progress(f)}; up to {f['peak']} of max_workers="
        f"{f['max_workers']} fetches ran at once, {f['mean']:.1f} on average."
    )


def _workers_quit(f: dict[str, Any]) -> str:
    return (
        f"{f['quit']} of the {f['started']} threads the crawl started quit by {f['first_quit']:.2f} s while "
        f"fetches went on until {f['last_fetch_start']:.2f} s: a worker that stops when the queue is empty for a "
        "moment (queue.get(timeout=...) then return) leaves the rest of the crawl to the few left. An empty queue "
        "is not the end while fetches are in flight: stop workers only when the crawl is done."
    )


def _narrow_pool(f: dict[str, Any]) -> str:
    return (
        f"Only {f['peak']} of {f['max_workers']} workers ever ran at once ({f['mean']:.1f} on average): size the "
        "pool from max_workers, not a constant."
    )


def _threads_left(f: dict[str, Any]) -> str:
    verb = "was" if f["threads"] == 1 else "were"
    return (
        f"After the crawl returned, {plural(f['threads'], 'thread')} it started {verb} still running (in "
        f"{f['case']}: {f['thread']} at {f['where']}; in {f['cases']} of {f['of_cases']} cases). Python waits for "
        "such threads at exit (they are not daemon threads, or are busy in a thread pool), so a program that "
        "calls this crawl prints its answer and never exits. Stop the workers when the crawl is done (a "
        "sentinel per worker, or pool work items that return)."
    )


def _race_caught(f: dict[str, Any]) -> str:
    cost = ""
    if f.get("schedules") is not None and f.get("seconds") is not None:
        cost = f" (explored {f['schedules']} schedules in {f['seconds']:g} s)"
    if f.get("text"):
        return f"Caught with seed {f['seed']}{cost}: {f['text']}. Replay it with --seed {f['seed']}."
    steps = f["switches"][-6:]
    shown = "; ".join(f"{thread} at line {line}: `{str(text).strip()}`" for thread, _file, line, text in steps)
    return (
        f"Caught with seed {f['seed']}{cost}: {named(f['pages'])} fetched twice under a controlled interleaving"
        + (f" ({shown})" if shown else "")
        + f". Replay it with --seed {f['seed']}."
    )


SENTENCES: dict[str, Callable[[dict[str, Any]], str]] = {
    "crash": _crash,
    "stuck": _stuck,
    "too-slow": _too_slow,
    "workers-quit": _workers_quit,
    "narrow-pool": _narrow_pool,
    "threads-left": _threads_left,
    "race-caught": _race_caught,
}


def say(finding: Finding) -> str:
    """The finding in plain words."""
    return SENTENCES[finding.kind](finding.facts)
