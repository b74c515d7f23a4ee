"""``python -m crawlsim ...``: the same as the ``crawlsim`` command (useful
where the console script is not on PATH, and for scripts that start a
server with ``sys.executable``)."""

import sys

from crawlsim.cli import main

if __name__ == "__main__":
    sys.exit(main())
