"""Where scenarios are, and loading one: a file, a shipped scenario by bare
name, TOML text or an already-parsed table -- all through one builder
(:mod:`crawlsim.scenario.build`), so a scenario is checked one way.

Shipped scenarios are found by bare name (``load_scenario("see-it")``) in
``crawlsim/scenarios_data/`` and then in the source tree's ``scenarios/``.
The TOML files live in ``scenarios/``; ``crawlsim/scenarios_data`` is a
symlink to it, so a wheel build copies them into the package (they match the
``*.toml`` package-data rule) while a checkout or an editable install reads
them in place -- and still does if a platform drops the symlink.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from crawlsim.core.options import CrawlOptions, did_you_mean
from crawlsim.scenario.build import Builder
from crawlsim.scenario.checks import ScenarioError
from crawlsim.scenario.loaded import Scenario
from crawlsim.sim.latency import show_value

DEFAULT_SCENARIO = "see-it"
"""The scenario every front end opens when none is named."""
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


def scenario_dirs() -> list[Path]:
    """Folders searched for shipped scenarios, in order: the package's
    ``scenarios_data`` (installed wheel), then the source tree's ``scenarios``."""
    here = Path(__file__).resolve().parent.parent
    found: list[Path] = []
    for folder in (here / "scenarios_data", here.parent / "scenarios"):
        if folder.is_dir() and folder.resolve() not in found:
            found.append(folder.resolve())
    return found


def list_scenarios() -> list[str]:
    """Names of the shipped scenarios, sorted."""
    names = {p.stem for d in scenario_dirs() for p in d.glob("*.toml")}
    return sorted(names)


def _is(kind: str, path: Path) -> bool:
    """``path.is_file()`` or ``path.is_dir()`` (``kind``), where a name the
    system cannot even look up (too long, say) is no file and no folder: the
    user then hears that no such scenario exists, not an ``OSError``."""
    try:
        return path.is_file() if kind == "file" else path.is_dir()
    except OSError:
        return False


def find_scenario(name: str) -> Path:
    """Path of the shipped scenario ``name`` (``"see-it"`` or ``"see-it.toml"``)."""
    stem = name.removesuffix(".toml")
    for folder in scenario_dirs():
        candidate = folder / f"{stem}.toml"
        if _is("file", candidate):
            return candidate
    shipped = list_scenarios()
    raise ScenarioError(
        f"no scenario file or shipped scenario named {show_value(name)}{did_you_mean(stem, shipped)}; "
        f"shipped: {', '.join(shipped) or 'none found'}"
    )


def load_scenario(path_or_name: str | os.PathLike[str] = DEFAULT_SCENARIO) -> Scenario:
    """Load a scenario file, or a shipped scenario by bare name.  A name
    that is not found is one :class:`ScenarioError` in the same words for
    every command (a file-like name lists the shipped scenarios too)."""
    given = os.fspath(path_or_name)
    path = Path(given)
    if not _is("file", path):
        file_like = os.sep in given or "/" in given
        if not file_like:  # a bare name is a shipped scenario, even if a folder of that name is here
            try:
                path = find_scenario(given)
            except ScenarioError:
                if not given.endswith(".toml"):
                    raise
                file_like = True
        if file_like:
            what = "is a folder, not a scenario file" if _is("dir", path) else "no such scenario file"
            raise ScenarioError(f"{what}; shipped scenarios: {', '.join(list_scenarios()) or 'none found'}", path=given)
        given = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ScenarioError(f"cannot read: {reason}", path=given) from None
    scenario = parse_scenario(text, path=given, name=path.stem)
    return replace(scenario, path=path)


def parse_scenario(text: str, path: str = "<scenario>", name: str | None = None) -> Scenario:
    """Parse scenario TOML text; ``path`` is only used in messages."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ScenarioError(
            "invalid TOML: arrays or tables nested too deeply (a scenario needs at most a few levels)", path=path
        ) from None
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        where = _TOML_POSITION.search(message)
        line = f"line {where[1]}, column {where[2]}" if where else None
        message = _TOML_POSITION.sub("", message)
        raise ScenarioError(f"invalid TOML: {message}", path=path, line=line) from None
    return scenario_from_dict(data, path=path, name=name)


def scenario_from_dict(data: Mapping[str, Any], path: str = "<scenario>", name: str | None = None) -> Scenario:
    """Build a scenario from already-parsed TOML (a notebook can pass a dict)."""
    return Builder(path).build(data, name or Path(path).stem or "scenario")


def reseeded(scenario: Scenario, seed: int) -> Scenario:
    """The same scenario with another random seed (a different generated
    web; crawler jitter too unless the file fixes ``crawl.seed``), keeping
    the options overridden after loading."""
    path = str(scenario.path or "<scenario>")
    again = scenario_from_dict({**scenario.data, "seed": seed}, path=path, name=scenario.name)
    return replace(again, path=scenario.path, options=again.options.with_(**_changed(scenario.options, again.options)))


def _changed(mine: CrawlOptions, fresh: CrawlOptions) -> dict[str, Any]:
    """Options overridden after loading (so :meth:`Scenario.reseeded` keeps them)."""
    return {k: v for k, v in mine.as_mapping().items() if k != "seed" and v != getattr(fresh, k)}


__all__ = [
    "DEFAULT_SCENARIO",
    "find_scenario",
    "list_scenarios",
    "load_scenario",
    "parse_scenario",
    "reseeded",
    "scenario_dirs",
    "scenario_from_dict",
]
