"""``python -m crawlsim.real serve|crawl ...``: the same as ``crawlsim serve``/``crawlsim crawl``.

A script run by ``python -m``, not a module anything imports: it sits at the
top of the layers with the ``crawlsim`` command itself (the import contract
in pyproject.toml names this one exception), and hands its arguments to it.
"""

import sys

from crawlsim.cli import main

COMMANDS = ("serve", "crawl")

if __name__ == "__main__":
    argv = sys.argv[1:]
    if not argv or argv[0] not in COMMANDS:
        print("usage: python -m crawlsim.real {serve,crawl} ...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(argv))
