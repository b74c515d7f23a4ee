"""``python -m crawlsim.real serve|crawl ...``: the same as ``crawlsim serve``/``crawlsim crawl``."""

import sys

from crawlsim.real.cli import main

sys.exit(main())
