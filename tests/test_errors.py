"""One error family: user mistakes are one line and exit 2, a bug is one line and exit 1, never 0.

Every error crawlsim raises on purpose is a ``CrawlsimError``; every user
mistake is a ``UsageError`` (and still a ``ValueError``, so callers'
``except ValueError`` keeps working); ``crawlsim.cli.main`` is the one place
that turns them into exit statuses, by class.  Every exception class a
module defines is in the family or private, and the tree drawn in
``crawlsim/errors.py`` is the family exactly.
"""

from __future__ import annotations

import builtins
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import crawlsim
import crawlsim.cli as cli
import crawlsim.errors
from crawlsim.check.loader import CheckInputError
from crawlsim.cluster.config import ClusterConfigError
from crawlsim.core.options import OptionError
from crawlsim.core.scheduler import UnknownFetch
from crawlsim.core.urls import CanonicalizeError
from crawlsim.errors import CrawlsimError, UsageError
from crawlsim.notebook.moments import MomentError
from crawlsim.notebook.movie import AnimateError
from crawlsim.scenario import ScenarioError
from crawlsim.sim.latency import LatencySpecError
from crawlsim.tui.follow import FollowError

USER_MISTAKES = [OptionError, ScenarioError, ClusterConfigError, LatencySpecError, CheckInputError, FollowError,
                 AnimateError, MomentError]


@pytest.mark.parametrize("cls", USER_MISTAKES, ids=lambda c: c.__name__)
def test_every_user_mistake_is_a_usage_error_and_still_a_value_error(cls: type) -> None:
    assert issubclass(cls, UsageError) and issubclass(cls, CrawlsimError) and issubclass(cls, ValueError)


def test_the_cores_other_errors_are_in_the_family_with_their_standard_bases() -> None:
    assert issubclass(CanonicalizeError, CrawlsimError) and issubclass(CanonicalizeError, ValueError)
    assert not issubclass(CanonicalizeError, UsageError)  # a malformed link on a page is not the user's mistake
    assert issubclass(UnknownFetch, CrawlsimError) and issubclass(UnknownFetch, KeyError)


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class a module of crawlsim defines, by name (each module imported)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(crawlsim.__path__, "crawlsim."):
        if info.name.endswith(".__main__"):  # runs its command when imported
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__ == info.name:
                assert obj.__name__ not in found, f"two exception classes named {obj.__name__}"
                found[obj.__name__] = obj
    return found


_TREE_LINE = re.compile(r"^    (?P<lead>[│├└─ ]*)(?P<name>[A-Z]\w+)(?: \[(?P<builtin>\w+)\])?")


def _drawn_tree() -> dict[str, tuple[str | None, str | None]]:
    """The tree drawn in crawlsim/errors.py's docstring: name -> (parent, built-in base)."""
    doc = crawlsim.errors.__doc__ or ""
    block = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    drawn: dict[str, tuple[str | None, str | None]] = {}
    path: list[str] = []  # the names above the current line, one per depth
    for line in block.splitlines():
        m = _TREE_LINE.match(line)
        assert m, f"not a line of the tree: {line!r}"
        depth = len(m["lead"]) // 4
        path[depth:] = [m["name"]]
        drawn[m["name"]] = (path[depth - 1] if depth else None, m["builtin"])
    return drawn


def test_every_exception_class_is_in_the_family_or_private() -> None:
    strays = [name for name, cls in _exception_classes().items()
              if not issubclass(cls, CrawlsimError) and not name.startswith("_")]
    assert strays == []


def test_the_drawn_tree_is_the_family_exactly() -> None:
    classes = _exception_classes()
    public = {name for name in classes if not name.startswith("_")}
    drawn = _drawn_tree()
    assert set(drawn) == public
    for name, (parent, builtin) in drawn.items():
        expected = tuple(classes[n] for n in (parent,) if n) + ((getattr(builtins, builtin),) if builtin else ())
        assert classes[name].__bases__ == (expected or (Exception,)), name


def _command_raising(monkeypatch: pytest.MonkeyPatch, err: BaseException) -> None:
    def entry(argv: list[str]) -> int:
        raise err

    monkeypatch.setattr(cli, "_entry", lambda name: entry)


@pytest.mark.parametrize(
    "err",
    [
        ClusterConfigError("cluster.nodes", "expected a whole number >= 1, got 0"),
        LatencySpecError("median", "expected a number > 0"),
        CheckInputError("crawler.py: no function crawl"),
        OptionError("workers", "expected a whole number >= 1, got 0"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_cli_catches_every_user_mistake_by_class(monkeypatch, capsys, err: UsageError) -> None:
    _command_raising(monkeypatch, err)
    assert cli.main(["run"]) == 2
    out = capsys.readouterr().err
    assert out == f"crawlsim: error: {err}\n"


def test_the_cli_finds_errors_by_class_not_by_module_name() -> None:
    assert "sys.modules" not in Path(cli.__file__).read_text(encoding="utf-8")


def test_a_bug_is_one_internal_error_line_and_exit_1_with_the_traceback_kept(monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    _command_raising(monkeypatch, ZeroDivisionError("division by zero"))
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("crawlsim: internal error: ZeroDivisionError: division by zero")
    (kept,) = re.findall(r"the traceback is in (\S+?)\)", err)
    assert Path(kept).parent == tmp_path
    text = Path(kept).read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError" in text


def test_an_error_whose_message_itself_raises_is_still_one_line(monkeypatch, capsys) -> None:
    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no message for you")

    _command_raising(monkeypatch, Hostile())
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crawlsim: internal error: Hostile: <Hostile with an unprintable")


def test_a_usage_error_with_a_multiline_message_is_still_one_line(monkeypatch, capsys) -> None:
    _command_raising(monkeypatch, UsageError("first\nsecond"))
    assert cli.main(["run"]) == 2
    assert capsys.readouterr().err == "crawlsim: error: first second\n"


def test_an_app_that_dies_on_an_exception_does_not_exit_0(monkeypatch, capsys) -> None:
    """Textual catches the app's exception, prints it and returns normally:
    the command must still report failure (Textual's ``return_code``)."""
    from textual.app import App

    import crawlsim.tui.app

    class Crashing(App[None]):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__()

        def on_mount(self) -> None:
            raise ZeroDivisionError("division by zero")

        def run(self, **kwargs: object) -> None:  # type: ignore[override]
            return super().run(headless=True)

    monkeypatch.setenv("CRAWLSIM_TUI_FORCE", "1")
    monkeypatch.setattr(crawlsim.tui.app, "CrawlApp", Crashing)
    assert cli.main(["tui", "see-it"]) == 1


@pytest.mark.parametrize("seed", ["99999999999999999999999999", "-9223372036854775809", "seven"])
def test_a_seed_out_of_range_names_the_flag_not_the_scenario_file(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    assert main(["run", "see-it", "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --seed" in err and "see-it.toml" not in err, err
