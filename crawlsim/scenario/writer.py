"""The one writer of scenario TOML: what a program writes, ``run`` reads.

A scenario written from recorded data (``crawlsim model``) carries strings
nobody chose -- URLs with emoji, quotes and newlines, option names from a
file -- so the writing is not hand-made: ``tomli-w`` escapes every string
and key as TOML requires (a character outside the Basic Multilingual Plane
is written as itself, never as a JSON surrogate pair, which TOML refuses).
What TOML cannot hold at all (text that is not Unicode, a lone surrogate) is
refused, naming its key; and the text is loaded back by the very loader
``run`` uses (:func:`~crawlsim.scenario.files.parse_scenario`) before it is
returned, so a file this writes is a file ``run`` reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tomli_w

from crawlsim.core.options import show_value
from crawlsim.scenario.checks import ScenarioError, key_path, printable
from crawlsim.scenario.files import parse_scenario


def scenario_toml(data: Mapping[str, Any], comments: Sequence[str] = (), path: str = "<scenario>") -> str:
    """``data`` as scenario TOML, under ``comments`` (one ``#`` line each, made
    :func:`printable`).  Raises :class:`ScenarioError` naming the key when a
    string cannot be written, or when the text would not load as a scenario
    (``path`` names the scenario in the message).  Linear in the data's size."""
    _check_text(data, (), path)
    text = "".join(f"# {printable(line)}\n" for line in comments) + tomli_w.dumps(data)
    parse_scenario(text, path=path)
    return text


def _check_text(value: object, where: tuple[str | int, ...], path: str) -> None:
    """Every key and string under ``value`` is Unicode that UTF-8 can hold (no lone surrogate)."""
    if isinstance(value, str):
        if not _encodable(value):
            raise ScenarioError(f"{show_value(value)} is not valid Unicode text: TOML cannot hold it",
                                path=path, key=key_path(*where) or None)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not _encodable(key):
                raise ScenarioError(f"the key {show_value(key)} is not valid Unicode text: TOML cannot hold it",
                                    path=path, key=key_path(*where) or None)
            _check_text(item, (*where, key), path)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_text(item, (*where, i), path)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["scenario_toml"]
