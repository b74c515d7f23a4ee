"""Real HTTP: serve a scenario's web on loopback, and crawl over HTTP with
the same sans-I/O core (asyncio driver).  See ``server``, ``crawler``,
``files`` and ``cli``."""
