"""The light install: the everyday commands need no extra, and a missing
extra is one line naming it and the command that installs it.

Each case runs crawlsim in a child interpreter whose imports of the extra's
modules fail as they would where the extra is not installed: a
``sys.meta_path`` finder, first in line, refuses them."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from crawlsim.cli import COMMANDS
from crawlsim.extras import EXTRAS, MissingExtraError, needs

ROOT = Path(__file__).resolve().parent.parent
EVERY_EXTRA = sorted({m for modules in EXTRAS.values() for m in modules} | {"jupyterlab", "mkdocs"})

REFUSE = """\
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {refused!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Refuse())
"""


def without(modules: list[str] | tuple[str, ...], code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a child Python where ``modules`` (top-level names) cannot be imported, nor ffmpeg found."""
    env = {**os.environ, "PATH": os.path.dirname(sys.executable)}  # no ffmpeg on PATH
    program = REFUSE.format(refused=set(modules)) + code
    return subprocess.run([sys.executable, "-c", program], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def crawlsim_without(
    modules: list[str] | tuple[str, ...], argv: list[str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return without(modules, f"from crawlsim.cli import main\nsys.exit(main({argv!r}))\n", cwd)


@pytest.mark.parametrize(
    ("extra", "argv", "what"),
    [
        ("web", ["web", "see-it"], "crawlsim web"),
        ("dask", ["sweep", "see-it", "--workers", "1,2", "--dask", "tcp://127.0.0.1:9", "-o", "out"],
         "crawlsim sweep --dask"),
        ("video", ["animate", "isro", "-o", "crawl.mp4"], "writing an MP4"),
    ],
)
def test_a_command_whose_extra_is_missing_says_how_to_install_it(
    extra: str, argv: list[str], what: str, tmp_path: Path
) -> None:
    done = crawlsim_without(EXTRAS[extra], argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0].startswith(
        f'crawlsim: error: {what} needs the "{extra}" extra: python -m pip install "crawlsim[{extra}]"'
    )
    assert len(done.stderr.splitlines()) == 1, done.stderr  # no traceback


@pytest.mark.parametrize(
    ("extra", "statement", "what"),
    [
        ("notebook", "from crawlsim.notebook import show", "the crawl widget (crawlsim.notebook.show)"),
        ("notebook", "from crawlsim.notebook import page; page('see-it')", "crawlsim.notebook.page"),
        ("scrapy", "import crawlsim.integrations.scrapy",
         "crawlsim.integrations.scrapy (the Scrapy TraceRecorder)"),
    ],
)
def test_an_import_whose_extra_is_missing_is_an_import_error_naming_it(
    extra: str, statement: str, what: str, tmp_path: Path
) -> None:
    code = (
        "try:\n"
        f"    {statement}\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    done = without(EXTRAS[extra], code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f'{what} needs the "{extra}" extra: python -m pip install "crawlsim[{extra}]"'


def test_every_command_without_any_extra_shows_its_help(tmp_path: Path) -> None:
    """A user reads a command's --help before installing what it needs."""
    code = (
        "import contextlib, io\n"
        "from crawlsim.cli import COMMANDS, main\n"
        "for name in COMMANDS:\n"
        "    with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "        code = main([name, '--help'])\n"
        "    print(name, code, 'usage' in out.getvalue())\n"
    )
    done = without(EVERY_EXTRA, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:-1] == [f"{name} 0 True" for name in COMMANDS]


def test_the_main_job_runs_without_any_extra(tmp_path: Path) -> None:
    done = crawlsim_without(EVERY_EXTRA, ["run", "see-it", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"pages_fetched": 14' in done.stdout


def test_a_missing_module_that_is_not_the_extras_stays_itself() -> None:
    with pytest.raises(ModuleNotFoundError) as caught, needs("web", "crawlsim web"):
        import crawlsim_no_such_module  # noqa: F401
    assert not isinstance(caught.value, MissingExtraError)


def test_every_extra_named_in_a_message_is_one_pip_installs() -> None:
    """The install lines name extras of pyproject.toml; ``all`` holds every one, and ``test`` holds ``all``."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    (everything,) = extras["all"]
    assert everything.startswith("crawlsim[") and everything.endswith("]")
    assert set(everything[len("crawlsim["):-1].split(",")) == set(extras) - {"all", "test"}
    assert "crawlsim[all]" in extras["test"]
