"""``python -m crawlsim.tui [SCENARIO | --trace FILE]``."""

from crawlsim.tui import main

raise SystemExit(main())
