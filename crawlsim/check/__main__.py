"""``python -m crawlsim.check FILE.py:FUNCTION`` (same as ``crawlsim check``)."""

import sys

from crawlsim.check.cli import main
from crawlsim.errors import guarded

raise SystemExit(guarded(main, sys.argv[1:]))
