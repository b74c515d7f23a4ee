"""Errors every layer may raise, in a module that imports nothing of crawlsim.

It sits below the core in the import layers (see ARCHITECTURE.md), so a
command, the terminal app and the real crawler's flags can all raise the one
:class:`UsageError` that ``crawlsim.cli`` turns into one line and exit status 2,
without importing the command-line entry point that loads them.
"""

from __future__ import annotations

EXIT_USAGE = 2
"""The exit status of a command-line mistake (argparse's own)."""


class UsageError(ValueError):
    """A command-line mistake.  The CLI prints ``crawlsim: error: <message>``
    on one line and exits with status 2."""
