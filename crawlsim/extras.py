"""The optional parts of crawlsim, each installed as an extra named after its job.

The base install (``python -m pip install .``) is what the everyday commands
need: the scheduler, the simulation, the terminal app, ``run``/``compare``/
``sweep``, ``check``, ``crawl``/``serve``, ``html`` and ``model``.  The rest
is heavy (JupyterLab alone is dozens of packages) and only some users want
it, so it comes as extras (``pyproject.toml``), one per job: :data:`EXTRAS`.

A command or import that needs an extra which is not installed fails in one
line that names the extra and the command that installs it -- never a
traceback.  :func:`needs` is the one place that turns such an import's
:class:`ModuleNotFoundError` into that line, for every extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from crawlsim.errors import UsageError

EXTRAS: dict[str, tuple[str, ...]] = {
    "notebook": ("ipywidgets", "IPython"),
    "web": ("textual_serve",),
    "dask": ("dask", "distributed"),
    "video": ("imageio_ffmpeg",),
    "scrapy": ("scrapy",),
}
"""Each extra crawlsim's code imports -> the top-level modules it provides
(the ``docs`` and ``all`` extras are imported by no module of crawlsim)."""


class MissingExtraError(UsageError, ImportError):
    """An extra that is not installed: a user's mistake to the command line
    (one line, exit status 2), and an ``ImportError`` to Python code that
    imports an optional part of crawlsim."""

    def __init__(self, extra: str, what: str, otherwise: str = "") -> None:
        """``what`` needs ``extra``; ``otherwise``: another way, when there is one."""
        line = f'{what} needs the "{extra}" extra: {install_line(extra)}'
        super().__init__(f"{line}; {otherwise}" if otherwise else line)
        self.extra = extra


def install_line(extra: str) -> str:
    """The command that adds ``extra`` to an installed crawlsim.  Asking for
    ``crawlsim[...]`` by name keeps the crawlsim already installed, and so its
    build (compiled or pure): pip installs only what the extra adds."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; extras: {', '.join(EXTRAS)}")
    return f'python -m pip install "crawlsim[{extra}]"'


@contextmanager
def needs(extra: str, what: str) -> Iterator[None]:
    """Run the imports in this block; one of ``extra``'s modules missing is a
    :class:`MissingExtraError` saying ``what`` needs ``extra``.  Any other
    missing module is left as it is: it is not the extra's.

    ::

        with needs("web", "crawlsim web"):
            from textual_serve.server import Server
    """
    install_line(extra)  # an unknown extra is a bug here, not the user's mistake
    try:
        yield
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in EXTRAS[extra]:
            raise
        raise MissingExtraError(extra, what) from None


__all__ = ["EXTRAS", "MissingExtraError", "install_line", "needs"]
