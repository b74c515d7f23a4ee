"""What the real crawler's command-line flags mean, as a library.

``crawlsim serve`` and ``crawlsim crawl`` (in :mod:`crawlsim.commands`) parse
arguments and print; the rules they apply live here, below the commands, so
scripts and benchmarks can use them without loading a command: the limits a
flag's value must be within, reading a host map (``--resolve`` and
``--hosts-file``), the politeness sentence every crawl prints, and the flags
that make ``crawlsim crawl`` crawl as a scenario does.

Every mistake raises the one :class:`~crawlsim.errors.UsageError` (printed as
one line, exit status 2).
"""

from __future__ import annotations

import errno
import ipaddress
import json
import math
import os
import socket
import stat
from collections.abc import Collection, Sequence
from typing import Any
from urllib.parse import urlsplit

from crawlsim.cli_options import FLAGS
from crawlsim.core.options import CrawlOptions
from crawlsim.core.priorities import priority_name
from crawlsim.errors import UsageError
from crawlsim.words import per_host_limit

MAX_RUN_SECONDS = 1_000_000.0
"""Longest wall-clock time a real command's flag gives (about 11.6 days: how long a crawl or a
server runs, or waits for one answer): beyond it a value is a typo.  A crawl's settings have
their own, shorter limit (``crawlsim.core.options.MAX_SETTING_SECONDS``, a day)."""
MAX_BODY_BYTES = 1 << 30
"""Largest ``--max-bytes`` (1 GiB): every body is held in memory while read."""
MAX_REDIRECTS = 100
MAX_HOSTS_FILE_BYTES = 10_000_000
"""A host map is a few KB; a larger ``--hosts-file`` is refused unread."""

HOST_MAP_SHAPE = '{"hosts": {"a.com": "127.0.0.2:8000"}}'
"""The shape a ``--hosts-file`` must have, as its error messages show it."""


def check_seconds(flag: str, value: float | None, *, maximum: float = MAX_RUN_SECONDS, zero: str | None = None) -> None:
    """``UsageError`` unless ``value`` (when given) is finite, > 0 and at most
    ``maximum`` -- or 0, where the flag gives 0 a meaning (``zero``, e.g. "never")."""
    if value is None or (zero is not None and value == 0):
        return
    if not (math.isfinite(value) and 0 < value <= maximum):
        allowed = f"0 ({zero}) or " if zero is not None else ""
        raise UsageError(f"{flag}: expected {allowed}seconds > 0 and at most {maximum:g}, got {value:g}")


def check_int(flag: str, value: int, low: int, high: int) -> None:
    """``UsageError`` unless ``low <= value <= high``."""
    if not low <= value <= high:
        raise UsageError(f"{flag}: expected a whole number from {low} to {high}, got {value}")


# --------------------------------------------------------------------------- host maps


def read_hosts_file(path: str) -> dict[str, Any]:
    """The JSON a ``serve --hosts-file`` wrote, read only if it is a regular
    file of at most :data:`MAX_HOSTS_FILE_BYTES` (``/dev/zero`` is refused
    unread, a huge file before it is loaded)."""
    where = f"--hosts-file {path}"
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{where}: not a regular file")
            data = handle.read(MAX_HOSTS_FILE_BYTES + 1)
    except OSError as err:
        raise UsageError(f"{where}: {err.strerror or err}") from None
    if len(data) > MAX_HOSTS_FILE_BYTES:
        raise UsageError(f"{where}: larger than {MAX_HOSTS_FILE_BYTES:,} bytes; not a host map")
    try:
        table = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise UsageError(f"{where}: not JSON ({str(err).splitlines()[0][:120]})") from None
    if not isinstance(table, dict):
        raise UsageError(f"{where}: expected {HOST_MAP_SHAPE}")
    return table


def hosts_file_start(path: str) -> str | None:
    """The start URL a ``serve --hosts-file`` recorded, or None."""
    start = read_hosts_file(path).get("start")
    return start[0] if isinstance(start, list) and start and isinstance(start[0], str) else None


def parse_resolve(items: Sequence[str], hosts_file: str | None) -> dict[str, tuple[str, int]]:
    """``["a.com=127.0.0.2:8000"]`` and/or a hosts file -> ``{"a.com": ("127.0.0.2", 8000)}``.

    The hosts file's entries come first, so a ``--resolve`` overrides them."""
    pairs = _hosts_file_pairs(hosts_file) if hosts_file else []
    for item in items:
        host, sep, target = item.partition("=")
        if not sep or not host or not target:
            raise UsageError(f"--resolve: expected HOST=ADDR:PORT such as a.com=127.0.0.2:8000, got {item!r}")
        pairs.append(("--resolve", host, target))
    mapped = dict(_address_of(where, host, target) for where, host, target in pairs)
    for host, (address, port) in mapped.items():
        if loopback_absent(address):
            raise UsageError(f"--resolve {host}={address}:{port}: {missing_loopback(address)}")
    return mapped


def loopback_absent(address: str) -> bool:
    """Whether ``address`` is a loopback address this machine does not have.

    Linux answers on all of 127.0.0.0/8; macOS has only 127.0.0.1 until an
    alias is added, and a connection to 127.0.0.2 there goes nowhere (each
    fetch would time out).  Binding a socket to it, port 0, is the test.
    IPv6 has one loopback address, ``::1``, which every machine has."""
    ip = ipaddress.ip_address(address)
    if ip.version != 4 or not ip.is_loopback or str(ip) == "127.0.0.1":
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError as err:
            return err.errno in NOT_AVAILABLE
    return False


NOT_AVAILABLE = frozenset({errno.EADDRNOTAVAIL, getattr(errno, "WSAEADDRNOTAVAIL", -1)})
"""The error numbers of binding an address the machine does not have."""


