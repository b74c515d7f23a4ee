"""``python -m crawlsim.check FILE.py:FUNCTION`` (same as ``crawlsim check``)."""

from crawlsim.check.cli import main

raise SystemExit(main())
