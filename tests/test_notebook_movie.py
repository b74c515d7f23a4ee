"""``crawlsim animate`` lives in the notebook package (``crawlsim.notebook.movie``):
the command finds it, and ``from crawlsim.notebook import animate`` is the
function whatever was imported first."""

from __future__ import annotations

import subprocess
import sys

from crawlsim.cli import COMMANDS


def test_the_animate_command_loads_the_notebook_movie_module() -> None:
    module, function, _ = COMMANDS["animate"]
    code = f"import {module} as m; print(callable(m.{function}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "True"


def test_notebook_animate_is_the_function_after_the_movie_module_loaded() -> None:
    # A submodule sets its name on its package when imported: were the movie
    # module called ``animate``, this import order would hand out the module.
    code = (
        "import crawlsim.notebook.movie\n"
        "from crawlsim.notebook import animate\n"
        "print(animate.__module__, animate.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["crawlsim.notebook.movie", "animate"]
