"""The docs site builds strictly, its reference pages say what the code does,
and its pictures are the project's own, current.

The options table and every ``--help`` block are written by the MkDocs hook
``docs/hooks/reference.py`` as the site builds (see its docstring for why at
build time).  These tests build the site once, into a temporary folder, and
read the built pages: every crawler option of ``RULES`` is in the options
table with the range its rule gives, and every command's ``--help`` -- as
``crawlsim.cli.main`` prints it here, not as the hook captured it -- is on
the commands page.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem + "_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_text(site: Path, page: str) -> str:
    """A built page's text, tags removed, entities decoded."""
    source = (site / page / "index.html").read_text(encoding="utf-8")
    source = re.sub(r"<(script|style)\b.*?</\1>", "", source, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", source))


def build_site(out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(REPO / "mkdocs.yml"), "-d", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def has_every_section(site: Path) -> None:
    for section in ("tutorials", "how-to", "reference", "explanation"):
        assert (site / section / "index.html").is_file(), section
    for page in DOCS.rglob("*.md"):
        built = site / page.relative_to(DOCS).with_suffix("") / "index.html"
        assert page.name == "index.md" or built.is_file(), page


def has_every_crawler_option_with_its_rules_range(site: Path) -> None:
    from crawlsim.core.options import RULES

    hook = load(DOCS / "hooks" / "reference.py")
    text = page_text(site, "reference/options")
    cells = [line.strip() for line in text.splitlines() if line.strip()]
    for key, rule in RULES.items():
        assert key in cells, key  # a cell of its own: the option's name
        row = cells[cells.index(key) : cells.index(key) + 4]
        if rule.kind in ("int", "number"):
            low, high = hook._number(rule.low), hook._number(rule.high)
            assert low in row[2] and high in row[2], (key, row)


def has_every_commands_help(site: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from crawlsim.cli import COMMANDS, main

    monkeypatch.setenv("COLUMNS", str(load(DOCS / "hooks" / "reference.py").COLUMNS))
    text = page_text(site, "reference/commands")
    for command in [None, *COMMANDS]:
        argv = [command, "--help"] if command else ["--help"]
        assert main(argv) == 0, argv
        shown = capsys.readouterr().out.rstrip("\n")
        assert shown.count("\n") > 3, argv
        assert shown in text, f"`crawlsim {' '.join(argv)}` differs from docs/reference/commands.md"


@pytest.mark.slow
def test_the_site_builds_strictly_and_its_reference_pages_are_the_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One build (about 15 s) for the three checks, so xdist workers do not each build it."""
    build_site(tmp_path / "site")
    has_every_section(tmp_path / "site")
    has_every_crawler_option_with_its_rules_range(tmp_path / "site")
    has_every_commands_help(tmp_path / "site", capsys, monkeypatch)


def test_every_option_has_a_meaning_beside_its_field() -> None:
    """The options table's meanings are the CrawlOptions docstrings: a new
    option without one would fail the strict build; this says which, sooner."""
    from crawlsim.core.options import RULES, option_names

    docs = load(DOCS / "hooks" / "reference.py").field_docs()
    assert set(RULES) == set(option_names())
    assert [key for key in RULES if not docs.get(key)] == []


def test_a_command_without_a_help_marker_fails_the_build() -> None:
    from mkdocs.exceptions import PluginError

    hook = load(DOCS / "hooks" / "reference.py")
    page = (DOCS / "reference" / "commands.md").read_text(encoding="utf-8")
    hook.check_every_command_has_a_home(page)
    with pytest.raises(PluginError, match="model"):
        hook.check_every_command_has_a_home(page.replace("<!-- crawlsim-help model -->", ""))


def test_every_scenario_key_is_in_the_scenario_reference() -> None:
    from crawlsim.cluster.config import FAIL_KEYS, KEYS
    from crawlsim.scenario.build import TOP_KEYS
    from crawlsim.scenario.hosts_table import HOST_KEYS, THROTTLE_KEYS
    from crawlsim.scenario.pages_table import PAGE_KEYS
    from crawlsim.scenario.traps_table import TRAP_KEYS
    from crawlsim.scenario.web_table import WEB_COMMON_KEYS, WEB_KEYS

    text = (DOCS / "reference" / "scenarios.md").read_text(encoding="utf-8")
    keys = {*TOP_KEYS, *HOST_KEYS, *THROTTLE_KEYS, *PAGE_KEYS}
    keys |= {*WEB_COMMON_KEYS, *(k for ks in WEB_KEYS.values() for k in ks)}
    keys |= {k for ks in TRAP_KEYS.values() for k in ks} | set(KEYS) | set(FAIL_KEYS)
    missing = sorted(k for k in keys if not re.search(rf"(^|[\s{{\[,`.\"]){re.escape(k)}\b", text, re.M))
    assert missing == []


def test_no_development_history_where_users_read() -> None:
    pattern = re.compile(r"issue [0-9]+|seed 00[0-9]|\(before: ")
    pages = [REPO / "README.md", *DOCS.rglob("*.md")]
    found = [(p.name, m[0]) for p in pages for m in pattern.finditer(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_scenario_the_how_to_builds_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    text = (DOCS / "how-to" / "scenario.md").read_text(encoding="utf-8")
    (tmp_path / "two.toml").write_text(text.split("```toml\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    assert main(["run", str(tmp_path / "two.toml"), "--advise", "infer"]) == 0
    assert "finish" in capsys.readouterr().out


@pytest.mark.slow
def test_the_pictures_are_what_the_script_makes_now(tmp_path: Path) -> None:
    pictures = load(DOCS / "scripts" / "pictures.py")
    pictures.main(["--out", str(tmp_path)])
    for name in ("app.svg", "sweep.png"):
        assert (tmp_path / name).read_bytes() == (DOCS / "images" / name).read_bytes(), (
            f"docs/images/{name} is stale: run `python docs/scripts/pictures.py`"
        )


def test_the_page_picture_was_made_from_the_current_page() -> None:
    """Making the see-it page's picture costs about 40 s, so it is not remade
    here: the digest of the files it is made from, recorded when it was made,
    must still match them."""
    pictures = load(DOCS / "scripts" / "pictures.py")
    recorded = (DOCS / "images" / "see-it-page.sources").read_text(encoding="utf-8").strip()
    assert recorded == pictures.sources_digest(), (
        "the offline page changed since docs/images/see-it-page.png was made: "
        "run `python docs/scripts/pictures.py --page`"
    )


def test_the_trace_format_example_is_what_trace_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    text = (DOCS / "reference" / "trace.md").read_text(encoding="utf-8")
    shown = text.split("```json\n", 1)[1].split("```", 1)[0].splitlines()
    assert main(["trace", "see-it", "-o", str(tmp_path / "see-it.jsonl")]) == 0
    written = (tmp_path / "see-it.jsonl").read_text(encoding="utf-8").splitlines()
    assert shown == written[: len(shown)]


def test_the_interview_tutorials_crawler_fails_as_it_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its first attempt marks pages seen on finish: check exits 1 and says
    to mark them on submit (the quick basic case, as the tour's check line)."""
    from crawlsim.cli import main

    text = (DOCS / "tutorials" / "interview.md").read_text(encoding="utf-8")
    (tmp_path / "mine.py").write_text(text.split("```python\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    assert main(["check", f"{tmp_path / 'mine.py'}:crawl", "--quick", "--only", "basic"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "FAIL basic" in out and "Mark a URL seen when you submit its fetch" in out


class _Parsed(Exception):
    """Raised instead of running a command once its parser accepted the line."""


def shown_commands() -> list[tuple[str, list[str]]]:
    """(page, argv) of every ``crawlsim COMMAND ...`` line in the docs' and README's sh blocks,
    but lines that leave something out (``...``)."""
    import shlex

    lines = []
    for page in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for block in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            for line in block.splitlines():
                argv = shlex.split(line, comments=True)
                if argv[:1] == ["crawlsim"] and len(argv) > 1 and "..." not in argv:
                    lines.append((page.relative_to(REPO).as_posix(), argv[1:]))
    return lines


def test_every_command_the_docs_show_is_accepted_by_its_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A renamed flag or command breaks a page: each line shown is handed to
    its command, whose parser must take it whole (the command itself is not
    run: the tour and the tutorials' own tests run the ones that can run here)."""
    import argparse

    from crawlsim.cli import COMMANDS, _entry
    from crawlsim.errors import UsageError

    parse = argparse.ArgumentParser.parse_args

    def parsed_only(self: argparse.ArgumentParser, args: object = None, namespace: object = None) -> None:
        parse(self, args, namespace)  # type: ignore[arg-type]
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parsed_only)
    shown = shown_commands()
    assert len(shown) >= 40
    refused = []
    for page, argv in shown:
        if argv[0] not in COMMANDS:
            refused.append((page, argv, "no such command"))
            continue
        try:
            _entry(argv[0])(argv[1:])
        except _Parsed:
            continue
        except (UsageError, SystemExit) as err:
            refused.append((page, argv, str(err)))
            continue
        refused.append((page, argv, "ran without parsing its arguments"))
    assert refused == []


def test_the_shrunk_failure_quoted_is_what_check_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from crawlsim.cli import main

    text = (DOCS / "reference" / "check.md").read_text(encoding="utf-8")
    shown = "Shrunk " + text.split("```text\nShrunk ", 1)[1].split("```", 1)[0]
    assert main(["check", "--example", "buggy_check_then_add", "--only", "check-then-add"]) == 1
    out = capsys.readouterr().out
    printed = out[out.index("Shrunk ") :]
    assert printed[: len(shown)] == shown, "run `crawlsim check --example buggy_check_then_add --only check-then-add`"