def check_seed_address(url: str) -> None:
    """``UsageError`` for a start URL whose host is a loopback address this machine
    lacks (``http://127.0.0.2:8000/`` on macOS): said now, not as a crawl of timeouts."""
    try:
        host = urlsplit(url).hostname or ""
        ipaddress.ip_address(host)
    except ValueError:
        return  # a name (resolved, or mapped by --resolve, when crawled), or a URL the crawl refuses itself
    if loopback_absent(host):
        raise UsageError(f"{url}: {missing_loopback(host)}")


def missing_loopback(address: str) -> str:
    """The one sentence for a loopback address this machine lacks, and the fix."""
    return (
        f"this machine has no address {address} (only Linux answers on all of 127.0.0.0/8; macOS has just "
        f"127.0.0.1 until you run `sudo ifconfig lo0 alias {address}`)"
    )


def _hosts_file_pairs(hosts_file: str) -> list[tuple[str, str, str]]:
    """(where, host, target) for each entry of a hosts file's host table."""
    data = read_hosts_file(hosts_file)
    table = data.get("hosts", data)
    if not isinstance(table, dict):
        raise UsageError(f"--hosts-file {hosts_file}: expected {HOST_MAP_SHAPE}")
    return [("--hosts-file", str(h), str(t)) for h, t in table.items()]


def _address_of(where: str, host: str, target: str) -> tuple[str, tuple[str, int]]:
    """``("a.com", ("127.0.0.2", 8000))`` from one entry; ``UsageError`` naming
    ``where`` it came from unless ``target`` is an IP address and a port."""
    address, _, port = target.rpartition(":")
    if not address or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{where}: expected ADDR:PORT for {host}, got {target!r}")
    try:
        ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        raise UsageError(f"{where}: expected an IP address for {host}, got {address!r}") from None
    return host.strip().lower(), (address.strip("[]"), int(port))


# --------------------------------------------------------------------------- options as words and flags


def _seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 10 else f"{value:.1f} s"


def politeness_line(options: CrawlOptions) -> str:
    """The effective politeness settings in one sentence (shown on every crawl)."""
    robots = "robots.txt obeyed" if options.robots else "robots.txt NOT read (--no-robots)"
    gap = f"starts {_seconds(options.gap)} apart" if options.gap > 0 else "no gap between starts"
    if options.randomize_gap and options.gap > 0:
        gap += " (randomised 0.5-1.5x)"
    if options.rate is not None:
        gap += f", rate {options.rate:g}/s per host, burst {options.burst}"
    return (
        f"politeness: {robots}; {per_host_limit(options.per_host)}, "
        f"{gap} (Crawl-delay up to {_seconds(options.max_crawl_delay)} honoured); "
        f"{options.workers} workers in all; scope: {options.scope}; "
        f"retries: {options.max_retries} on {', '.join(map(str, options.retry_statuses))} and network errors"
    )


SWITCHES = frozenset({"robots", "randomize_gap"})
"""Options with an on/off flag pair (``--robots`` / ``--no-robots``)."""


def scenario_flags(options: CrawlOptions, written: Collection[str] = ()) -> list[str]:
    """Flags that make ``crawlsim crawl`` crawl as the scenario does: each
    option the scenario's ``[crawl]`` table sets (``written``), or that
    ``crawl``'s politeness defaults would change, when the value differs."""
    from crawlsim.real.crawler import real_options

    default = real_options()
    relevant = _relevant_options(written)
    flag_names = {name for name, _, _ in FLAGS}
    out: list[str] = []
    for key, value in options.as_mapping().items():
        if key in relevant and value != getattr(default, key):
            out += _flag_for(key, value, flag_names)
    return out


def _relevant_options(written: Collection[str]) -> set[str]:
    """The options worth a flag: those the scenario writes and those the real
    crawler's politeness defaults change (the user agent only when written:
    the real default announces crawlsim, which a scenario's default does not)."""
    from crawlsim.real.crawler import REAL_DEFAULTS

    relevant = (set(written) | set(REAL_DEFAULTS)) - {"record_events"}
    if "user_agent" not in written:
        relevant.discard("user_agent")
    return relevant


def _flag_for(key: str, value: Any, flag_names: Collection[str]) -> list[str]:
    """``crawlsim crawl``'s spelling of one option: its own flag when it has
    one, else ``--set key=value`` (``[]`` for a value no flag can spell)."""
    if key in SWITCHES:
        return [f"--{'' if value else 'no-'}{key.replace('_', '-')}"]
    if key == "priority":  # a named priority by its name; a Python function has no spelling
        name = priority_name(value)
        return [] if name is None else ["--priority", name]
    if key in flag_names and isinstance(value, (int, float, str)):
        return [f"--{key.replace('_', '-')}", _number_or_text(value)]
    setting = _setting(value)
    return [] if setting is None else ["--set", f"{key}={setting}"]


def _number_or_text(value: float | str) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _setting(value: Any) -> str | None:
    """The right-hand side of ``--set key=...`` for ``value``, or None."""
    if value is None:
        return "none"
    if isinstance(value, (int, float, str)):
        return _number_or_text(value)
    if isinstance(value, tuple):
        return f"[{', '.join(repr(v) for v in value)}]"
    if isinstance(value, frozenset):
        return "+".join(sorted(value))
    return None


__all__ = [
    "MAX_BODY_BYTES",
    "MAX_HOSTS_FILE_BYTES",
    "MAX_REDIRECTS",
    "MAX_RUN_SECONDS",
    "check_int",
    "check_seconds",
    "fail",
    "hosts_file_start",
    "parse_resolve",
    "politeness_line",
    "read_hosts_file",
    "scenario_flags",
]
