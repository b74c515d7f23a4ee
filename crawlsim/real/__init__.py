"""Real HTTP: serve a scenario's web on loopback, and crawl over HTTP with
the same sans-I/O core (asyncio driver).  See ``server``, ``crawler``,
``files``, ``timescale`` and ``flags``; the ``crawlsim serve`` and
``crawlsim crawl`` commands that use them are in :mod:`crawlsim.commands`."""
